#!/bin/bash
# The launch paths after the nineteenth session (CuTe: one generated set_all; range checks of scalars
# and addresses on every prepared path): their GPU tests, then launch.py's table and goals (carry .whl).
WHL=1 source .gpu/setup.sh
mkdir -p $OUT/l
timeout 200 python3 -m pytest -m gpu -n 8 -q -p no:cacheprovider -rfE tests/test_cutlass_front_door_gpu.py tests/test_numba_launch_gpu.py > $OUT/l/tests.log 2>&1
echo "tests rc=$?"; grep -E "^FAILED|^ERROR|passed|failed" $OUT/l/tests.log | tail -5
timeout 60 python3 benchmarks/launch_parts.py > $OUT/l/parts.log 2>&1; head -20 $OUT/l/parts.log
timeout 150 python3 benchmarks/launch.py --launches 2000 --reps 11 --json $OUT/l/launch.json > $OUT/l/launch.log 2>&1
echo "launch rc=$?"; grep -E "^\| coop|^\| raw|^\| CuTe|goal|NO|yes" $OUT/l/launch.log | head -50
tar czf $OUT/s20l.tgz -C $OUT l
