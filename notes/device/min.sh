#!/bin/bash
source .devkit/tools/env.sh
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1
pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl >/dev/null 2>&1
nvidia-smi --query-gpu=name --format=csv,noheader
timeout -s INT ${SUITE_S:-230} python3 -m pytest -m gpu -n 15 -q -p no:cacheprovider -rfE tests/test_warp_top_k_gpu.py tests/test_cutlass_front_door_gpu.py ${MIN_EXTRA} > $OUT/min.log 2>&1
echo "rc=$?" >> $OUT/min.log
tail -25 $OUT/min.log
export PYTHONPATH=/tmp/site:$PYTHONPATH
timeout ${BENCH_S:-100} python3 benchmarks/rows.py --only topk --n 1024 --n 4096 --k 16 --reps 5 --json $OUT/topk_k16.json > $OUT/topk_k16.log 2>&1
tail -30 $OUT/topk_k16.log
