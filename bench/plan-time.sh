#!/bin/sh
# Plan-time benchmark (not a test): times kfuse-plan on synthetic instances
# like SCALE-LES (142 kernels, 64 arrays) and larger ones. Usage:
#   sh bench/plan-time.sh [build-dir]
set -e
B=${1:-build}/bin/kfuse-plan
T=${TMPDIR:-/tmp}/kfplan-bench.$$
mkdir -p "$T"
run() { # kernels arrays seed max-group time-limit
  f=$T/s$1_$3.plan
  $B --generate --kernels $1 --arrays $2 --sharing 2:8 --seed $3 -o "$f"
  s=$(date +%s.%N)
  out=$($B -q --max-group $4 --time-limit $5 "$f" || true)
  e=$(date +%s.%N)
  printf '%5d kernels %4d arrays seed %d k=%d limit %ss: %6.2f s  %s | %s\n' $1 $2 $3 $4 $5 \
    "$(echo "$e - $s" | bc)" "$(echo "$out" | sed -n 's/.*\(gain [^)]*)\).*/\1/p')" \
    "$(echo "$out" | grep status)"
}
for seed in 1 2 3; do run 142 64 $seed 3 30; done
for seed in 1 2 3; do run 142 64 $seed 4 30; done
run 1000 450 1 3 25
run 1000 450 1 4 25
rm -rf "$T"
