#!/bin/bash
# hang variants (issue 46 item 1), then the compaction profile (item 6)
source .devkit/tools/env.sh
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1
mkdir -p $OUT/h
for V in rmem dynrange constexpr allwrite acc outside; do
  for how in cute torch; do
    timeout 60 python3 .gpu/hang18.py $V $how > $OUT/h/$V-$how.log 2>&1; echo "$V $how rc=$?: $(tail -1 $OUT/h/$V-$how.log)"
  done
done
timeout 90 compute-sanitizer --tool synccheck python3 .gpu/hang18.py dynrange > $OUT/h/sync.log 2>&1; tail -2 $OUT/h/sync.log
tar czf $OUT/hang18.tgz -C $OUT h && rm -rf $OUT/h
bash .gpu/profile.sh 2>&1 | tail -15
