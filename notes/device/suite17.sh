#!/bin/bash
# session 17, call 1: the split take() test, then the whole GPU suite (logs land in $OUT as they grow)
source .devkit/tools/env.sh
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1
mkdir -p $OUT/s1
nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/s1/card.txt
timeout 80 python3 -m pytest -m gpu -q -p no:cacheprovider tests/test_numba_launch_gpu.py -k "ordinary_launch_takes" --tb=short > $OUT/s1/take.log 2>&1
grep -E "^E |passed|failed|Error" $OUT/s1/take.log | head -20
timeout -s INT ${SUITE_S:-470} python3 -m pytest -m gpu -n 15 -q -p no:cacheprovider -rfE --durations=15 tests > $OUT/s1/suite.log 2>&1
echo "rc=$?" >> $OUT/s1/suite.log
grep -E "^FAILED|^ERROR" $OUT/s1/suite.log | head -40
tail -4 $OUT/s1/suite.log
tar czf $OUT/s1.tgz -C $OUT s1
