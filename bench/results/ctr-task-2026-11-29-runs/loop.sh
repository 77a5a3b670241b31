#!/bin/bash
# alternate after/before runs of ctr-task-bench, logging the load
n=0
while [ $(date +%s) -lt $(date -d "05:33" +%s) ]; do
  n=$((n+1))
  for v in after before; do
    f=./run$(printf %02d $n)-$v.txt
    { echo "date: $(date -u +%FT%TZ)"; echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)";
      taskset -c 1 /tmp/ctr-$v-bench --seconds 0.5 --rounds 5 2>/dev/null;
      echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"; } > $f
  done
  sleep 20
done
