# SPDX-License-Identifier: Apache-2.0
"""CI: with only the numba-mlir extra installed (no numba-cuda, no CuTe DSL), compile one
numba-cuda-mlir kernel with coop calls ahead of time for sm_90a and check its SASS."""

import importlib.util
import os

import cuda.coop.numba_mlir as ncoop
import numpy as np
from cuda import coop
from numba_cuda_mlir.numba_cuda import types

if os.environ.get("CI_EXTRA_ALONE"):
    for other in ("numba", "cutlass"):
        assert importlib.util.find_spec(other) is None, f"this check needs an environment without {other}"


def copy_sum(src, dst, total):  # type: ignore[no-untyped-def]
    items = coop.ThreadData(4, np.float32)
    coop.block.load(src, items, algorithm="vectorize")
    coop.block.store(dst, items, algorithm="vectorize")
    s = coop.block.reduce(items, "sum")
    if s != s:  # never: keeps the reduction
        total[0] = s


compiled = ncoop.compile(copy_sum, (types.float32[::1], types.float32[::1], types.float32[::1]), block=128)
report = compiled.inspect()
assert len(report.functions) == 1 and report.calls == 0, report.sass
assert report.local_loads == 0 and report.local_stores == 0, report.sass
print(
    f"numba-mlir extra alone: built {compiled.arch} cubin, {len(compiled.code)} bytes, "
    f"{next(iter(report.registers.values()))} registers, 0 CALL, 0 local memory"
)
