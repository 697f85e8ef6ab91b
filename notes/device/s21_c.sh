#!/bin/bash
# The compaction: 6a46c34 (before valid_items; its library, benchmark and example) vs HEAD vs HEAD
# with CUB's DeviceSelect::If look-back delay for the int32 flag scan (76/1150 ns instead of
# DeviceScan's 648/1245), same card, interleaved.
source .gpu/setup.sh
ROOT=$PWD; mkdir -p $OUT/c /tmp/mainrepo && tar xf .gpu/main.tar -C /tmp/mainrepo
for v in main head d76 head d76 main; do
  if [ $v = main ]; then
    (cd /tmp/mainrepo && PYTHONPATH=$ROOT/.gpu/old:$PYTHONPATH timeout 45 python3 benchmarks/grid.py --cub $ROOT/.gpu/cub_device --configs 0 --compact-tiles 384x17/3 --compact-orders block >> $OUT/c/compact_$v.log 2>&1)
  elif [ $v = d76 ]; then
    PYTHONPATH=$ROOT/.gpu/d76:$PYTHONPATH timeout 45 python3 benchmarks/grid.py --cub .gpu/cub_device --configs 0 --compact-tiles 384x17/3 --compact-orders block >> $OUT/c/compact_$v.log 2>&1
  else
    timeout 45 python3 benchmarks/grid.py --cub .gpu/cub_device --configs 0 --compact-tiles 384x17/3 --compact-orders block >> $OUT/c/compact_$v.log 2>&1
  fi
  echo "$v rc=$?"; grep "384x17/3 block |" $OUT/c/compact_$v.log | tail -1
done
