# SPDX-License-Identifier: Apache-2.0
"""Kernels and NumPy references of the cluster tests: one row per cluster, of ``LENGTH`` items
(partial: the last blocks of the cluster hold fewer valid items, or none), each block loading its
part of the row (blocked, ``valid_items`` and an ``oob_default`` that cannot win), then
``coop.cluster.sum`` of int32 items, ``coop.cluster.reduce`` with a user maximum of float32 items,
``coop.cluster.argmax`` of the items loaded with ``algorithm="auto"`` (``arrangement="auto"``: in runs
at 8 items a thread, blocked at 4) / ``argmin`` of the same items loaded striped, with
``arrangement="striped"`` (default indices: positions in the cluster's tile, either way) and the
field-wise sum of an (int32, int64) tuple; every thread of every block writes what it got, so the
test checks that the whole cluster has the row's result. Numba and CuTe kernels of the same form."""

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

#: Clusters (1-D along x) tested: every size up to 16 blocks (non-portable above 8).
CLUSTERS = (1, 2, 4, 8, 16)
#: Block shapes: whole warps, 96 threads in 2-D, 70 threads in 3-D (a partial hardware warp).
BLOCKS: tuple[Any, ...] = (128, (32, 3), (5, 7, 2))
ITEMS = (1, 4, 8)
ROWS = 3  # clusters in the grid (an odd number)
OUTPUTS = ("total", "top", "amax_v", "amax_i", "amin_v", "amin_i", "pair0", "pair1")
_POISON = {"int32": -7, "float32": np.nan, "int64": -7}
_TYPES = {
    "total": "int32",
    "top": "float32",
    "amax_v": "float32",
    "amax_i": "int32",
    "amin_v": "float32",
    "amin_i": "int32",
    "pair0": "int32",
    "pair1": "int64",
}


def dims(block: Any) -> tuple[int, int, int]:
    b = (block,) if isinstance(block, int) else tuple(block)
    return (*b, *(1,) * (3 - len(b)))  # type: ignore[return-value]


@dataclass(frozen=True)
class Config:
    cluster: int
    block: tuple[int, int, int]
    items: int

    @property
    def threads(self) -> int:
        return math.prod(self.block)

    @property
    def tile(self) -> int:
        return self.threads * self.items

    @property
    def length(self) -> int:
        """A row's items: the cluster's tile less part of the last block's (and, in clusters of more
        than two blocks, none for the last block at all)."""
        full = self.cluster * self.tile
        if self.cluster > 2:
            return full - self.tile - self.tile // 3 - 1
        return full - self.tile // 3 - 1 if full > 1 else full

    @property
    def grid(self) -> int:
        return ROWS * self.cluster

    def id(self) -> str:
        return f"c{self.cluster}-{'x'.join(map(str, self.block))}-i{self.items}"


def data(rng: np.random.Generator, cfg: Config) -> dict[str, np.ndarray]:
    n = ROWS * cfg.length
    return {
        "ints": rng.integers(-1000, 1000, n, dtype=np.int32),
        "floats": rng.standard_normal(n).astype(np.float32),
        "longs": rng.integers(-(2**40), 2**40, n, dtype=np.int64),
    }


def outputs(cfg: Config) -> dict[str, np.ndarray]:
    n = cfg.grid * cfg.threads
    return {k: np.full(n, _POISON[_TYPES[k]], dtype=_TYPES[k]) for k in OUTPUTS}


def check(cfg: Config, d: dict[str, np.ndarray], out: dict[str, np.ndarray], seed: int) -> None:
    """Every thread of every block of row r's cluster holds row r's results."""
    per_row = cfg.cluster * cfg.threads
    for r in range(ROWS):
        part = slice(r * cfg.length, (r + 1) * cfg.length)
        ints, floats, longs = d["ints"][part], d["floats"][part], d["longs"][part]
        want = {
            "total": np.int32(ints.astype(np.int64).sum()),
            "top": floats.max(),
            "amax_v": floats.max(),
            "amax_i": np.int32(np.argmax(floats)),
            "amin_v": floats.min(),
            "amin_i": np.int32(np.argmin(floats)),
            "pair0": np.int32(ints.astype(np.int64).sum()),
            "pair1": np.int64(longs.sum()),
        }
        for k, v in want.items():
            got = out[k][r * per_row : (r + 1) * per_row]
            bad = np.flatnonzero(got != v)
            assert bad.size == 0, (
                f"{cfg.id()} seed {seed}: {k} of row {r} is {got[bad[0]]} in thread {bad[0] % cfg.threads} "
                f"of block {bad[0] // cfg.threads} of the cluster ({bad.size} threads wrong), expected {v}"
            )


def numba_kernel(cfg: Config) -> Any:
    from cuda import coop
    from numba import cuda

    c, tile, length, n = cfg.cluster, cfg.tile, cfg.length, cfg.items
    low, high = np.float32(-np.inf), np.float32(np.inf)

    def bigger(a, b):  # type: ignore[no-untyped-def]
        return a if a > b else b

    def kernel(ints, floats, longs, total, top, amax_v, amax_i, amin_v, amin_i, pair0, pair1):  # type: ignore[no-untyped-def]
        b = cuda.blockIdx.x
        row, rank = b // c, b % c
        t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        offset = row * length + rank * tile
        valid = min(max(length - rank * tile, 0), tile)
        xi = coop.ThreadData(n, np.int32)
        xf = coop.ThreadData(n, np.float32)
        xg = coop.ThreadData(n, np.float32)
        xl = coop.ThreadData(n, np.int64)
        coop.block.load(ints, xi, offset=offset, valid_items=valid, oob_default=0)
        coop.block.load(floats, xf, offset=offset, valid_items=valid, oob_default=low, algorithm="auto")
        coop.block.load(floats, xg, offset=offset, valid_items=valid, oob_default=high, algorithm="striped")
        coop.block.load(longs, xl, offset=offset, valid_items=valid, oob_default=0)
        s = coop.cluster.sum(xi)
        m = coop.cluster.reduce(xf, bigger)
        best = coop.cluster.argmax(xf, arrangement="auto")
        worst = coop.cluster.argmin(xg, arrangement="striped")
        p = coop.cluster.sum((xi, xl))
        g = b * cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z + t
        total[g] = s
        top[g] = m
        amax_v[g] = best[0]
        amax_i[g] = best[1]
        amin_v[g] = worst[0]
        amin_i[g] = worst[1]
        pair0[g] = p[0]
        pair1[g] = p[1]

    return kernel


def cute_host(cfg: Config) -> Any:
    import cutlass
    import cutlass.cute as cute
    from cuda import coop

    c, tile, length, n, (bx, by, bz) = cfg.cluster, cfg.tile, cfg.length, cfg.items, cfg.block
    threads, grid = cfg.threads, cfg.grid

    def bigger(a, b):  # type: ignore[no-untyped-def]
        return cutlass.max(a, b)

    @cute.kernel
    def kernel(ints: cute.Tensor, floats: cute.Tensor, longs: cute.Tensor, total: cute.Tensor, top: cute.Tensor,  # noqa: E501
               amax_v: cute.Tensor, amax_i: cute.Tensor, amin_v: cute.Tensor, amin_i: cute.Tensor,
               pair0: cute.Tensor, pair1: cute.Tensor) -> None:  # fmt: skip
        b, _, _ = cute.arch.block_idx()
        tx, ty, tz = cute.arch.thread_idx()
        row = b // c
        rank = cute.arch.block_idx_in_cluster()
        t = tx + bx * (ty + by * tz)
        offset = row * length + rank * tile
        valid = cutlass.min(cutlass.max(length - rank * tile, 0), tile)
        xi = coop.ThreadData(n, cutlass.Int32)
        xf = coop.ThreadData(n, cutlass.Float32)
        xg = coop.ThreadData(n, cutlass.Float32)
        xl = coop.ThreadData(n, cutlass.Int64)
        coop.block.load(ints, xi, offset=offset, valid_items=valid, oob_default=0)
        coop.block.load(
            floats, xf, offset=offset, valid_items=valid, oob_default=-float("inf"), algorithm="auto"
        )
        coop.block.load(
            floats, xg, offset=offset, valid_items=valid, oob_default=float("inf"), algorithm="striped"
        )
        coop.block.load(longs, xl, offset=offset, valid_items=valid, oob_default=0)
        s = coop.cluster.sum(xi)
        m = coop.cluster.reduce(xf, bigger)
        best = coop.cluster.argmax(xf, arrangement="auto")
        worst = coop.cluster.argmin(xg, arrangement="striped")
        p = coop.cluster.sum((xi, xl))
        g = b * threads + t
        total[g] = s
        top[g] = m
        amax_v[g] = best[0]
        amax_i[g] = best[1]
        amin_v[g] = worst[0]
        amin_i[g] = worst[1]
        pair0[g] = p[0]
        pair1[g] = p[1]

    @cute.jit
    def host(ints: cute.Tensor, floats: cute.Tensor, longs: cute.Tensor, total: cute.Tensor, top: cute.Tensor,
             amax_v: cute.Tensor, amax_i: cute.Tensor, amin_v: cute.Tensor, amin_i: cute.Tensor,
             pair0: cute.Tensor, pair1: cute.Tensor) -> None:  # fmt: skip
        kernel(ints, floats, longs, total, top, amax_v, amax_i, amin_v, amin_i, pair0, pair1).launch(
            grid=(grid, 1, 1), block=(bx, by, bz), cluster=(c, 1, 1)
        )

    return host


def cute_host_without_cluster() -> Any:
    """A CuTe kernel calling ``coop.cluster.sum``, launched without a cluster (for the error)."""
    import cutlass.cute as cute
    from cuda import coop

    @cute.kernel
    def kernel(x: cute.Tensor) -> None:
        items = coop.ThreadData(1, x.element_type)
        coop.block.load(x, items)
        coop.cluster.sum(items)

    @cute.jit
    def host(x: cute.Tensor) -> None:
        kernel(x).launch(grid=(2, 1, 1), block=(64, 1, 1))

    return host


# --- several calls at one call site: persistent clusters -------------------------------------------
#: Clusters in the grid of the loop kernels, and the rows they share: cluster k takes rows k, k + 2,
#: ... (four iterations for cluster 0, three for cluster 1), so that each call site runs several
#: times, through both stages of the cluster state and both parities of their mbarriers.
LOOP_CLUSTERS = 2
LOOP_ROWS = 7
LOOP_OUTPUTS = ("total", "top", "helped")


def loop_data(rng: np.random.Generator, cfg: Config) -> dict[str, np.ndarray]:
    n = LOOP_ROWS * cfg.cluster * cfg.tile
    return {
        "ints": rng.integers(-1000, 1000, n, dtype=np.int32),
        "floats": rng.standard_normal(n).astype(np.float32),
    }


def loop_outputs(cfg: Config) -> dict[str, np.ndarray]:
    n = LOOP_ROWS * cfg.cluster * cfg.threads
    return {
        "total": np.full(n, -7, np.int32),
        "top": np.full(n, np.nan, np.float32),
        "helped": np.full(n, -7, np.int32),
    }


def loop_check(
    cfg: Config, d: dict[str, np.ndarray], out: dict[str, np.ndarray], seed: int, helper: bool
) -> None:
    """Every thread of every block of the cluster that took row r holds row r's results."""
    per_row, length = cfg.cluster * cfg.threads, cfg.cluster * cfg.tile
    for r in range(LOOP_ROWS):
        ints, floats = d["ints"][r * length : (r + 1) * length], d["floats"][r * length : (r + 1) * length]
        total = np.int32(ints.astype(np.int64).sum())
        want = {"total": total, "top": floats.max(), **({"helped": np.int32(2 * total)} if helper else {})}
        for k, v in want.items():
            got = out[k][r * per_row : (r + 1) * per_row]
            bad = np.flatnonzero(got != v)
            assert bad.size == 0, (
                f"loop {cfg.id()} seed {seed}: {k} of row {r} is {got[bad[0]]} in thread "
                f"{bad[0] % cfg.threads} of block {bad[0] // cfg.threads} ({bad.size} threads wrong), "
                f"expected {v}"
            )


def loop_numba_kernel(cfg: Config) -> Any:
    """Persistent clusters: a loop over rows with two call sites of different item types, and a
    device helper that makes a third cluster call (its own prologue runs at each of its calls).
    Blocks sleep by rank and row so that they reach the calls at different times."""
    from cuda import coop
    from numba import cuda

    c, tile, n = cfg.cluster, cfg.tile, cfg.items
    length = c * tile

    @cuda.jit(device=True)
    def doubled_sum(items):  # type: ignore[no-untyped-def]
        return coop.cluster.sum(items) * 2

    def kernel(ints, floats, total, top, helped):  # type: ignore[no-untyped-def]
        b = cuda.blockIdx.x
        cluster, rank = b // c, b % c
        threads = cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z
        t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        xi = coop.ThreadData(n, np.int32)
        xf = coop.ThreadData(n, np.float32)
        for row in range(cluster, LOOP_ROWS, LOOP_CLUSTERS):
            if (row + rank) % 3 == 0:
                cuda.nanosleep(20000)
            offset = row * length + rank * tile
            coop.block.load(ints, xi, offset=offset)
            coop.block.load(floats, xf, offset=offset)
            s = coop.cluster.sum(xi)
            m = coop.cluster.reduce(xf, "max")
            h = doubled_sum(xi)
            g = row * c * threads + rank * threads + t
            total[g] = s
            top[g] = m
            helped[g] = h

    return kernel


def loop_cute_host(cfg: Config) -> Any:
    """The loop kernel in CuTe (no helper: CuTe traces device functions into the kernel)."""
    import cutlass
    import cutlass.cute as cute
    from cuda import coop

    c, tile, n, (bx, by, bz), threads = cfg.cluster, cfg.tile, cfg.items, cfg.block, cfg.threads
    length = c * tile

    @cute.kernel
    def kernel(ints: cute.Tensor, floats: cute.Tensor, total: cute.Tensor, top: cute.Tensor) -> None:
        b, _, _ = cute.arch.block_idx()
        tx, ty, tz = cute.arch.thread_idx()
        cluster = b // c
        rank = cute.arch.block_idx_in_cluster()
        t = tx + bx * (ty + by * tz)
        xi = coop.ThreadData(n, cutlass.Int32)
        xf = coop.ThreadData(n, cutlass.Float32)
        for row in cutlass.range(cluster, LOOP_ROWS, LOOP_CLUSTERS):
            offset = row * length + rank * tile
            coop.block.load(ints, xi, offset=offset)
            coop.block.load(floats, xf, offset=offset)
            s = coop.cluster.sum(xi)
            m = coop.cluster.reduce(xf, "max")
            g = row * c * threads + rank * threads + t
            total[g] = s
            top[g] = m

    @cute.jit
    def host(ints: cute.Tensor, floats: cute.Tensor, total: cute.Tensor, top: cute.Tensor) -> None:
        kernel(ints, floats, total, top).launch(
            grid=(LOOP_CLUSTERS * c, 1, 1), block=(bx, by, bz), cluster=(c, 1, 1)
        )

    return host
