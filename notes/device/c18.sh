source .devkit/tools/env.sh
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1
mkdir -p $OUT/c
DUMP_S=40 timeout 60 python3 .gpu/hang18.py constexpr cute > $OUT/c/c.log 2>&1; echo rc=$?; tail -30 $OUT/c/c.log
python3 - <<'PY' > $OUT/c/sass.txt 2>&1
import sys; sys.argv=['x','constexpr']
PY
tar czf $OUT/c18.tgz -C $OUT c
