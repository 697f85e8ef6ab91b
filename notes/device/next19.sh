#!/bin/bash
# nineteenth session, first call (give it 600 s alone): the whole GPU suite on the eighteenth
# session's code (convergent declarations, GridTileOrder, the top-k threshold and its new cases)
source .devkit/tools/env.sh
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1
mkdir -p $OUT/n
timeout -s INT ${SUITE_S:-560} python3 -m pytest -m gpu -n 15 -q -p no:cacheprovider -rfE tests > $OUT/n/suite.log 2>&1
echo "rc=$?" >> $OUT/n/suite.log; grep -E "^FAILED|^ERROR" $OUT/n/suite.log | head -30; tail -3 $OUT/n/suite.log
tar czf $OUT/next19.tgz -C $OUT n
