#!/bin/bash
# compaction profile: CUB DeviceSelect::If (384x17 sweep) vs coop keep_positive 384x17/3
set -x
source .devkit/tools/env.sh
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1
mkdir -p $OUT/prof
ncu --version | tail -1
timeout 200 ncu --set full --import-source yes --kernel-name-base demangled -k regex:Positive -c 1 -o $OUT/prof/cub_if .gpu/cub_device 28 > $OUT/prof/cub_run.txt 2>&1
timeout 250 ncu --set full --import-source yes -k regex:keep_positive -c 1 -o $OUT/prof/coop python3 benchmarks/grid.py --cub .gpu/cub_device --configs 0 --compact-tiles 384x17/3 --compact-orders block > $OUT/prof/coop_run.txt 2>&1
for r in cub_if coop; do
  ncu -i $OUT/prof/$r.ncu-rep --page details --csv > $OUT/prof/${r}_details.csv 2>&1
  ncu -i $OUT/prof/$r.ncu-rep --page source --csv --print-source sass > $OUT/prof/${r}_sass.csv 2>&1
  ncu -i $OUT/prof/$r.ncu-rep --page source --csv --print-source cuda,sass > $OUT/prof/${r}_src.csv 2>&1
done
ls -la $OUT/prof
tar czf $OUT/prof.tgz -C $OUT prof && rm -rf $OUT/prof
