# SPDX-License-Identifier: Apache-2.0
"""The computing primitives next to CUB C++ and torch, same run, both backends.

Tables (medians of interleaved batches, as benchmarks/copy.py; GB/s counts bytes read + written):
  sum        device-wide float32 sum: a grid-stride loop of coop.block.load (vectorize), per-thread
             accumulation, one coop.block.sum and one atomic per block; the same kernel in CUB C++;
             torch.sum
  max        the same with int32 and a max: coop.block.reduce with the built-in "max" and with a
             user-defined Python max (inlined), and CUB C++
  scan       per-tile scan: load -> inclusive_sum -> store (int32), one tile per block; CUB C++
             of the same configuration; torch copy_ for the memory roof
  row cumsum one block per row of 2^16 float32, tiles in a loop with prefix_op carrying the running
             total; torch.cumsum(dim=-1)
  compile    load + inclusive_sum + store kernel: cold (empty cache, one NVRTC call) and warm (a new
             kernel object, bundle on disk) compile, next to the DSL's own compile of a plain kernel

    python benchmarks/compute.py [--elements N] [--reps R] [--json PATH] [--aot]
                                 [--only sum|scan|rows|compile ...]

``--aot`` compiles every kernel ahead of time for sm_90a and checks that each coop kernel is one
function without CALL or local memory (no GPU needed).
"""

# No `from __future__ import annotations`: CuTe evaluates kernel annotations when it traces.
import os
import sys

sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

SUM_CONFIGS = [(256, 4), (256, 8), (512, 4), (128, 16)]
SCAN_CONFIGS = [
    (256, 4, "vectorize"),
    (128, 8, "warp_transpose"),
    (256, 8, "warp_transpose"),
    (512, 4, "vectorize"),
]
ROW = 1 << 16
ROW_CONFIGS = [(256, 8), (512, 8), (1024, 4)]
#: The benchmark's sections (``--only``): device-wide sum and max, per-tile scan, row-wise cumsum,
#: compile time.
SECTIONS = ("sum", "scan", "rows", "compile")
GRID_PER_SM = 8

#: The CUB C++ peers, compiled with NVRTC (``compute_cub.cu``; the kernels instantiated by name).
CUB_SOURCE = Path(__file__).with_name("compute_cub.cu").read_text()


def _copy_bench() -> Any:
    """benchmarks/copy.py as a module (its name shadows the stdlib's, so load it by path): the
    timing loop and device setup are shared."""
    spec = importlib.util.spec_from_file_location("coop_copy_bench", Path(__file__).with_name("copy.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cub_kernels(arch: str, load: bool = True) -> dict[tuple[Any, ...], Any]:
    """The CUB C++ reference kernels, compiled (and, with ``load``, loaded) for ``arch``."""
    from cuda.cccl import get_include_paths
    from cuda.core import Program, ProgramOptions

    paths = get_include_paths()
    incs = [str(p) for p in (paths.cub, paths.cuda) if p is not None]
    names: dict[tuple[Any, ...], str] = {}
    for t, i in SUM_CONFIGS:
        names[("sum", t, i)] = f"cub_sum<{t}, {i}>"
        names[("sum64", t, i)] = f"cub_sum64<{t}, {i}>"
        names[("max", t, i)] = f"cub_max<{t}, {i}>"
    for t, i, alg in SCAN_CONFIGS:
        a = alg.upper()
        names[("scan", t, i, alg)] = f"cub_scan<{t}, {i}, cub::BLOCK_LOAD_{a}, cub::BLOCK_STORE_{a}>"
    for t, i in ROW_CONFIGS:
        names[("rows", t, i)] = f"cub_rows<{t}, {i}, {ROW}>"
    program = Program(CUB_SOURCE, "c++", ProgramOptions(arch=arch, std="c++17", include_path=incs))
    module = program.compile("cubin", name_expressions=tuple(names.values()))
    return {k: module.get_kernel(v) if load else module for k, v in names.items()}


# --- Numba kernels ---------------------------------------------------------------------------------


def user_max(a, b):  # type: ignore[no-untyped-def]
    """A user-defined max: a plain Python function (Numba) used as coop's operator."""
    return a if a > b else b


def numba_kernels(threads: int, items: int, dsl: str = "numba") -> dict[str, Any]:
    """Device-wide float32 sum and int32 max (built-in and user operator) under a Numba backend."""
    import numpy as np
    from cuda import coop

    jit, cuda = _copy_bench().numba_dsl(dsl)

    tile = threads * items

    def dsum(src, out, n):  # type: ignore[no-untyped-def]
        buf = coop.ThreadData(items, np.float32)
        acc = np.float32(0)
        base = cuda.blockIdx.x * tile
        while base < n:  # (a `range` with a step would cost a 64-bit division up front)
            coop.block.load(src, buf, offset=base, algorithm="vectorize")
            for j in range(items):
                acc += buf[j]
            base += cuda.gridDim.x * tile
        total = coop.block.sum(acc)
        if cuda.threadIdx.x == 0:
            cuda.atomic.add(out, 0, total)

    def make_max(op):  # type: ignore[no-untyped-def]
        def dmax(src, out, n):  # type: ignore[no-untyped-def]
            buf = coop.ThreadData(items, np.int32)
            acc = np.int32(-(2**31))
            base = cuda.blockIdx.x * tile
            while base < n:
                coop.block.load(src, buf, offset=base, algorithm="vectorize")
                for j in range(items):
                    acc = max(acc, buf[j])
                base += cuda.gridDim.x * tile
            total = coop.block.reduce(acc, op)
            if cuda.threadIdx.x == 0:
                cuda.atomic.max(out, 0, total)

        return dmax

    return {"sum": jit(dsum), "max": jit(make_max("max")), "user max": jit(make_max(user_max))}


def numba_scan(threads: int, items: int, alg: str, dsl: str = "numba") -> Any:
    import numpy as np
    from cuda import coop

    jit, cuda = _copy_bench().numba_dsl(dsl)

    tile = threads * items

    def scan(src, dst):  # type: ignore[no-untyped-def]
        buf = coop.ThreadData(items, np.int32)
        base = cuda.blockIdx.x * tile
        coop.block.load(src, buf, offset=base, algorithm=alg)
        out = coop.block.inclusive_sum(buf)
        coop.block.store(dst, out, offset=base, algorithm=alg)

    return jit(scan)


def numba_plain_copy(threads: int, items: int) -> Any:
    """The same memory traffic in plain numba-cuda (no coop): the baseline compile time."""
    from numba import cuda

    tile = threads * items

    def copy(src, dst):  # type: ignore[no-untyped-def]
        base = cuda.blockIdx.x * tile
        for j in range(items):
            dst[base + j * threads + cuda.threadIdx.x] = src[base + j * threads + cuda.threadIdx.x]

    return cuda.jit(copy)


def numba_rows(threads: int, items: int, dsl: str = "numba") -> Any:
    import numpy as np
    from cuda import coop

    jit, cuda = _copy_bench().numba_dsl(dsl)

    tile = threads * items
    tiles = ROW // tile

    def rows(src, dst):  # type: ignore[no-untyped-def]
        running = coop.ThreadData(1, np.float32)
        running[0] = 0
        buf = coop.ThreadData(items, np.float32)
        for t in range(tiles):
            base = cuda.blockIdx.x * ROW + t * tile
            coop.block.load(src, buf, offset=base, algorithm="warp_transpose")
            out = coop.block.inclusive_sum(buf, prefix_op=running)
            coop.block.store(dst, out, offset=base, algorithm="warp_transpose")

    return jit(rows)


# --- CuTe kernels ----------------------------------------------------------------------------------


def cute_grid_reduce(threads: int, items: int, what: str) -> Any:
    """A device-wide reduction in CuTe: ``"sum"`` (float32, coop.block.sum, atomic add) or ``"max"``
    / ``"user max"`` (int32, coop.block.reduce with the built-in or a @cute.jit max, atomic max)."""
    import cutlass
    import cutlass.cute as cute
    from cuda import coop

    tile = threads * items
    is_sum = what == "sum"
    dtype, start = (cutlass.Float32, 0.0) if is_sum else (cutlass.Int32, -(2**31))
    op = "max" if what == "max" else _cute_user_max()

    @cute.kernel
    def kernel(src: cute.Tensor, out: cute.Tensor, n: cutlass.Int32):  # type: ignore[no-untyped-def]
        bidx, _, _ = cute.arch.block_idx()
        gdim, _, _ = cute.arch.grid_dim()
        tidx, _, _ = cute.arch.thread_idx()
        buf = coop.ThreadData(items, dtype)
        acc = dtype(start)
        for base in cutlass.range(bidx * tile, n, gdim * tile):
            coop.block.load(src, buf, offset=base, algorithm="vectorize")
            for j in cutlass.range_constexpr(items):
                acc = acc + buf[j] if cutlass.const_expr(is_sum) else cutlass.max(acc, buf[j])
        if cutlass.const_expr(is_sum):
            total = coop.block.sum(acc)
            if tidx == 0:
                cute.arch.atomic_add(out.iterator, total)
        else:
            best = coop.block.reduce(acc, op)
            if tidx == 0:
                cute.arch.atomic_max(out.iterator, best)

    @cute.jit
    def host(src: cute.Tensor, out: cute.Tensor, n: cutlass.Int32, grid: cutlass.Constexpr[int]):  # type: ignore[no-untyped-def]
        kernel(src, out, n).launch(grid=(grid, 1, 1), block=(threads, 1, 1))

    return host


@__import__("functools").cache
def _cute_user_max() -> Any:
    import cutlass.cute as cute

    @cute.jit
    def cute_user_max(a, b):  # type: ignore[no-untyped-def]
        r = a
        if b > a:
            r = b
        return r

    return cute_user_max


def cute_scan(threads: int, items: int, alg: str) -> Any:
    import cutlass
    import cutlass.cute as cute
    from cuda import coop

    tile = threads * items

    @cute.kernel
    def kernel(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        bidx, _, _ = cute.arch.block_idx()
        buf = coop.ThreadData(items, cutlass.Int32)
        coop.block.load(src, buf, offset=bidx * tile, algorithm=alg)
        out = coop.block.inclusive_sum(buf)
        coop.block.store(dst, out, offset=bidx * tile, algorithm=alg)

    @cute.jit
    def host(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        kernel(src, dst).launch(grid=(cute.size(src) // tile, 1, 1), block=(threads, 1, 1))

    return host


def cute_rows(threads: int, items: int, min_blocks: int = 0) -> Any:
    import cutlass
    import cutlass.cute as cute
    from cuda import coop

    tile = threads * items
    tiles = ROW // tile

    @cute.kernel
    def kernel(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        bidx, _, _ = cute.arch.block_idx()
        running = coop.ThreadData(1, cutlass.Float32)
        running[0] = cutlass.Float32(0.0)
        buf = coop.ThreadData(items, cutlass.Float32)
        for t in cutlass.range(tiles):
            base = bidx * ROW + t * tile
            coop.block.load(src, buf, offset=base, algorithm="warp_transpose")
            out = coop.block.inclusive_sum(buf, prefix_op=running)
            coop.block.store(dst, out, offset=base, algorithm="warp_transpose")

    @cute.jit
    def host(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        grid, block = (cute.size(src) // ROW, 1, 1), (threads, 1, 1)
        if cutlass.const_expr(min_blocks):
            kernel(src, dst).launch(grid=grid, block=block, min_blocks_per_mp=min_blocks)
        else:
            kernel(src, dst).launch(grid=grid, block=block)

    return host


# --- ahead of time ---------------------------------------------------------------------------------


def aot() -> None:
    """Compile every benchmark kernel for sm_90a without a GPU; print each one's SASS verdict."""
    os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")
    import cuda.coop.cutlass as cutlass_coop
    import cuda.coop.numba as numba_coop
    import cutlass
    from cutlass.cute.runtime import make_fake_compact_tensor

    def fake(dtype: Any, n: int) -> Any:
        return make_fake_compact_tensor(dtype, (n,), assumed_align=16)

    _cub_kernels("sm_90a", load=False)
    print("CUB C++ kernels: compiled")
    n = 1 << 20
    rows = []
    for t, i in SUM_CONFIGS:
        for name, k in numba_kernels(t, i).items():
            sig = (
                "void(float32[::1], float32[::1], int32)"
                if name == "sum"
                else "void(int32[::1], int32[::1], int32)"
            )
            rows.append((f"numba {name} {t}x{i}", numba_coop.compile(k, sig, block=t).inspect()))
        for what in ("sum", "max", "user max"):
            dtype = cutlass.Float32 if what == "sum" else cutlass.Int32
            host = cute_grid_reduce(t, i, what)
            c = cutlass_coop.compile(host, fake(dtype, n), fake(dtype, 1), cutlass.Int32(n), 8)
            rows.append((f"cute {what} {t}x{i}", c.inspect()))
    for t, i, alg in SCAN_CONFIGS:
        rows.append(
            (
                f"numba scan {t}x{i} {alg}",
                numba_coop.compile(numba_scan(t, i, alg), "void(int32[::1], int32[::1])", block=t).inspect(),
            )
        )
        c = cutlass_coop.compile(cute_scan(t, i, alg), fake(cutlass.Int32, n), fake(cutlass.Int32, n))
        rows.append((f"cute scan {t}x{i} {alg}", c.inspect()))
    for t, i in ROW_CONFIGS:
        rows.append(
            (
                f"numba rows {t}x{i}",
                numba_coop.compile(numba_rows(t, i), "void(float32[::1], float32[::1])", block=t).inspect(),
            )
        )
        c = cutlass_coop.compile(
            cute_rows(t, i), fake(cutlass.Float32, 4 * ROW), fake(cutlass.Float32, 4 * ROW)
        )
        rows.append((f"cute rows {t}x{i}", c.inspect()))
        # (not the min_blocks_per_mp=2 variant: CuTe's launch with it asks the driver for the device)
    if importlib.util.find_spec("numba_cuda_mlir") is not None:  # the same Numba sources
        import cuda.coop.numba_mlir as mlir_coop

        def ncm(k: Any, sig: str, t: int) -> Any:
            return mlir_coop.compile(k.py_func, sig, block=t).inspect()

        for t, i in SUM_CONFIGS:
            for name, k in numba_kernels(t, i, "numba_mlir").items():
                ty = "float32" if name == "sum" else "int32"
                rows.append((f"numba-mlir {name} {t}x{i}", ncm(k, f"void({ty}[::1], {ty}[::1], int32)", t)))
        for t, i, alg in SCAN_CONFIGS:
            k = numba_scan(t, i, alg, "numba_mlir")
            rows.append((f"numba-mlir scan {t}x{i} {alg}", ncm(k, "void(int32[::1], int32[::1])", t)))
        for t, i in ROW_CONFIGS:
            k = numba_rows(t, i, "numba_mlir")
            rows.append((f"numba-mlir rows {t}x{i}", ncm(k, "void(float32[::1], float32[::1])", t)))
    for name, r in rows:
        print(
            f"{name}: {len(r.functions)} function(s), {r.calls} CALL, {r.local_loads} LDL, "
            f"{r.local_stores} STL, {max(r.registers.values())} registers, "
            f"leftover {r.leftover_symbols or 'none'}"
        )


# --- on the GPU ------------------------------------------------------------------------------------


def _numba_warm_split(threads: int, items: int, alg: str) -> dict[str, float]:
    """Where a warm Numba compile's time goes, through the ahead-of-time path (same steps as a
    first launch, minus the module load): Numba's compile to LTO-IR with the bundle from the disk
    cache, then the nvJitLink LTO link."""
    import cuda.coop.numba as numba_coop
    from cuda.core import Linker, LinkerOptions, ObjectCode

    sig = "void(int32[::1], int32[::1])"
    t0 = time.perf_counter()
    lto = numba_coop.compile(numba_scan(threads, items, alg), sig, block=threads, output="ltoir")
    compile_s = time.perf_counter() - t0
    objects = [ObjectCode.from_ltoir(lto.code), ObjectCode.from_ltoir(lto.bundle_ltoir)]
    options = LinkerOptions(arch=lto.arch, link_time_optimization=True, optimize_unused_variables=True)
    t0 = time.perf_counter()
    Linker(*objects, options=options).link("cubin")
    return {"numba + NVVM": compile_s, "nvjitlink": time.perf_counter() - t0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--elements", type=int, default=1 << 28)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--json", default=None)
    ap.add_argument("--aot", action="store_true", help="compile for sm_90a only (no GPU)")
    ap.add_argument(
        "--only",
        action="append",
        choices=SECTIONS,
        help="run only these sections (repeatable; default: all)",
    )
    args = ap.parse_args()
    only = set(args.only or SECTIONS)
    if args.aot:
        aot()
        return
    os.environ.setdefault("CUDA_COOP_CACHE_DIR", tempfile.mkdtemp(prefix="coop-bench-cache-"))

    import cuda.coop.cutlass as cutlass_coop
    import cutlass
    import numpy as np
    import torch
    from cuda import coop
    from cuda.core import LaunchConfig, launch
    from cutlass.cute.runtime import from_dlpack
    from numba import cuda

    bench = _copy_bench()
    n = args.elements
    dev, arch, isrc, idst, stream = bench._device_and_data(n)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    cub = _cub_kernels(arch)
    fsrc = torch.rand(n, device="cuda") - 0.5
    fout = torch.zeros(1, device="cuda")
    iout = torch.zeros(1, dtype=torch.int32, device="cuda")
    nb = {
        k: cuda.as_cuda_array(v)
        for k, v in dict(fsrc=fsrc, fout=fout, isrc=isrc, idst=idst, iout=iout).items()
    }
    # numba-cuda-mlir (when installed): the Numba kernels' source with its cuda module, on its own
    # device arrays over the same memory (its launcher takes no torch tensors)
    have_mlir = importlib.util.find_spec("numba_cuda_mlir") is not None
    M = ["numba_mlir"] if have_mlir else []
    mb: dict[str, Any] = {}
    if have_mlir:
        from numba_cuda_mlir import cuda as mlir_cuda

        mb = {
            k: mlir_cuda.as_cuda_array(v)
            for k, v in dict(fsrc=fsrc, fout=fout, isrc=isrc, idst=idst, iout=iout).items()
        }
    ct = {
        k: from_dlpack(v, assumed_align=16)
        for k, v in dict(fsrc=fsrc, fout=fout, isrc=isrc, idst=idst, iout=iout).items()
    }
    result: dict[str, Any] = {"device": dev.name, "elements": n}

    # -- device-wide sum and max -------------------------------------------------------------------
    sum_rows, max_rows = [], []
    want_sum = float(fsrc.double().sum())
    want_max = int(isrc.max())
    for t, i in SUM_CONFIGS if "sum" in only else []:
        grid = sms * GRID_PER_SM
        kern = numba_kernels(t, i)
        cute_s = cutlass_coop.compile(
            cute_grid_reduce(t, i, "sum"), ct["fsrc"], ct["fout"], cutlass.Int32(n), grid
        )
        cute_m = {
            w: cutlass_coop.compile(cute_grid_reduce(t, i, w), ct["isrc"], ct["iout"], cutlass.Int32(n), grid)
            for w in ("max", "user max")
        }
        cfg = LaunchConfig(grid=grid, block=t)
        sums = {
            "numba": lambda k=kern["sum"][grid, t]: k(nb["fsrc"], nb["fout"], n),
            "cute": lambda f=cute_s: f(ct["fsrc"], ct["fout"], n),
            "cub": lambda k=cub[("sum", t, i)], c=cfg: launch(
                stream, c, k, fsrc.data_ptr(), fout.data_ptr(), n
            ),
            "cub64": lambda k=cub[("sum64", t, i)], c=cfg: launch(
                stream, c, k, fsrc.data_ptr(), fout.data_ptr(), np.int64(n)
            ),
            "torch": lambda: torch.sum(fsrc),
        }
        if have_mlir:
            kern_m = numba_kernels(t, i, "numba_mlir")
            sums["numba_mlir"] = lambda k=kern_m["sum"][grid, t]: k(mb["fsrc"], mb["fout"], n)
        for name in ("numba", "cute", "cub", "cub64", *M):
            fout.zero_()
            sums[name]()
            torch.cuda.synchronize()
            got = float(fout)
            assert abs(got - want_sum) <= 1e-6 * float(fsrc.abs().double().sum()) + 1e-3, (
                f"{name} sum {got} != {want_sum}"
            )
        ts = bench._interleaved(sums, args.reps, torch)
        sum_rows.append({"config": f"{t} x {i}", **{k: n * 4 / v / 1e9 for k, v in ts.items()}})
        maxes = {
            "numba max": lambda k=kern["max"][grid, t]: k(nb["isrc"], nb["iout"], n),
            "numba user max": lambda k=kern["user max"][grid, t]: k(nb["isrc"], nb["iout"], n),
            "cute max": lambda f=cute_m["max"]: f(ct["isrc"], ct["iout"], n),
            "cute user max": lambda f=cute_m["user max"]: f(ct["isrc"], ct["iout"], n),
            "cub": lambda k=cub[("max", t, i)], c=cfg: launch(
                stream, c, k, isrc.data_ptr(), iout.data_ptr(), n
            ),
        }
        if have_mlir:
            maxes["numba_mlir max"] = lambda k=kern_m["max"][grid, t]: k(mb["isrc"], mb["iout"], n)
            maxes["numba_mlir user max"] = lambda k=kern_m["user max"][grid, t]: k(mb["isrc"], mb["iout"], n)
        for name, fn in maxes.items():
            iout.fill_(-(2**31))
            fn()
            torch.cuda.synchronize()
            assert int(iout) == want_max, f"{name}: {int(iout)} != {want_max}"
        tm = bench._interleaved(maxes, args.reps, torch)
        max_rows.append({"config": f"{t} x {i}", **{k: n * 4 / v / 1e9 for k, v in tm.items()}})
        print(f"sum/max {t} x {i}: done", file=sys.stderr, flush=True)

    # -- per-tile scan -----------------------------------------------------------------------------
    scan_rows = []
    for t, i, alg in SCAN_CONFIGS if "scan" in only else []:
        tile = t * i
        grid = n // tile
        kern = numba_scan(t, i, alg)
        cute_f = cutlass_coop.compile(cute_scan(t, i, alg), ct["isrc"], ct["idst"])
        cfg = LaunchConfig(grid=grid, block=t)
        fns = {
            "numba": lambda k=kern[grid, t]: k(nb["isrc"], nb["idst"]),
            "cute": lambda f=cute_f: f(ct["isrc"], ct["idst"]),
            "cub": lambda k=cub[("scan", t, i, alg)], c=cfg: launch(
                stream, c, k, isrc.data_ptr(), idst.data_ptr()
            ),
            "torch copy_": lambda: idst.copy_(isrc),
        }
        if have_mlir:
            scan_m = numba_scan(t, i, alg, "numba_mlir")[grid, t]
            fns["numba_mlir"] = lambda k=scan_m: k(mb["isrc"], mb["idst"])
        want = (
            torch.cumsum(isrc[: grid * tile].view(grid, tile).to(torch.int64), dim=1).to(torch.int32).view(-1)
        )
        for name in ("numba", "cute", "cub", *M):
            idst.zero_()
            fns[name]()
            torch.cuda.synchronize()
            assert torch.equal(idst[: grid * tile], want), f"{name} scan {t} x {i} is wrong"
        tsc = bench._interleaved(fns, args.reps, torch)
        scan_rows.append({"config": f"{t} x {i} {alg}", **{k: 2 * n * 4 / v / 1e9 for k, v in tsc.items()}})
        print(f"scan {t} x {i}: done", file=sys.stderr, flush=True)

    # -- row-wise cumsum ---------------------------------------------------------------------------
    row_rows = []
    nrows = n // ROW
    rsrc = (torch.rand(nrows, ROW, device="cuda") - 0.5).contiguous()
    rdst = torch.empty_like(rsrc)
    want_rows = torch.cumsum(rsrc.double(), dim=-1)
    bound = 1e-5 * torch.cumsum(rsrc.abs().double(), dim=-1)  # ~ (tiles + log terms) * 2^-24 * sum|x|
    rs, rd = rsrc.view(-1), rdst.view(-1)
    for t, i in ROW_CONFIGS if "rows" in only else []:
        kern = numba_rows(t, i)
        cute_f = cutlass_coop.compile(
            cute_rows(t, i), from_dlpack(rs, assumed_align=16), from_dlpack(rd, assumed_align=16)
        )
        cute_mb2 = cutlass_coop.compile(
            cute_rows(t, i, min_blocks=2),
            from_dlpack(rs, assumed_align=16),
            from_dlpack(rd, assumed_align=16),
        )
        c_rs, c_rd = from_dlpack(rs, assumed_align=16), from_dlpack(rd, assumed_align=16)
        n_rs, n_rd = cuda.as_cuda_array(rs), cuda.as_cuda_array(rd)
        fns = {
            "numba": lambda k=kern[nrows, t], a=(n_rs, n_rd): k(*a),
            "cute": lambda f=cute_f, a=(c_rs, c_rd): f(*a),
            "cute_mb2": lambda f=cute_mb2, a=(c_rs, c_rd): f(*a),
            "cub": lambda k=cub[("rows", t, i)], g=nrows, t=t: launch(
                stream, LaunchConfig(grid=g, block=t), k, rs.data_ptr(), rd.data_ptr()
            ),
            "torch.cumsum": lambda: torch.cumsum(rsrc, dim=-1, out=rdst),
        }
        if have_mlir:
            m_rs, m_rd = mlir_cuda.as_cuda_array(rs), mlir_cuda.as_cuda_array(rd)
            rows_m = numba_rows(t, i, "numba_mlir")[nrows, t]
            fns["numba_mlir"] = lambda k=rows_m, a=(m_rs, m_rd): k(*a)
        for name, fn in fns.items():
            rdst.zero_()
            fn()
            torch.cuda.synchronize()
            err = (rdst.double() - want_rows).abs()
            assert bool((err <= bound + 1e-6).all()), f"{name} rows {t} x {i}: max error {float(err.max())}"
        tr = bench._interleaved(fns, args.reps, torch)
        row_rows.append({"config": f"{t} x {i}", **{k: 2 * n * 4 / v / 1e9 for k, v in tr.items()}})
        print(f"rows {t} x {i}: done", file=sys.stderr, flush=True)

    # -- compile time ------------------------------------------------------------------------------
    compile_rows = []
    for t, i, alg in SCAN_CONFIGS[:2] if "compile" in only else []:
        tile = t * i
        grid = n // tile
        os.environ["CUDA_COOP_CACHE_DIR"] = tempfile.mkdtemp(prefix="coop-bench-cold-")
        before = coop.compile_stats()
        t0 = time.perf_counter()
        numba_scan(t, i, alg)[grid, t](nb["isrc"], nb["idst"])
        cuda.synchronize()
        numba_cold = time.perf_counter() - t0
        nvrtc = coop.compile_stats().nvrtc_compiles - before.nvrtc_compiles
        t0 = time.perf_counter()
        numba_scan(t, i, alg)[grid, t](nb["isrc"], nb["idst"])
        cuda.synchronize()
        numba_warm = time.perf_counter() - t0
        t0 = time.perf_counter()
        numba_plain_copy(t, i)[grid, t](nb["isrc"], nb["idst"])
        cuda.synchronize()
        numba_plain = time.perf_counter() - t0
        os.environ["CUDA_COOP_CACHE_DIR"] = tempfile.mkdtemp(prefix="coop-bench-cold-")
        before = coop.compile_stats()
        t0 = time.perf_counter()
        cutlass_coop.compile(cute_scan(t, i, alg), ct["isrc"], ct["idst"])
        cute_cold = time.perf_counter() - t0
        cute_nvrtc = coop.compile_stats().nvrtc_compiles - before.nvrtc_compiles
        t0 = time.perf_counter()
        cutlass_coop.compile(cute_scan(t, i, alg), ct["isrc"], ct["idst"])
        cute_warm = time.perf_counter() - t0
        import cutlass.cute as cute

        t0 = time.perf_counter()
        cute.compile(bench._plain_cute_copy(i, t), ct["isrc"], ct["idst"])
        cute_plain = time.perf_counter() - t0
        compile_rows.append(
            {
                "config": f"{t} x {i} {alg}",
                "numba": (numba_plain, numba_cold, numba_warm, nvrtc),
                "cute": (cute_plain, cute_cold, cute_warm, cute_nvrtc),
                "numba split": _numba_warm_split(t, i, alg),
                "cute split": cutlass_coop.compile(cute_scan(t, i, alg), ct["isrc"], ct["idst"]).timings,
            }  # fmt: skip
        )

    print(
        f"device: {dev.name}, {n} elements ({n * 4 / 2**30:.1f} GiB), median of {args.reps} interleaved "
        f"batches of {bench.BATCH} launches; grid-stride kernels use {GRID_PER_SM} blocks per SM"
    )
    best = max((max(r["numba"], r["cute"]) for r in sum_rows), default=0.0)
    bench._table(
        "Device-wide sum (float32; GB/s read)",
        ["threads x items", "numba", "cute", "CUB C++", "CUB C++ 64-bit index", "torch.sum", "numba/CUB",
         "cute/CUB", "numba/CUB 64-bit", "best coop/torch", *(["numba-mlir", "numba-mlir/CUB"] if M else [])],
        [
            [r["config"], *bench._gbs(r, "numba", "cute", "cub", "cub64", "torch"),
             *bench._ratio(r, ("numba", "cub"), ("cute", "cub"), ("numba", "cub64")),
             f"{best / r['torch']:.3f}", *bench._gbs(r, *M), *bench._ratio(r, *[(m, "cub") for m in M])]
            for r in sum_rows
        ],
    )  # fmt: skip
    bench._table(
        "Device-wide max (int32; GB/s read): user-defined max vs built-in",
        ["threads x items", "numba max", "numba user max", "cute max", "cute user max", "CUB C++",
         "numba user/built-in", "cute user/built-in",
         *(["numba-mlir max", "numba-mlir user max", "numba-mlir max/CUB"] if M else [])],
        [
            [r["config"], *bench._gbs(r, "numba max", "numba user max", "cute max", "cute user max", "cub"),
             *bench._ratio(r, ("numba user max", "numba max"), ("cute user max", "cute max")),
             *bench._gbs(r, *[f"{m} {k}" for m in M for k in ("max", "user max")]),
             *bench._ratio(r, *[(f"{m} max", "cub") for m in M])]
            for r in max_rows
        ],
    )  # fmt: skip
    bench._table(
        "Per-tile scan: load -> inclusive_sum -> store (int32; GB/s read + written)",
        ["threads x items, algorithm", "numba", "cute", "CUB C++", "torch copy_", "numba/CUB", "cute/CUB",
         *(["numba-mlir", "numba-mlir/CUB"] if M else [])],
        [
            [r["config"], *bench._gbs(r, "numba", "cute", "cub", "torch copy_"),
             *bench._ratio(r, ("numba", "cub"), ("cute", "cub")), *bench._gbs(r, *M),
             *bench._ratio(r, *[(m, "cub") for m in M])]
            for r in scan_rows
        ],
    )  # fmt: skip
    bench._table(
        f"Row-wise cumsum, {nrows} rows of {ROW} float32, prefix_op across tiles (GB/s read + written)",
        ["threads x items", "numba", "cute", "cute, min_blocks_per_mp=2", "CUB C++", "torch.cumsum(dim=-1)",
         "numba/torch", "cute/torch", *(["numba-mlir", "numba-mlir/CUB"] if M else [])],
        [
            [r["config"], *bench._gbs(r, "numba", "cute", "cute_mb2", "cub", "torch.cumsum"),
             *bench._ratio(r, ("numba", "torch.cumsum"), ("cute", "torch.cumsum")), *bench._gbs(r, *M),
             *bench._ratio(r, *[(m, "cub") for m in M])]
            for r in row_rows
        ],
    )  # fmt: skip
    bench._table(
        "Compile time of a load + inclusive_sum + store kernel (s): the DSL's own compile of a plain "
        "kernel, cold (empty cache) and warm (bundle on disk)",
        ["config", "backend", "plain DSL", "cold", "warm", "cold - plain", "warm - plain",
         "NVRTC calls (cold)"],
        [
            [r["config"], b, f"{r[b][0]:.3f}", f"{r[b][1]:.3f}", f"{r[b][2]:.3f}",
             f"{r[b][1] - r[b][0]:+.3f}", f"{r[b][2] - r[b][0]:+.3f}", str(r[b][3])]
            for r in compile_rows
            for b in ("numba", "cute")
        ],
    )  # fmt: skip
    # A warm CuTe compile reads its link back from the cache (its kernel's LTO-IR is the same each
    # time); Numba names each compile anew, so its warm compile links again (notes/compile_time_plan.md).
    print(
        "\nWarm compile split (ms): Numba via the ahead-of-time path (a real link), CuTe from the "
        "bridge's timings (its nvjitlink: the link read back from the cache)"
    )
    for r in compile_rows:
        numba = ", ".join(f"{k} {1e3 * v:.0f}" for k, v in r["numba split"].items())
        cute = ", ".join(f"{k} {1e3 * v:.0f}" for k, v in r["cute split"].items())
        print(f"{r['config']}: numba: {numba}; cute: {cute}")
    result.update(sum=sum_rows, max=max_rows, scan=scan_rows, rows=row_rows, compile=compile_rows)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
