#!/bin/bash
# first device call of the sixteenth session: the GPU tests of code no GPU ran yet, then launch + top-k benches
source .devkit/tools/env.sh
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1
pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl >/dev/null 2>&1
nvidia-smi --query-gpu=name --format=csv,noheader
mkdir -p $OUT/f
timeout -s INT ${SUITE_S:-260} python3 -m pytest -m gpu -n 15 -q -p no:cacheprovider -rfE \
  tests/test_warp_top_k_gpu.py tests/test_cutlass_front_door_gpu.py tests/test_numba_launch_gpu.py \
  tests/test_cluster_gpu.py tests/test_models_gpu.py > $OUT/f/tests.log 2>&1
echo "rc=$?" >> $OUT/f/tests.log
tail -30 $OUT/f/tests.log
export PYTHONPATH=/tmp/site:$PYTHONPATH
timeout 120 python3 benchmarks/launch.py --launches 2000 --reps 11 --json $OUT/f/launch.json > $OUT/f/launch.log 2>&1
tail -40 $OUT/f/launch.log
timeout ${BENCH_S:-150} python3 benchmarks/rows.py --only topk --n 1024 --n 4096 --k 16 --reps 5 --json $OUT/f/topk_k16.json > $OUT/f/topk_k16.log 2>&1
tail -30 $OUT/f/topk_k16.log
tar czf $OUT/first.tgz -C $OUT f && rm -rf $OUT/f
