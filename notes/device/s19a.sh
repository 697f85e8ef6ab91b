#!/bin/bash
# nineteenth session, first call (600 s alone): the whole GPU suite on this session's code (striped
# block loads/stores through coop_striped_runs, the grid's and strided views' sanitizer subsets)
source .devkit/tools/env.sh
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1
nvidia-smi --query-gpu=name --format=csv,noheader
mkdir -p $OUT/n
timeout -s INT ${SUITE_S:-570} python3 -m pytest -m gpu -n 15 -q -p no:cacheprovider -rfE tests > $OUT/n/suite.log 2>&1
echo "rc=$?" >> $OUT/n/suite.log; grep -E "^FAILED|^ERROR" $OUT/n/suite.log | head -30; tail -3 $OUT/n/suite.log
tar czf $OUT/s19a.tgz -C $OUT n
