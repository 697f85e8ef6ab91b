# SPDX-License-Identifier: Apache-2.0
"""Kernels on structured items (tuples), for tests/test_structured_items.py, run in a process of
their own.

    python -m tests._structured_kernels aot numba|cute   # compile ahead of time, print SASS facts
    python -m tests._structured_kernels gpu numba|cute   # run against NumPy, print "check ok"

The kernels: argmax over (float32, int32) with ties (a block reduce with a user operator), a
striped-to-blocked exchange of (float64, int8), a warp reduce of a 3-tuple of scalars on logical
warps of 8 lanes, the linear recurrence h = a*h + b over several tiles (an inclusive scan of
(a, b) with a running prefix of a tuple of one-item ThreadData), and an exclusive scan of
(float32, int32) seeded with a tuple constant, and the field-wise built-in sum of (x, x*x, 1).
"""

import sys

import numpy as np

try:  # CuTe reads the kernels' annotations from this module's globals
    import cutlass
    import cutlass.cute as cute
except ImportError:  # the Numba half runs without it
    cutlass = cute = None

THREADS, ITEMS, ROWS = 128, 4, 6
TILE = THREADS * ITEMS
WARP_THREADS, WIDTH = 96, 8
TILES = 5  # of the recurrence
CHECKS = ("argmax_value", "argmax_index", "exchange_float64", "exchange_int8", "warp_reduce", "recurrence",
          "exclusive_scan", "moments_sum", "moments_count")  # fmt: skip


def data(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        # few distinct values: many ties, which must go to the smallest index
        "values": (rng.integers(-20, 20, size=(ROWS, TILE)).astype(np.float32) / 4).reshape(-1),
        "a": rng.standard_normal(ROWS * TILE),
        "b": rng.integers(-128, 128, size=ROWS * TILE).astype(np.int8),
        "w": rng.standard_normal(WARP_THREADS).astype(np.float32),
        "ra": rng.uniform(0.5, 1.0, TILES * TILE).astype(np.float32),  # decays: h stays bounded
        "rb": rng.standard_normal(TILES * TILE).astype(np.float32),
        "sx": rng.standard_normal(TILE).astype(np.float32),
        "sy": rng.integers(-100, 100, TILE).astype(np.int32),
    }


def expected(d: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    values = d["values"].reshape(ROWS, TILE)
    w = d["w"].reshape(-1, WIDTH)
    ids = np.arange(WARP_THREADS, dtype=np.int32).reshape(-1, WIDTH)
    h, hs = 0.0, np.empty(TILES * TILE)
    for k in range(TILES * TILE):  # sequential, in float64
        h = float(d["ra"][k]) * h + float(d["rb"][k])
        hs[k] = h
    excl_x = np.concatenate([[0.0], np.cumsum(d["sx"].astype(np.float64))[:-1]])
    excl_y = np.maximum.accumulate(np.concatenate([[-5], d["sy"][:-1]]))
    return {
        "argmax_value": values.max(axis=1),
        "argmax_index": values.argmax(axis=1).astype(np.int32),  # the first of the ties
        # an exchange keeps each item's rank in the tile: striped in, blocked out is the tile as it was
        "exchange_float64": d["a"],
        "exchange_int8": d["b"],
        "warp_reduce": w.sum(axis=1) + (w * 2).max(axis=1) + ids.min(axis=1),
        "recurrence": hs,
        "exclusive_scan": excl_x + excl_y,
        # the field-wise built-in sum of (x, x*x, 1) over a row of values
        "moments_sum": (values.astype(np.float64) + values.astype(np.float64) ** 2).sum(axis=1),
        "moments_count": np.full(ROWS, TILE, np.int32),
    }


TOLERANCE = {"warp_reduce": 1e-5, "recurrence": 1e-4, "exclusive_scan": 1e-4, "moments_sum": 1e-5}


def check(name: str, got: np.ndarray, want: np.ndarray) -> None:
    tol = TOLERANCE.get(name, 0.0)
    good = np.isclose(got, want, rtol=tol, atol=tol) if tol else got == want
    bad = np.flatnonzero(~good)
    print(
        f"{name} ok" if not bad.size else f"{name} WRONG at {bad[:8].tolist()} of {got.size}: {got[bad[:4]]}"
    )


def outputs() -> dict[str, tuple[int, type, float]]:
    """Each output: (size, dtype, poison)."""
    return {
        "argmax_value": (ROWS, np.float32, np.nan),
        "argmax_index": (ROWS, np.int32, -1),
        "exchange_float64": (ROWS * TILE, np.float64, np.nan),
        "exchange_int8": (ROWS * TILE, np.int8, 99),
        "warp_reduce": (WARP_THREADS // WIDTH, np.float32, np.nan),
        "recurrence": (TILES * TILE, np.float32, np.nan),
        "exclusive_scan": (TILE, np.float32, np.nan),
        "moments_sum": (ROWS, np.float32, np.nan),
        "moments_count": (ROWS, np.int32, -1),
    }


# --- Numba ----------------------------------------------------------------------------------------


def numba_kernels() -> dict[str, tuple[object, str, int, int]]:
    """name -> (kernel function, signature, threads, blocks)."""
    from cuda import coop
    from numba import cuda

    def argmax(p, q):  # type: ignore[no-untyped-def]
        if q[0] > p[0] or (q[0] == p[0] and q[1] < p[1]):
            return q
        return p

    def reduce_kernel(src, dst_v, dst_i):  # type: ignore[no-untyped-def]
        t, row = cuda.threadIdx.x, cuda.blockIdx.x
        v = coop.ThreadData(ITEMS, np.float32)
        ix = coop.ThreadData(ITEMS, np.int32)
        for i in range(ITEMS):  # blocked: thread t holds items t*ITEMS .. t*ITEMS+ITEMS-1
            v[i] = src[row * TILE + t * ITEMS + i]
            ix[i] = t * ITEMS + i
        best = coop.block.reduce((v, ix), argmax)
        if t == 0:
            dst_v[row] = best[0]
            dst_i[row] = best[1]

    def exchange_kernel(a, b, oa, ob):  # type: ignore[no-untyped-def]
        t, base = cuda.threadIdx.x, cuda.blockIdx.x * TILE
        x = coop.ThreadData(ITEMS, np.float64)
        y = coop.ThreadData(ITEMS, np.int8)
        for i in range(ITEMS):  # striped in
            x[i] = a[base + i * THREADS + t]
            y[i] = b[base + i * THREADS + t]
        coop.block.exchange((x, y), mode="striped_to_blocked")
        for i in range(ITEMS):  # blocked out
            oa[base + t * ITEMS + i] = x[i]
            ob[base + t * ITEMS + i] = y[i]

    def combine(p, q):  # type: ignore[no-untyped-def]
        return p[0] + q[0], min(p[1], q[1]), max(p[2], q[2])

    def warp_kernel(w, o):  # type: ignore[no-untyped-def]
        t = cuda.threadIdx.x
        s = coop.warp.reduce((w[t], np.int32(t), w[t] * 2), combine, threads_in_warp=WIDTH)
        if t % WIDTH == 0:
            o[t // WIDTH] = s[0] + s[2] + s[1]

    def compose(p, q):  # type: ignore[no-untyped-def]  # h -> a1*h + b1, then a2*h + b2
        return p[0] * q[0], q[0] * p[1] + q[1]

    def recurrence_kernel(a, b, out):  # type: ignore[no-untyped-def]
        t = cuda.threadIdx.x
        running = (coop.ThreadData(1, np.float32), coop.ThreadData(1, np.float32))
        running[0][0] = 1.0  # the identity map: h0 = 0 in, a*0 + b out
        running[1][0] = 0.0
        for tile in range(TILES):
            x = coop.ThreadData(ITEMS, np.float32)
            y = coop.ThreadData(ITEMS, np.float32)
            for i in range(ITEMS):
                x[i] = a[tile * TILE + t * ITEMS + i]
                y[i] = b[tile * TILE + t * ITEMS + i]
            _, h = coop.block.inclusive_scan((x, y), compose, prefix_op=running)
            for i in range(ITEMS):
                out[tile * TILE + t * ITEMS + i] = h[i]

    def sum_max(p, q):  # type: ignore[no-untyped-def]
        return p[0] + q[0], max(p[1], q[1])

    def exclusive_kernel(x_in, y_in, out):  # type: ignore[no-untyped-def]
        t = cuda.threadIdx.x
        x = coop.ThreadData(ITEMS, np.float32)
        y = coop.ThreadData(ITEMS, np.int32)
        for i in range(ITEMS):
            x[i] = x_in[t * ITEMS + i]
            y[i] = y_in[t * ITEMS + i]
        sx, sy = coop.block.exclusive_scan((x, y), sum_max, initial_value=(np.float32(0), np.int32(-5)))
        for i in range(ITEMS):
            out[t * ITEMS + i] = sx[i] + sy[i]

    def moments_kernel(src, dst_s, dst_n):  # type: ignore[no-untyped-def]
        t, row = cuda.threadIdx.x, cuda.blockIdx.x
        x = coop.ThreadData(ITEMS, np.float32)
        xx = coop.ThreadData(ITEMS, np.float32)
        n = coop.ThreadData(ITEMS, np.int32)
        for i in range(ITEMS):
            x[i] = src[row * TILE + t * ITEMS + i]
            xx[i] = x[i] * x[i]
            n[i] = 1
        s = coop.block.sum((x, xx, n))
        if t == 0:
            dst_s[row] = s[0] + s[1]
            dst_n[row] = s[2]

    return {
        "moments": (moments_kernel, "void(float32[::1], float32[::1], int32[::1])", THREADS, ROWS),
        "reduce": (reduce_kernel, "void(float32[::1], float32[::1], int32[::1])", THREADS, ROWS),
        "exchange": (
            exchange_kernel,
            "void(float64[::1], int8[::1], float64[::1], int8[::1])",
            THREADS,
            ROWS,
        ),
        "warp": (warp_kernel, "void(float32[::1], float32[::1])", WARP_THREADS, 1),
        "recurrence": (recurrence_kernel, "void(float32[::1], float32[::1], float32[::1])", THREADS, 1),
        "exclusive": (exclusive_kernel, "void(float32[::1], int32[::1], float32[::1])", THREADS, 1),
    }


#: Each kernel's inputs and outputs, by name, in its parameter order.
KERNEL_ARGS = {
    "reduce": (("values",), ("argmax_value", "argmax_index")),
    "exchange": (("a", "b"), ("exchange_float64", "exchange_int8")),
    "warp": (("w",), ("warp_reduce",)),
    "recurrence": (("ra", "rb"), ("recurrence",)),
    "exclusive": (("sx", "sy"), ("exclusive_scan",)),
    "moments": (("values",), ("moments_sum", "moments_count")),
}


def numba_aot() -> None:
    import cuda.coop.numba as numba_coop

    for name, (kernel, sig, threads, _blocks) in numba_kernels().items():
        r = numba_coop.compile(kernel, sig, block=threads).inspect()
        print(name, r.calls, r.local_loads, r.local_stores, len(r.functions))


def numba_gpu() -> None:
    import cuda.coop.numba as numba_coop
    from numba import cuda

    d = data(np.random.default_rng())
    out = {k: cuda.to_device(np.full(n, poison, dtype)) for k, (n, dtype, poison) in outputs().items()}
    for name, (kernel, _sig, threads, blocks) in numba_kernels().items():
        ins, outs = KERNEL_ARGS[name]
        numba_coop.jit(kernel)[blocks, threads](*[cuda.to_device(d[i]) for i in ins], *[out[o] for o in outs])
    cuda.synchronize()
    want = expected(d)
    for name in CHECKS:
        check(name, out[name].copy_to_host(), want[name])


# --- CuTe -----------------------------------------------------------------------------------------


def cute_host() -> object:
    """The @cute.jit host launching the five CuTe kernels, taking the inputs then the outputs."""
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
        best = coop.block.reduce((v, ix), argmax)
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
        coop.block.exchange((x, y), mode="striped_to_blocked")
        for i in cutlass.range_constexpr(ITEMS):
            oa[base + t * ITEMS + i] = x[i]
            ob[base + t * ITEMS + i] = y[i]

    def combine(p, q):  # type: ignore[no-untyped-def]
        return p[0] + q[0], cutlass.min(p[1], q[1]), cutlass.max(p[2], q[2])

    @cute.kernel
    def warp_kernel(w: cute.Tensor, o: cute.Tensor):  # type: ignore[no-untyped-def]
        t, _, _ = cute.arch.thread_idx()
        s = coop.warp.reduce((w[t], cutlass.Int32(t), w[t] * 2), combine, threads_in_warp=WIDTH)
        if t % WIDTH == 0:
            o[t // WIDTH] = s[0] + s[2] + cutlass.Float32(s[1])

    def compose(p, q):  # type: ignore[no-untyped-def]
        return p[0] * q[0], q[0] * p[1] + q[1]

    @cute.kernel
    def recurrence_kernel(a: cute.Tensor, b: cute.Tensor, out: cute.Tensor):  # type: ignore[no-untyped-def]
        t, _, _ = cute.arch.thread_idx()
        running = (coop.ThreadData(1, cutlass.Float32), coop.ThreadData(1, cutlass.Float32))
        running[0][0] = cutlass.Float32(1.0)
        running[1][0] = cutlass.Float32(0.0)
        for tile in cutlass.range(TILES):
            x = coop.ThreadData(ITEMS, cutlass.Float32)
            y = coop.ThreadData(ITEMS, cutlass.Float32)
            for i in cutlass.range_constexpr(ITEMS):
                x[i] = a[tile * TILE + t * ITEMS + i]
                y[i] = b[tile * TILE + t * ITEMS + i]
            _, h = coop.block.inclusive_scan((x, y), compose, prefix_op=running)
            for i in cutlass.range_constexpr(ITEMS):
                out[tile * TILE + t * ITEMS + i] = h[i]

    def sum_max(p, q):  # type: ignore[no-untyped-def]
        return p[0] + q[0], cutlass.max(p[1], q[1])

    @cute.kernel
    def exclusive_kernel(x_in: cute.Tensor, y_in: cute.Tensor, out: cute.Tensor):  # type: ignore[no-untyped-def]
        t, _, _ = cute.arch.thread_idx()
        x = coop.ThreadData(ITEMS, cutlass.Float32)
        y = coop.ThreadData(ITEMS, cutlass.Int32)
        for i in cutlass.range_constexpr(ITEMS):
            x[i] = x_in[t * ITEMS + i]
            y[i] = y_in[t * ITEMS + i]
        sx, sy = coop.block.exclusive_scan((x, y), sum_max, initial_value=(0.0, -5))
        for i in cutlass.range_constexpr(ITEMS):
            out[t * ITEMS + i] = sx[i] + cutlass.Float32(sy[i])

    @cute.kernel
    def moments_kernel(src: cute.Tensor, dst_s: cute.Tensor, dst_n: cute.Tensor):  # type: ignore[no-untyped-def]
        t, _, _ = cute.arch.thread_idx()
        row, _, _ = cute.arch.block_idx()
        x = coop.ThreadData(ITEMS, cutlass.Float32)
        xx = coop.ThreadData(ITEMS, cutlass.Float32)
        n = coop.ThreadData(ITEMS, cutlass.Int32)
        for i in cutlass.range_constexpr(ITEMS):
            x[i] = src[row * TILE + t * ITEMS + i]
            xx[i] = x[i] * x[i]
            n[i] = 1
        s = coop.block.sum((x, xx, n))
        if t == 0:
            dst_s[row] = s[0] + s[1]
            dst_n[row] = s[2]

    @cute.jit
    def host(  # type: ignore[no-untyped-def]
        values: cute.Tensor, a: cute.Tensor, b: cute.Tensor, w: cute.Tensor, ra: cute.Tensor, rb: cute.Tensor,
        sx: cute.Tensor, sy: cute.Tensor, argmax_value: cute.Tensor, argmax_index: cute.Tensor,
        exchange_float64: cute.Tensor, exchange_int8: cute.Tensor, warp_reduce: cute.Tensor,
        recurrence: cute.Tensor, exclusive_scan: cute.Tensor, moments_sum: cute.Tensor,
        moments_count: cute.Tensor,
    ):  # fmt: skip
        reduce_kernel(values, argmax_value, argmax_index).launch(grid=(ROWS, 1, 1), block=(THREADS, 1, 1))
        exchange_kernel(a, b, exchange_float64, exchange_int8).launch(
            grid=(ROWS, 1, 1), block=(THREADS, 1, 1)
        )
        warp_kernel(w, warp_reduce).launch(grid=(1, 1, 1), block=(WARP_THREADS, 1, 1))
        recurrence_kernel(ra, rb, recurrence).launch(grid=(1, 1, 1), block=(THREADS, 1, 1))
        exclusive_kernel(sx, sy, exclusive_scan).launch(grid=(1, 1, 1), block=(THREADS, 1, 1))
        moments_kernel(values, moments_sum, moments_count).launch(grid=(ROWS, 1, 1), block=(THREADS, 1, 1))

    return host


INPUTS = ("values", "a", "b", "w", "ra", "rb", "sx", "sy")


def cute_aot() -> None:
    import cuda.coop.cutlass as cutlass_coop
    from cutlass.cute.runtime import make_fake_compact_tensor

    from ._cute_kernels import cutlass_type

    d = data(np.random.default_rng(0))
    shapes = [(d[k].size, d[k].dtype) for k in INPUTS] + [(n, np.dtype(t)) for n, t, _p in outputs().values()]
    fakes = [make_fake_compact_tensor(cutlass_type(str(t)), (n,), assumed_align=16) for n, t in shapes]
    r = cutlass_coop.compile(cute_host(), *fakes, arch="sm_90a").inspect()
    print("cute", r.calls, r.local_loads, r.local_stores, len(r.functions))


def cute_gpu() -> None:
    import cuda.coop.cutlass as cutlass_coop
    import torch
    from cutlass.cute.runtime import from_dlpack

    d = data(np.random.default_rng())
    out = {k: torch.from_numpy(np.full(n, poison, t)).cuda() for k, (n, t, poison) in outputs().items()}
    tensors = [torch.from_numpy(d[k]).cuda() for k in INPUTS] + list(out.values())
    args = [from_dlpack(x, assumed_align=16) for x in tensors]
    cutlass_coop.compile(cute_host(), *args)(*args)
    torch.cuda.synchronize()
    want = expected(d)
    for name in CHECKS:
        check(name, out[name].cpu().numpy(), want[name])


if __name__ == "__main__":
    {
        ("aot", "numba"): numba_aot,
        ("gpu", "numba"): numba_gpu,
        ("aot", "cute"): cute_aot,
        ("gpu", "cute"): cute_gpu,
    }[sys.argv[1], sys.argv[2]]()
