#!/bin/bash
# cross-entropy and LayerNorm rows vs quack/liger, then the launch paths' GPU tests (carry .whl)
bash .gpu/s20_rows.sh
mkdir -p $OUT/r
WHL=1 source .gpu/setup.sh
timeout 170 python3 -m pytest -m gpu -n 8 -q -p no:cacheprovider -rfE tests/test_cutlass_front_door_gpu.py tests/test_numba_launch_gpu.py > $OUT/r/launch_tests.log 2>&1
echo "launch tests rc=$?"; grep -E "^FAILED|^ERROR|passed|failed" $OUT/r/launch_tests.log | tail -5
tar czf $OUT/s21r.tgz -C $OUT r
