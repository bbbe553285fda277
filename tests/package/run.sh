#!/bin/sh
# Installs kfuse from build dir $1 into a scratch prefix and builds the
# consumer project against it with find_package(kfuse) + kfuse_enable().
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
test -x "$work/consumer/consumer"
echo "package consumer built with kfuse_enable()"
