#!/bin/bash
# top-k k = 8 at rows of 4096 (did not finish on 12-07), and an ncu profile of the k = 32 rows of 1024
# (primitive 0.80x quack there) for the instruction mix of the first tile's merges
source .devkit/tools/env.sh
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1
pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PYTHONPATH
mkdir -p $OUT/t
timeout 150 python3 benchmarks/rows.py --only topk --n 4096 --k 8 --reps 3 --json $OUT/t/topk_k8_4096.json > $OUT/t/topk_k8_4096.log 2>&1
grep -A4 "^| N | coop Numba" $OUT/t/topk_k8_4096.log
timeout 200 ncu --set full -k regex:row_top_k -c 1 -o $OUT/t/topk32 python3 .gpu/topk_repro.py 32 32 4096 1024 > $OUT/t/ncu.txt 2>&1
ncu -i $OUT/t/topk32.ncu-rep --page details --csv > $OUT/t/topk32_details.csv 2>&1
tar czf $OUT/topk18.tgz -C $OUT t
