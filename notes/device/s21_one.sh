#!/bin/bash
# If only one call comes: the threshold top-k's GPU cases and benchmark, the compaction (main, HEAD,
# HEAD with the select look-back delay), launch.py's goals. Carry .gpu, .whl, .devkit/tools.
WHL=1 source .gpu/setup.sh
mkdir -p $OUT/k $OUT/l
timeout 200 python3 -m pytest -m gpu -n 15 -q -p no:cacheprovider -rfE -k "top_k or sort-" tests/test_sort_numba_gpu.py tests/test_sort_cutlass_gpu.py > $OUT/k/tests.log 2>&1
echo "tests rc=$?"; grep -E "^FAILED|^ERROR|passed|failed" $OUT/k/tests.log | tail -8
timeout 160 python3 benchmarks/block_top_k.py --rows 16384 --reps 7 --json $OUT/k/block_top_k.json > $OUT/k/bench.log 2>&1
echo "bench rc=$?"; grep -A10 "^row top-k\|^| N" $OUT/k/bench.log | head -30
VERSIONS="head delay main" source .gpu/s21_c.sh
timeout 90 python3 benchmarks/launch.py --launches 2000 --reps 7 --json $OUT/l/launch.json > $OUT/l/launch.log 2>&1
echo "launch rc=$?"; grep -E "^\| coop|^\| raw|^\| CuTe|goal|NO|yes" $OUT/l/launch.log | head -50
tar czf $OUT/s21one.tgz -C $OUT k c l
