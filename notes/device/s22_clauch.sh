#!/bin/bash
# The launch entry in C (branch c-launch): its GPU tests on both Numba backends, the launch paths'
# other GPU tests, the compile-free host tests, then benchmarks/launch.py (goals: prepared torch
# <= 1.3x raw, kernel[grid, block] torch <= 1.5x). Carry .gpu, .whl (apache-tvm-ffi and
# torch-c-dlpack-ext for the card's torch 2.11), .devkit/tools; the branch c-launch checked out.
WHL=1 source .gpu/setup.sh
mkdir -p $OUT/cl
python3 -c "import torch, tvm_ffi; print('torch', torch.__version__, 'tvm_ffi', tvm_ffi.__version__, 'exchange api', hasattr(torch.Tensor, '__dlpack_c_exchange_api__'))"
timeout 200 python3 -m pytest -m gpu -n 8 -q -p no:cacheprovider -rfE tests/test_numba_launch_gpu.py > $OUT/cl/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; grep -E "^FAILED|^ERROR|passed|failed" $OUT/cl/gpu_tests.log | tail -8
timeout 60 python3 -m pytest -q -p no:cacheprovider tests/test_c_launch.py tests/test_numba_launch.py > $OUT/cl/host_tests.log 2>&1
echo "host tests rc=$?"; tail -1 $OUT/cl/host_tests.log
timeout 120 python3 benchmarks/launch.py --launches 2000 --reps 7 --json $OUT/cl/launch.json > $OUT/cl/launch.log 2>&1
echo "launch rc=$?"; grep -E "torch|raw|goal|NO|yes" $OUT/cl/launch.log | head -40
tar czf $OUT/s22cl.tgz -C $OUT cl
