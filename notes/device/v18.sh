#!/bin/bash
# the convergent fix (issue 46 item 1), tile_index(order="block") (item 6), the k = 32 top-k threshold (47)
source .devkit/tools/env.sh
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1
pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl >/dev/null 2>&1
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/hang.log
timeout 25 python3 .gpu/hang18.py constexpr cute >> $OUT/hang.log 2>&1; echo "constexpr cute rc=$?" | tee -a $OUT/hang.log
timeout -s INT 130 python3 -m pytest -m gpu -n 15 -q -p no:cacheprovider -rfE tests/test_cutlass_strided.py -k "unrolled or block or top_k" tests/test_warp_top_k_gpu.py tests/test_grid_gpu.py > $OUT/tests.log 2>&1
echo "tests rc=$?"; grep -E "^FAILED|^ERROR|passed|failed" $OUT/tests.log | head -12
timeout 60 python3 benchmarks/grid.py --cub .gpu/cub_device --configs 0 --compact-tiles 384x17/3 --compact-orders ticket,block,ticket,block > $OUT/compact.log 2>&1
echo "compact rc=$?"; grep -A8 "^compaction of" $OUT/compact.log
export PYTHONPATH=/tmp/site:$PYTHONPATH
timeout 80 python3 benchmarks/rows.py --only topk --n 1024 --k 32 --reps 3 --json $OUT/topk.json > $OUT/topk.log 2>&1
echo "topk rc=$?"; grep -B2 -A12 "^| N | coop Numba" $OUT/topk.log | head -30
