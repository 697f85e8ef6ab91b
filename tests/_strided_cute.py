# SPDX-License-Identifier: Apache-2.0
"""CuTe kernels that read and write a strided 1-D view (a column ``mat[None, col]`` of a row-major
tensor) with every algorithm the docs allow on one (``direct``, ``striped``), then reduce, scan or
store the items, tile after tile of the column in a loop (``offset=tl * TILE``), on 1-D and 2-D
blocks; for tests/test_cutlass_strided.py. Also a script: ``python -m tests._strided_cute CASE``
runs one case on the GPU and prints ``CASE ok`` or what differs (the GPU test runs each case in a
process of its own, so that a hung kernel fails its case alone, named, after a time limit)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

try:  # CuTe reads the kernels' annotations from this module's globals
    import cutlass
    import cutlass.cute as cute
except ImportError:  # the host tests skip without it
    cutlass = cute = None

ITEMS, TILES, COLS = 3, 2, 12
ALGORITHMS = ("direct", "striped")
FOLLOWS = ("sum", "reduce", "inclusive_sum", "store")
BLOCKS = ((64, 1), (32, 2), (33, 1))
DTYPES = ("int32", "float32")


@dataclass(frozen=True)
class Case:
    algorithm: str
    follow: str  # what the kernel does with the loaded items
    block: tuple[int, int]
    dtype: str
    dynamic: bool  # the tensors' layouts dynamic (a runtime column stride)
    unrolled: bool = False  # the tiles one after another (cutlass.range_constexpr), not a loop

    @property
    def id(self) -> str:
        bx, by = self.block
        stride = "dynamic" if self.dynamic else "static"
        loop = "-unrolled" if self.unrolled else ""
        return f"{self.algorithm}-{self.follow}-{bx}x{by}-{self.dtype}-{stride}{loop}"

    @property
    def threads(self) -> int:
        return self.block[0] * self.block[1]

    @property
    def tile(self) -> int:
        return self.threads * ITEMS

    @property
    def rows(self) -> int:
        return TILES * self.tile


def cases() -> list[Case]:
    return [
        Case(a, f, b, d, dyn, unrolled)
        for a in ALGORITHMS
        for f in FOLLOWS
        for b in BLOCKS
        for d in DTYPES
        for dyn in (False, True)
        for unrolled in (False, True)
    ]


def by_id(name: str) -> Case:
    return next(c for c in cases() if c.id == name)


def host(case: Case) -> Any:
    """The ``@cute.jit`` host launching one block per column of a ``(rows, COLS)`` tensor."""
    algorithm, follow, (bx, by), tile = case.algorithm, case.follow, case.block, case.tile
    unrolled = case.unrolled
    dtype = getattr(cutlass, case.dtype.capitalize())

    @cute.jit
    def tile_of(c: cute.Tensor, o: cute.Tensor, tl: cutlass.Int32, tx: cutlass.Int32, ty: cutlass.Int32):  # type: ignore[no-untyped-def]
        from cuda import coop

        items = coop.ThreadData(ITEMS, dtype)
        coop.block.load(c, items, offset=tl * tile, algorithm=algorithm)
        if cutlass.const_expr(follow == "sum"):
            s = coop.block.sum(items)
            if tx == 0 and ty == 0:
                o[tl] = s
        if cutlass.const_expr(follow == "reduce"):
            m = coop.block.reduce(items, "max", algorithm="raking")
            if tx == 0 and ty == 0:
                o[tl] = m
        if cutlass.const_expr(follow == "inclusive_sum"):
            run = coop.block.inclusive_sum(items)
            coop.block.store(o, run, offset=tl * tile, algorithm=algorithm)
        if cutlass.const_expr(follow == "store"):
            coop.block.store(o, items, offset=tl * tile, algorithm=algorithm)

    @cute.kernel
    def kernel(mat: cute.Tensor, out: cute.Tensor):  # type: ignore[no-untyped-def]
        col, _, _ = cute.arch.block_idx()
        tx, ty, _ = cute.arch.thread_idx()
        c, o = mat[None, col], out[None, col]  # strided views, layout (rows):(COLS)
        if cutlass.const_expr(unrolled):  # the tiles' code one after another (a Python loop)
            for tl in cutlass.range_constexpr(TILES):
                tile_of(c, o, cutlass.Int32(tl), tx, ty)
        else:  # a loop in the kernel
            for tl in range(TILES):
                tile_of(c, o, tl, tx, ty)

    @cute.jit
    def launch(mat: cute.Tensor, out: cute.Tensor):  # type: ignore[no-untyped-def]
        kernel(mat, out).launch(grid=(COLS, 1, 1), block=(bx, by, 1))

    return launch


def data(case: Case, rng: np.random.Generator) -> np.ndarray:
    if case.dtype == "int32":
        return rng.integers(-1000, 1000, (case.rows, COLS)).astype(np.int32)
    return (rng.integers(-64, 64, (case.rows, COLS)) / 8).astype(np.float32)  # sums are exact


def expected(case: Case, x: np.ndarray, poison: Any) -> np.ndarray:
    want = np.full_like(x, poison)
    tiles = x.reshape(TILES, case.tile, COLS)
    if case.follow == "sum":
        want[:TILES] = tiles.sum(axis=1, dtype=x.dtype)
    elif case.follow == "reduce":
        want[:TILES] = tiles.max(axis=1)
    elif case.follow == "inclusive_sum":  # the scan runs in blocked order: rank x ITEMS + item
        order = _scan_order(case)
        scanned = np.empty_like(tiles)
        scanned[:, order] = np.cumsum(tiles[:, order], axis=1, dtype=x.dtype)
        want[...] = scanned.reshape(x.shape)
    else:
        want[...] = x
    return want


def _scan_order(case: Case) -> np.ndarray:
    """The tile positions in the order a block scan sees them: item i of thread t is the scan's
    element t * ITEMS + i, and sits at t * ITEMS + i (``direct``) or t + i * threads (``striped``)."""
    t, i = np.divmod(np.arange(case.tile), ITEMS)
    return t * ITEMS + i if case.algorithm == "direct" else t + i * case.threads


def fake_tensors(case: Case) -> list[Any]:
    """Two fake tensors for compiling without a GPU: static compact or with a symbolic row stride."""
    from cutlass.cute.runtime import SymInt, make_fake_compact_tensor, make_fake_tensor

    dtype = getattr(cutlass, case.dtype.capitalize())
    if case.dynamic:
        return [make_fake_tensor(dtype, (case.rows, COLS), (SymInt(), 1), assumed_align=4) for _ in range(2)]
    return [make_fake_compact_tensor(dtype, (case.rows, COLS), stride_order=(1, 0)) for _ in range(2)]


def run(case: Case) -> str:
    """Run ``case`` on the GPU: ``"<id> ok"`` or what differs."""
    import cuda.coop.cutlass as cutlass_coop
    import torch
    from cutlass.cute.runtime import from_dlpack

    x = data(case, np.random.default_rng())
    poison = -7 if case.dtype == "int32" else np.nan
    src = torch.from_numpy(x).cuda()
    dst = torch.full_like(src, poison)

    def tensor(t: Any) -> Any:
        ct = from_dlpack(t)
        return ct.mark_layout_dynamic(leading_dim=1) if case.dynamic else ct

    compiled = cutlass_coop.compile(host(case), tensor(src), tensor(dst))
    compiled(tensor(src), tensor(dst))
    torch.cuda.synchronize()
    got, want = dst.cpu().numpy(), expected(case, x, poison)
    same = (got == want) | (np.isnan(got) & np.isnan(want)) if got.dtype.kind == "f" else got == want
    if same.all():
        return f"{case.id} ok"
    bad = np.argwhere(~same)[:4].tolist()
    shown = [(got[tuple(b)], want[tuple(b)]) for b in bad]
    return f"{case.id} differs at {bad}: (got, want) {shown}"


if __name__ == "__main__":
    for name in sys.argv[1:]:
        print(run(by_id(name)), flush=True)
