# SPDX-License-Identifier: Apache-2.0
"""Run by tests/test_structured_items.py on the GPU, in a process of its own: it adds rows copied
from the catalog with ``structured=True`` (no shipped row takes tuples yet), runs kernels on fresh
random data with poisoned outputs, and prints one ``name ok`` or ``name WRONG ...`` line per check
against NumPy. Usage: python -m tests._structured_gpu numba|cute."""

import dataclasses
import sys

import numpy as np

try:  # CuTe reads the kernels' annotations from this module's globals
    import cutlass
    import cutlass.cute as cute
except ImportError:  # the Numba half runs without it
    cutlass = cute = None

THREADS, ITEMS, ROWS = 128, 4, 6
TILE = THREADS * ITEMS
WARP_THREADS = 96  # three warps; logical warps of 8 lanes


def add_rows() -> None:
    from cuda.coop import _catalog
    from cuda.coop._catalog import CATALOG

    for key, name in (
        ("block.reduce", "struct_reduce"),
        ("block.exchange", "struct_exchange"),
        ("warp.reduce", "struct_warp_reduce"),
    ):
        row = CATALOG[key]
        kind = dataclasses.replace(row.payload.kind, structured=True)
        params = tuple(dataclasses.replace(q, kind=kind) if q is row.payload else q for q in row.params)
        _catalog.add(dataclasses.replace(row, name=name, params=params))


def data(rng: np.random.Generator) -> dict[str, np.ndarray]:
    # few distinct values: many ties, which must go to the smallest index
    values = rng.integers(-20, 20, size=(ROWS, TILE)).astype(np.float32) / 4
    return {
        "values": values,
        "a": rng.standard_normal(ROWS * TILE),
        "b": rng.integers(-128, 128, size=ROWS * TILE).astype(np.int8),
        "w": rng.standard_normal(WARP_THREADS).astype(np.float32),
    }


def expected(d: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    a = d["a"].reshape(ROWS, ITEMS, THREADS)  # striped: item i of thread t at i * THREADS + t
    b = d["b"].reshape(ROWS, ITEMS, THREADS)
    w = d["w"].reshape(-1, 8)
    ids = np.arange(WARP_THREADS, dtype=np.int32).reshape(-1, 8)
    return {
        "argmax_v": d["values"].max(axis=1),
        "argmax_i": d["values"].argmax(axis=1).astype(np.int32),
        "blocked_a": a.transpose(0, 2, 1).reshape(-1),  # thread t then holds items t*ITEMS + i
        "blocked_b": b.transpose(0, 2, 1).reshape(-1),
        "warp": (w.sum(axis=1) + (w * 2).max(axis=1) + ids.min(axis=1)).astype(np.float32),
    }


def check(name: str, got: np.ndarray, want: np.ndarray, tol: float = 0.0) -> None:
    ok = np.allclose(got, want, rtol=tol, atol=tol) if tol else np.array_equal(got, want)
    bad = np.flatnonzero(~np.isclose(got, want, rtol=tol, atol=tol) if tol else got != want)
    print(f"{name} ok" if ok else f"{name} WRONG at {bad[:8].tolist()} of {got.size}: {got.flat[bad[:4]]}")


def run_numba() -> None:
    import cuda.coop.numba as numba_coop
    from cuda import coop
    from numba import cuda

    add_rows()

    def argmax(p, q):  # type: ignore[no-untyped-def]
        if q[0] > p[0] or (q[0] == p[0] and q[1] < p[1]):
            return q
        return p

    @numba_coop.jit
    def reduce_kernel(src, dst_v, dst_i):  # type: ignore[no-untyped-def]
        t, row = cuda.threadIdx.x, cuda.blockIdx.x
        v = coop.ThreadData(ITEMS, np.float32)
        ix = coop.ThreadData(ITEMS, np.int32)
        for i in range(ITEMS):  # blocked: thread t holds items t*ITEMS .. t*ITEMS+ITEMS-1
            v[i] = src[row, t * ITEMS + i]
            ix[i] = t * ITEMS + i
        best = coop.block.struct_reduce((v, ix), argmax)
        if t == 0:
            dst_v[row] = best[0]
            dst_i[row] = best[1]

    @numba_coop.jit
    def exchange_kernel(a, b, oa, ob):  # type: ignore[no-untyped-def]
        t, base = cuda.threadIdx.x, cuda.blockIdx.x * TILE
        x = coop.ThreadData(ITEMS, np.float64)
        y = coop.ThreadData(ITEMS, np.int8)
        for i in range(ITEMS):  # striped in
            x[i] = a[base + i * THREADS + t]
            y[i] = b[base + i * THREADS + t]
        coop.block.struct_exchange((x, y), mode="striped_to_blocked")
        for i in range(ITEMS):  # blocked out
            oa[base + t * ITEMS + i] = x[i]
            ob[base + t * ITEMS + i] = y[i]

    def combine(p, q):  # type: ignore[no-untyped-def]
        return p[0] + q[0], min(p[1], q[1]), max(p[2], q[2])

    @numba_coop.jit
    def warp_kernel(w, o):  # type: ignore[no-untyped-def]
        t = cuda.threadIdx.x
        s = coop.warp.struct_warp_reduce((w[t], np.int32(t), w[t] * 2), combine, threads_in_warp=8)
        if t % 8 == 0:
            o[t // 8] = s[0] + s[2] + s[1]

    d = data(np.random.default_rng())
    want = expected(d)
    dv, di = cuda.to_device(np.full(ROWS, np.nan, np.float32)), cuda.to_device(np.full(ROWS, -1, np.int32))
    reduce_kernel[ROWS, THREADS](cuda.to_device(d["values"]), dv, di)
    oa = cuda.to_device(np.full(ROWS * TILE, np.nan))
    ob = cuda.to_device(np.full(ROWS * TILE, 99, np.int8))
    exchange_kernel[ROWS, THREADS](cuda.to_device(d["a"]), cuda.to_device(d["b"]), oa, ob)
    ow = cuda.to_device(np.full(WARP_THREADS // 8, np.nan, np.float32))
    warp_kernel[1, WARP_THREADS](cuda.to_device(d["w"]), ow)
    cuda.synchronize()
    check("argmax_value", dv.copy_to_host(), want["argmax_v"])
    check("argmax_index", di.copy_to_host(), want["argmax_i"])
    check("exchange_float64", oa.copy_to_host(), want["blocked_a"])
    check("exchange_int8", ob.copy_to_host(), want["blocked_b"])
    check("warp_reduce", ow.copy_to_host(), want["warp"], tol=1e-5)


def cute_host() -> object:
    """The @cute.jit host launching the three CuTe kernels (rows added by :func:`add_rows`)."""
    from cuda import coop

    def argmax(p, q):  # type: ignore[no-untyped-def]
        take = (q[0] > p[0]) | ((q[0] == p[0]) & (q[1] < p[1]))
        return cutlass.select_(take, q[0], p[0]), cutlass.select_(take, q[1], p[1])

    @cute.kernel
    def reduce_kernel(src: cute.Tensor, dst_v: cute.Tensor, dst_i: cute.Tensor):  # type: ignore[no-untyped-def]
        t, _, _ = cute.arch.thread_idx()
        row, _, _ = cute.arch.block_idx()
        v = coop.ThreadData(ITEMS, cutlass.Float32)
        ix = coop.ThreadData(ITEMS, cutlass.Int32)
        for i in cutlass.range_constexpr(ITEMS):
            v[i] = src[row * TILE + t * ITEMS + i]
            ix[i] = t * ITEMS + i
        best = coop.block.struct_reduce((v, ix), argmax)
        if t == 0:
            dst_v[row] = best[0]
            dst_i[row] = best[1]

    @cute.kernel
    def exchange_kernel(a: cute.Tensor, b: cute.Tensor, oa: cute.Tensor, ob: cute.Tensor):  # type: ignore[no-untyped-def]
        t, _, _ = cute.arch.thread_idx()
        blk, _, _ = cute.arch.block_idx()
        base = blk * TILE
        x = coop.ThreadData(ITEMS, cutlass.Float64)
        y = coop.ThreadData(ITEMS, cutlass.Int8)
        for i in cutlass.range_constexpr(ITEMS):
            x[i] = a[base + i * THREADS + t]
            y[i] = b[base + i * THREADS + t]
        coop.block.struct_exchange((x, y), mode="striped_to_blocked")
        for i in cutlass.range_constexpr(ITEMS):
            oa[base + t * ITEMS + i] = x[i]
            ob[base + t * ITEMS + i] = y[i]

    def combine(p, q):  # type: ignore[no-untyped-def]
        return p[0] + q[0], cutlass.min(p[1], q[1]), cutlass.max(p[2], q[2])

    @cute.kernel
    def warp_kernel(w: cute.Tensor, o: cute.Tensor):  # type: ignore[no-untyped-def]
        t, _, _ = cute.arch.thread_idx()
        s = coop.warp.struct_warp_reduce((w[t], cutlass.Int32(t), w[t] * 2), combine, threads_in_warp=8)
        if t % 8 == 0:
            o[t // 8] = s[0] + s[2] + cutlass.Float32(s[1])

    @cute.jit
    def host(  # type: ignore[no-untyped-def]
        values: cute.Tensor, dv: cute.Tensor, di: cute.Tensor, a: cute.Tensor, b: cute.Tensor,
        oa: cute.Tensor, ob: cute.Tensor, w: cute.Tensor, ow: cute.Tensor,
    ):  # fmt: skip
        reduce_kernel(values, dv, di).launch(grid=(ROWS, 1, 1), block=(THREADS, 1, 1))
        exchange_kernel(a, b, oa, ob).launch(grid=(ROWS, 1, 1), block=(THREADS, 1, 1))
        warp_kernel(w, ow).launch(grid=(1, 1, 1), block=(WARP_THREADS, 1, 1))

    return host


def run_cute() -> None:
    import cuda.coop.cutlass as cutlass_coop
    import torch
    from cutlass.cute.runtime import from_dlpack

    add_rows()
    host = cute_host()
    d = data(np.random.default_rng())
    want = expected(d)
    t = {k: torch.from_numpy(np.ascontiguousarray(v).reshape(-1)).cuda() for k, v in d.items()}
    out = {
        "dv": torch.full((ROWS,), float("nan"), device="cuda"),
        "di": torch.full((ROWS,), -1, dtype=torch.int32, device="cuda"),
        "oa": torch.full((ROWS * TILE,), float("nan"), dtype=torch.float64, device="cuda"),
        "ob": torch.full((ROWS * TILE,), 99, dtype=torch.int8, device="cuda"),
        "ow": torch.full((WARP_THREADS // 8,), float("nan"), device="cuda"),
    }
    args = [t["values"], out["dv"], out["di"], t["a"], t["b"], out["oa"], out["ob"], t["w"], out["ow"]]
    args = [from_dlpack(x, assumed_align=16) for x in args]
    cutlass_coop.compile(host, *args)(*args)
    torch.cuda.synchronize()
    host_ = {k: v.cpu().numpy() for k, v in out.items()}
    check("argmax_value", host_["dv"], want["argmax_v"])
    check("argmax_index", host_["di"], want["argmax_i"])
    check("exchange_float64", host_["oa"], want["blocked_a"])
    check("exchange_int8", host_["ob"], want["blocked_b"])
    check("warp_reduce", host_["ow"], want["warp"], tol=1e-5)


if __name__ == "__main__":
    {"numba": run_numba, "cute": run_cute}[sys.argv[1]]()
