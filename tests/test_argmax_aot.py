# SPDX-License-Identifier: Apache-2.0
"""argmax / argmin with their default indices, ahead of time: every real element type, blocked and
striped arrangements, block and warp scopes, on numba-cuda and numba-cuda-mlir. The thread's first
best item is kept in a loop before the reduction (``coop_arg_first``), so the kernel holds no index
per item: one function, no call left, no local memory. (The GPU answers are checked against
``np.argmax`` by ``tests/_structured_rows.py``.)"""

from __future__ import annotations

import numpy as np
import pytest
from cuda.coop._dtypes import REAL_DTYPES

from ._numba_family import BACKENDS, front

ITEMS = 16


def _kernel(backend: str, dtype: str, arrangement: str):  # type: ignore[no-untyped-def]
    coop_module, cuda = front(backend)
    from cuda import coop

    t = np.dtype(dtype)

    def kernel(x, out_i):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(ITEMS, t)
        for i in range(ITEMS):
            items[i] = x[cuda.threadIdx.x * ITEMS + i]
        best = coop.block.argmax(items, arrangement=arrangement)
        worst = coop.warp.argmin(items, arrangement=arrangement, threads_in_warp=8, broadcast=True)
        if cuda.threadIdx.x == 0:
            out_i[0] = best[1] + worst[1]

    return coop_module, kernel


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("arrangement", ["blocked", "striped"])
@pytest.mark.parametrize("dtype", [d for d in REAL_DTYPES if d != "bfloat16"])  # Numba: no bfloat16 arrays
def test_argmax_with_default_indices_holds_no_index_per_item(
    backend: str, dtype: str, arrangement: str
) -> None:
    if backend == "numba_mlir":
        pytest.importorskip("numba_cuda_mlir", reason="numba-cuda-mlir is not installed")
    coop_module, kernel = _kernel(backend, dtype, arrangement)
    report = coop_module.compile(kernel, f"void({dtype}[::1], int32[::1])", block=(64, 2, 1)).inspect()
    assert len(report.functions) == 1, report.functions
    assert report.calls == 0, report.sass
    assert report.local_loads == 0 and report.local_stores == 0, report.sass
    assert not report.leftover_symbols, report.leftover_symbols
