#!/bin/sh
# Runs a command while N busy loops (default 4) load the machine's cores,
# then stops the loops it started: tests compare what the compiler writes
# under load with what it writes idle. Usage: under-load.sh [-n N] CMD ARGS...
n=4
if [ "$1" = "-n" ]; then n=$2; shift 2; fi
pids=
i=0
while [ $i -lt "$n" ]; do
  sh -c 'while :; do :; done' &
  pids="$pids $!"
  i=$((i + 1))
done
"$@"
rc=$?
for p in $pids; do kill "$p" 2>/dev/null; done
for p in $pids; do wait "$p" 2>/dev/null; done
exit $rc
