# SPDX-License-Identifier: Apache-2.0
"""Kernel builders shared by the host (AOT) tests."""

from __future__ import annotations

from typing import Any

import numpy as np
from cuda import coop
from numba import cuda


def copy_kernel(
    dtype: str = "int32",
    ipt: int = 4,
    algorithm: str = "direct",
    store_algorithm: str | None = None,
    **load_kwargs: Any,
) -> Any:
    """A kernel that loads a tile with ``algorithm`` and stores it with ``store_algorithm``.

    ``load_kwargs`` become literal keyword arguments of the load call (Numba cannot unpack
    ``**kwargs`` in a kernel, so the kernel is generated).
    """
    extra = "".join(f", {k}={v!r}" for k, v in load_kwargs.items())
    source = f"""
def copy(src, dst):
    items = coop.ThreadData({ipt}, np.{dtype})
    base = cuda.blockIdx.x * cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z * {ipt}
    coop.block.load(src, items, offset=base, algorithm={algorithm!r}{extra})
    coop.block.store(dst, items, offset=base, algorithm={(store_algorithm or algorithm)!r})
"""
    scope: dict[str, Any] = {"coop": coop, "cuda": cuda, "np": np}
    exec(source, scope)
    return scope["copy"]


def signature(dtype: str = "int32") -> str:
    return f"void({dtype}[::1], {dtype}[::1])"
