#!/bin/bash
# ABBA interleaved: A = 20b9f8a (/work/wt/base), B = main (/work/main)
mkdir -p /tmp/ab; cd /tmp/ab
i=0
for o in A B B A A B B A; do
  i=$((i+1))
  if [ $o = A ]; then T=/work/wt/base; else T=/work/main; fi
  (cd $T && /work/main/.venv/bin/python bench/pipeline/run.py --build $T/build --seconds 4 --rounds 3) > $o$i-pipe.txt 2>&1
  (cd $T && /work/main/.venv/bin/python bench/tasks/run.py --build $T/build --seconds 1) > $o$i-tasks.txt 2>&1
  echo "$o$i done $(date +%T) load $(cut -d' ' -f1 /proc/loadavg)"
done
