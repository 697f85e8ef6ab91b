#!/bin/bash
# Branch exchange-count (coop.block.exchange(valid_items=), issue 46 item 6), checked out in the
# working tree; .gpu/old/cuda/coop = main's library (git archive main cuda_coop). The exchange grid
# with its count cases on the three backends, its sanitizer configs, the example, then the compaction
# against main's library in the same call.
source .gpu/setup.sh
mkdir -p $OUT/x
timeout 200 python3 -m pytest -m gpu -n 15 -q -p no:cacheprovider -rfE -k "exchange" tests/test_numba_compute_gpu.py tests/test_cutlass_compute_gpu.py tests/test_examples.py > $OUT/x/tests.log 2>&1
echo "tests rc=$?"; grep -E "^FAILED|^ERROR|passed|failed" $OUT/x/tests.log | tail -5
timeout 120 python3 -m pytest -q -p no:cacheprovider -k grid_compaction tests/test_examples.py > $OUT/x/example.log 2>&1; echo "example rc=$?"; tail -1 $OUT/x/example.log
for tool in memcheck synccheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool --report-api-errors no --error-exitcode 9 python3 -m pytest -q -p no:xdist -p no:cacheprovider -m "gpu and sanitizer" -k "exchange" tests/test_numba_compute_gpu.py > $OUT/x/san_$tool.log 2>&1
  echo "$tool rc=$?"; grep -E "SUMMARY|passed|failed" $OUT/x/san_$tool.log | tail -2
done
for v in main branch main branch; do
  if [ $v = main ]; then P=.gpu/old:$PYTHONPATH; else P=$PYTHONPATH; fi
  PYTHONPATH=$P timeout 65 python3 benchmarks/grid.py --cub .gpu/cub_device --configs 0 --compact-tiles 384x17/3 --compact-orders block > $OUT/x/compact_$v.log 2>&1
  echo "$v rc=$?"; grep -A3 "^| coop tile" $OUT/x/compact_$v.log | tail -1
done
tar czf $OUT/s20x.tgz -C $OUT x
