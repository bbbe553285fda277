#!/bin/sh
# make demo: compile an example with kfuse-clang++ and show what kfuse did
# (remarks, launch sequences, predicted gain); with a GPU, run it fused and
# unfused and compare the outputs bit for bit.
#   sh tools/demo.sh [builddir]      DEMO_EXAMPLE=chain4 picks another example
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
case "$build" in /*) ;; *) build=$PWD/$build ;; esac
ex=${DEMO_EXAMPLE:-scale_add}
src=$root/examples/$ex.cu
cxx=$build/bin/kfuse-clang++
flags="-O2 -std=c++17 -I$root/examples -I$root/include"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kfuse-demo.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

[ -f "$src" ] || { echo "demo: no example $src" >&2; exit 1; }
[ -x "$cxx" ] || { echo "demo: $cxx is missing: run make build" >&2; exit 1; }

echo "== kfuse demo: examples/$ex.cu"
echo
echo "-- 1. Compile with the plugins, with fusion remarks"
echo "   kfuse-clang++ $flags -Rpass=kfuse -Rpass-missed=kfuse -Rpass-analysis=kfuse -c examples/$ex.cu"
# -c: the remarks come from the device and host compilations; linking is
# left to the build (it needs libkfuse_rt).
# shellcheck disable=SC2086
"$cxx" $flags -Rpass=kfuse -Rpass-missed=kfuse -Rpass-analysis=kfuse -c "$src" -o "$tmp/$ex.o" 2> "$tmp/remarks"
rc=$?
grep -E 'remark:' "$tmp/remarks" | grep -v 'analysis' | sed 's|^.*/examples/|   examples/|' > "$tmp/fused"
grep -E 'remark:' "$tmp/remarks" | grep 'analysis' | sed 's|^.*/examples/|   examples/|' > "$tmp/analysis"
if [ $rc -ne 0 ]; then
  echo "   compilation failed:"; sed 's/^/   /' "$tmp/remarks"; exit 1
fi
if [ -s "$tmp/fused" ]; then cat "$tmp/fused"
else echo "   (no fused / missed remarks: the device pass made no decision on this file)"; fi

echo
echo "-- 2. Launch sequences the Clang plugin found (kfuse.seq records, device IR before optimisation)"
# The device pass erases the records, so read them before any LLVM pass runs.
# shellcheck disable=SC2086
if "$cxx" $flags --cuda-device-only -S -emit-llvm -Xclang -disable-llvm-passes "$src" -o "$tmp/$ex.ll" 2> "$tmp/ir.err"; then
  # Records are C strings in the IR: c"kfuse.seq 1\0Asite ...\00".
  grep -o 'c"kfuse\.seq [^"]*"' "$tmp/$ex.ll" |
    sed -e 's/^c"//' -e 's/"$//' -e 's/\\00$//' -e 's/\\0A/\n/g' -e 's/\\22/"/g' -e 's/\\5C/\\/g' -e 's/\\09/\t/g' |
    sed 's/^/   /' > "$tmp/seqs"
  if [ -s "$tmp/seqs" ]; then cat "$tmp/seqs"
  else echo "   (none: the Clang plugin recorded no launch sequence)"; fi
else
  echo "   could not emit the device IR:"; sed 's/^/   /' "$tmp/ir.err"
fi

echo
echo "-- 3. Predicted gain (cost model, -Rpass-analysis=kfuse)"
if [ -s "$tmp/analysis" ]; then cat "$tmp/analysis"
else echo "   (no cost-model remarks)"; fi

echo
echo "-- 4. Run fused and unfused"
fused=$build/bin/examples/$ex
unfused=$fused.unfused
if ! nvidia-smi -L > "$tmp/smi" 2>&1 || ! grep -q '^GPU' "$tmp/smi"; then
  echo "   no GPU on this machine (nvidia-smi -L found none): not running."
  echo "   On a GPU machine: $fused --seed 1 --out f.bin; $unfused --seed 1 --out u.bin; cmp f.bin u.bin"
  exit 0
fi
echo "   $(head -n 1 "$tmp/smi")"
[ -x "$unfused" ] || { echo "   $unfused is missing: run make build" >&2; exit 1; }
status=0
for v in unfused fused; do
  bin=$unfused; [ $v = fused ] && bin=$fused
  if [ ! -x "$bin" ]; then
    echo "   $v: not built (libkfuse_rt missing)"; continue
  fi
  KFUSE_STATS=1 timeout 120 "$bin" --seed 1 --out "$tmp/$v.bin" > "$tmp/$v.out" 2> "$tmp/$v.err"
  r=$?
  printf '   %-8s %s\n' "$v:" "$(grep '^RESULT' "$tmp/$v.out" || echo "failed (exit $r)")"
  grep '^kfuse-stats' "$tmp/$v.err" | sed 's/^/            /'
  [ $r -eq 0 ] || { status=1; sed 's/^/            /' "$tmp/$v.err" | head -n 5; }
done
if [ -f "$tmp/fused.bin" ] && [ -f "$tmp/unfused.bin" ]; then
  if cmp -s "$tmp/fused.bin" "$tmp/unfused.bin"; then
    echo "   outputs: bit-identical ($(wc -c < "$tmp/fused.bin") bytes)"
  else
    echo "   outputs: DIFFERENT"; status=1
  fi
  awk '/^RESULT/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "median_ms") t[FILENAME] = kv[2] } }
       END { u = t[ARGV[1]]; f = t[ARGV[2]]; if (u > 0 && f > 0) printf "   speed-up (unfused/fused): %.2fx\n", u / f }' \
    "$tmp/unfused.out" "$tmp/fused.out"
fi
exit $status
