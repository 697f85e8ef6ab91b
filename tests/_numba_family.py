# SPDX-License-Identifier: Apache-2.0
"""The two Numba-family backends for the GPU grids: numba-cuda and numba-cuda-mlir run the same
generated kernel source, with ``from numba_cuda_mlir import cuda`` in place of numba-cuda's."""

from __future__ import annotations

from typing import Any

import pytest

BACKENDS = ["numba", "numba_mlir"]


def front(backend: str) -> tuple[Any, Any]:
    """(the backend's coop module, its ``cuda``): ``cuda.coop.numba`` or ``cuda.coop.numba_mlir``."""
    if backend == "numba":
        import cuda.coop.numba as numba_coop
        from numba import cuda

        return numba_coop, cuda
    import cuda.coop.numba_mlir as mlir_coop
    from numba_cuda_mlir import cuda as mlir_cuda

    return mlir_coop, mlir_cuda


def family(backend: str, dtype: str = "") -> tuple[Any, Any, Any]:
    """(the backend's ``jit``, its ``cuda`` module, the source transform) for a grid of ``dtype``;
    skips where the backend cannot run it."""
    if backend == "numba":
        coop_module, cuda = front(backend)
        return coop_module.jit, cuda, lambda source: source
    pytest.importorskip("numba_cuda_mlir", reason="numba-cuda-mlir is not installed")
    if dtype == "bfloat16":
        pytest.skip("numba-cuda-mlir 0.6 has no comparison on bfloat16 (the grids' user operators compare)")
    coop_module, cuda = front(backend)

    def source(text: str) -> str:
        return text.replace("from numba import cuda", "from numba_cuda_mlir import cuda")

    return coop_module.jit, cuda, source
