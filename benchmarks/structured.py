# SPDX-License-Identifier: Apache-2.0
"""Structured items (issue 18): tuples as the items of block primitives, user operators on tuples,
next to CUB C++ and torch, same run, both backends.

Tables (float32 unless said; medians of interleaved batches, as benchmarks/copy.py; GB/s counts
bytes read + written):
  argmax     one block per row (rows of 4096 and 65536): a row-stride loop of coop.block.load
             (striped) keeping a per-thread (value, index) best, then one coop.block.reduce over the
             tuple (value, index) with a user operator (ties to the smallest index); the uint64
             packing workaround (an order-preserving key and ~index in one uint64, the built-in
             "max"); CUB C++ (BlockReduce<KeyValuePair<int, float>> with cub::ArgMax);
             torch.argmax(dim=-1) and torch.max(dim=-1)
  welford    row mean and rstd in one pass (rows of 4096 and 16384): per-thread Welford state
             (count, mean, M2), one coop.block.reduce of the 3-tuple with a combine operator; CUB C++
             with a struct and a combine functor; torch.var_mean(dim=-1, correction=0)
  recurrence h[t] = a[t] * h[t-1] + b[t] over rows of 2^16, one block per row, tiles in a loop of
             coop.block.inclusive_scan((a, b), compose, prefix_op=(run_a, run_b)); CUB C++ (BlockScan
             over a struct with a prefix callback functor); torch in log space (Heinsen's
             logcumsumexp formulation) and torch.mul (the same bytes) as the memory roof
  complex    device-wide complex64 sum: a grid-stride loop into per-thread (re, im) ThreadData, one
             block sum of the 2-tuple (coop.block.sum and coop.block.reduce(..., "sum")), two atomics
             per block; Numba's complex64 ThreadData where the catalog takes complex64; CUB C++;
             torch.sum on a complex64 tensor

    python benchmarks/structured.py [--elements N] [--reps R] [--json PATH] [--aot]

``--aot`` compiles every kernel (CUB C++ and coop, both backends) ahead of time for sm_90a and prints
each coop kernel's SASS verdict (no GPU needed). On a GPU every kernel's output is checked against
NumPy / torch before it is timed.
"""

# No `from __future__ import annotations`: CuTe evaluates kernel annotations when it traces.
import os
import sys

sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

ARGMAX_ROWS = (4096, 65536)
ARGMAX_CONFIGS = [(256, 8), (512, 8), (1024, 4)]
WELFORD_ROWS = (4096, 16384)
WELFORD_CONFIGS = [(256, 8), (512, 8), (1024, 4)]
EPS = 1e-5
ROW = 1 << 16  # of the recurrence
# (not 1024 x 4: at 1024 threads ptxas has 64 registers a thread, and the scan of (a, b) with its
# prefix spills there, the CUB C++ kernel too)
RECURRENCE_CONFIGS = [(128, 8), (256, 8), (512, 8)]
COMPLEX_CONFIGS = [(256, 4), (512, 4)]  # complex items per thread: ThreadData of 2 x items float32
GRID_PER_SM = 8

#: The CUB C++ peers, compiled with NVRTC (``structured_cub.cu``; the kernels instantiated by name).
CUB_SOURCE = Path(__file__).with_name("structured_cub.cu").read_text()


def _by_path(name: str, file: str) -> Any:
    """A module of this folder loaded by path (the folder is kept off sys.path: copy.py shadows the
    stdlib's copy)."""
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(file))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _copy_bench() -> Any:
    """benchmarks/copy.py: the timing loop, the tables and the device setup are shared."""
    return _by_path("coop_copy_bench", "copy.py")


def _cutlass_half() -> Any:
    """benchmarks/_structured_cutlass.py: the CuTe kernels."""
    return _by_path("coop_structured_cutlass", "_structured_cutlass.py")


def _cub_kernels(arch: str, load: bool = True) -> dict[tuple[Any, ...], Any]:
    """The CUB C++ reference kernels, compiled (and, with ``load``, loaded) for ``arch``."""
    from cuda.cccl import get_include_paths
    from cuda.core import Program, ProgramOptions

    paths = get_include_paths()
    incs = [str(p) for p in (paths.cub, paths.cuda) if p is not None]
    names: dict[tuple[Any, ...], str] = {}
    for t, i in ARGMAX_CONFIGS:
        names[("argmax", t, i)] = f"cub_argmax<{t}, {i}>"
    for t, i in WELFORD_CONFIGS:
        names[("welford", t, i)] = f"cub_welford<{t}, {i}>"
    for t, i in RECURRENCE_CONFIGS:
        names[("recurrence", t, i)] = f"cub_recurrence<{t}, {i}>"
    for t, i in COMPLEX_CONFIGS:
        for index in ("int", "long long"):
            names[("complex", t, i, index)] = f"cub_complex_sum<{t}, {i}, {index}>"
    options = ProgramOptions(
        arch=arch, std="c++17", include_path=incs, define_macro=[("EPS", f"{EPS!r}f"), ("ROW", str(ROW))]
    )
    module = Program(CUB_SOURCE, "c++", options).compile("cubin", name_expressions=tuple(names.values()))
    return {k: module.get_kernel(v) if load else module for k, v in names.items()}


# --- Numba kernels ---------------------------------------------------------------------------------


def argmax_op(p, q):  # type: ignore[no-untyped-def]
    """(value, index) of the larger value; of equal values, the smaller index."""
    if q[0] > p[0] or (q[0] == p[0] and q[1] < p[1]):
        return q
    return p


def welford_combine(p, q):  # type: ignore[no-untyped-def]
    """Chan's combine of two Welford states (count, mean, M2), float32 throughout."""
    n = p[0] + q[0]
    d = q[1] - p[1]
    w = q[0] / n
    return n, p[1] + d * w, p[2] + q[2] + d * d * p[0] * w


def compose(p, q):  # type: ignore[no-untyped-def]
    """Two affine maps h -> a*h + b as (a, b): p first, then q."""
    return p[0] * q[0], q[0] * p[1] + q[1]


def numba_argmax(threads: int, items: int, packed: bool = False) -> Any:
    """Row argmax (one block per row, row length a runtime argument): the tuple (value, index)
    through one block reduce with ``argmax_op``, or (``packed``) the uint64 workaround through the
    built-in max. Signature ``(float32[::1] src, float32[::1] out_v, int32[::1] out_i, int64 n)``."""
    import cuda.coop.numba as numba_coop
    from cuda import coop
    from numba import cuda
    from numba.cuda import libdevice

    tile = threads * items
    neg_inf = np.float32(-np.inf)

    lo32 = np.uint64(0xFFFFFFFF)

    def argmax(src, out_v, out_i, n):  # type: ignore[no-untyped-def]
        buf = coop.ThreadData(items, np.float32)
        best_v = neg_inf
        best_i = np.int32(0)
        row = cuda.blockIdx.x * n
        base = 0
        while base < n:
            coop.block.load(src, buf, offset=row + base, algorithm="striped")
            for j in range(items):  # a thread's items in index order: '>' keeps the first
                if buf[j] > best_v:
                    best_v = buf[j]
                    best_i = np.int32(base + j * threads + cuda.threadIdx.x)
            base += tile
        if not packed:  # (a constant: Numba prunes the other branch before typing)
            best = coop.block.reduce((best_v, best_i), argmax_op)
            if cuda.threadIdx.x == 0:
                out_v[cuda.blockIdx.x] = best[0]
                out_i[cuda.blockIdx.x] = best[1]
        else:
            # an order-preserving key of the float's bits (negative floats: the magnitude bits
            # flipped), offset to unsigned, in the high word; ~index in the low word (ties: the
            # smallest index)
            s = np.int64(libdevice.float_as_int(best_v))
            key = s ^ ((s >> 31) & 0x7FFFFFFF)
            word = (np.uint64(key + 2147483648) << np.uint64(32)) | (lo32 - np.uint64(best_i))
            top = coop.block.reduce(word, "max")
            if cuda.threadIdx.x == 0:
                k = np.int64(top >> np.uint64(32)) - 2147483648
                out_v[cuda.blockIdx.x] = libdevice.int_as_float(np.int32(k ^ ((k >> 31) & 0x7FFFFFFF)))
                out_i[cuda.blockIdx.x] = np.int32(lo32 - (top & lo32))

    return numba_coop.jit(argmax)


def numba_welford(threads: int, items: int) -> Any:
    """Row mean and rstd in one pass; ``(float32[::1] src, float32[::1] mean, float32[::1] rstd,
    int64 n)``."""
    import cuda.coop.numba as numba_coop
    from cuda import coop
    from numba import cuda

    tile = threads * items
    f_items, inv_items, eps, zero, one = (np.float32(x) for x in (items, 1 / items, EPS, 0, 1))

    def welford(src, out_mean, out_rstd, n):  # type: ignore[no-untyped-def]
        buf = coop.ThreadData(items, np.float32)
        cnt, mean, m2 = zero, zero, zero
        row = cuda.blockIdx.x * n
        base = 0
        while base < n:
            coop.block.load(src, buf, offset=row + base, algorithm="striped")
            s = zero
            for j in range(items):
                s += buf[j]
            tm = s * inv_items
            tq = zero
            for j in range(items):
                d = buf[j] - tm
                tq += d * d
            # welford_combine((cnt, mean, m2), (items, tm, tq)), written out (no device call)
            nn = cnt + f_items
            d = tm - mean
            w = f_items / nn
            mean = mean + d * w
            m2 = m2 + tq + d * d * cnt * w
            cnt = nn
            base += tile
        r = coop.block.reduce((cnt, mean, m2), welford_combine, broadcast=False)
        if cuda.threadIdx.x == 0:
            out_mean[cuda.blockIdx.x] = r[1]
            out_rstd[cuda.blockIdx.x] = one / math.sqrt(r[2] / r[0] + eps)

    return numba_coop.jit(welford)


def numba_recurrence(threads: int, items: int) -> Any:
    """h = a*h + b along rows of ROW; ``(float32[::1] a, float32[::1] b, float32[::1] h)``."""
    import cuda.coop.numba as numba_coop
    from cuda import coop
    from numba import cuda

    tile = threads * items
    tiles = ROW // tile

    def recurrence(a, b, h):  # type: ignore[no-untyped-def]
        run_a = coop.ThreadData(1, np.float32)
        run_b = coop.ThreadData(1, np.float32)
        run_a[0] = 1  # the identity map
        run_b[0] = 0
        xa = coop.ThreadData(items, np.float32)
        xb = coop.ThreadData(items, np.float32)
        for t in range(tiles):
            base = cuda.blockIdx.x * ROW + t * tile
            coop.block.load(a, xa, offset=base, algorithm="warp_transpose")
            coop.block.load(b, xb, offset=base, algorithm="warp_transpose")
            _, hb = coop.block.inclusive_scan((xa, xb), compose, prefix_op=(run_a, run_b))
            coop.block.store(h, hb, offset=base, algorithm="warp_transpose")

    return numba_coop.jit(recurrence)


def numba_complex_sum(threads: int, items: int, how: str) -> Any:
    """Device-wide complex sum into ``out`` (float32[2]): ``how`` "sum" (the block sum of a tuple of
    ThreadData), "reduce" (coop.block.reduce(..., "sum")) over (re, im) float32 items of an
    interleaved float32 view, or "complex64" (complex64 ThreadData, where the catalog takes it).
    Signature ``(float32[::1] src, float32[::1] out, int64 m)``, m the number of floats (or
    ``(complex64[::1] src, float32[::1] out, int64 n)`` for "complex64")."""
    import cuda.coop.numba as numba_coop
    from cuda import coop
    from numba import cuda

    zero = np.float32(0)

    if how == "complex64":
        tile = threads * items

        def csum(src, out, n):  # type: ignore[no-untyped-def]
            buf = coop.ThreadData(items, np.complex64)
            acc = coop.ThreadData(items, np.complex64)
            for j in range(items):
                acc[j] = 0
            base = cuda.blockIdx.x * tile
            while base < n:
                coop.block.load(src, buf, offset=base, algorithm="vectorize")
                for j in range(items):
                    acc[j] += buf[j]
                base += cuda.gridDim.x * tile
            total = coop.block.sum(acc)
            if cuda.threadIdx.x == 0:
                cuda.atomic.add(out, 0, total.real)
                cuda.atomic.add(out, 1, total.imag)

        return numba_coop.jit(csum)

    tile = 2 * threads * items
    floats = 2 * items  # (ThreadData's size must be a constant: not an expression in the kernel)
    use_sum = how == "sum"

    def fsum(src, out, m):  # type: ignore[no-untyped-def]
        buf = coop.ThreadData(floats, np.float32)
        re = coop.ThreadData(items, np.float32)
        im = coop.ThreadData(items, np.float32)
        for j in range(items):
            re[j] = zero
            im[j] = zero
        base = cuda.blockIdx.x * tile
        while base < m:
            coop.block.load(src, buf, offset=base, algorithm="vectorize")
            for j in range(items):
                re[j] += buf[2 * j]
                im[j] += buf[2 * j + 1]
            base += cuda.gridDim.x * tile
        total = coop.block.sum((re, im)) if use_sum else coop.block.reduce((re, im), "sum")
        if cuda.threadIdx.x == 0:
            cuda.atomic.add(out, 0, total[0])
            cuda.atomic.add(out, 1, total[1])

    return numba_coop.jit(fsum)


NUMBA_SIGS = {
    "argmax": "void(float32[::1], float32[::1], int32[::1], int64)",
    "welford": "void(float32[::1], float32[::1], float32[::1], int64)",
    "recurrence": "void(float32[::1], float32[::1], float32[::1])",
    "complex": "void(float32[::1], float32[::1], int64)",
    "complex64": "void(complex64[::1], float32[::1], int64)",
}


def numba_kernels() -> dict[tuple[Any, ...], tuple[Any, str]]:
    """Every Numba kernel of the benchmark: (table, variant, threads, items) -> (kernel, signature)."""
    out: dict[tuple[Any, ...], tuple[Any, str]] = {}
    for t, i in ARGMAX_CONFIGS:
        out[("argmax", "tuple", t, i)] = (numba_argmax(t, i), NUMBA_SIGS["argmax"])
        out[("argmax", "packed", t, i)] = (numba_argmax(t, i, packed=True), NUMBA_SIGS["argmax"])
    for t, i in WELFORD_CONFIGS:
        out[("welford", "tuple", t, i)] = (numba_welford(t, i), NUMBA_SIGS["welford"])
    for t, i in RECURRENCE_CONFIGS:
        out[("recurrence", "tuple", t, i)] = (numba_recurrence(t, i), NUMBA_SIGS["recurrence"])
    for t, i in COMPLEX_CONFIGS:
        for how in ("sum", "reduce"):
            out[("complex", how, t, i)] = (numba_complex_sum(t, i, how), NUMBA_SIGS["complex"])
        out[("complex", "complex64", t, i)] = (numba_complex_sum(t, i, "complex64"), NUMBA_SIGS["complex64"])
    return out


def complex64_reason(kernel: Any, sig: str, threads: int) -> str | None:
    """None where the installed catalog compiles the complex64 Numba kernel; else why not (the
    first line of the error), to print in place of the row."""
    import cuda.coop.numba as numba_coop

    try:
        numba_coop.compile(kernel, sig, block=threads)
    except Exception as exc:  # a typed CoopError, or Numba's TypingError around one
        lines = [s.strip() for s in str(exc).splitlines() if s.strip()]
        why = next((s for s in lines if "complex64" in s), lines[0] if lines else "")
        return f"{type(exc).__name__}: {why[:300]}"
    return None


def cute_hosts() -> dict[tuple[Any, ...], Any]:
    """Every CuTe kernel of the benchmark, as its ``@cute.jit`` host (not yet compiled): the keys
    of :func:`numba_kernels` but the complex64 one."""
    cute_half = _cutlass_half()
    out: dict[tuple[Any, ...], Any] = {}
    for t, i in ARGMAX_CONFIGS:
        out[("argmax", "tuple", t, i)] = cute_half.argmax(t, i)
        out[("argmax", "packed", t, i)] = cute_half.argmax(t, i, packed=True)
    for t, i in WELFORD_CONFIGS:
        out[("welford", "tuple", t, i)] = cute_half.welford(t, i, EPS)
    for t, i in RECURRENCE_CONFIGS:
        out[("recurrence", "tuple", t, i)] = cute_half.recurrence(t, i, ROW)
    for t, i in COMPLEX_CONFIGS:
        for how in ("sum", "reduce"):
            out[("complex", how, t, i)] = cute_half.complex_sum(t, i, how)
    return out


# --- ahead of time ---------------------------------------------------------------------------------


def aot() -> int:
    """Compile every benchmark kernel for sm_90a without a GPU; print each coop kernel's SASS
    verdict. Returns 1 if a coop kernel is not one function without CALL or local memory."""
    os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")
    import cuda.coop.cutlass as cutlass_coop
    import cuda.coop.numba as numba_coop
    import cutlass
    from cutlass.cute.runtime import make_fake_compact_tensor

    def fake(dtype: Any, n: int) -> Any:
        return make_fake_compact_tensor(dtype, (n,), assumed_align=16)

    f32, i32, n, rows = cutlass.Float32, cutlass.Int32, 1 << 16, 16
    fake_args = {
        "argmax": (fake(f32, n), fake(f32, rows), fake(i32, rows), i32(n // rows)),
        "welford": (fake(f32, n), fake(f32, rows), fake(f32, rows), i32(n // rows)),
        "recurrence": (fake(f32, 4 * ROW), fake(f32, 4 * ROW), fake(f32, 4 * ROW)),
        "complex": (fake(f32, 2 * n), fake(f32, 2), i32(2 * n), 8),
    }
    cub = _cub_kernels("sm_90a", load=False)
    print(f"CUB C++ kernels: {len(cub)} compiled for sm_90a")
    results: list[tuple[str, Any]] = []
    skipped: list[str] = []
    for (table, how, t, i), (kernel, sig) in numba_kernels().items():
        name = f"numba {table} {how} {t}x{i}"
        if how == "complex64":
            why = complex64_reason(kernel, sig, t)
            if why is not None:
                skipped.append(f"{name}: skipped, the catalog does not take complex64: {why}")
                continue
        results.append((name, numba_coop.compile(kernel, sig, block=t).inspect()))
    print("Numba kernels: compiled", file=sys.stderr, flush=True)
    for (table, how, t, i), host in cute_hosts().items():
        results.append(
            (f"cute {table} {how} {t}x{i}", cutlass_coop.compile(host, *fake_args[table]).inspect())
        )
    bad = []
    print("\n| kernel | functions | CALL | LDL | STL | registers | leftover symbols | verdict |")
    print("|---|---|---|---|---|---|---|---|")
    for name, r in results:
        good = len(r.functions) == 1 and not (
            r.calls or r.local_loads or r.local_stores or r.leftover_symbols
        )
        if not good:
            bad.append(name)
        print(
            f"| {name} | {len(r.functions)} | {r.calls} | {r.local_loads} | {r.local_stores} | "
            f"{max(r.registers.values())} | {', '.join(r.leftover_symbols) or 'none'} | "
            f"{'ok' if good else 'NOT OK'} |"
        )
    for line in skipped:
        print(line)
    print(f"\n{len(results)} coop kernels; not one function without CALL or local memory: {bad or 'none'}")
    return 1 if bad else 0


# --- on the GPU ------------------------------------------------------------------------------------


def _check(name: str, ok: bool, detail: str) -> None:
    """Fail loudly (before any timing) when a kernel's output is wrong."""
    if not ok:
        raise SystemExit(f"WRONG: {name}: {detail}")


def _recurrence_reference(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """h = a*h + b along the last axis in float64, sequentially (vectorised over rows), and the
    same recurrence on |b|: the scale of the rounding errors."""
    h, habs = np.zeros(a.shape[0]), np.zeros(a.shape[0])
    out, bound = np.empty(a.shape), np.empty(a.shape)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    for k in range(a.shape[1]):
        h = a64[:, k] * h + b64[:, k]
        habs = a64[:, k] * habs + np.abs(b64[:, k])
        out[:, k], bound[:, k] = h, habs
    return out, bound


class _Gpu:
    """What every table's measurement needs on the GPU: the modules, the stream, the compiled CUB
    kernels, the Numba kernels and CuTe hosts, and the timing loop of benchmarks/copy.py."""

    def __init__(self, nb_kernels: dict[tuple[Any, ...], Any], hosts: dict[tuple[Any, ...], Any], reps: int):
        import cuda.coop.cutlass as cutlass_coop
        import torch
        from cuda.core import LaunchConfig, launch
        from cutlass.cute.runtime import from_dlpack
        from numba import cuda

        self.torch, self.cuda, self.cutlass_coop = torch, cuda, cutlass_coop
        self.LaunchConfig, self._launch, self._from_dlpack = LaunchConfig, launch, from_dlpack
        self.bench = _copy_bench()
        self.dev, self.arch, _src, _dst, self.stream = self.bench._device_and_data(1 << 10)
        self.sms = torch.cuda.get_device_properties(0).multi_processor_count
        self.cub = _cub_kernels(self.arch)
        self.nb_kernels, self.hosts, self.reps = nb_kernels, hosts, reps

    def ct(self, x: Any) -> Any:
        return self._from_dlpack(x, assumed_align=16)

    def numba(self, key: tuple[Any, ...], grid: int, threads: int, *args: Any) -> Any:
        """A launch of the Numba kernel ``key``."""
        launcher = self.nb_kernels[key][0][grid, threads]
        return lambda: launcher(*args)

    def cute(
        self, key: tuple[Any, ...], tensors: tuple[Any, ...], *scalars: Any, extra: tuple[Any, ...] = ()
    ) -> Any:
        """A call of the CuTe kernel ``key`` on torch ``tensors`` and runtime ``scalars``, compiled
        for them (``extra``: what its host takes at compile time after the tensors: the scalars as
        CuTe numerics, then any Constexpr)."""
        cts = [self.ct(x) for x in tensors]
        compiled = self.cutlass_coop.compile(self.hosts[key], *cts, *extra)
        return lambda: compiled(*cts, *scalars)

    def cub_launch(self, key: tuple[Any, ...], grid: int, threads: int, *args: Any) -> Any:
        """A launch of the CUB C++ kernel ``key`` (tensors passed by pointer)."""
        kernel, cfg = self.cub[key], self.LaunchConfig(grid=grid, block=threads)
        params = [a.data_ptr() if hasattr(a, "data_ptr") else a for a in args]
        return lambda: self._launch(self.stream, cfg, kernel, *params)

    def time(self, fns: dict[str, Any]) -> dict[str, float]:
        return self.bench._interleaved(fns, self.reps, self.torch)  # type: ignore[no-any-return]


def _bench_argmax(g: _Gpu, n: int) -> list[dict[str, Any]]:
    import cutlass

    torch = g.torch
    rows = []
    for rowlen in ARGMAX_ROWS:
        nrows = n // rowlen
        # few distinct values: many ties per row, which must go to the smallest index
        x = (torch.randint(-1000, 1000, (nrows, rowlen), device="cuda").float() / 8).contiguous()
        xv = x.view(-1)
        out_v = torch.empty(nrows, device="cuda")
        out_i = torch.empty(nrows, dtype=torch.int32, device="cuda")
        want_v = torch.amax(x, dim=-1)  # and the first index holding it, whatever torch's tie rule
        cols = torch.arange(rowlen, device="cuda").expand(nrows, rowlen)
        want_i = torch.where(x == want_v[:, None], cols, rowlen).amin(dim=-1)
        tensors, extra = (xv, out_v, out_i), (cutlass.Int32(rowlen),)
        nb = [g.cuda.as_cuda_array(v) for v in tensors]
        for t, i in ARGMAX_CONFIGS:
            fns = {
                "numba": g.numba(("argmax", "tuple", t, i), nrows, t, *nb, rowlen),
                "cute": g.cute(("argmax", "tuple", t, i), tensors, rowlen, extra=extra),
                "numba packed": g.numba(("argmax", "packed", t, i), nrows, t, *nb, rowlen),
                "cute packed": g.cute(("argmax", "packed", t, i), tensors, rowlen, extra=extra),
                "cub": g.cub_launch(("argmax", t, i), nrows, t, xv, out_v, out_i, np.int32(rowlen)),
                "torch.argmax": lambda x=x: torch.argmax(x, dim=-1),
                "torch.max": lambda x=x: torch.max(x, dim=-1),
            }  # fmt: skip
            for name in ("numba", "cute", "numba packed", "cute packed", "cub"):
                out_v.fill_(float("nan"))
                out_i.fill_(-1)
                fns[name]()
                torch.cuda.synchronize()
                bad = torch.nonzero((out_v != want_v) | (out_i.long() != want_i)).flatten()[:4].tolist()
                _check(f"argmax {name} {t} x {i}, rows of {rowlen}", not bad,
                       f"rows {bad}: got {out_v[bad].tolist()} at {out_i[bad].tolist()}, "
                       f"want {want_v[bad].tolist()} at {want_i[bad].tolist()}")  # fmt: skip
            tm = g.time(fns)
            nbytes = nrows * rowlen * 4 + nrows * 8
            rows.append({"config": f"{rowlen}: {t} x {i}", **{k: nbytes / v / 1e9 for k, v in tm.items()}})
            print(f"argmax rows of {rowlen}, {t} x {i}: done", file=sys.stderr, flush=True)
    return rows


def _bench_welford(g: _Gpu, n: int) -> list[dict[str, Any]]:
    import cutlass

    torch = g.torch
    rows = []
    for rowlen in WELFORD_ROWS:
        nrows = n // rowlen
        x = (torch.randn(nrows, rowlen, device="cuda") * 2 + 3).contiguous()  # mean 3, std 2
        xv = x.view(-1)
        out_m = torch.empty(nrows, device="cuda")
        out_r = torch.empty(nrows, device="cuda")
        var64, mean64 = torch.var_mean(x.double(), dim=-1, correction=0)
        rstd64 = 1 / torch.sqrt(var64 + EPS)
        tensors, extra = (xv, out_m, out_r), (cutlass.Int32(rowlen),)
        nb = [g.cuda.as_cuda_array(v) for v in tensors]
        for t, i in WELFORD_CONFIGS:
            fns = {
                "numba": g.numba(("welford", "tuple", t, i), nrows, t, *nb, rowlen),
                "cute": g.cute(("welford", "tuple", t, i), tensors, rowlen, extra=extra),
                "cub": g.cub_launch(("welford", t, i), nrows, t, xv, out_m, out_r, np.int32(rowlen)),
                "torch.var_mean": lambda x=x: torch.var_mean(x, dim=-1, correction=0),
            }  # fmt: skip
            for name in ("numba", "cute", "cub"):
                out_m.fill_(float("nan"))
                out_r.fill_(float("nan"))
                fns[name]()
                torch.cuda.synchronize()
                em = float((out_m.double() - mean64).abs().max())
                er = float(((out_r.double() - rstd64) / rstd64).abs().max())
                _check(f"welford {name} {t} x {i}, rows of {rowlen}", em <= 1e-4 and er <= 1e-4,
                       f"max |mean error| {em:.3g}, max relative rstd error {er:.3g}")  # fmt: skip
            tm = g.time(fns)
            nbytes = nrows * rowlen * 4 + nrows * 8
            rows.append({"config": f"{rowlen}: {t} x {i}", **{k: nbytes / v / 1e9 for k, v in tm.items()}})
            print(f"welford rows of {rowlen}, {t} x {i}: done", file=sys.stderr, flush=True)
    return rows


def _bench_recurrence(g: _Gpu, n: int) -> tuple[list[dict[str, Any]], str]:
    torch = g.torch
    nrows = n // ROW
    a = (1 - 0.01 * torch.rand(nrows, ROW, device="cuda")).contiguous()  # decays, in (0.99, 1]
    b = torch.randn(nrows, ROW, device="cuda")
    h = torch.empty_like(a)
    av, bv, hv = a.view(-1), b.view(-1), h.view(-1)
    check_rows = torch.linspace(0, nrows - 1, min(nrows, 32), device="cuda").long()
    want_h, bound_h = _recurrence_reference(a[check_rows].cpu().numpy(), b[check_rows].cpu().numpy())
    tol_h = 2e-5 * bound_h + 1e-5

    def log_space() -> Any:  # Heinsen: h = exp(a* + logcumsumexp(log b - a*)), a* = cumsum(log a)
        a_star = torch.cumsum(torch.log(a), dim=-1)
        return torch.exp(a_star + torch.logcumsumexp(torch.log(b.to(torch.complex64)) - a_star, dim=-1)).real

    fn_log: Any = log_space
    try:
        got = log_space()[check_rows].double().cpu().numpy()
        err = np.abs(got - want_h)
        note = f"max |error| {float(err.max()):.3g}, {float((err / tol_h).max()):.3g} x coop's tolerance"
    except Exception as exc:  # an op this torch build lacks for complex
        fn_log, note = None, f"skipped: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
    print(f"torch log-space recurrence: {note}", file=sys.stderr)
    nb = [g.cuda.as_cuda_array(v) for v in (av, bv, hv)]
    rows = []
    for t, i in RECURRENCE_CONFIGS:
        fns = {
            "numba": g.numba(("recurrence", "tuple", t, i), nrows, t, *nb),
            "cute": g.cute(("recurrence", "tuple", t, i), (av, bv, hv)),
            "cub": g.cub_launch(("recurrence", t, i), nrows, t, av, bv, hv),
            "torch.mul": lambda: torch.mul(a, b, out=h),
        }
        if fn_log is not None:
            fns["torch log-space"] = fn_log
        for name in ("numba", "cute", "cub"):
            h.fill_(float("nan"))
            fns[name]()
            torch.cuda.synchronize()
            err = np.abs(h[check_rows].double().cpu().numpy() - want_h)
            worst = float(np.nanmax(err, initial=0.0))
            _check(f"recurrence {name} {t} x {i}", bool((err <= tol_h).all()),
                   f"{int((~(err <= tol_h)).sum())} of {err.size} checked items off, "
                   f"{int(np.isnan(err).sum())} NaN; max |error| {worst:.3g}")  # fmt: skip
        tm = g.time(fns)
        rows.append({"config": f"{t} x {i}", **{k: 3 * n * 4 / v / 1e9 for k, v in tm.items()}})
        print(f"recurrence {t} x {i}: done", file=sys.stderr, flush=True)
    return rows, note


def _bench_complex(g: _Gpu, n: int) -> tuple[list[dict[str, Any]], str | None]:
    import cutlass

    torch = g.torch
    z = torch.randn(n, dtype=torch.complex64, device="cuda")
    zf = torch.view_as_real(z).view(-1)  # interleaved (re, im) float32
    out = torch.zeros(2, device="cuda")
    want = complex(z.to(torch.complex128).sum())
    scale = float(z.abs().double().sum())
    nb = [g.cuda.as_cuda_array(v) for v in (zf, out)]
    grid = g.sms * GRID_PER_SM
    extra = (cutlass.Int32(2 * n), grid)  # the float count, the grid (a Constexpr)
    rows, skip = [], None
    for t, i in COMPLEX_CONFIGS:
        fns = {
            "numba sum": g.numba(("complex", "sum", t, i), grid, t, *nb, 2 * n),
            "numba reduce": g.numba(("complex", "reduce", t, i), grid, t, *nb, 2 * n),
            "cute sum": g.cute(("complex", "sum", t, i), (zf, out), 2 * n, extra=extra),
            "cute reduce": g.cute(("complex", "reduce", t, i), (zf, out), 2 * n, extra=extra),
            "cub": g.cub_launch(("complex", t, i, "int"), grid, t, zf, out, np.int32(2 * n)),
            "cub64": g.cub_launch(("complex", t, i, "long long"), grid, t, zf, out, np.int64(2 * n)),
            "torch.sum": lambda: torch.sum(z),
        }  # fmt: skip
        kernel64, sig64 = g.nb_kernels[("complex", "complex64", t, i)]
        skip = complex64_reason(kernel64, sig64, t)
        if skip is None:
            fns["numba complex64"] = g.numba(
                ("complex", "complex64", t, i), grid, t, g.cuda.as_cuda_array(z), nb[1], n
            )
        for name in [k for k in fns if not k.startswith("torch")]:
            out.zero_()
            fns[name]()
            torch.cuda.synchronize()
            got = complex(float(out[0]), float(out[1]))
            _check(
                f"complex sum {name} {t} x {i}", abs(got - want) <= 1e-6 * scale + 1e-3, f"{got} != {want}"
            )
        tm = g.time(fns)
        rows.append({"config": f"{t} x {i}", **{k: n * 8 / v / 1e9 for k, v in tm.items()}})
        print(f"complex sum {t} x {i}: done", file=sys.stderr, flush=True)
    return rows, skip


def _print_tables(g: _Gpu, n: int, res: dict[str, Any]) -> None:
    bench = g.bench

    def worst_over_best(r: dict[str, float], coop: tuple[str, ...], torch: tuple[str, ...]) -> str:
        return f"{min(r[k] for k in coop) / max(r[k] for k in torch):.3f}"

    print(
        f"device: {g.dev.name}, {n} elements per table, median of {g.reps} interleaved batches of "
        f"{bench.BATCH} launches; the complex sum uses {GRID_PER_SM} blocks per SM"
    )
    bench._table(
        "Row argmax (float32 value + int32 index per row; GB/s read + written): one block reduce of the "
        "tuple (value, index) with a user operator, and the uint64 packing workaround (built-in max); "
        "goals: coop/CUB >= 0.98, coop/torch >= 1.5, tuple/packed >= 0.98",
        ["row: threads x items", "numba", "cute", "numba packed", "cute packed", "CUB C++", "torch.argmax",
         "torch.max", "numba/CUB", "cute/CUB", "coop/torch (worst/best)", "numba tuple/packed",
         "cute tuple/packed"],
        [
            [r["config"], *bench._gbs(r, "numba", "cute", "numba packed", "cute packed", "cub",
                                      "torch.argmax", "torch.max"),
             *bench._ratio(r, ("numba", "cub"), ("cute", "cub")),
             worst_over_best(r, ("numba", "cute"), ("torch.argmax", "torch.max")),
             *bench._ratio(r, ("numba", "numba packed"), ("cute", "cute packed"))]
            for r in res["argmax"]
        ],
    )  # fmt: skip
    bench._table(
        "Welford row statistics in one pass (mean and rstd per row; GB/s read + written): one block "
        "reduce of (count, mean, M2) with a combine operator; goals: coop/CUB >= 0.98, coop/torch >= 1.5",
        ["row: threads x items", "numba", "cute", "CUB C++", "torch.var_mean", "numba/CUB", "cute/CUB",
         "coop/torch (worst)"],
        [
            [r["config"], *bench._gbs(r, "numba", "cute", "cub", "torch.var_mean"),
             *bench._ratio(r, ("numba", "cub"), ("cute", "cub")),
             worst_over_best(r, ("numba", "cute"), ("torch.var_mean",))]
            for r in res["welford"]
        ],
    )  # fmt: skip
    log = all("torch log-space" in r for r in res["recurrence"])
    bench._table(
        f"Linear recurrence h = a*h + b, {n // ROW} rows of {ROW} float32, an inclusive scan of (a, b) with "
        "a tuple prefix_op across tiles (GB/s read + written); torch.mul moves the same bytes (the roof); "
        f"torch log-space (Heinsen's logcumsumexp): {res['torch_log_space']}",
        ["threads x items", "numba", "cute", "CUB C++", "torch.mul (roof)", "torch log-space", "numba/CUB",
         "cute/CUB", "coop/torch log-space (worst)", "best coop/roof"],
        [
            [r["config"], *bench._gbs(r, "numba", "cute", "cub", "torch.mul"),
             *(bench._gbs(r, "torch log-space") if log else ["-"]),
             *bench._ratio(r, ("numba", "cub"), ("cute", "cub")),
             worst_over_best(r, ("numba", "cute"), ("torch log-space",)) if log else "-",
             f"{max(r['numba'], r['cute']) / r['torch.mul']:.3f}"]
            for r in res["recurrence"]
        ],
    )  # fmt: skip
    bench._table(
        "complex64 device-wide sum (GB/s read): the block sum of a tuple (re, im) of float32 ThreadData; "
        "goal: coop/torch >= 0.95",
        ["threads x items", "numba sum", "numba reduce 'sum'", "numba complex64", "cute sum",
         "cute reduce 'sum'", "CUB C++", "CUB C++ 64-bit index", "torch.sum", "numba/CUB 64-bit", "cute/CUB",
         "numba/torch", "cute/torch"],
        [
            [r["config"], *bench._gbs(r, "numba sum", "numba reduce"),
             *(bench._gbs(r, "numba complex64") if "numba complex64" in r else ["skipped"]),
             *bench._gbs(r, "cute sum", "cute reduce", "cub", "cub64", "torch.sum"),
             *bench._ratio(r, ("numba sum", "cub64"), ("cute sum", "cub"), ("numba sum", "torch.sum"),
                           ("cute sum", "torch.sum"))]
            for r in res["complex"]
        ],
    )  # fmt: skip
    if res["complex64_skipped"] is not None:
        print(f"numba complex64: skipped ({res['complex64_skipped']})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--elements", type=int, default=1 << 26, help="elements per table (float32, complex64)")
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--json", default=None)
    ap.add_argument("--aot", action="store_true", help="compile for sm_90a only (no GPU)")
    args = ap.parse_args()
    if args.aot:
        raise SystemExit(aot())
    os.environ.setdefault("CUDA_COOP_CACHE_DIR", tempfile.mkdtemp(prefix="coop-bench-cache-"))
    n = args.elements
    for rowlen in (*ARGMAX_ROWS, *WELFORD_ROWS, ROW):
        if n % rowlen:
            ap.error(f"--elements must be a multiple of {rowlen}")

    # the kernels first: building them needs no GPU
    nb_kernels, hosts = numba_kernels(), cute_hosts()
    from numba import cuda

    if not cuda.is_available():
        raise SystemExit(
            f"built {len(nb_kernels)} Numba kernels and {len(hosts)} CuTe hosts; no CUDA GPU here: run on "
            "a GPU, or pass --aot to compile everything for sm_90a"
        )
    g = _Gpu(nb_kernels, hosts, args.reps)
    res: dict[str, Any] = {"device": g.dev.name, "elements": n}
    res["argmax"] = _bench_argmax(g, n)
    res["welford"] = _bench_welford(g, n)
    res["recurrence"], res["torch_log_space"] = _bench_recurrence(g, n)
    res["complex"], res["complex64_skipped"] = _bench_complex(g, n)
    _print_tables(g, n, res)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
