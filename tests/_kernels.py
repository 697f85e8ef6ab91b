# SPDX-License-Identifier: Apache-2.0
"""Kernel builders shared by the host (AOT) tests."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import cuda

from cuda import coop


def copy_kernel(
    dtype: str = "int32",
    ipt: int = 4,
    algorithm: str = "direct",
    store_algorithm: str | None = None,
    **load_kwargs: Any,
) -> Any:
    """A kernel that loads a tile with ``algorithm`` and stores it with ``store_algorithm``."""
    np_dtype = getattr(np, dtype)
    store_alg = store_algorithm or algorithm

    def copy(src, dst):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(ipt, np_dtype)
        base = cuda.blockIdx.x * cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z * ipt
        coop.block.load(src, items, offset=base, algorithm=algorithm, **load_kwargs)
        coop.block.store(dst, items, offset=base, algorithm=store_alg)

    return copy


def signature(dtype: str = "int32") -> str:
    return f"void({dtype}[::1], {dtype}[::1])"
