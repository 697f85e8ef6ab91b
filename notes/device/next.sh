#!/bin/bash
source .devkit/tools/env.sh
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1
pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl >/dev/null 2>&1
mkdir -p $OUT/n
timeout 80 python3 -m pytest -m gpu -q -p no:cacheprovider tests/test_numba_launch_gpu.py -k "ordinary_launch_takes" --tb=short > $OUT/n/take.log 2>&1
grep -E "^E |err_msg|passed|failed|Error|line [0-9]+" $OUT/n/take.log | head -30
PYTHONPATH=/tmp/site:$PYTHONPATH timeout 90 python3 benchmarks/launch.py --launches 2000 --reps 9 --json $OUT/n/launch.json > $OUT/n/launch.log 2>&1
grep -E "goal|NO|yes|^\| coop|^\| raw|numba-cuda-mlir coop|plain call" $OUT/n/launch.log | head -40
timeout -s INT ${SUITE_S:-170} python3 -m pytest -m gpu -n 15 -q -p no:cacheprovider -rfE tests --deselect tests/test_warp_top_k_gpu.py --deselect tests/test_cutlass_front_door_gpu.py --deselect tests/test_cluster_gpu.py --deselect tests/test_models_gpu.py --deselect tests/test_numba_launch_gpu.py > $OUT/n/suite.log 2>&1
echo "rc=$?" >> $OUT/n/suite.log
tail -15 $OUT/n/suite.log
tar czf $OUT/next.tgz -C $OUT n && rm -rf $OUT/n
