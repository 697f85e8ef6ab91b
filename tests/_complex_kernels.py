# SPDX-License-Identifier: Apache-2.0
"""Kernels on complex numbers, for tests/test_complex.py (ahead of time) and tests/test_complex_gpu.py
(on the GPU, against NumPy).

    python -m tests._complex_kernels aot numba   # SASS facts of each Numba kernel of AOT_CONFIGS
    python -m tests._complex_kernels aot cute    # SASS facts of the CuTe (re, im) pair kernels
    python -m tests._complex_kernels ir numba    # alignment of the allocas handed to the bundle

Numba spells complex numbers as ``complex64`` / ``complex128`` items (``cuda::std::complex`` in the
bundle): :func:`numba_kernel` loads a tile, sums it (the built-in and a user operator), scans it
(``"mul"``, a user product seeded with the Python constant ``1 + 0j``, the inclusive sum), shuffles
item 0 one thread up, reduces, scans (``"complex_mul"``) and broadcasts it over logical warps,
exchanges the tile to a striped arrangement and stores everything. CuTe DSL has no complex type: the
same numbers are 2-tuples ``(re, im)`` of one float type, :func:`pair_source` (both DSLs: one kernel
source for each, the same coop calls), scanned with the built-in ``"complex_mul"``, summed with
``"sum"`` and scanned exclusively with a user product on pairs seeded with ``(1.0, 0.0)``.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np

GRID = 3
BLOCKS = (128, (16, 6), (5, 7, 2))  # one with a partial hardware warp (70 threads)
ITEMS = (1, 3, 4)
DTYPES = ("complex64", "complex128")
PARTS = {"complex64": "float32", "complex128": "float64"}
TOLERANCE = {"complex64": 2e-3, "complex128": 1e-9, "float32": 2e-3, "float64": 1e-9}
#: Configurations compiled ahead of time on CPU (every GPU configuration's kernel is the same source
#: with other constants; these cover each dtype, block rank and items per thread once)
AOT_CONFIGS = (("complex64", 128, 4), ("complex128", (16, 6), 3), ("complex64", (5, 7, 2), 1))

#: The outputs of :func:`numba_kernel`, in its parameter order after ``src``.
OUTPUTS = ("copy", "striped", "mul", "excl", "isum", "red", "shuf", "wsum", "wscan", "wbcast")


def dims(block: int | tuple[int, ...]) -> tuple[int, int, int]:
    b = (block,) if isinstance(block, int) else tuple(block)
    return (*b, 1, 1)[:3]  # type: ignore[return-value]


def width(threads: int) -> int:
    """The widest logical warp that divides the block (32, or 2 for the 70-thread block)."""
    return next(w for w in (32, 16, 8, 4, 2, 1) if threads % w == 0)


def data(rng: np.random.Generator, dtype: str, n: int) -> np.ndarray:
    """Random complex numbers of modulus near 1 (long products stay in range) and any phase."""
    modulus = rng.uniform(0.95, 1.05, n)
    return (modulus * np.exp(1j * rng.uniform(-np.pi, np.pi, n))).astype(dtype)


def poison(dtype: str, n: int) -> np.ndarray:
    return np.full(n, complex(np.nan, np.nan), dtype)


def sizes(block: Any, items: int) -> dict[str, int]:
    threads = math.prod(dims(block))
    g = GRID * threads
    tile = GRID * threads * items
    return {"copy": tile, "striped": tile, "mul": tile, "excl": tile, "isum": tile, "red": 2 * GRID,
            "shuf": g, "wsum": g // width(threads), "wscan": g, "wbcast": g}  # fmt: skip


def expected(src: np.ndarray, block: Any, items: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Each output's (positions checked, NumPy's values there), in complex128."""
    threads = math.prod(dims(block))
    w = width(threads)
    tile = src.astype(np.complex128).reshape(GRID, threads * items)
    every = np.arange(tile.size)
    v = tile[:, ::items]  # item 0 of each thread, (GRID, threads)
    lanes = v.reshape(-1, w)
    mul = np.cumprod(tile, axis=1)
    shuf = np.full((GRID, threads), np.nan + 0j)
    shuf[:, :-1] = v[:, 1:]  # thread t gets thread t+1's item 0; the last thread's is not written
    keep = np.flatnonzero(~np.isnan(shuf.reshape(-1)))
    sums = tile.sum(axis=1)
    return {
        "copy": (every, tile.reshape(-1)),
        "striped": (every, tile.reshape(-1)),  # exchanged to striped and written striped: the tile
        "mul": (every, mul.reshape(-1)),
        "excl": (every, np.concatenate([np.ones((GRID, 1)), mul[:, :-1]], axis=1).reshape(-1)),
        "isum": (every, np.cumsum(tile, axis=1).reshape(-1)),
        "red": (np.arange(2 * GRID), np.repeat(sums, 2)),
        "shuf": (keep, shuf.reshape(-1)[keep]),
        "wsum": (np.arange(lanes.shape[0]), lanes.sum(axis=1)),
        "wscan": (np.arange(v.size), np.cumprod(lanes, axis=1).reshape(-1)),
        "wbcast": (np.arange(v.size), np.repeat(lanes[:, -1], w)),
    }


def mismatches(name: str, got: np.ndarray, want: tuple[np.ndarray, np.ndarray], tol: float) -> list[str]:
    where, values = want
    g = got.astype(np.complex128)[where]
    bad = ~(np.abs(g - values) <= tol * (1 + np.abs(values)))  # NaN (poison left) is bad too
    if not bad.any():
        return []
    k = np.flatnonzero(bad)[:4]
    return [f"{name}: {int(bad.sum())} of {where.size} wrong, at {where[k].tolist()}: {g[k]} != {values[k]}"]


# --- Numba: complex64 / complex128 items -------------------------------------------------------


def numba_kernel(dtype: str, block: Any, items: int) -> Any:
    """The Numba kernel of one configuration (Python function; signature :func:`numba_signature`)."""
    from cuda import coop
    from numba import cuda

    dt = np.dtype(dtype).type
    bx, by, _ = dims(block)
    threads = math.prod(dims(block))
    tile, w = threads * items, width(threads)
    last, lane = threads - 1, w - 1
    n = items

    def cadd(a, b):  # type: ignore[no-untyped-def]
        return a + b

    def cmul(a, b):  # type: ignore[no-untyped-def]
        return a * b

    def kernel(src, copy, striped, mul, excl, isum, red, shuf, wsum, wscan, wbcast):  # type: ignore[no-untyped-def]
        t = cuda.threadIdx.x + cuda.threadIdx.y * bx + cuda.threadIdx.z * (bx * by)
        blk = cuda.blockIdx.x
        base = blk * tile
        x = coop.ThreadData(n, dt)
        coop.block.load(src, x, offset=base, algorithm="transpose")
        coop.block.store(copy, x, offset=base, algorithm="vectorize")
        s = coop.block.sum(x)
        r = coop.block.reduce(x, cadd)
        coop.block.store(mul, coop.block.inclusive_scan(x, "mul"), offset=base)
        coop.block.store(excl, coop.block.exclusive_scan(x, cmul, initial_value=1 + 0j), offset=base)
        coop.block.store(isum, coop.block.inclusive_sum(x), offset=base)
        v = x[0]
        sh = coop.block.shuffle(v, mode="offset", distance=1)
        ws = coop.warp.sum(v, threads_in_warp=w)
        wp = coop.warp.inclusive_scan(v, "complex_mul", threads_in_warp=w)
        wb = coop.warp.broadcast(v, lane, threads_in_warp=w)
        coop.block.exchange(x, "blocked_to_striped")
        for i in range(n):
            striped[base + i * threads + t] = x[i]
        g = blk * threads + t
        if t < last:
            shuf[g] = sh
        if t % w == 0:
            wsum[g // w] = ws
        wscan[g] = wp
        wbcast[g] = wb
        if t == 0:
            red[2 * blk] = s
            red[2 * blk + 1] = r

    return kernel


def numba_breadth_kernel() -> Any:
    """A complex64 kernel over the other rows that take complex numbers (compiled ahead of time
    only): warp load / store, adjacent difference, discontinuity flags, complex values of a radix
    sort, a merge sort by a user comparator, an inclusive sum with a complex running prefix, a warp
    exchange, batched, segmented and exclusive warp sums. Signature ``(complex64[::1],
    complex64[::1], float32[::1])``, 128 threads."""
    from cuda import coop
    from numba import cuda

    n = 4

    def by_abs(a, b):  # type: ignore[no-untyped-def]
        return abs(a) < abs(b)

    def kernel(src, dst, keys):  # type: ignore[no-untyped-def]
        x = coop.ThreadData(n, np.complex64)
        coop.warp.load(src, x)
        d = coop.block.adjacent_difference(x)
        f = coop.block.discontinuity(x)
        k = coop.ThreadData(n, np.float32)
        for i in range(n):
            k[i] = keys[cuda.threadIdx.x * n + i]
        coop.block.radix_sort(k, values=x)
        coop.block.merge_sort(x, by_abs)
        run = coop.ThreadData(1, np.complex64)
        run[0] = 0
        y = coop.block.inclusive_sum(x, prefix_op=run)
        coop.warp.exchange(y, "blocked_to_striped")
        b = coop.warp.batched_sum(y)
        h = coop.warp.head_segmented_sum(y[0], f[0])
        e = coop.warp.exclusive_sum(y[1])
        coop.warp.store(dst, d)
        if cuda.threadIdx.x == 0:
            dst[0] = b[0] + h + e

    return kernel


def numba_algorithms_kernel() -> Any:
    """A complex128 kernel calling every load / store / reduce / scan algorithm, exchange mode
    (time-sliced), shuffle mode, flag kind and batched arrangement once, with partial tiles, a
    complex out-of-bounds value and integer / complex constants as initial values (compiled ahead
    of time only: every CUB specialisation instantiated on ``cuda::std::complex<double>``).
    Signature ``(complex128[::1], complex128[::1], int32)``, 128 threads."""
    from cuda.coop._catalog import CATALOG

    from ._compute_kernels import load

    def options(key: str, param: str) -> list[str]:
        return [o.value for o in CATALOG[key].param(param).kind.choices.options]  # type: ignore[attr-defined]

    body = ["x = coop.ThreadData(4, np.complex128)", "acc = np.complex128(0)"]
    body += [
        f"coop.block.load(src, x, algorithm={a!r}, valid_items=n, oob_default=2j)"
        for a in options("block.load", "algorithm")
    ]
    body += [
        f"coop.block.store(dst, x, algorithm={a!r}, valid_items=n)"
        for a in options("block.store", "algorithm")
    ]
    body += [
        f"coop.warp.load(src, x, algorithm={a!r}, valid_items=n)" for a in options("warp.load", "algorithm")
    ]
    body += [f"coop.warp.store(dst, x, algorithm={a!r})" for a in options("warp.store", "algorithm")]
    body += [
        f"acc += coop.block.reduce(x, 'sum', algorithm={a!r})" for a in options("block.reduce", "algorithm")
    ]
    body += ["acc += coop.block.sum(x[0], num_valid=n)"]
    for a in options("block.inclusive_scan", "algorithm"):
        body += [f"acc += coop.block.exclusive_scan(x, 'complex_mul', initial_value=1, algorithm={a!r}, "
                 "block_aggregate=True)[1]"]  # fmt: skip
    modes = [m for m in options("block.exchange", "mode") if "scatter" not in m]
    body += [f"coop.block.exchange(x, {m!r}, warp_time_slicing=True)" for m in modes]
    for m in options("block.shuffle", "mode"):
        body += [f"x = coop.block.shuffle(x, mode={m!r})" if m in ("up", "down") else
                 f"acc += coop.block.shuffle(x[0], mode={m!r}, distance=1)"]  # fmt: skip
    body += [
        f"f = coop.block.discontinuity(x, flags={f!r}, op='equal')"
        for f in options("block.discontinuity", "flags")
    ]
    body += [
        "acc += coop.warp.reduce(x[0], 'mul', valid_items=n, threads_in_warp=8)",
        "acc += coop.warp.exclusive_scan(x[0], 'mul', initial_value=1j, threads_in_warp=16)",
    ]
    body += [f"b = coop.warp.batched_reduce(x, 'sum', arrangement={a!r}, threads_in_warp=4)"
             for a in options("warp.batched_sum", "arrangement")]  # fmt: skip
    body += ["dst[0] = acc + b[0]"]
    source = "import numpy as np\nfrom cuda import coop\n\n\ndef kernel(src, dst, n):\n"
    return load("complex_algorithms", source + "".join(f"    {line}\n" for line in body)).kernel


def numba_signature(dtype: str) -> str:
    return f"void({', '.join([f'{dtype}[::1]'] * (1 + len(OUTPUTS)))})"


def numba_aot() -> None:
    import cuda.coop.numba as numba_coop

    for dtype, block, items in AOT_CONFIGS:
        kernel = numba_kernel(dtype, block, items)
        r = numba_coop.compile(kernel, numba_signature(dtype), block=block).inspect()
        print(f"{dtype}-{items}", r.calls, r.local_loads, r.local_stores, len(r.functions))
    r = numba_coop.compile(
        numba_breadth_kernel(), "void(complex64[::1], complex64[::1], float32[::1])", block=128
    )
    r = r.inspect()
    print("breadth", r.calls, r.local_loads, r.local_stores, len(r.functions))
    sig = "void(complex128[::1], complex128[::1], int32)"
    r = numba_coop.compile(numba_algorithms_kernel(), sig, block=128).inspect()
    print("algorithms", r.calls, r.local_loads, r.local_stores, len(r.functions))
    for part, block, items in (("float32", 128, 4), ("float64", (5, 7, 2), 3)):
        kernel = pair_kernels(part, block, items)[0]
        r = numba_coop.compile(kernel, pair_signature(part, "numba"), block=block).inspect()
        print(f"pair-{part}-{items}", r.calls, r.local_loads, r.local_stores, len(r.functions))


def numba_ir() -> None:
    """Each alloca that a coop call hands to the bundle (ThreadData, results, spilled values) with
    its alignment, for the kernels of AOT_CONFIGS: ``dtype name align`` per line."""
    import re

    import cuda.coop.numba  # noqa: F401  (activates the backend)
    from cuda.coop._session import TraceSession, compiling
    from cuda.coop.numba.kernel._dsl import PRESCAN
    from numba.cuda import compiler

    for dtype, block, items in AOT_CONFIGS:
        kernel = numba_kernel(dtype, block, items)
        PRESCAN.prescan(kernel)  # as the front doors do: its plain Python operators typed
        with compiling(dims(block), "sm_90a", session=TraceSession()):
            lib, _ = compiler._compile_pyfunc_with_fixup(
                kernel, numba_signature(dtype), device=False, abi="numba", cc=(9, 0)
            )
            text = lib.get_llvm_str()
        part = {"complex64": "float", "complex128": "double"}[dtype]
        for m in re.finditer(r'%"(coop_[a-z_]+)(?:\.\d+)?" = alloca (.*?)(?:, align (\d+))?$', text, re.M):
            if f"{{{part}, {part}}}" in m.group(2) and "*" not in m.group(2):
                print(dtype, m.group(1), m.group(3) or "0")


# --- pairs (re, im): the spelling of both DSLs ---------------------------------------------------

#: The outputs of the pair kernels (each a (re, im) pair of arrays), in parameter order after the
#: inputs ``re, im``.
PAIR_OUTPUTS = ("mul", "excl", "red", "wscan")

_PAIR_BODY = """
    base = blk * TILE
    re = coop.ThreadData(ITEMS, PART)
    im = coop.ThreadData(ITEMS, PART)
    coop.block.load(src_re, re, offset=base)
    coop.block.load(src_im, im, offset=base)
    m_re, m_im = coop.block.inclusive_scan((re, im), "complex_mul")
    coop.block.store(mul_re, m_re, offset=base)
    coop.block.store(mul_im, m_im, offset=base)
    e_re, e_im = coop.block.exclusive_scan((re, im), product, initial_value=(1.0, 0.0))
    coop.block.store(excl_re, e_re, offset=base)
    coop.block.store(excl_im, e_im, offset=base)
    s = coop.block.sum((re, im))
    w = coop.warp.inclusive_scan((re[0], im[0]), "complex_mul", threads_in_warp=WIDTH)
    g = blk * THREADS + t
    wscan_re[g] = w[0]
    wscan_im[g] = w[1]
    if t == 0:
        red_re[2 * blk] = s[0]
        red_im[2 * blk] = s[1]
        red_re[2 * blk + 1] = s[0]
        red_im[2 * blk + 1] = s[1]
"""

_PAIR_PARAMS = "src_re, src_im, mul_re, mul_im, excl_re, excl_im, red_re, red_im, wscan_re, wscan_im"


def pair_source(part: str, block: Any, items: int, dsl: str) -> str:
    """The module source of the pair kernel of one configuration in ``dsl`` (``numba``: a ``kernel``
    function; ``cute``: a ``kernel`` and its ``host``, launching GRID blocks of ``block``)."""
    bx, by, bz = dims(block)
    threads = bx * by * bz
    consts = f"TILE, ITEMS, THREADS, WIDTH = {threads * items}, {items}, {threads}, {width(threads)}\n"
    product = (
        "def product(p, q):  # the complex product of two (re, im) pairs\n"
        "    return p[0] * q[0] - p[1] * q[1], p[0] * q[1] + p[1] * q[0]\n"
    )
    if dsl == "numba":
        head = "import numpy as np\nfrom numba import cuda\nfrom cuda import coop\n\n"
        head += f"PART = np.{part}\n{consts}\n"
        index = (
            f"    t = cuda.threadIdx.x + cuda.threadIdx.y * {bx} + cuda.threadIdx.z * {bx * by}\n"
            "    blk = cuda.blockIdx.x\n"
        )
        return head + product + f"\n\ndef kernel({_PAIR_PARAMS}):\n" + index + _PAIR_BODY
    cute_part = {"float32": "Float32", "float64": "Float64"}[part]
    head = (
        "import cutlass\nimport cutlass.cute as cute\nfrom cuda import coop\n\n"
        f"PART = cutlass.{cute_part}\n{consts}\n"
    )
    params = ", ".join(f"{p}: cute.Tensor" for p in _PAIR_PARAMS.split(", "))
    index = (
        "    tx, ty, tz = cute.arch.thread_idx()\n"
        f"    t = tx + ty * {bx} + tz * {bx * by}\n"
        "    blk, _, _ = cute.arch.block_idx()\n"
    )
    host = (
        f"\n\n@cute.jit\ndef host({params}):\n"
        f"    kernel({_PAIR_PARAMS}).launch(grid=({GRID}, 1, 1), block=({bx}, {by}, {bz}))\n"
    )
    return head + product + f"\n\n@cute.kernel\ndef kernel({params}):\n" + index + _PAIR_BODY + host


def _module(part: str, block: Any, items: int, dsl: str) -> Any:
    from ._compute_kernels import load

    shape = "x".join(map(str, dims(block)))
    return load(f"complex_pair_{dsl}_{part}_{shape}_{items}", pair_source(part, block, items, dsl))


def pair_kernels(part: str, block: Any, items: int) -> tuple[Any, Any]:
    """(the Numba kernel function, the CuTe host) of one pair configuration (the host None where
    CuTe DSL is not installed)."""
    numba_k = _module(part, block, items, "numba").kernel
    try:
        import cutlass  # noqa: F401
    except ImportError:
        return numba_k, None
    return numba_k, _module(part, block, items, "cute").host


def pair_signature(part: str, dsl: str) -> str:
    return f"void({', '.join([f'{part}[::1]'] * 10)})"


def pair_sizes(block: Any, items: int) -> dict[str, int]:
    s = sizes(block, items)
    return {"mul": s["mul"], "excl": s["excl"], "red": s["red"], "wscan": s["wscan"]}


def pair_expected(src: np.ndarray, block: Any, items: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The pair outputs' references: the complex kernel's (a sum in both ``red`` entries)."""
    want = expected(src, block, items)
    return {k: want[k] for k in PAIR_OUTPUTS}


def cute_aot() -> None:
    import cuda.coop.cutlass as cutlass_coop

    from ._cute_kernels import fake_tensor

    for part, block, items in (("float32", 128, 4), ("float64", (5, 7, 2), 3)):
        host = pair_kernels(part, block, items)[1]
        s = sizes(block, items)
        n = {"mul": s["mul"], "excl": s["excl"], "red": s["red"], "wscan": s["wscan"], "src": s["copy"]}
        fakes = [fake_tensor(part, n["src"])] * 2 + [
            fake_tensor(part, n[o]) for o in PAIR_OUTPUTS for _ in "ri"
        ]
        r = cutlass_coop.compile(host, *fakes, arch="sm_90a").inspect()
        print(f"pair-{part}-{items}", r.calls, r.local_loads, r.local_stores, len(r.functions))


def gpu_configs_aot() -> None:
    """Every kernel of tests/test_complex_gpu.py compiled ahead of time (slow: for a check by hand,
    ``python -m tests._complex_kernels aot-all both``): ``label calls LDL STL functions`` each."""
    import cuda.coop.numba as numba_coop

    from ._cute_kernels import fake_tensor

    def show(label: str, r: Any) -> None:
        print(label, r.calls, r.local_loads, r.local_stores, len(r.functions), flush=True)

    for block in BLOCKS:
        for items in ITEMS:
            shape = "x".join(map(str, dims(block)))
            for dtype in DTYPES:
                kernel = numba_kernel(dtype, block, items)
                show(
                    f"numba-{dtype}-{shape}-{items}",
                    numba_coop.compile(kernel, numba_signature(dtype), block=block).inspect(),
                )
            for part in PARTS.values():
                numba_k, host = pair_kernels(part, block, items)
                r = numba_coop.compile(numba_k, pair_signature(part, "numba"), block=block).inspect()
                show(f"numba-pair-{part}-{shape}-{items}", r)
                if host is None:
                    continue
                import cuda.coop.cutlass as cutlass_coop

                s = pair_sizes(block, items)
                fakes = [fake_tensor(part, sizes(block, items)["copy"])] * 2
                fakes += [fake_tensor(part, s[o]) for o in PAIR_OUTPUTS for _ in "ri"]
                show(
                    f"cute-pair-{part}-{shape}-{items}",
                    cutlass_coop.compile(host, *fakes, arch="sm_90a").inspect(),
                )


if __name__ == "__main__":
    {
        ("aot", "numba"): numba_aot,
        ("ir", "numba"): numba_ir,
        ("aot", "cute"): cute_aot,
        ("aot-all", "both"): gpu_configs_aot,
    }[sys.argv[1], sys.argv[2]]()
