#!/bin/bash
# session 17, call 3: top-k k = 8 and 32 (the primitive vs quack), launch timings
source .devkit/tools/env.sh
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1
pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PYTHONPATH
mkdir -p $OUT/s3
nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/s3/card.txt
for k in ${KS:-8 32}; do timeout ${BENCH_S:-150} python3 benchmarks/rows.py --only topk --n 1024 --n 4096 --k $k --reps 3 --json $OUT/s3/topk_k$k.json > $OUT/s3/topk_k$k.log 2>&1; grep -A4 "^| N | coop Numba" $OUT/s3/topk_k$k.log; done
timeout 60 python3 benchmarks/launch_parts.py > $OUT/s3/micro.log 2>&1; head -6 $OUT/s3/micro.log
timeout 100 python3 benchmarks/launch.py --launches 2000 --reps 11 --json $OUT/s3/launch.json > $OUT/s3/launch.log 2>&1
grep -E "^\| coop|^\| raw|^\| CuTe: cuda.coop plain|goal|NO|yes" $OUT/s3/launch.log | head -40
tar czf $OUT/s3.tgz -C $OUT s3
