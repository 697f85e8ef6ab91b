# SPDX-License-Identifier: Apache-2.0
"""GPU correctness of complex numbers (issue 18): Numba's complex64 / complex128 items through load
(transpose), store (vectorize), block sum and a reduce with a user operator, inclusive scans with
``"mul"`` and the inclusive sum, an exclusive scan with a user product seeded with ``1 + 0j``, a
block shuffle, warp sum / ``"complex_mul"`` scan / broadcast, and an exchange; the ``(re, im)``
pair spelling on both DSLs (``"complex_mul"``, a user product seeded with ``(1.0, 0.0)``, the
field-wise sum, a warp scan of pairs). Blocks of 128, (16, 6) and (5, 7, 2) threads (a partial
hardware warp), 1, 3 and 4 items per thread; fresh random data each run, outputs poisoned with NaN,
each checked against NumPy in complex128 (``tests/_complex_kernels.py``). The diagonal subset marked
``sanitizer`` also runs under compute-sanitizer."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from . import _complex_kernels as ck

pytestmark = pytest.mark.gpu

#: One configuration of each dtype x block shape x items per thread; a diagonal is sanitized.
_DIAGONAL = {("complex64", 128, 4), ("complex128", (16, 6), 3), ("complex64", (5, 7, 2), 1)}


def _params(types: tuple[str, ...]) -> list[Any]:
    """Every (type, block, items per thread); the diagonal's (a pair's by its complex type) marked
    ``sanitizer`` too."""
    out = []
    for t in types:
        c = t if t in ck.DTYPES else _complex_of(t)
        for b in ck.BLOCKS:
            for n in ck.ITEMS:
                marks = [pytest.mark.sanitizer] if (c, b, n) in _DIAGONAL else []
                out.append(pytest.param(t, b, n, id=f"{t}-{'x'.join(map(str, ck.dims(b)))}-{n}", marks=marks))
    return out


def _complex_of(part: str) -> str:
    return {v: k for k, v in ck.PARTS.items()}[part]


def _seed_rng() -> tuple[int, np.random.Generator]:
    seed = int(np.random.SeedSequence().entropy) % 2**63
    return seed, np.random.default_rng(seed)


@pytest.mark.parametrize(("dtype", "block", "items"), _params(ck.DTYPES))
def test_complex_items_numba(dtype: str, block: Any, items: int) -> None:
    import cuda.coop.numba as numba_coop
    from numba import cuda

    seed, rng = _seed_rng()
    threads = math.prod(ck.dims(block))
    src = ck.data(rng, dtype, ck.GRID * threads * items)
    out = {k: cuda.to_device(ck.poison(dtype, n)) for k, n in ck.sizes(block, items).items()}
    kernel = numba_coop.jit(ck.numba_kernel(dtype, block, items))
    kernel[ck.GRID, ck.dims(block)](cuda.to_device(src), *[out[k] for k in ck.OUTPUTS])
    cuda.synchronize()
    want = ck.expected(src, block, items)
    bad = [
        e for k in ck.OUTPUTS for e in ck.mismatches(k, out[k].copy_to_host(), want[k], ck.TOLERANCE[dtype])
    ]
    assert not bad, f"seed {seed}: " + "; ".join(bad)


def _pair_data(part: str, block: Any, items: int) -> tuple[int, np.ndarray]:
    seed, rng = _seed_rng()
    n = ck.GRID * math.prod(ck.dims(block)) * items
    return seed, ck.data(rng, _complex_of(part), n)


def _pair_mismatches(
    part: str, block: Any, items: int, src: np.ndarray, got: dict[str, np.ndarray]
) -> list[str]:
    want = ck.pair_expected(src, block, items)
    return [e for k in ck.PAIR_OUTPUTS for e in ck.mismatches(k, got[k], want[k], ck.TOLERANCE[part])]


@pytest.mark.parametrize(("part", "block", "items"), _params(tuple(ck.PARTS.values())))
def test_complex_pairs_numba(part: str, block: Any, items: int) -> None:
    import cuda.coop.numba as numba_coop
    from numba import cuda

    seed, src = _pair_data(part, block, items)
    sizes = ck.pair_sizes(block, items)
    out = {(k, f): cuda.to_device(np.full(sizes[k], np.nan, part)) for k in ck.PAIR_OUTPUTS for f in "ri"}
    kernel = numba_coop.jit(ck.pair_kernels(part, block, items)[0])
    ins = [cuda.to_device(np.ascontiguousarray(x.astype(part))) for x in (src.real, src.imag)]
    kernel[ck.GRID, ck.dims(block)](*ins, *out.values())
    cuda.synchronize()
    got = {k: out[k, "r"].copy_to_host() + 1j * out[k, "i"].copy_to_host() for k in ck.PAIR_OUTPUTS}
    bad = _pair_mismatches(part, block, items, src, got)
    assert not bad, f"seed {seed}: " + "; ".join(bad)


@pytest.mark.parametrize(("part", "block", "items"), _params(tuple(ck.PARTS.values())))
def test_complex_pairs_cute(part: str, block: Any, items: int) -> None:
    pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
    torch = pytest.importorskip("torch", reason="the CuTe half moves data with torch")
    import cuda.coop.cutlass as cutlass_coop
    from cutlass.cute.runtime import from_dlpack

    seed, src = _pair_data(part, block, items)
    sizes = ck.pair_sizes(block, items)
    out = {
        (k, f): torch.from_numpy(np.full(sizes[k], np.nan, part)).cuda()
        for k in ck.PAIR_OUTPUTS
        for f in "ri"
    }
    ins = [torch.from_numpy(np.ascontiguousarray(x.astype(part))).cuda() for x in (src.real, src.imag)]
    args = [from_dlpack(t, assumed_align=16) for t in [*ins, *out.values()]]
    host = ck.pair_kernels(part, block, items)[1]
    cutlass_coop.compile(host, *args)(*args)
    torch.cuda.synchronize()
    got = {k: out[k, "r"].cpu().numpy() + 1j * out[k, "i"].cpu().numpy() for k in ck.PAIR_OUTPUTS}
    bad = _pair_mismatches(part, block, items, src, got)
    assert not bad, f"seed {seed}: " + "; ".join(bad)
