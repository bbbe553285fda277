#!/bin/sh
# Installs the Debian packages kfuse builds against, only those missing, so a
# second run costs a dpkg query. Used by `make deps` (and so by demo and test).
set -eu
pkgs="clang-22 clang-tools-22 llvm-22-dev llvm-22-tools libclang-22-dev libzstd-dev coinor-libcbc-dev libcmocka-dev pkg-config cmake make"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "kfuse: installing$missing" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q >/dev/null
$SUDO apt-get install -y -q --no-install-recommends $missing >/dev/null
if [ ! -x /usr/local/cuda/bin/ptxas ]; then
  echo "kfuse: warning: no CUDA toolkit at /usr/local/cuda; CUDA examples and ptxas tests are skipped" >&2
fi
