#!/bin/bash
# Issue 47's table, the rows not measured since the examples became rows.py's default designs
# (fifteenth session): cross-entropy (online = examples/numba/cross_entropy_loss.py vs twice) and
# LayerNorm (welford = examples/numba/layernorm_rows.py vs sumsq) at rows of 4096, against quack and
# liger in the same run. Carry .whl (quack, liger, tvm-ffi, einops).
WHL=1 source .gpu/setup.sh
mkdir -p $OUT/r
for k in cross_entropy layernorm; do
  timeout 200 python3 benchmarks/rows.py --only $k --n 4096 --reps 5 --json $OUT/r/$k.json > $OUT/r/$k.log 2>&1
  echo "$k rc=$?"; grep -B1 -A12 "^| N | coop Numba" $OUT/r/$k.log | head -30
done
tar czf $OUT/s20r.tgz -C $OUT r
