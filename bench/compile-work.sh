#!/bin/sh
# Compile-work benchmark (not a test): the instructions each compilation
# step executes, counted by valgrind (cachegrind without cache simulation),
# for plain clang and for clang with both kfuse plugins. Unlike CPU time
# (bench/compile-time.sh) the count does not depend on the machine's load:
# the same compile executes the same instructions, so a difference of a
# fraction of a percent is real. It is work, not time: steps differ in
# instructions per second (ptxas runs fewer, heavier ones than cc1).
# Prints a Markdown table row per file: millions of instructions of the
# device cc1, ptxas and host cc1 (fatbinary is negligible), and the total.
# Usage:
#   sh bench/compile-work.sh [build-dir] [file.cu ...]
set -e
B=${1:-build}
[ $# -ge 1 ] && shift
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CLANG=${KFUSE_CLANGXX:-clang++-22}
command -v "$CLANG" >/dev/null 2>&1 || CLANG=/usr/lib/llvm-22/bin/clang++
command -v valgrind >/dev/null 2>&1 || { echo "compile-work: needs valgrind" >&2; exit 2; }
CUDA=${CUDA_PATH:-/usr/local/cuda}
PLUGINS="-fplugin=$B/lib/libkfuse_clang.so -fpass-plugin=$B/lib/libkfuse_llvm.so"
T=${TMPDIR:-/tmp}/kfcw.$$
mkdir -p "$T"
trap 'rm -rf "$T"' EXIT
[ $# -gt 0 ] || set -- "$ROOT"/examples/*.cu
# Instructions (millions) of each step of one compile: device cc1, ptxas,
# fatbinary, host cc1, as the driver runs them (-###).
steps() { # extra flags..., file last
  "$CLANG" -x cuda --cuda-path="$CUDA" --cuda-gpu-arch=sm_90 -Wno-unknown-cuda-version -O2 \
    -I"$ROOT/include" -I"$ROOT/examples" -I"$ROOT/tests/gpu" "$@" -c -o "$T/o.o" -### 2>&1 |
    grep '^ "' > "$T/cmds"
  while read -r line; do
    valgrind --tool=cachegrind --cache-sim=no --trace-children=yes \
      --cachegrind-out-file=/dev/null sh -c "$line" > /dev/null 2> "$T/err"
    grep 'I *refs' "$T/err" | awk '{ gsub(",", "", $NF); s += $NF } END { printf "%.0f\n", s / 1e6 }'
  done < "$T/cmds" | tr '\n' ' '
}
echo "| file | plain: device cc1, ptxas, host cc1 | with kfuse | total plain | total with kfuse | difference |"
echo "|---|---|---|---|---|---|"
for f in "$@"; do
  # shellcheck disable=SC2046
  set -- $(steps "$f") $(steps $PLUGINS "$f")
  printf '| %s | %s, %s, %s | %s, %s, %s | %d | %d | %+.1f %% |\n' "$(basename "$f")" \
    "$1" "$2" "$4" "$5" "$6" "$8" $(($1 + $2 + $3 + $4)) $(($5 + $6 + $7 + $8)) \
    "$(echo "100 * ($5 + $6 + $7 + $8 - $1 - $2 - $3 - $4) / ($1 + $2 + $3 + $4)" | bc -l)"
done
