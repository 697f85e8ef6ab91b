#!/bin/bash
# The GPU suite in two calls (it outgrew one call's 600 s on 12-07: 1749 passed in 450 s, not done):
# `bash .gpu/suite_half.sh A` runs the files test_a* .. test_m*, `B` the rest.
source .gpu/setup.sh
if [ "$1" = A ]; then files=$(ls tests/test_[a-m]*.py); else files=$(ls tests/test_[n-z]*.py); fi
mkdir -p $OUT/n
timeout -s INT ${SUITE_S:-560} python3 -m pytest -m gpu -n 15 -q -p no:cacheprovider -rfE $files > $OUT/n/suite_$1.log 2>&1
echo "rc=$?" >> $OUT/n/suite_$1.log; grep -E "^FAILED|^ERROR" $OUT/n/suite_$1.log | head -30; tail -3 $OUT/n/suite_$1.log
