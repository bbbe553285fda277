#!/bin/sh
# Plan-time benchmark over the synthetic suite (not a test): instances like
# the scalable-fusion paper's test suite, kernels 10..100 x arrays 20..200,
# sharing-set sizes 2..8, SEEDS seeds each (default 5), planned with
# `kfuse-plan -q --max-group K --work-limit 2000000` (K default 4; the default limit). Prints a
# Markdown row per (kernels, arrays): median candidates, median and largest
# wall time, and how many plans were proven optimal. Usage:
#   sh bench/plan-suite.sh [build-dir] [seeds] [k]
set -e
B=${1:-build}/bin/kfuse-plan
SEEDS=${2:-5}
K=${3:-4}
T=${TMPDIR:-/tmp}/kfplan-suite.$$
mkdir -p "$T"
trap 'rm -rf "$T"' EXIT
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| kernels | arrays | candidates (median) | wall median | wall max | proven optimal |"
echo '|---|---|---|---|---|---|'
for n in 10 25 50 75 100; do
  for a in 20 50 100 200; do
    : > "$T/walls"
    : > "$T/cands"
    opt=0
    s=1
    while [ $s -le "$SEEDS" ]; do
      f=$T/i.plan
      $B --generate --kernels $n --arrays $a --sharing 2:8 --seed $s -o "$f"
      t0=$(date +%s.%N)
      out=$($B -q --max-group "$K" --work-limit 2000000 "$f" || true)
      t1=$(date +%s.%N)
      echo "$t1 - $t0" | bc >> "$T/walls"
      echo "$out" | sed -n 's/.*, \([0-9]*\) candidate groups.*/\1/p' >> "$T/cands"
      if echo "$out" | grep -q '^status: optimal'; then opt=$((opt + 1)); fi
      s=$((s + 1))
    done
    printf '| %d | %d | %s | %.2f s | %.2f s | %d of %d |\n' $n $a "$(median < "$T/cands")" \
      "$(median < "$T/walls")" "$(sort -n "$T/walls" | tail -1)" $opt "$SEEDS"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
