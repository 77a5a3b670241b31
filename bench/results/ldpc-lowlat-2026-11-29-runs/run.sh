#!/bin/sh
# Interleaved rounds: main's hp-ldpc (f303594) and this branch's, same frames.
OLD=/tmp/ldpc-main/build/bench/ldpc/hp-ldpc
NEW=/work/wt/ldpc/build/bench/ldpc/hp-ldpc
for r in 1 2 3; do
  echo "=== round $r $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "--- old nr:1:384"; $OLD bench --code nr:1:384 --ebn0 2 --iters 5 --no-early-stop --isa all --seconds 1.5
  echo "--- new nr:1:384"; $NEW bench --code nr:1:384 --ebn0 2 --iters 5 --no-early-stop --isa all --mode both --seconds 1.5
  echo "--- old wifi:1944:1/2"; $OLD bench --code wifi:1944:1/2 --ebn0 2.5 --iters 10 --no-early-stop --isa all --seconds 1.5
  echo "--- new wifi:1944:1/2"; $NEW bench --code wifi:1944:1/2 --ebn0 2.5 --iters 10 --no-early-stop --isa all --mode both --seconds 1.5
done
echo "=== end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
