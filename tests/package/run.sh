#!/bin/sh
# Installs kfuse from build dir $1 into a scratch prefix and builds a consumer
# project against it with find_package(kfuse) + kfuse_enable().
#   run.sh <build> <src> <work> <clang++-22>
#     consumer/: one .cu file as CXX with clang++-22, then the same source
#     compiled with the installed kfuse-clang++
#   run.sh <build> <src> <work> <clang++-22> multi <CUDA|CXX> <clang|kfuse> <generator> <arch>
#     multi/: several files, whole-program and separable (-fgpu-rdc)
#     targets, static and shared libraries; the .cu files are the CUDA
#     language or CXX, compiled by clang++-22 or the installed kfuse-clang++
set -eu
build=$1 src=$2 work=$3 clangxx=$4
mode=${5:-consumer}
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
kc="$work/prefix/bin/kfuse-clang++"
tools=$(dirname "$(readlink -f "$clangxx")")

fail() { echo "$*"; exit 1; }

if [ "$mode" = consumer ]; then
  cmake -S "$src" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" \
    -DCMAKE_CXX_COMPILER="$clangxx" >"$work/configure.log" 2>&1 \
    || { cat "$work/configure.log"; exit 1; }
  cmake --build "$work/consumer" -v >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
  grep -q -- "-fplugin=$work/prefix" "$work/build.log" || fail "consumer was not compiled with the kfuse plugin"
  grep -q -- "-fpass-plugin=$work/prefix" "$work/build.log" || fail "consumer was not compiled with the kfuse pass plugin"
  grep -q -- "libkfuse_rt.a" "$work/build.log" || fail "consumer was not linked with the kfuse runtime"
  if grep -q "unknown attribute .kfuse_map" "$work/build.log"; then fail "the kfuse_map attribute was not recognised"; fi
  grep -q -- "$work/prefix/include" "$work/build.log" || fail "consumer was not compiled with kfuse's include directory"
  test -x "$work/consumer/consumer"
  # The installed kfuse-clang++ uses the installed plugins and headers, wherever
  # the build tree is: the same source gets its launches fused.
  if grep -q -- "$build" "$kc"; then fail "installed kfuse-clang++ names the build tree"; fi
  "$kc" -O2 --cuda-device-only -S -emit-llvm "$src/consumer.cu" -o "$work/consumer.ll" \
    || fail "installed kfuse-clang++ failed"
  grep -q "__kfuse_manifest" "$work/consumer.ll" || fail "installed kfuse-clang++ did not fuse"
  echo "package consumer built with kfuse_enable() and the installed kfuse-clang++"
  exit 0
fi

[ "$mode" = multi ] || fail "run.sh: unknown mode $mode"
lang=$6 compiler=$7 gen=$8 arch=$9
case "$compiler" in
  kfuse) cc=$kc ;;
  clang) cc=$clangxx ;;
  *) fail "run.sh: compiler is clang or kfuse, not $compiler" ;;
esac
set -- -G "$gen" -DCMAKE_PREFIX_PATH="$work/prefix" -DKF_LANG="$lang" -DCMAKE_BUILD_TYPE=Release
if [ "$lang" = CUDA ]; then
  # The C++ compiler stays the default one (gcc where it is installed):
  # kfuse_enable() has the CUDA compiler link. CMake 3.25 identifies a clang
  # CUDA compiler by compiling for its own guess of an architecture, then for
  # the compiler's default; clang++-22's default is older than CUDA 13 knows,
  # so it is given one (kfuse-clang++'s default is KFUSE_CUDA_ARCH).
  set -- "$@" -DCMAKE_CUDA_COMPILER="$cc" -DCMAKE_CUDA_ARCHITECTURES="${arch#sm_}"
  [ "$compiler" = kfuse ] || set -- "$@" -DCMAKE_CUDA_FLAGS="--cuda-gpu-arch=$arch"
else
  # CMake compiles a .cu file of the CXX language with "-x c++", which
  # clang, and so kfuse-clang++, obeys: -xcuda after it makes it CUDA again.
  set -- "$@" -DCMAKE_CXX_COMPILER="$cc"
  if [ "$compiler" = kfuse ]; then
    set -- "$@" "-DKF_CXX_CUDA_FLAGS=-xcuda"
  else
    set -- "$@" "-DKF_CXX_CUDA_FLAGS=-xcuda;--cuda-gpu-arch=$arch"
  fi
fi
# A copy of the sources, whose headers the test touches.
cp -R "$src/multi" "$work/src"
cmake -S "$work/src" -B "$work/multi" "$@" >"$work/configure.log" 2>&1 \
  || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/multi" -v >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }

# CMake's own device link (nvlink, fatbinary, crt/link.stub) cannot see clang's
# device code; kfuse_enable() turns it off and the link does it.
if grep -Eq "bin/nvlink |link\.stub" "$work/build.log"; then fail "CMake ran its nvcc-style device link"; fi
if grep -q "unknown attribute .kfuse_map" "$work/build.log"; then fail "the kfuse_map attribute was not recognised"; fi
grep -q -- "--offload-link" "$work/build.log" || fail "no link had --offload-link"
grep -q -- "-fgpu-rdc" "$work/build.log" || fail "no compile had -fgpu-rdc"

# Each program (the shared library, for its program) must carry linked device
# code with the fused kernel of fused.cu; the separable ones also the device
# function of helper.cu that fused.cu calls. A link without the device link
# makes a program with no .nv_fatbin at all, whose kernels never run.
readelf="$tools/llvm-readelf"
for t in whole separate separate_static libchain_shared.so; do
  f="$work/multi/$t"
  [ -f "$f" ] || fail "$t was not built"
  "$readelf" -S --wide "$f" | grep -q ' \.nv_fatbin ' || fail "$t has no device code (.nv_fatbin)"
  LC_ALL=C grep -aq "__kfuse_fused_" "$f" || fail "$t has no fused kernel"
  case "$t" in
    whole) ;;
    *) LC_ALL=C grep -aq "_Z8mf_twicef" "$f" || fail "$t lacks helper.cu's device function (no device link)" ;;
  esac
done
[ -x "$work/multi/separate_shared" ] || fail "separate_shared was not built"
echo "whole, separable, static and shared targets built with device code"

# The dependencies kfuse-clang++ wrote name the header only fused.cu's device
# compile includes: touching it rebuilds fused.cu and nothing else (of the
# target whole, to keep the test short). (clang's
# own -MD keeps only the host compile's headers.)
[ "$compiler" = kfuse ] || { echo "multi-file package consumer ($lang, $compiler, $gen): built"; exit 0; }
sleep 1
touch "$work/src/device_only.h"
cmake --build "$work/multi" --target whole -v >"$work/rebuild.log" 2>&1 || { cat "$work/rebuild.log"; exit 1; }
grep -q -- "-c $work/src/fused.cu" "$work/rebuild.log" || fail "changing a device-only header did not rebuild fused.cu"
if grep -q -- "-c $work/src/helper.cu" "$work/rebuild.log"; then fail "changing fused.cu's header rebuilt helper.cu"; fi
echo "multi-file package consumer ($lang, $compiler, $gen): whole, separable, static and shared targets built with device code; a device-only header rebuilds its file"
