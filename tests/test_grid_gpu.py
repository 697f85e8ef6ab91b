# SPDX-License-Identifier: Apache-2.0
"""GPU correctness of ``coop.grid`` scans (issue 22) against NumPy: each scan (sums, a built-in and a
user operator, with and without an initial value) over grids of 1 to 2^16 blocks, blocks that finish
out of order (a pseudo-random sleep per tile), partial last tiles, item types of one word and of
status and values apart (int64 vs a 12-byte struct), blocks of 1-D, 2-D and a partial hardware
warp; one workspace reused by launches of other grids (smaller ones on a larger workspace); every
thread's ``total`` checked (``tests/_grid_kernels.py``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from . import _grid_kernels as gk
from ._numba_family import BACKENDS, family

pytestmark = pytest.mark.gpu

_CASES = [
    gk.Config("exclusive_sum", "int32", (128, 1, 1), 4, 1),
    gk.Config("exclusive_sum", "int32", (128, 1, 1), 4, 2),
    gk.Config("exclusive_sum", "int32", (128, 1, 1), 4, 1000),
    gk.Config("exclusive_sum", "int32", (128, 1, 1), 1, 65536, delay=2),  # 2^16 blocks, 2^23 items
    gk.Config("inclusive_sum", "int64", (32, 3, 1), 3, 333),
    gk.Config("inclusive_sum", "float64", (48, 1, 1), 5, 77),
    gk.Config("exclusive_sum", "float32", (64, 2, 2), 1, 4097),
    gk.Config("exclusive_sum", "int8", (128, 1, 1), 1, 5),
    gk.Config("inclusive_sum", "int16", (96, 1, 1), 2, 300),
    gk.Config("exclusive_max", "int32", (128, 1, 1), 4, 500),
    gk.Config("inclusive_max_init", "float32", (64, 1, 1), 7, 1201),
    gk.Config("exclusive_user_init", "int64", (128, 1, 1), 2, 999),
    gk.Config("exclusive_user_init", "int32", (32, 1, 1), 1, 3000),
    gk.Config("inclusive_sum", "uint8", (128, 1, 1), 3, 40),  # wraps modulo 2^8, as NumPy's
    gk.Config("exclusive_max", "uint32", (96, 1, 1), 2, 700),
    gk.Config("exclusive_user_init", "uint64", (64, 1, 1), 3, 200),
    gk.Config("exclusive_sum", "uint16", (256, 1, 1), 2, 64),
    gk.Config("exclusive_sum", "float16", (128, 1, 1), 2, 20),
    gk.Config("inclusive_max_init", "bfloat16", (64, 1, 1), 4, 90),  # CuTe only: no bfloat16 arrays in Numba
    gk.Config("inclusive_sum", "complex64", (64, 1, 1), 2, 150),  # Numba only: no complex items in CuTe
    gk.Config("exclusive_sum", "complex128", (32, 1, 1), 1, 9),
    # each block's tile its index (order="block", CUB's choice): many blocks, a 2-D block, an operator
    gk.Config("exclusive_sum", "int32", (128, 1, 1), 1, 65536, delay=2, order="block"),
    gk.Config("inclusive_sum", "float32", (32, 3, 1), 3, 777, order="block"),
    gk.Config("exclusive_user_init", "int64", (128, 1, 1), 2, 999, order="block"),
    # the sanitizers' (a few blocks: the sanitizers run the look-back's waits at a crawl)
    gk.Config("inclusive_sum", "int64", (32, 3, 1), 3, 9),
    gk.Config("inclusive_sum", "float64", (48, 1, 1), 5, 6),
    gk.Config("exclusive_sum", "float32", (64, 2, 2), 1, 11),
    gk.Config("exclusive_user_init", "int64", (128, 1, 1), 2, 13),
    gk.Config("inclusive_sum", "float32", (32, 3, 1), 3, 10, order="block"),
    # one warp scanned by raking: CUB's warp-synchronous scan, no block barrier after the look-back
    gk.Config("exclusive_sum", "int32", (32, 1, 1), 3, 12, algorithm="raking"),
    gk.Config("inclusive_max_init", "float32", (32, 1, 1), 2, 10, algorithm="raking_memoize"),
]
# 2 blocks; 2-D and 3-D blocks; a partial hardware warp (48 threads); a user operator with a seed;
# tiles in block order; one warp by raking
_SANITIZER = {c.id() for c in (_CASES[1], *_CASES[-7:])}


def _seed() -> tuple[int, np.random.Generator]:
    seed = int(np.random.SeedSequence().entropy) % 2**63
    return seed, np.random.default_rng(seed)


def _params() -> list[Any]:
    return [
        pytest.param(c, id=c.id(), marks=[pytest.mark.sanitizer] if c.id() in _SANITIZER else [])
        for c in _CASES
    ]


def _run_numba(
    cfg: gk.Config, state: Any, kernel: Any, rng: np.random.Generator, cuda: Any = None
) -> tuple[Any, ...]:
    if cuda is None:
        from numba import cuda

    x = gk.data(rng, cfg)
    dst = cuda.to_device(np.full(cfg.length, 77, cfg.dtype))
    totals = cuda.to_device(np.full(2 * cfg.grid * cfg.threads, 77, cfg.dtype))
    kernel[cfg.grid, cfg.block](cuda.to_device(x), dst, totals, state, cfg.length)
    cuda.synchronize()
    return x, dst.copy_to_host(), totals.copy_to_host()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("cfg", _params())
def test_grid_scan_numba_family(cfg: gk.Config, backend: str) -> None:
    from cuda import coop

    if cfg.dtype == "bfloat16":
        pytest.skip("numba-cuda takes no bfloat16 arrays (tests/_reference.py); CuTe's grid has it")
    jit, cuda, _source = family(backend, cfg.dtype)
    seed, rng = _seed()
    kernel = jit(gk.numba_kernel(cfg, cuda))
    state = coop.grid.ScanState(cfg.grid, cfg.dtype, array_module="numba")
    for _launch in range(3):  # the same workspace, launch after launch
        gk.check(cfg, *_run_numba(cfg, state, kernel, rng, cuda), seed)


@pytest.mark.parametrize("cfg", _params())
def test_grid_scan_cute(cfg: gk.Config) -> None:
    import cuda.coop.cutlass as cutlass_coop
    import cutlass
    import torch
    from cuda import coop
    from cutlass.cute.runtime import from_dlpack

    from ._grid_cute import host

    if cfg.dtype.startswith("complex"):
        pytest.skip("CuTe items have no complex type (cuda.coop.cutlass: cutlass_type)")
    seed, rng = _seed()
    state = coop.grid.ScanState(cfg.grid, cfg.dtype, array_module="torch")
    torch_type = getattr(torch, cfg.dtype)
    compiled = None
    for _launch in range(3):
        x = gk.data(rng, cfg)
        tensors = [
            torch.from_numpy(x).cuda().to(torch_type),
            torch.full((cfg.length,), 77, dtype=torch_type, device="cuda"),
            torch.full((2 * cfg.grid * cfg.threads,), 77, dtype=torch_type, device="cuda"),
        ]
        args = [from_dlpack(t, assumed_align=16) for t in (*tensors, state.array)]
        if compiled is None:
            compiled = cutlass_coop.compile(
                host(cfg), *args, cutlass.Int32(cfg.length), cutlass.Int32(cfg.grid)
            )
        compiled(*args, cfg.length, cfg.grid)
        torch.cuda.synchronize()
        dst, totals = (t.cpu().float() if cfg.dtype == "bfloat16" else t.cpu() for t in tensors[1:])
        gk.check(cfg, x, dst.numpy(), totals.numpy(), seed)


def test_one_workspace_many_grids_numba() -> None:
    """A workspace of 600 tiles serves grids of 600, 1, 7, 600, 2 and 599 blocks, one after the
    other, given as the ScanState and as its array; int32 and float32 share it (one size)."""
    import cuda.coop.numba as numba_coop
    from cuda import coop

    seed, rng = _seed()
    state = coop.grid.ScanState(600, np.int32)
    for k, grid in enumerate((600, 1, 7, 600, 2, 599)):
        dtype = ("int32", "float32")[k % 2]
        cfg = gk.Config("exclusive_sum", dtype, (128, 1, 1), 2, grid)
        kernel = numba_coop.jit(gk.numba_kernel(cfg))
        gk.check(cfg, *_run_numba(cfg, state if k % 3 else state.array, kernel, rng), seed)


def _structured_kernel(fields: tuple[str, ...], tile: int, n: int) -> Any:
    from cuda import coop

    t0, t1 = (np.dtype(f) for f in fields[:2])
    if len(fields) == 3:

        def kernel(a, b, c, oa, ob, oc, state, m):  # type: ignore[no-untyped-def]
            tile_ = coop.grid.tile_index(state)
            base = tile_ * tile
            valid = min(m - base, tile)
            xa = coop.ThreadData(n, np.int32)
            xb = coop.ThreadData(n, np.int32)
            xc = coop.ThreadData(n, np.int32)
            coop.block.load((a, b, c), (xa, xb, xc), offset=base, valid_items=valid, oob_default=0)
            out = coop.grid.exclusive_sum((xa, xb, xc), state, tile_)
            coop.block.store((oa, ob, oc), out, offset=base, valid_items=valid)

        return kernel

    def kernel2(a, b, oa, ob, state, m):  # type: ignore[no-untyped-def]
        tile_ = coop.grid.tile_index(state)
        base = tile_ * tile
        valid = min(m - base, tile)
        xa = coop.ThreadData(n, t0)
        xb = coop.ThreadData(n, t1)
        coop.block.load((a, b), (xa, xb), offset=base, valid_items=valid, oob_default=0)
        out = coop.grid.exclusive_sum((xa, xb), state, tile_)
        coop.block.store((oa, ob), out, offset=base, valid_items=valid)

    return kernel2


def test_structured_items_numba() -> None:
    """(int32, int32, int32) items: 12 bytes, so CUB keeps status and values apart; and (float32,
    int32): one word."""
    import cuda.coop.numba as numba_coop
    from cuda import coop
    from numba import cuda

    seed, rng = _seed()
    for fields in (("int32", "int32", "int32"), ("float32", "int32")):
        grid, block, n = 300, 64, 3
        length = grid * block * n - 5
        cols = [rng.integers(-50, 50, length).astype(f) for f in fields]
        state = coop.grid.ScanState(grid, fields)
        ins = [cuda.to_device(c) for c in cols]
        outs = [cuda.to_device(np.full(length, 9, c.dtype)) for c in cols]
        numba_coop.jit(_structured_kernel(fields, block * n, n))[grid, block](*ins, *outs, state, length)
        for col, out in zip(cols, outs, strict=True):
            want = np.concatenate([[0], np.cumsum(col)[:-1]]).astype(col.dtype)
            np.testing.assert_array_equal(out.copy_to_host(), want, err_msg=f"{fields} seed={seed}")


def test_graph_replay_numba() -> None:
    """A launch captured in a CUDA graph (CuPy's stream capture) and replayed five times on new
    data: every replay scans right, with no initialisation between them (the launch count lives in
    the workspace)."""
    cp = pytest.importorskip("cupy")
    import cuda.coop.numba as numba_coop
    from cuda import coop

    seed, rng = _seed()
    cfg = gk.Config("inclusive_sum", "int32", (128, 1, 1), 4, 300)
    kernel = numba_coop.jit(gk.numba_kernel(cfg))
    state = coop.grid.ScanState(cfg.grid, cfg.dtype, array_module="cupy")
    src = cp.asarray(gk.data(rng, cfg))
    dst = cp.zeros(cfg.length, cp.int32)
    totals = cp.zeros(2 * cfg.grid * cfg.threads, cp.int32)
    stream = cp.cuda.Stream(non_blocking=True)
    launch = kernel[cfg.grid, cfg.block, stream]
    launch(src, dst, totals, state, cfg.length)  # compiled and planned before the capture
    stream.synchronize()
    stream.begin_capture()
    launch(src, dst, totals, state, cfg.length)
    graph = stream.end_capture()
    for _replay in range(5):
        x = gk.data(rng, cfg)
        src.set(x, stream=stream)
        with stream:
            dst.fill(0)
        graph.launch(stream)
        stream.synchronize()
        gk.check(cfg, x, dst.get(), totals.get(), seed)
