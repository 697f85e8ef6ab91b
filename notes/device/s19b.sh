#!/bin/bash
# second call: the compaction (issue 46 item 6) with the striped store's uniform exit (this tree) and
# without it (.gpu/old: the library at the commit before), alternating; then the sanitizers on the
# grid scans' subset
source .devkit/tools/env.sh
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1
nvidia-smi --query-gpu=name --format=csv,noheader
mkdir -p $OUT/c $OUT/s
for i in 1 2; do
  timeout 70 python3 benchmarks/grid.py --cub .gpu/cub_device --configs 0 --compact-tiles 384x17/3 --compact-orders block,ticket > $OUT/c/new$i.log 2>&1
  echo "new$i rc=$?"; grep -A6 "^compaction of" $OUT/c/new$i.log
  PYTHONPATH=.gpu/old timeout 70 python3 benchmarks/grid.py --cub .gpu/cub_device --configs 0 --compact-tiles 384x17/3 --compact-orders block,ticket > $OUT/c/old$i.log 2>&1
  echo "old$i rc=$?"; grep -A6 "^compaction of" $OUT/c/old$i.log
done
for tool in memcheck synccheck racecheck; do
  extra=""; [ $tool = racecheck ] && extra="--report-api-errors no"
  timeout 100 compute-sanitizer --tool $tool $extra --error-exitcode 9 python3 -m pytest -q -p no:xdist -p no:cacheprovider -m "gpu and sanitizer" tests/test_grid_gpu.py > $OUT/s/grid_$tool.log 2>&1
  echo "grid $tool rc=$?"; grep -E "ERROR SUMMARY|hazard|passed|failed" $OUT/s/grid_$tool.log | tail -2
done
tar czf $OUT/s19b.tgz -C $OUT c s
