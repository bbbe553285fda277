#!/bin/sh
# Compile-time benchmark (not a test): compiles each file given (default:
# every example and GPU test program) with `-O2 -c` by plain clang and by
# clang with both kfuse plugins, REPS times each (default 5, alternating),
# and prints a Markdown table row per file with the median CPU time
# (user + system, the compiler's child processes included: cc1 device and
# host, ptxas, fatbinary) and the difference. CPU time, not wall time, so
# that other work on the machine disturbs it less; run it on a quiet
# machine all the same. Usage:
#   sh bench/compile-time.sh [build-dir] [reps] [file.cu ...]
set -e
B=${1:-build}
REPS=${2:-5}
[ $# -ge 2 ] && shift 2 || shift $#
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CLANG=${KFUSE_CLANGXX:-clang++-22}
command -v "$CLANG" >/dev/null 2>&1 || CLANG=/usr/lib/llvm-22/bin/clang++
CUDA=${CUDA_PATH:-/usr/local/cuda}
PLUGINS="-fplugin=$B/lib/libkfuse_clang.so -fpass-plugin=$B/lib/libkfuse_llvm.so"
T=${TMPDIR:-/tmp}/kfct.$$
mkdir -p "$T"
trap 'rm -rf "$T"' EXIT
[ $# -gt 0 ] || set -- "$ROOT"/examples/*.cu "$ROOT"/tests/gpu/*.cu
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
cpu() { # extra flags..., file last
  /usr/bin/time -f '%U %S' -o "$T/t" "$CLANG" -x cuda --cuda-path="$CUDA" \
    --cuda-gpu-arch=sm_90 -Wno-unknown-cuda-version -O2 -I"$ROOT/include" \
    -I"$ROOT/examples" -I"$ROOT/tests/gpu" "$@" -c -o "$T/o.o" 2>/dev/null
  awk '{ print $1 + $2 }' "$T/t"
}
# "paired": the median over the repetitions of each pair's ratio (kfuse over
# the plain compile just before it), which drift of the machine's speed
# between repetitions disturbs less than the difference of the medians.
# "fastest": the difference of the two minima. Other work on the machine
# only ever adds time to a compile that does the same work each time, so the
# fastest of many repetitions is the least disturbed estimate of each.
echo "| file | plain clang | with kfuse | difference | paired | fastest |"
echo "|---|---|---|---|---|---|"
: > "$T/all"
for f in "$@"; do
  : > "$T/plain"
  : > "$T/kfuse"
  : > "$T/ratio"
  i=0
  while [ $i -lt "$REPS" ]; do
    a=$(cpu "$f")
    # shellcheck disable=SC2086
    b=$(cpu $PLUGINS "$f")
    echo "$a" >> "$T/plain"
    echo "$b" >> "$T/kfuse"
    echo "$a $b" | awk '{ printf "%.6f\n", $2 / $1 }' >> "$T/ratio"
    i=$((i + 1))
  done
  p=$(median < "$T/plain")
  k=$(median < "$T/kfuse")
  r=$(median < "$T/ratio")
  pm=$(sort -n "$T/plain" | head -1)
  km=$(sort -n "$T/kfuse" | head -1)
  echo "$p $k $pm $km" >> "$T/all"
  printf '| %s | %.2f s | %.2f s | %+.1f %% | %+.1f %% | %+.1f %% |\n' "$(basename "$f")" "$p" "$k" \
    "$(echo "100 * ($k - $p) / $p" | bc -l)" "$(echo "100 * ($r - 1)" | bc -l)" \
    "$(echo "100 * ($km - $pm) / $pm" | bc -l)"
done
awk '{ p += $1; k += $2; pm += $3; km += $4 } END {
  printf "| all %d files | %.2f s | %.2f s | %+.1f %% | | %+.1f %% |\n", NR, p, k, 100 * (k - p) / p, 100 * (km - pm) / pm }' "$T/all"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
