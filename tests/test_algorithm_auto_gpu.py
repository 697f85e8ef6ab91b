# SPDX-License-Identifier: Apache-2.0
"""``algorithm="auto"`` on the GPU (numba-cuda and numba-cuda-mlir), against NumPy: rows loaded with
``auto`` (full and partial tiles, NaNs and ties in the float rows), their argmax with
``arrangement="auto"`` (the default indices in ``striped_vectors``' runs), the row stored back with
``auto``; tuples of fields that make runs of one length loaded and stored in runs. The arrangement of
``auto`` itself is also checked by the load/store grid (``tests/test_numba_gpu.py``: ``auto`` is a
member of ``BlockLoadAlgorithm``), and on CuTe by ``tests/test_cutlass_views.py`` (strided columns).
"""

from __future__ import annotations

import numpy as np
import pytest

from ._numba_family import BACKENDS, family
from ._reference import random_array

pytestmark = pytest.mark.gpu

ROWS = 7
#: (dtype, items per thread, block): runs of 4 (float32 x 16, 32, 64, float16 x 8, int8 x 16), of 2
#: (float64 x 8), of 1 (int32 x 3: striped) and the whole thread's tile (float32 x 4: blocked).
CASES = [
    ("float32", 16, 128),
    ("float32", 4, (32, 3)),
    ("float16", 8, 96),
    ("int8", 16, 64),
    ("float64", 8, (16, 4)),
    ("int32", 3, 33),
    ("float32", 32, 64),  # many items a thread: the argmax keeps one index, not 32 or 64
    ("float32", 64, (32, 1)),
]


def _threads(block: object) -> int:
    return int(np.prod(block))


def _kernel(backend: str, dtype: str, items: int, tile: int, low: object):  # type: ignore[no-untyped-def]
    jit, _, source = family(backend, dtype)
    text = f"""
from numba import cuda
import numpy as np
from cuda import coop

def kernel(x, lengths, y, out_v, out_i):
    row = cuda.blockIdx.x
    t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
    items = coop.ThreadData({items}, np.{dtype})
    coop.block.load(x, items, offset=row * {tile}, algorithm="auto", valid_items=lengths[row],
                    oob_default=LOW)
    best = coop.block.argmax(items, arrangement="auto", broadcast=True)
    coop.block.store(y, items, offset=row * {tile}, algorithm="auto", valid_items=lengths[row])
    if t == 5 % cuda.blockDim.x:  # a thread other than 0 reads the broadcast result
        out_v[row] = best[0]
        out_i[row] = best[1]
"""
    scope: dict[str, object] = {"LOW": low}
    exec(compile(source(text), f"<auto argmax {dtype}>", "exec"), scope)
    return jit(scope["kernel"])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("dtype", "items", "block"), CASES, ids=lambda v: str(v).replace(" ", ""))
def test_rows_loaded_auto_and_their_argmax(backend: str, dtype: str, items: int, block: object) -> None:
    _, cuda, _ = family(backend, dtype)
    rng = np.random.default_rng()
    tile = _threads(block) * items
    np_dtype = np.dtype(dtype)
    low = np_dtype.type(-np.inf) if np_dtype.kind == "f" else np.iinfo(np_dtype).min
    x = random_array(rng, dtype, ROWS * tile)
    if np_dtype.kind == "f":
        x[rng.integers(0, x.size, size=x.size // 50)] = np.nan  # NaNs: the first one wins
        x[3 * tile : 4 * tile] = x[3 * tile]  # a row of ties (or of NaNs): the first index wins
    else:
        x[3 * tile : 4 * tile] = x[3 * tile + 1]
    lengths = np.array([tile, tile - 1, 1, tile, tile // 2 + 3, tile, tile - 7], dtype=np.int32)
    poison = random_array(rng, dtype, ROWS * tile)
    y, out_v, out_i = (
        cuda.to_device(poison),
        cuda.to_device(np.zeros(ROWS, dtype)),
        cuda.to_device(np.full(ROWS, -9, np.int32)),
    )
    kernel = _kernel(backend, dtype, items, tile, low)
    kernel[ROWS, block](cuda.to_device(x), cuda.to_device(lengths), y, out_v, out_i)
    got_y, got_v, got_i = y.copy_to_host(), out_v.copy_to_host(), out_i.copy_to_host()
    want_y = poison.copy()
    failures = []
    for r in range(ROWS):
        row = x[r * tile : r * tile + lengths[r]]
        want_y[r * tile : r * tile + lengths[r]] = row
        want = int(np.argmax(row))
        if got_i[r] != want or not np.array_equal(got_v[r], row[want], equal_nan=True):
            failures.append(
                f"row {r} (length {lengths[r]}): got ({got_v[r]}, {got_i[r]}), want ({row[want]}, {want})"
            )
    if not np.array_equal(got_y, want_y, equal_nan=True):
        failures.append(
            f"store: {int(np.count_nonzero(~((got_y == want_y) | (got_y != got_y))))} items differ"
        )
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("algorithm", ["auto", "striped_vectors"])
def test_tuples_move_in_runs(backend: str, algorithm: str) -> None:
    """(float32, int32) items, 8 a thread: both fields in runs of 4, full and partial tiles with a
    tuple ``oob_default``, stored back with the same algorithm."""
    jit, cuda, source = family(backend)
    threads, items = 96, 8
    tile = threads * items
    text = f"""
from numba import cuda
import numpy as np
from cuda import coop

def kernel(v, i, lengths, ov, oi, dv, di):
    row = cuda.blockIdx.x
    vs = coop.ThreadData({items}, np.float32)
    ix = coop.ThreadData({items}, np.int32)
    coop.block.load((v, i), (vs, ix), offset=row * {tile}, algorithm="{algorithm}", valid_items=lengths[row],
                    oob_default=(-2.5, -1))
    coop.block.store((ov, oi), (vs, ix), offset=row * {tile}, algorithm="{algorithm}")
    coop.block.store((dv, di), (vs, ix), offset=row * {tile}, algorithm="{algorithm}",
                     valid_items=lengths[row])
"""
    scope: dict[str, object] = {}
    exec(compile(source(text), "<auto tuples>", "exec"), scope)
    kernel = jit(scope["kernel"])
    rng = np.random.default_rng()
    v = rng.standard_normal(ROWS * tile).astype(np.float32)
    i = rng.integers(-(2**31), 2**31 - 1, ROWS * tile, dtype=np.int32)
    lengths = np.array([tile, 5, tile - 1, 1, tile, 333, 0], dtype=np.int32)
    pv, pi = np.full(ROWS * tile, np.nan, np.float32), np.full(ROWS * tile, 7, np.int32)
    outs = [cuda.to_device(a) for a in (pv, pi, pv, pi)]
    kernel[ROWS, threads](cuda.to_device(v), cuda.to_device(i), cuda.to_device(lengths), *outs)
    got = [o.copy_to_host() for o in outs]
    want = [v.copy(), i.copy(), pv.copy(), pi.copy()]
    for r in range(ROWS):
        a, b = r * tile, r * tile + lengths[r]
        want[0][b : a + tile], want[1][b : a + tile] = -2.5, -1  # the full store writes the defaults
        want[2][a:b], want[3][a:b] = v[a:b], i[a:b]
    for name, g, w in zip(("full v", "full i", "partial v", "partial i"), got, want, strict=True):
        assert np.array_equal(g, w, equal_nan=True), f"{name}: {int(np.count_nonzero(g != w))} items differ"
