#!/bin/bash
# One lean call (TOTAL seconds, default 300): the threshold top-k benchmark (exactness asserted on
# random rows), its family grid on the three backends, then the compaction HEAD vs HEAD with the
# select look-back delay, each step only while time is left.
TOTAL=${TOTAL:-300}; T0=$SECONDS; left() { echo $(( TOTAL - (SECONDS - T0) )); }
WHL=1 source .gpu/setup.sh
mkdir -p $OUT/k
timeout $(( $(left) < 140 ? $(left) : 140 )) python3 benchmarks/block_top_k.py --rows 16384 --reps 5 --json $OUT/k/block_top_k.json > $OUT/k/bench.log 2>&1
echo "bench rc=$?"; grep -A12 "^| N" $OUT/k/bench.log | head -20; tail -2 $OUT/k/bench.log
L=$(left); [ $L -gt 60 ] && { timeout $(( L - 50 < 120 ? L - 50 : 120 )) python3 -m pytest -m gpu -n 15 -q -p no:cacheprovider -rfE -k "top_k" tests/test_sort_numba_gpu.py tests/test_sort_cutlass_gpu.py > $OUT/k/tests.log 2>&1;
  echo "tests rc=$?"; grep -E "^FAILED|^ERROR|passed|failed" $OUT/k/tests.log | tail -8; }
L=$(left); [ $L -gt 100 ] && VERSIONS="head delay" source .gpu/s21_c.sh
tar czf $OUT/s21lean.tgz -C $OUT k c
