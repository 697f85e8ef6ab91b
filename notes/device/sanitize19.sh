#!/bin/bash
# second call: memcheck, synccheck and racecheck on the strided CuTe sanitizer subset (unrolled cases
# among them) and the grid scans' (order="block" has no sanitizer case yet: run its three by name)
source .devkit/tools/env.sh
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1
mkdir -p $OUT/s
for tool in memcheck synccheck racecheck; do
  extra=""; [ $tool = racecheck ] && extra="--report-api-errors no"
  timeout 150 compute-sanitizer --tool $tool $extra --error-exitcode 9 python3 -m pytest -q -p no:xdist -p no:cacheprovider -m "gpu and sanitizer" tests/test_grid_gpu.py > $OUT/s/grid_$tool.log 2>&1
  echo "grid $tool rc=$?"; grep -E "ERROR SUMMARY|hazard|passed|failed" $OUT/s/grid_$tool.log | tail -3
done
for case in striped-sum-64x1-int32-static-unrolled direct-inclusive_sum-32x2-float32-dynamic-unrolled; do
  timeout 120 compute-sanitizer --tool synccheck python3 -m tests._strided_cute $case > $OUT/s/$case.log 2>&1; echo "$case rc=$?: $(tail -2 $OUT/s/$case.log | tr '\n' ' ')"
done
tar czf $OUT/sanitize19.tgz -C $OUT s
