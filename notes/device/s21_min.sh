#!/bin/bash
# The one call if only one comes (<= ~450 s): the threshold top-k's family grid, its benchmark against
# the radix select and quack, the compaction (HEAD, HEAD with the select look-back delay, 6a46c34).
WHL=1 source .gpu/setup.sh
ROOT=$PWD; mkdir -p $OUT/k $OUT/c /tmp/mainrepo && tar xf .gpu/main.tar -C /tmp/mainrepo
timeout 150 python3 -m pytest -m gpu -n 15 -q -p no:cacheprovider -rfE -k "top_k" tests/test_sort_numba_gpu.py tests/test_sort_cutlass_gpu.py > $OUT/k/tests.log 2>&1
echo "tests rc=$?"; grep -E "^FAILED|^ERROR|passed|failed" $OUT/k/tests.log | tail -8
timeout 150 python3 benchmarks/block_top_k.py --rows 16384 --reps 5 --json $OUT/k/block_top_k.json > $OUT/k/bench.log 2>&1
echo "bench rc=$?"; grep -A12 "^| N" $OUT/k/bench.log | head -30; tail -3 $OUT/k/bench.log
for v in head d76 main; do
  if [ $v = main ]; then
    (cd /tmp/mainrepo && PYTHONPATH=$ROOT/.gpu/old:$PYTHONPATH timeout 45 python3 benchmarks/grid.py --cub $ROOT/.gpu/cub_device --configs 0 --compact-tiles 384x17/3 --compact-orders block >> $OUT/c/compact_$v.log 2>&1)
  elif [ $v = d76 ]; then
    PYTHONPATH=$ROOT/.gpu/d76:$PYTHONPATH timeout 45 python3 benchmarks/grid.py --cub .gpu/cub_device --configs 0 --compact-tiles 384x17/3 --compact-orders block >> $OUT/c/compact_$v.log 2>&1
  else
    timeout 45 python3 benchmarks/grid.py --cub .gpu/cub_device --configs 0 --compact-tiles 384x17/3 --compact-orders block >> $OUT/c/compact_$v.log 2>&1
  fi
  echo "$v rc=$?"; grep "384x17/3 block |" $OUT/c/compact_$v.log | tail -1
done
tar czf $OUT/s21min.tgz -C $OUT k c
