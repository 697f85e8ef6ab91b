#!/bin/bash
# benchmarks: top-k primitive vs hand design vs quack; cross-entropy and layernorm examples; launch cost
source .devkit/tools/env.sh
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1
pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PYTHONPATH
nvidia-smi --query-gpu=name --format=csv,noheader
mkdir -p $OUT/b
for what in "$@"; do
  case $what in
    topk) for k in 8 16 32; do timeout 240 python3 benchmarks/rows.py --only topk --n 1024 --n 4096 --k $k --json $OUT/b/topk_k$k.json > $OUT/b/topk_k$k.log 2>&1; tail -25 $OUT/b/topk_k$k.log; done ;;
    topk16) timeout 200 python3 benchmarks/rows.py --only topk --n 1024 --n 4096 --k 16 --reps 7 --json $OUT/b/topk_k16.json > $OUT/b/topk_k16.log 2>&1; tail -25 $OUT/b/topk_k16.log ;;
    ce) timeout 200 python3 benchmarks/rows.py --only cross_entropy --n 4096 --n 16384 --json $OUT/b/ce.json > $OUT/b/ce.log 2>&1; tail -30 $OUT/b/ce.log ;;
    ln) timeout 200 python3 benchmarks/rows.py --only layernorm --n 4096 --n 16384 --json $OUT/b/ln.json > $OUT/b/ln.log 2>&1; tail -30 $OUT/b/ln.log ;;
    launch) timeout 200 python3 benchmarks/launch.py --launches 2000 --reps 15 --json $OUT/b/launch.json > $OUT/b/launch.log 2>&1; tail -45 $OUT/b/launch.log ;;
  esac
done
tar czf $OUT/bench.tgz -C $OUT b && rm -rf $OUT/b
