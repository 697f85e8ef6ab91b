#!/bin/bash
# Branch block-topk checked out: coop.block.top_k(algorithm="threshold") (one block-wide threshold,
# warp 0 selects among the keys that reach it). The sort grid's threshold cases on the three backends,
# racecheck/synccheck on one kernel, then benchmarks/block_top_k.py (radix vs threshold vs quack vs
# torch). If threshold wins everywhere it fits, make it "auto" (rank.py _check_top_k) and merge.
WHL=1 source .gpu/setup.sh
mkdir -p $OUT/k
timeout 240 python3 -m pytest -m gpu -n 15 -q -p no:cacheprovider -rfE -k "top_k or sort-" tests/test_sort_numba_gpu.py tests/test_sort_cutlass_gpu.py > $OUT/k/tests.log 2>&1
echo "tests rc=$?"; grep -E "^FAILED|^ERROR|passed|failed" $OUT/k/tests.log | tail -8
for tool in racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 python3 -m pytest -q -p no:xdist -p no:cacheprovider -m gpu -k "top_k-float32 and numba and not mlir" tests/test_sort_numba_gpu.py > $OUT/k/$tool.log 2>&1
  echo "$tool rc=$?"; grep -E "SUMMARY|passed|failed" $OUT/k/$tool.log | tail -2
done
timeout 200 python3 benchmarks/block_top_k.py --rows 16384 --reps 9 --json $OUT/k/block_top_k.json > $OUT/k/bench.log 2>&1
echo "bench rc=$?"; grep -A8 "^row top-k" $OUT/k/bench.log
tar czf $OUT/s21k.tgz -C $OUT k
