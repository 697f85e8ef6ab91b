#!/bin/bash
# Sourced by the device scripts (from .gpu/): the devkit's environment, this checkout installed, and
# with WHL=1 the benchmark-only wheels of .whl/ (quack, liger, tvm-ffi, einops) on PYTHONPATH.
source .devkit/tools/env.sh
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1
if [ "${WHL:-0}" = 1 ]; then
  pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl >/dev/null 2>&1
  export PYTHONPATH=/tmp/site:$PYTHONPATH
fi
nvidia-smi --query-gpu=name --format=csv,noheader
