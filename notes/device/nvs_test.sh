#!/bin/bash
source .devkit/tools/env.sh
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1
export PYTHONPATH=$PYTHONPATH:/tmp/nvsite
timeout 150 python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_nvshmem_gpu.py --tb=short > $OUT/nvs.log 2>&1
echo "rc=$?" >> $OUT/nvs.log
grep -E "^E |passed|failed|skipped|rc=" $OUT/nvs.log | head -30
