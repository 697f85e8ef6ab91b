#!/bin/bash
# cross-entropy and LayerNorm rows vs quack/liger, then the launch paths' GPU tests (carry .whl)
WHL=1 source .gpu/setup.sh
mkdir -p $OUT/r
for k in cross_entropy layernorm; do
  timeout 170 python3 benchmarks/rows.py --only $k --n 4096 --reps 5 --json $OUT/r/$k.json > $OUT/r/$k.log 2>&1
  echo "$k rc=$?"; grep -B1 -A12 "^| N | coop Numba" $OUT/r/$k.log | head -30
done
timeout 170 python3 -m pytest -m gpu -n 8 -q -p no:cacheprovider -rfE tests/test_cutlass_front_door_gpu.py tests/test_numba_launch_gpu.py > $OUT/r/launch_tests.log 2>&1
echo "launch tests rc=$?"; grep -E "^FAILED|^ERROR|passed|failed" $OUT/r/launch_tests.log | tail -5
tar czf $OUT/s21r.tgz -C $OUT r
