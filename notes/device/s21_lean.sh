#!/bin/bash
# One lean call (TOTAL seconds, default 300): the threshold top-k benchmark (exactness asserted on
# random rows), its family grid on the three backends, then the compaction HEAD vs HEAD with the
# select look-back delay, each step only while time is left.
TOTAL=${TOTAL:-300}; T0=$SECONDS; left() { echo $(( TOTAL - (SECONDS - T0) )); }
WHL=1 source .gpu/setup.sh
ROOT=$PWD; mkdir -p $OUT/k $OUT/c
timeout $(( $(left) < 140 ? $(left) : 140 )) python3 benchmarks/block_top_k.py --rows 16384 --reps 5 --json $OUT/k/block_top_k.json > $OUT/k/bench.log 2>&1
echo "bench rc=$?"; grep -A12 "^| N" $OUT/k/bench.log | head -20; tail -2 $OUT/k/bench.log
L=$(left); [ $L -gt 60 ] && { timeout $(( L - 50 < 120 ? L - 50 : 120 )) python3 -m pytest -m gpu -n 15 -q -p no:cacheprovider -rfE -k "top_k" tests/test_sort_numba_gpu.py tests/test_sort_cutlass_gpu.py > $OUT/k/tests.log 2>&1;
  echo "tests rc=$?"; grep -E "^FAILED|^ERROR|passed|failed" $OUT/k/tests.log | tail -8; }
for v in head d76 head d76; do
  L=$(left); [ $L -lt 25 ] && break
  if [ $v = d76 ]; then P=$ROOT/.gpu/d76:$PYTHONPATH; else P=$PYTHONPATH; fi
  PYTHONPATH=$P timeout $(( L < 45 ? L : 45 )) python3 benchmarks/grid.py --cub .gpu/cub_device --configs 0 --compact-tiles 384x17/3 --compact-orders block >> $OUT/c/compact_$v.log 2>&1
  echo "$v rc=$?"; grep "384x17/3 block |" $OUT/c/compact_$v.log | tail -1
done
tar czf $OUT/s21lean.tgz -C $OUT k c
