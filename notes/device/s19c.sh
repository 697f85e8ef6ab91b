#!/bin/bash
# third call: the sanitizers on the strided CuTe views' subset (each case its own process, 6 at a
# time; the issue-46 kernel among them), then top-k at rows of 4096, k = 8 and 32 (issue 47)
source .devkit/tools/env.sh
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1
pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl >/dev/null 2>&1
mkdir -p $OUT/s $OUT/t
python3 -m pytest --collect-only -q -m "gpu and sanitizer" tests/test_cutlass_strided.py 2>/dev/null | sed -n 's/.*\[\(.*\)\]$/\1/p' > $OUT/s/strided_ids.txt
for tool in memcheck synccheck racecheck; do
  xargs -P 6 -I{} sh -c "timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 python3 -m tests._strided_cute {} > $OUT/s/strided_${tool}_{}.log 2>&1; echo \"$tool {} rc=\$? \$(grep -h 'ERROR SUMMARY' $OUT/s/strided_${tool}_{}.log | tail -1) \$(tail -1 $OUT/s/strided_${tool}_{}.log)\"" < $OUT/s/strided_ids.txt
done | tee $OUT/s/strided_summary.txt
export PYTHONPATH=/tmp/site:$PYTHONPATH
for k in 8 32; do
  timeout 120 python3 benchmarks/rows.py --only topk --n 4096 --k $k --reps 3 --json $OUT/t/topk_k${k}_4096.json > $OUT/t/topk_k${k}_4096.log 2>&1
  echo "topk k=$k rc=$?"; grep -A6 "^| N | coop Numba" $OUT/t/topk_k${k}_4096.log
done
tar czf $OUT/s19c.tgz -C $OUT s t
