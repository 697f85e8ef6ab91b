# SPDX-License-Identifier: Apache-2.0
"""Ahead-of-time compile: build a cubin for a named architecture on a machine without a GPU.

The cubin holds the kernel with the CUB primitives linked in and inlined; it can be loaded with
``cuda.core`` (``ObjectCode.from_cubin``) or any driver API on the target GPU.
"""

from __future__ import annotations

import sys

import cuda.coop.numba as numba_coop
import numpy as np
from cuda import coop
from numba import cuda
from numpy.typing import NDArray


def copy(src: NDArray[np.uint64], dst: NDArray[np.uint64]) -> None:
    items = coop.ThreadData(4, np.uint64)
    base = cuda.blockIdx.x * 8 * 16 * 4
    coop.block.load(src, items, offset=base, algorithm="warp_transpose")
    coop.block.store(dst, items, offset=base, algorithm="warp_transpose")


def main() -> None:
    arch = sys.argv[1] if len(sys.argv) > 1 else "sm_90a"
    compiled = numba_coop.compile(copy, "void(uint64[::1], uint64[::1])", block=(8, 16), arch=arch)
    print(f"{arch}, block {compiled.block}: {len(compiled.code)} byte cubin")
    print(compiled.inspect().summary())
    ptx = numba_coop.compile(copy, "void(uint64[::1], uint64[::1])", block=(8, 16), arch=arch, output="ptx")
    print(f"linked PTX: {len(ptx.code)} bytes, {ptx.code.count(b'call.uni')} calls")


if __name__ == "__main__":
    main()
