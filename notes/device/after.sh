#!/bin/bash
source .devkit/tools/env.sh
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1
pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PYTHONPATH
mkdir -p $OUT/a
timeout 60 python3 benchmarks/launch_parts.py > $OUT/a/micro.log 2>&1; head -6 $OUT/a/micro.log
timeout 100 python3 benchmarks/launch.py --launches 2000 --reps 11 --json $OUT/a/launch.json > $OUT/a/launch.log 2>&1
grep -E "^\| coop|^\| raw|^\| CuTe: cuda.coop plain|goal|NO|yes" $OUT/a/launch.log | head -40
for k in ${KS:-8 32}; do timeout ${BENCH_S:-100} python3 benchmarks/rows.py --only topk --n 1024 --n 4096 --k $k --reps 3 --json $OUT/a/topk_k$k.json > $OUT/a/topk_k$k.log 2>&1; grep -A4 "^| N | coop Numba" $OUT/a/topk_k$k.log; done
tar czf $OUT/after.tgz -C $OUT a && rm -rf $OUT/a
