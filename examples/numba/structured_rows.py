# SPDX-License-Identifier: Apache-2.0
"""Structured items: a row's argmax and Welford statistics as tuples, and records.

``row_stats`` runs one block per row of 4096 float32 values: ``coop.block.argmax`` gives the
row's largest value and its index (ties to the smallest index, as ``np.argmax``), and a block
reduce of the tuple ``(count, mean, m2)`` with Welford's combination gives the mean and the
variance in one pass. The rows come in as a tuple of two arrays (values and a weight per item,
loaded with one call, one ``BlockLoad`` per field), and the weighted sum is a field-wise ``"sum"``
of the tuple ``(w * x, w)``.

``best_records`` keeps NumPy records (an array of structs, ``REC``) as records: each block loads
its tile of records and reduces it with an operator on two records that returns one of them.

On a GPU the results are checked against NumPy; without one the kernels are compiled ahead of time
for sm_90a and their SASS is reported.
"""

from __future__ import annotations

import cuda.coop.numba as numba_coop
import numpy as np
from cuda import coop
from numba import cuda
from numpy.typing import NDArray

THREADS, ITEMS = 256, 16
ROW = THREADS * ITEMS
REC = np.dtype([("score", np.float32), ("id", np.int32)], align=True)


def welford(p: tuple[float, float, float], q: tuple[float, float, float]) -> tuple[float, float, float]:
    """Two (count, mean, m2) summaries of disjoint sets -> the summary of their union."""
    n = p[0] + q[0]
    d = q[1] - p[1]
    return n, p[1] + d * q[0] / n, p[2] + q[2] + d * d * p[0] * q[0] / n


@numba_coop.jit
def row_stats(
    x: NDArray[np.float32], w: NDArray[np.float32], amax: NDArray[np.float32], at: NDArray[np.int32],
    stats: NDArray[np.float32],
) -> None:  # fmt: skip
    row, t = cuda.blockIdx.x, cuda.threadIdx.x
    v, wt = coop.ThreadData(ITEMS, np.float32), coop.ThreadData(ITEMS, np.float32)
    coop.block.load((x, w), (v, wt), offset=row * ROW, algorithm="striped")
    # striped: item i of thread t is the row's item t + i*THREADS, and so is its default index
    best, index = coop.block.argmax(v, arrangement="striped")
    n, mean, m2 = np.float32(0), np.float32(0), np.float32(0)
    wx, ws = np.float32(0), np.float32(0)
    for i in range(ITEMS):  # the thread's own Welford summary, then the block's
        n += 1
        d = v[i] - mean
        mean += d / n
        m2 += d * (v[i] - mean)
        wx += wt[i] * v[i]
        ws += wt[i]
    total = coop.block.reduce((n, mean, m2), welford)
    weighted = coop.block.sum((wx, ws))
    if t == 0:
        amax[row], at[row] = best, index
        stats[3 * row], stats[3 * row + 1] = total[1], total[2] / total[0]
        stats[3 * row + 2] = weighted[0] / weighted[1]


def best_score(a, b):  # type: ignore[no-untyped-def]
    """Two records -> the one with the higher score (ties: the smaller id)."""
    if b.score > a.score or (b.score == a.score and b.id < a.id):
        return b
    return a


@numba_coop.jit
def best_records(recs, out) -> None:  # type: ignore[no-untyped-def]
    items = coop.ThreadData(ITEMS, REC)  # records: an array of structs in registers
    coop.block.load(recs, items, offset=cuda.blockIdx.x * ROW, algorithm="transpose")
    top = coop.block.reduce(items, best_score)  # a record
    if cuda.threadIdx.x == 0:
        out[cuda.blockIdx.x] = top


def main() -> None:
    rows = 64
    if not cuda.is_available():
        from numba.cuda import types
        from numba.cuda.np import numpy_support

        f32, i32 = "float32[::1]", "int32[::1]"
        report = numba_coop.compile(row_stats, f"void({f32}, {f32}, {f32}, {i32}, {f32})", block=THREADS)
        print("compiled row_stats for sm_90a (no GPU here)\n" + report.inspect().summary())
        rec = types.Array(numpy_support.from_dtype(REC), 1, "C")
        report = numba_coop.compile(best_records, (rec, rec), block=THREADS)
        print("compiled best_records for sm_90a\n" + report.inspect().summary())
        return
    rng = np.random.default_rng()
    x = (rng.integers(-64, 64, rows * ROW) / 8).astype(np.float32)  # ties for the argmax
    w = rng.random(rows * ROW).astype(np.float32)
    amax, at = cuda.device_array(rows, np.float32), cuda.to_device(np.full(rows, -1, np.int32))
    stats = cuda.to_device(np.full(3 * rows, np.nan, np.float32))
    row_stats[rows, THREADS](cuda.to_device(x), cuda.to_device(w), amax, at, stats)
    xr, wr = x.reshape(rows, ROW).astype(np.float64), w.reshape(rows, ROW).astype(np.float64)
    np.testing.assert_array_equal(at.copy_to_host(), xr.argmax(axis=1))
    np.testing.assert_array_equal(amax.copy_to_host(), xr.max(axis=1).astype(np.float32))
    got = stats.copy_to_host().reshape(rows, 3)
    np.testing.assert_allclose(got[:, 0], xr.mean(axis=1), atol=1e-5)
    np.testing.assert_allclose(got[:, 1], xr.var(axis=1), rtol=1e-4)
    # float32 sums of ~4096 terms that cancel: an absolute tolerance
    np.testing.assert_allclose(got[:, 2], (wr * xr).sum(axis=1) / wr.sum(axis=1), rtol=1e-4, atol=1e-5)
    recs = np.zeros(rows * ROW, REC)
    recs["score"] = rng.integers(0, 100, recs.size)
    recs["id"] = rng.permutation(recs.size)
    out = cuda.to_device(np.zeros(rows, REC))
    best_records[rows, THREADS](cuda.to_device(recs), out)
    tiles = recs.reshape(rows, ROW)
    want = [t[np.lexsort((t["id"], -t["score"]))[0]] for t in tiles]
    np.testing.assert_array_equal(out.copy_to_host(), np.array(want, REC))
    print(f"{rows} rows of {ROW}: argmax, mean, variance and weighted mean match NumPy; best records too")


if __name__ == "__main__":
    main()
