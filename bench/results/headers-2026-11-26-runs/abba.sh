#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench/pipeline four times in ABBA order, A the tree before issue 20 part 3, B this one.
# A = BASE (a release build of df8f3d5, the main this branch started from), B = this tree.
cd "$(dirname "$0")/../../.."
i=0
for side in A B B A; do
  i=$((i+1))
  if [ $side = A ]; then b=${BASE:-/tmp/h20base/build}; else b=build; fi
  .venv/bin/python bench/pipeline/run.py --build $b --rounds 3 --seconds 3 > ${OUT:-/tmp/h20bench}/run$i-$side.md 2>&1
done
echo finished > ${OUT:-/tmp/h20bench}/done
