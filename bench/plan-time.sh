#!/bin/sh
# Plan-time benchmark (not a test): times kfuse-plan on synthetic instances
# like SCALE-LES (142 kernels, 64 arrays) and a 1000-kernel one, each run
# REPS times (default 3); prints a Markdown table row per instance with the
# median wall time, and the load average before and after. Usage:
#   sh bench/plan-time.sh [build-dir] [reps]
set -e
B=${1:-build}/bin/kfuse-plan
REPS=${2:-3}
T=${TMPDIR:-/tmp}/kfplan-bench.$$
mkdir -p "$T"
trap 'rm -rf "$T"' EXIT
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
run() { # kernels arrays seed max-group work-limit
  f=$T/s$1_$3.plan
  $B --generate --kernels $1 --arrays $2 --sharing 2:8 --seed $3 -o "$f"
  : > "$T/walls"
  i=0
  while [ $i -lt "$REPS" ]; do
    s=$(date +%s.%N)
    out=$($B -q --max-group $4 --work-limit $5 "$f" || true)
    e=$(date +%s.%N)
    echo "$e - $s" | bc >> "$T/walls"
    i=$((i + 1))
  done
  cands=$(echo "$out" | sed -n 's/.* \([0-9]*\) candidate groups (\([0-9]*\) before pruning.*/\2 \/ \1/p')
  gain=$(echo "$out" | sed -n 's/.*gain [^(]*(\([^)]*\)).*/\1/p')
  status=$(echo "$out" | sed -n 's/^status: //p')
  runs=$(echo "$out" | sed -n 's/^# solve: [^,]*, \([0-9]*\) CBC runs.*/\1/p')
  work=$(echo "$out" | sed -n 's/^# solve: .*, \([0-9]*\) work units$/\1/p')
  printf '| %d kernels, %d arrays, seed %d | %d | %s | %s | %.2f s | %s, gain %s, %s CBC runs, %s work units |\n' \
    $1 $2 $3 $4 $5 "$cands" "$(median < "$T/walls")" "$status" "$gain" "$runs" "$work"
}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo '| instance | k | work limit | candidates (enumerated / after pruning) | wall (median) | result |'
echo '|---|---|---|---|---|---|'
for seed in 1 2 3; do run 142 64 $seed 3 2000000; done
for seed in 1 2 3; do run 142 64 $seed 4 2000000; done
run 1000 450 1 3 20000000
run 1000 450 1 4 20000000
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
