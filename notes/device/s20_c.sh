#!/bin/bash
# The compaction, main (its library, benchmark and example) against s20, same card, one run each.
source .gpu/setup.sh
ROOT=$PWD; mkdir -p $OUT/c /tmp/mainrepo && tar xf .gpu/main.tar -C /tmp/mainrepo
for v in main s20; do
  if [ $v = main ]; then
    (cd /tmp/mainrepo && PYTHONPATH=$ROOT/.gpu/old:$PYTHONPATH timeout 45 python3 benchmarks/grid.py --cub $ROOT/.gpu/cub_device --configs 0 --compact-tiles 384x17/3 --compact-orders block > $OUT/c/compact_$v.log 2>&1)
  else
    timeout 45 python3 benchmarks/grid.py --cub .gpu/cub_device --configs 0 --compact-tiles 384x17/3 --compact-orders block > $OUT/c/compact_$v.log 2>&1
  fi
  echo "$v rc=$?"; grep "384x17/3 block |" $OUT/c/compact_$v.log | tail -1
done
