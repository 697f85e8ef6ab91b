#!/bin/bash
source .devkit/tools/env.sh
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1
timeout 60 python3 -m pytest -m gpu -q -p no:cacheprovider -x tests/test_numba_launch_gpu.py -k "ordinary_launch_takes" > $OUT/take.log 2>&1
grep -E "^E |err_msg|passed|failed" $OUT/take.log | head -24
KS=8 BENCH_S=80 bash .gpu/after.sh
