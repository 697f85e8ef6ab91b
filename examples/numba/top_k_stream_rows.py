# SPDX-License-Identifier: Apache-2.0
"""The 16 largest values of each row and their indices, a warp per row, without sorting the row.

A warp streams its row of 4096 float32 in 4 tiles of 32 lanes x 32 items (``coop.warp.load``,
striped). The first tile sets a threshold: the 16th largest of the lanes' maxima (a
``coop.warp.merge_sort`` of one key a lane), which at least 16 of the row's items reach. Each item
above the threshold (at or above it in the first tile) goes to the warp's buffer in shared memory,
64 (value, index) entries: the list of 16 found so far, then 48 pending; ``coop.warp.exclusive_sum``
of the lanes' counts gives each its place. When the pending part is full, and after the last tile,
a ``coop.warp.merge_sort`` of the 64 entries (largest value first, of equal values the smaller
index) keeps the first 16 as the list and their 16th value as the new threshold. On random rows a
warp sorts its buffer about twice a row; rows that defeat the threshold (ascending rows, ties) only
take more sorts, and the tile is then read again from L1/L2 for the entries that did not fit.

The result is exact: the rows below include ascending, descending and constant rows, rows of few
distinct values and rows of -inf, and each is compared with NumPy's order (``np.lexsort``) value by
value and index by index. On a GPU it runs; without one it is compiled ahead of time for sm_90a.
"""

from __future__ import annotations

import cuda.coop.numba as numba_coop
import numpy as np
from cuda import coop
from numba import cuda
from numpy.typing import NDArray

K, N = 16, 4096
THREADS, ITEMS = 128, 32  # 4 warps, so 4 rows, a block
ROWS_PER_BLOCK = THREADS // 32
WTILE = 32 * ITEMS  # a warp's tile
CAP, FRESH, SLOTS = 64, 48, 2  # buffer entries: the list of K, then FRESH pending; SLOTS a lane
BIG = np.int32(2**31 - 1)
NINF = np.float32(-np.inf)


def before(a: tuple[float, int], b: tuple[float, int]) -> bool:
    """The top-k order of (value, index): the larger value first, of equal values the smaller index."""
    return a[0] > b[0] or (a[0] == b[0] and a[1] < b[1])


@numba_coop.jit
def top_k_rows(x: NDArray[np.float32], values: NDArray[np.float32], indices: NDArray[np.int32]) -> None:
    t = np.uint32(cuda.threadIdx.x)  # unsigned: Numba's indexing skips its negative-index checks
    lane, w = t % 32, t // 32
    row = np.uint32(cuda.blockIdx.x) * ROWS_PER_BLOCK + w
    buf_v = cuda.shared.array((ROWS_PER_BLOCK, CAP), np.float32)
    buf_i = cuda.shared.array((ROWS_PER_BLOCK, CAP), np.int32)
    bv, bi = buf_v[w], buf_i[w]  # this warp's buffer
    for s in range(SLOTS):
        bv[lane * SLOTS + s] = NINF
        bi[lane * SLOTS + s] = BIG
    scratch = coop.TempStorage()  # one slice a warp for the two sorts (a syncwarp between uses)
    xs = coop.ThreadData(ITEMS, np.float32)
    tau = NINF
    pend = 0
    for j in range(N // WTILE):
        first = j * WTILE
        coop.warp.load(x, xs, offset=int(row * N + first), algorithm="striped")  # lane l, item i: l + 32 i
        if j == 0:
            m = coop.ThreadData(1, np.float32)
            m[0] = xs[0]
            for i in range(1, ITEMS):
                m[0] = max(m[0], xs[i])
            coop.warp.merge_sort(m, "greater", temp_storage=scratch)
            tau = coop.warp.broadcast(m[0], K - 1)  # the 16th largest lane maximum
        thr = tau
        cnt = np.int32(0)
        for i in range(ITEMS):
            if xs[i] > thr or (j == 0 and xs[i] == thr):
                cnt += 1
        off, total = coop.warp.exclusive_sum(cnt, warp_aggregate=True)
        last = j == N // WTILE - 1
        done = 0
        if pend + total <= FRESH:  # the common case: all fit, written from registers
            r = np.uint32(K + pend + off)
            for i in range(ITEMS):
                if xs[i] > thr or (j == 0 and xs[i] == thr):
                    bv[r] = xs[i]
                    bi[r] = first + lane + i * 32
                    r += np.uint32(1)
            pend += total
            done = total
        while done < total or pend == FRESH or (last and pend > 0):
            if done < total:  # more than fit: the next ones by rank, the tile read again
                take = min(total - done, FRESH - pend)
                r2 = off - done
                for i in range(ITEMS):
                    v = x[row * N + first + lane + i * 32]
                    if v > thr or (j == 0 and v == thr):
                        if r2 >= 0 and r2 < take:
                            bv[np.uint32(K + pend + r2)] = v
                            bi[np.uint32(K + pend + r2)] = first + lane + i * 32
                        r2 += 1
                pend += take
                done += take
            if pend == FRESH or (last and done == total):  # sort: the first 16 are the new list
                cuda.syncwarp()
                kv = coop.ThreadData(SLOTS, np.float32)
                ki = coop.ThreadData(SLOTS, np.int32)
                for s in range(SLOTS):
                    kv[s] = bv[lane * SLOTS + s]
                    ki[s] = bi[lane * SLOTS + s]
                coop.warp.merge_sort((kv, ki), before, temp_storage=scratch)
                for s in range(SLOTS):  # lanes 0-7 hold the first 16; the other entries are emptied
                    keep = lane * SLOTS + s < K
                    bv[lane * SLOTS + s] = kv[s] if keep else NINF
                    bi[lane * SLOTS + s] = ki[s] if keep else BIG
                tau = coop.warp.broadcast(kv[SLOTS - 1], K // SLOTS - 1)  # the list's 16th value
                pend = 0
                cuda.syncwarp()
    if lane < K:
        values[row * K + lane] = bv[lane]
        indices[row * K + lane] = bi[lane]


def rows_to_check(rows: int) -> NDArray[np.float32]:
    """Random rows, and rows that defeat the threshold or test the order of ties."""
    rng = np.random.default_rng()
    x = rng.standard_normal((rows, N)).astype(np.float32)
    x[1] = np.arange(N)  # ascending: every tile beats the list so far
    x[2] = -np.arange(N)  # descending
    x[3] = 2.5  # all equal: the 16 smallest indices
    x[4] = rng.integers(0, 3, N)  # three values, many ties
    x[5] = -np.inf
    x[6, ::7] = np.float32(9.0)  # more than 16 equal largest values
    x[7] = np.sort(x[7])
    return x


def main() -> None:
    signature = "void(float32[::1], float32[::1], int32[::1])"
    if not cuda.is_available():
        report = numba_coop.compile(top_k_rows, signature, block=THREADS).inspect()
        print("compiled top_k_rows for sm_90a (no GPU here)\n" + report.summary())
        return
    rows = 1024
    x = rows_to_check(rows)
    values = cuda.device_array(rows * K, np.float32)
    indices = cuda.device_array(rows * K, np.int32)
    top_k_rows[rows // ROWS_PER_BLOCK, THREADS](cuda.to_device(x.reshape(-1)), values, indices)
    got_v, got_i = values.copy_to_host().reshape(rows, K), indices.copy_to_host().reshape(rows, K)
    order = np.stack([np.lexsort((np.arange(N), -r.astype(np.float64)))[:K] for r in x])
    np.testing.assert_array_equal(got_i, order)
    np.testing.assert_array_equal(got_v, np.take_along_axis(x, order, 1))
    print(f"{rows} rows of {N}: the {K} largest of each and their indices, as NumPy orders them")


if __name__ == "__main__":
    main()
