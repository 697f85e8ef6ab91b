# SPDX-License-Identifier: Apache-2.0
"""Numba kernels specialised on aligned data (GPU): the front door types an array whose data is a
multiple of 16 bytes as aligned (its coop calls' alignment checks fold), so one kernel launched on
aligned and on misaligned views of the same data compiles twice and is right both times, through
``kernel[grid, block]``, a cluster launch and a prepared launch (which refuses misaligned data for a
kernel compiled for aligned data). Data is fresh random, outputs are poisoned with NaN."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from cuda import coop

pytestmark = pytest.mark.gpu

THREADS, ITEMS, GRID = 128, 8, 6
N = GRID * THREADS * ITEMS


def _scale() -> Any:
    import cuda.coop.numba as numba_coop
    from numba import cuda

    @numba_coop.jit
    def scale(x, y):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(ITEMS, np.float32)
        offset = cuda.blockIdx.x * (THREADS * ITEMS)
        coop.block.load(x, items, offset=offset, algorithm="striped_vectors")
        for i in range(ITEMS):
            items[i] = items[i] * np.float32(3.0) + np.float32(1.0)
        coop.block.store(y, items, offset=offset, algorithm="striped_vectors")

    return scale


def _views(shift: int) -> tuple[Any, Any, np.ndarray]:
    """x and a NaN-poisoned y of N float32 items whose data starts ``shift`` items into a fresh
    allocation (0: 16-byte aligned; 1-3: not), and x's values."""
    from numba import cuda

    rng = np.random.default_rng()
    host = rng.standard_normal(N + 4).astype(np.float32)
    x = cuda.to_device(host)[shift : shift + N]
    y = cuda.to_device(np.full(N + 4, np.nan, np.float32))[shift : shift + N]
    return x, y, host[shift : shift + N]


def _check(y: Any, x: np.ndarray) -> None:
    """y == x * 3 + 1, the reference in float64: the GPU's fused multiply-add rounds once, so a
    float32 reference of two roundings differs by an ulp of 1 where the result is near 0."""
    np.testing.assert_allclose(y.copy_to_host(), x.astype(np.float64) * 3 + 1, rtol=1e-6, atol=2e-7)


def _signatures(kernel: Any, block: Any, cluster: Any = None) -> set[str]:
    # str of each type: a tuple's str is its members' repr, the same for aligned and plain arrays
    return {", ".join(map(str, sig)) for sig in kernel.for_block(block, cluster).overloads}


@pytest.mark.sanitizer
def test_one_kernel_on_aligned_and_misaligned_data() -> None:
    from cuda.coop.numba.kernel._types import AlignedArrayType

    kernel = _scale()
    for shifts in ((0, 0), (1, 1), (0, 2), (3, 0), (0, 0), (2, 2)):  # the plans, then the cached ones
        (x, _, want), (_, y, _) = _views(shifts[0]), _views(shifts[1])
        kernel[GRID, THREADS](x, y)
        _check(y, want)
    sigs = kernel.for_block(THREADS).overloads
    kinds = {tuple(isinstance(t, AlignedArrayType) for t in sig) for sig in sigs}
    assert kinds == {(True, True), (False, False), (True, False), (False, True)}, _signatures(kernel, THREADS)


def test_cluster_launch_on_aligned_and_misaligned_data() -> None:
    kernel = _scale()
    for shift in (0, 1, 0):
        x, y, want = _views(shift)
        kernel.configure(GRID, THREADS, cluster=2)(x, y)
        _check(y, want)
    assert len(_signatures(kernel, THREADS, 2)) == 2


def test_prepared_launch_keeps_to_the_alignment_it_was_compiled_for() -> None:
    kernel = _scale()
    x, y, want = _views(0)
    p = kernel.prepare(GRID, THREADS, x, y)
    p.launch()
    _check(y, want)
    bad, _, _ = _views(1)
    for arg in (bad, bad.__cuda_array_interface__["data"][0]):
        with pytest.raises(coop.CoopValueError, match=r"argument 0 \(x\): its data is not 16-byte aligned"):
            p.launch(arg, y)
    x2, y2, want2 = _views(0)
    p.launch(x2.__cuda_array_interface__["data"][0], y2)  # a raw pointer, aligned
    _check(y2, want2)
    # a prepared launch of misaligned data compiles for plain arrays and takes aligned ones too
    xm, ym, wantm = _views(1)
    q = kernel.prepare(GRID, THREADS, xm, ym)
    q.launch()
    _check(ym, wantm)
    q.launch(x2, y2)
    _check(y2, want2)


def test_numba_launch_of_the_block_dispatcher_after_an_aligned_launch() -> None:
    """After an aligned launch through coop only the aligned specialisation exists; Numba's own
    launch of ``for_block(...)`` types the same arrays plain and compiles for them, knowing the
    block dims (it raised 'block dimensions are unknown': benchmarks/copy.py on the H200)."""
    kernel = _scale()
    x, y, want = _views(0)
    kernel[GRID, THREADS](x, y)
    _check(y, want)
    x2, y2, want2 = _views(0)
    kernel.for_block(THREADS)[GRID, THREADS](x2, y2)
    _check(y2, want2)
    assert len(kernel.for_block(THREADS).overloads) == 2
