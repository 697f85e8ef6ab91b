#!/bin/bash
# The compaction at 384 x 17 / 3, order="block", one run per word of $VERSIONS (default "main head
# delay head delay main"), same card: main = 6a46c34 (before valid_items; its library .gpu/old, its
# benchmark and example .gpu/main.tar), head = this checkout, delay = this checkout with CUB
# DeviceSelect::If's look-back delay (grid.py --variant delay=76,1150). Sourced setup expected.
ROOT=$PWD; mkdir -p $OUT/c /tmp/mainrepo && tar xf .gpu/main.tar -C /tmp/mainrepo
ARGS="--configs 0 --compact-tiles 384x17/3 --compact-orders block"
for v in ${VERSIONS:-main head delay head delay main}; do
  case $v in
    main) (cd /tmp/mainrepo && PYTHONPATH=$ROOT/.gpu/old:$PYTHONPATH timeout 45 python3 benchmarks/grid.py --cub $ROOT/.gpu/cub_device $ARGS >> $OUT/c/compact_$v.log 2>&1) ;;
    delay) timeout 45 python3 benchmarks/grid.py --cub .gpu/cub_device $ARGS --variant delay=76,1150 >> $OUT/c/compact_$v.log 2>&1 ;;
    *) timeout 45 python3 benchmarks/grid.py --cub .gpu/cub_device $ARGS >> $OUT/c/compact_$v.log 2>&1 ;;
  esac
  echo "$v rc=$?"; grep "384x17/3 block |" $OUT/c/compact_$v.log | tail -1
done
