#!/bin/bash
# session 17, call 2: every strided CuTe case in ONE process (issue 46 item 1: kernels compiled one
# after another in a process, as an independent check would); then the argmax rows (striped vs auto)
source .devkit/tools/env.sh
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1
pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl >/dev/null 2>&1
mkdir -p $OUT/s2
nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/s2/card.txt
ids=$(python3 -c "import random,tests._strided_cute as s; c=[x.id for x in s.cases()]; random.Random(7).shuffle(c); print(' '.join(c))")
timeout ${STRIDED_S:-240} python3 -m tests._strided_cute $ids > $OUT/s2/strided_one_process.log 2>&1; echo "rc=$?" >> $OUT/s2/strided_one_process.log
grep -c " ok$" $OUT/s2/strided_one_process.log; grep -v " ok$" $OUT/s2/strided_one_process.log | tail -5
export PYTHONPATH=/tmp/site:$PYTHONPATH
timeout ${BENCH_S:-300} python3 benchmarks/rows.py --only argmax --n 4096 --n 16384 --reps 5 --json $OUT/s2/argmax.json > $OUT/s2/argmax.log 2>&1; echo "rc=$?" >> $OUT/s2/argmax.log
grep -B2 -A12 "argmax" $OUT/s2/argmax.log | grep "^|" | head -40
tar czf $OUT/s2.tgz -C $OUT s2
