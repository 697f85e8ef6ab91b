#!/bin/bash
source .devkit/tools/env.sh
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1
timeout 60 python3 -m pytest -m gpu -q -p no:cacheprovider -x tests/test_numba_launch_gpu.py -k "ordinary_launch_takes" > $OUT/take.log 2>&1
grep -E "Error|assert|^E " $OUT/take.log | head -30
timeout -s INT ${SUITE_S:-330} python3 -m pytest -m gpu -n 15 -q -p no:cacheprovider -rfE tests --deselect tests/test_warp_top_k_gpu.py --deselect tests/test_cutlass_front_door_gpu.py --deselect tests/test_cluster_gpu.py --deselect tests/test_models_gpu.py > $OUT/suite.log 2>&1
echo "rc=$?" >> $OUT/suite.log
tail -25 $OUT/suite.log
