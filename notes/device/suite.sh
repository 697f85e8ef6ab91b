#!/bin/bash
source .devkit/tools/env.sh
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1
pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl >/dev/null 2>&1
nvidia-smi --query-gpu=name --format=csv,noheader
timeout -s INT ${SUITE_S:-330} python3 -m pytest -m gpu -n 15 -q -p no:cacheprovider -rfE tests/test_cutlass_front_door_gpu.py tests/test_warp_top_k_gpu.py tests/test_examples.py tests/test_cutlass_gpu.py tests > $OUT/suite.log 2>&1
echo "rc=$?" >> $OUT/suite.log
tail -40 $OUT/suite.log
