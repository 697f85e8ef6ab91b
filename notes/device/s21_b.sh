#!/bin/bash
# compaction (s21_c.sh) then launch_parts.py and launch.py's goals (carry .whl)
WHL=1 source .gpu/setup.sh
source .gpu/s21_c.sh
mkdir -p $OUT/l
timeout 50 python3 benchmarks/launch_parts.py > $OUT/l/parts.log 2>&1; head -20 $OUT/l/parts.log
timeout 150 python3 benchmarks/launch.py --launches 2000 --reps 11 --json $OUT/l/launch.json > $OUT/l/launch.log 2>&1
echo "launch rc=$?"; grep -E "^\| coop|^\| raw|^\| CuTe|goal|NO|yes" $OUT/l/launch.log | head -50
tar czf $OUT/s21b.tgz -C $OUT c l
