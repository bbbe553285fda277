#!/bin/sh
# Installs kfuse from build dir $1 into a scratch prefix and builds the
# consumer project against it with find_package(kfuse) + kfuse_enable(), then
# compiles it with the installed kfuse-clang++.
set -eu
build=$1 src=$2 work=$3 clangxx=$4
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$src" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_CXX_COMPILER="$clangxx" >"$work/configure.log" 2>&1 \
  || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/consumer" -v >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
grep -q -- "-fplugin=$work/prefix" "$work/build.log" || { echo "consumer was not compiled with the kfuse plugin"; exit 1; }
grep -q -- "-fpass-plugin=$work/prefix" "$work/build.log" || { echo "consumer was not compiled with the kfuse pass plugin"; exit 1; }
grep -q -- "libkfuse_rt.a" "$work/build.log" || { echo "consumer was not linked with the kfuse runtime"; exit 1; }
if grep -q "unknown attribute .kfuse_map" "$work/build.log"; then echo "the kfuse_map attribute was not recognised"; exit 1; fi
grep -q -- "$work/prefix/include" "$work/build.log" || { echo "consumer was not compiled with kfuse's include directory"; exit 1; }
test -x "$work/consumer/consumer"
# The installed kfuse-clang++ uses the installed plugins and headers, wherever
# the build tree is: the same source gets its launches fused.
kc="$work/prefix/bin/kfuse-clang++"
if grep -q -- "$build" "$kc"; then echo "installed kfuse-clang++ names the build tree"; exit 1; fi
"$kc" -O2 --cuda-device-only -S -emit-llvm "$src/consumer.cu" -o "$work/consumer.ll" \
  || { echo "installed kfuse-clang++ failed"; exit 1; }
grep -q "__kfuse_manifest" "$work/consumer.ll" || { echo "installed kfuse-clang++ did not fuse"; exit 1; }
echo "package consumer built with kfuse_enable() and the installed kfuse-clang++"
