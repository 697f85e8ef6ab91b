# SPDX-License-Identifier: Apache-2.0
"""docs/numba_mlir.rst: a coop kernel for numba-cuda-mlir, one import changed."""

# ruff: noqa: I001 (the page shows the changed import first)
# doc-start: mlir-kernel
from numba_cuda_mlir import cuda  # was: from numba import cuda
import cuda.coop.numba_mlir as ncoop  # was: import cuda.coop.numba as numba_coop
from cuda import coop


@ncoop.jit
def copy(src, dst):
    items = coop.ThreadData(4, "float32")
    coop.block.load(src, items, algorithm="vectorize")
    coop.block.store(dst, items)
    # doc-end: mlir-kernel


assert cuda is not None  # the import the page shows (the kernel itself needs no cuda.*)
MLIR = [
    (copy, "void(float32[::1], float32[::1])", {"block": 128, "arch": "sm_90a"}),
]
