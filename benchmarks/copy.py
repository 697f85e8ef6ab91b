# SPDX-License-Identifier: Apache-2.0
"""Copy bandwidth of coop.block.load/store (both backends) next to CUB C++ and torch, same run.

For each element type (``--dtypes``: int32 by default; the 2-byte bfloat16 and float16 too) and each
algorithm at (256 threads, 4 items) and (128, 16): a coop copy kernel under the Numba backend and
under the CUTLASS (CuTe DSL) backend, a CUB C++ kernel of the same configuration compiled here
through NVRTC (cuda.core; for ``vectorize`` also one whose pointers are declared 16-byte aligned,
the peer of coop kernels that know their arrays' alignment), and torch ``copy_``, measured in
alternation, each batch of launches queued behind a GPU sleep so that the host's launch path is not
timed (see ``_time_batch``; ``benchmarks/launch.py`` times that). Also: cold and warm compile time
of the coop kernels, NVRTC calls, and the CuTe bridge's compile split. numba-cuda 0.30 has no
bfloat16 arrays: a bfloat16 row has no Numba kernel (its cells say ``-``).

    python benchmarks/copy.py [--elements N] [--reps R] [--json PATH] [--dtypes int32,bfloat16,float16]
    ncu --profile-from-start off python benchmarks/copy.py --configs 128x16 --algorithms vectorize --profile
"""

# No `from __future__ import annotations`: CuTe evaluates kernel annotations when it traces.
import os
import sys

# This file is named copy.py: keep its folder off sys.path so that `import copy` finds the stdlib.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import argparse  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

CONFIGS = [(256, 4), (128, 16)]
ALGORITHMS = ["direct", "striped", "vectorize", "transpose", "warp_transpose", "warp_transpose_timesliced"]

#: The element types a copy may move: their C++ spelling in CUB_SOURCE.
CXX = {
    "int32": "int",
    "float32": "float",
    "bfloat16": "__nv_bfloat16",
    "float16": "__half",
    "int8": "signed char",
}

#: The CUB C++ peers, compiled with NVRTC (``copy_cub.cu``; the kernels instantiated by name).
CUB_SOURCE = Path(__file__).with_name("copy_cub.cu").read_text()


BATCH = 50
# GPU cycles of the sleep each batch is queued behind (~5 ms at the H200's 1.98 GHz): longer than the
# host takes to launch BATCH kernels through any front door (benchmarks/launch.py: under 40 us each)
HOLD_CYCLES = 10_000_000
late_batches: dict[str, int] = {}  # batches whose queueing outlasted the sleep, by name


def _time_batch(fn: Callable[[], object], torch: Any, name: str = "") -> float:
    """Seconds per call of ``fn`` over one batch of BATCH back-to-back calls, CUDA events.

    The batch is queued behind a GPU sleep, so that the events time the kernels back to back and not
    the host's launch path (``benchmarks/launch.py`` measures that): without it, the host's time to
    issue the first launch after the start event counts against the slower front door. A batch whose
    sleep ended before it was queued is counted in ``late_batches`` (``_interleaved`` prints them).
    """
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    hold = torch.cuda.Event()
    torch.cuda._sleep(HOLD_CYCLES)
    hold.record()
    start.record()
    for _ in range(BATCH):
        fn()
    stop.record()
    if hold.query():
        late_batches[name] = late_batches.get(name, 0) + 1
    stop.synchronize()
    return float(start.elapsed_time(stop)) / 1e3 / BATCH


def _interleaved(fns: dict[str, Callable[[], object]], rounds: int, torch: Any) -> dict[str, float]:
    """Median seconds per call of each ``fn``, measured in alternation so that clock and thermal
    drift affect all of them alike."""
    for fn in fns.values():
        fn()
    torch.cuda.synchronize()
    samples: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            samples[name].append(_time_batch(fn, torch, name))
    if late_batches:
        print(f"note: batches queued after their GPU sleep ended: {late_batches}", file=sys.stderr)
        late_batches.clear()
    return {k: statistics.median(v) for k, v in samples.items()}


def _table(title: str, header: list[str], rows: list[list[str]]) -> None:
    """Print a Markdown table of ``rows`` under ``title`` (the benchmarks' result tables)."""
    print(f"\n{title}")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")


def _gbs(row: dict[str, Any], *keys: str) -> list[str]:
    """Table cells: ``row``'s GB/s figures under ``keys``, rounded."""
    return [f"{row[k]:.0f}" for k in keys]


def _ratio(row: dict[str, Any], *pairs: tuple[str, str]) -> list[str]:
    """Table cells: ``row[a] / row[b]`` for each pair."""
    return [f"{row[a] / row[b]:.3f}" for a, b in pairs]


def _device_and_data(n: int) -> tuple[Any, str, Any, Any, Any]:
    """The current device, its arch (``sm_XY``), ``n`` random int32 on it as the source, an empty
    destination, and torch's current stream as a cuda.core Stream."""
    import torch
    from cuda.core import Device, Stream

    dev = Device()
    dev.set_current()
    arch = f"sm_{dev.compute_capability.major}{dev.compute_capability.minor}"
    src = torch.randint(-(2**31), 2**31 - 1, (n,), dtype=torch.int32, device="cuda")
    stream = Stream.from_handle(torch.cuda.current_stream().cuda_stream)
    return dev, arch, src, torch.empty_like(src), stream


def _cub_name(threads: int, items: int, alg: str, dtype: str = "int32", aligned: bool = False) -> str:
    """The name expression of CUB_SOURCE's kernel for one configuration."""
    return (
        f"cub_copy<{threads}, {items}, cub::BLOCK_LOAD_{alg.upper()}, cub::BLOCK_STORE_{alg.upper()}, "
        f"{CXX[dtype]}, {str(aligned).lower()}>"
    )


def _cub_program(arch: str, lto: bool = False) -> Any:
    """CUB_SOURCE as a cuda.core Program for ``arch``, with the cuda-cccl headers."""
    from cuda.cccl import get_include_paths
    from cuda.core import Program, ProgramOptions

    paths = get_include_paths()
    incs = [str(p) for p in (paths.cub, paths.cuda) if p is not None]
    opts = ProgramOptions(arch=arch, std="c++17", include_path=incs, link_time_optimization=lto)
    return Program(CUB_SOURCE, "c++", opts)


def _cub_kernels(arch: str, configs: list[tuple[int, int]] = CONFIGS, dtypes: tuple[str, ...] = ("int32",)):  # type: ignore[no-untyped-def]
    names = {
        (t, i, a, d, k): _cub_name(t, i, a, d, k)
        for t, i in configs
        for a in ALGORITHMS
        for d in dtypes
        for k in ((False, True) if a == "vectorize" else (False,))  # only vectorize tests alignment
    }
    module = _cub_program(arch).compile("cubin", name_expressions=tuple(names.values()))
    return {k: module.get_kernel(v) for k, v in names.items()}


def numba_dsl(dsl: str) -> tuple[Any, Any]:
    """(coop's ``jit``, the ``cuda`` module) of a Numba-family DSL, ``"numba"`` (numba-cuda) or
    ``"numba_mlir"`` (numba-cuda-mlir): the same kernel source runs under both."""
    if dsl == "numba_mlir":
        import cuda.coop.numba_mlir as mlir_coop
        from numba_cuda_mlir import cuda as mlir_cuda

        return mlir_coop.jit, mlir_cuda
    import cuda.coop.numba as numba_coop
    from numba import cuda as numba_cuda

    return numba_coop.jit, numba_cuda


def _coop_copy(alg: str, items: int, tile: int, dtype: str = "int32", dsl: str = "numba") -> Any:
    """A fresh coop copy kernel (a new kernel object: compiles on its first launch) under a Numba DSL,
    numba-cuda or numba-cuda-mlir (the same source)."""
    import numpy as np
    from cuda import coop

    jit, cuda = numba_dsl(dsl)
    kind = getattr(np, dtype)

    def copy(s, d):  # type: ignore[no-untyped-def]
        buf = coop.ThreadData(items, kind)
        base = cuda.blockIdx.x * tile
        coop.block.load(s, buf, offset=base, algorithm=alg)
        coop.block.store(d, buf, offset=base, algorithm=alg)

    return jit(copy)


def _cute_copy(alg: str, items: int, threads: int, dtype: str = "int32") -> Any:
    """A CuTe DSL host function launching a coop copy kernel (CUTLASS backend)."""
    import cutlass.cute as cute
    from cuda import coop
    from cuda.coop.cutlass._backend import cutlass_type

    tile = threads * items
    kind = cutlass_type(dtype)

    @cute.kernel
    def kernel(s: cute.Tensor, d: cute.Tensor):  # type: ignore[no-untyped-def]
        bidx, _, _ = cute.arch.block_idx()
        buf = coop.ThreadData(items, kind)
        coop.block.load(s, buf, offset=bidx * tile, algorithm=alg)
        coop.block.store(d, buf, offset=bidx * tile, algorithm=alg)

    @cute.jit
    def host(s: cute.Tensor, d: cute.Tensor):  # type: ignore[no-untyped-def]
        kernel(s, d).launch(grid=(cute.size(s) // tile, 1, 1), block=(threads, 1, 1))

    return host


def _plain_cute_copy(items: int, threads: int) -> Any:
    """The same copy in plain CuTe (no coop): the baseline for the bridge's compile cost."""
    import cutlass
    import cutlass.cute as cute

    tile = threads * items

    @cute.kernel
    def kernel(s: cute.Tensor, d: cute.Tensor):  # type: ignore[no-untyped-def]
        bidx, _, _ = cute.arch.block_idx()
        tidx, _, _ = cute.arch.thread_idx()
        for i in cutlass.range_constexpr(items):
            d[bidx * tile + i * threads + tidx] = s[bidx * tile + i * threads + tidx]

    @cute.jit
    def host(s: cute.Tensor, d: cute.Tensor):  # type: ignore[no-untyped-def]
        kernel(s, d).launch(grid=(cute.size(s) // tile, 1, 1), block=(threads, 1, 1))

    return host


def _random(torch: Any, n: int, dtype: str) -> Any:
    """``n`` random values of ``dtype`` on the GPU (no NaN: copies are compared with torch.equal)."""
    kind = getattr(torch, dtype)
    if kind.is_floating_point:
        return torch.randn(n, device="cuda", dtype=kind)
    info = torch.iinfo(kind)
    return torch.randint(info.min, info.max, (n,), dtype=kind, device="cuda")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--elements", type=int, default=1 << 28)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--json", default=None)
    ap.add_argument("--algorithms", default=",".join(ALGORITHMS), help="comma-separated subset")
    ap.add_argument("--configs", default="256x4,128x16", help="comma-separated THREADSxITEMS")
    ap.add_argument("--dtypes", default="int32", help=f"comma-separated subset of {','.join(CXX)}")
    ap.add_argument(
        "--profile",
        action="store_true",
        help="launch each kernel once between cudaProfilerStart and Stop instead of timing (for ncu "
        "--profile-from-start off)",
    )
    args = ap.parse_args()
    os.environ.setdefault("CUDA_COOP_CACHE_DIR", tempfile.mkdtemp(prefix="coop-bench-cache-"))

    import torch
    from cuda import coop
    from cuda.core import LaunchConfig, launch
    from numba import cuda

    n = args.elements
    dev, arch, _src, _dst, stream = _device_and_data(1 << 10)
    configs = [(int(t), int(i)) for t, i in (c.split("x") for c in args.configs.split(","))]
    dtypes = tuple(args.dtypes.split(","))
    cub = _cub_kernels(arch, configs, dtypes)
    import importlib.util

    import cuda.coop.cutlass as cutlass_coop
    import cutlass.cute as cute
    from cutlass.cute.runtime import from_dlpack

    have_mlir = importlib.util.find_spec("numba_cuda_mlir") is not None
    rows = []
    for dtype in dtypes:
        src = _random(torch, n, dtype)
        dst = torch.empty_like(src)
        nbytes = 2 * n * src.element_size()
        numba_ok = dtype != "bfloat16"  # numba-cuda 0.30 has no bfloat16 arrays
        nb_src, nb_dst = (cuda.as_cuda_array(src), cuda.as_cuda_array(dst)) if numba_ok else (None, None)
        cute_src, cute_dst = from_dlpack(src, assumed_align=16), from_dlpack(dst, assumed_align=16)
        for threads, items in configs:
            tile = threads * items
            grid = n // tile
            for alg in args.algorithms.split(","):
                fns: dict[str, Callable[[], object]] = {}
                row: dict[str, Any] = {"dtype": dtype, "threads": threads, "items": items, "algorithm": alg}
                if numba_ok:
                    dst.fill_(0)
                    before = coop.compile_stats()
                    t0 = time.perf_counter()
                    kernel = _coop_copy(alg, items, tile, dtype)
                    kernel[grid, threads](nb_src, nb_dst)
                    cuda.synchronize()
                    row["cold_s"] = time.perf_counter() - t0
                    row["nvrtc_calls"] = coop.compile_stats().nvrtc_compiles - before.nvrtc_compiles
                    assert torch.equal(dst, src), f"coop {dtype} {alg} copy is wrong"
                    t0 = time.perf_counter()
                    _coop_copy(alg, items, tile, dtype)[grid, threads](nb_src, nb_dst)  # warm disk cache
                    cuda.synchronize()
                    row["warm_s"] = time.perf_counter() - t0
                    coop_launch = kernel[grid, threads]  # the front door: the aligned kernel, planned launch
                    fns["coop"] = lambda f=coop_launch, s=nb_src, d=nb_dst: f(s, d)
                if have_mlir and numba_ok:  # coop hands torch tensors to numba-cuda-mlir as its device arrays
                    dst.fill_(0)
                    t0 = time.perf_counter()
                    mlir_kernel = _coop_copy(alg, items, tile, dtype, "numba_mlir")
                    mlir_launch = mlir_kernel[grid, threads]
                    mlir_launch(src, dst)
                    torch.cuda.synchronize()
                    row["mlir_cold_s"] = time.perf_counter() - t0
                    assert torch.equal(dst, src), f"coop numba-cuda-mlir {dtype} {alg} copy is wrong"
                    fns["mlir"] = lambda f=mlir_launch, s=src, d=dst: f(s, d)
                dst.fill_(0)
                cub_kernel, cfg = (
                    cub[(threads, items, alg, dtype, False)],
                    LaunchConfig(grid=grid, block=threads),
                )
                launch(stream, cfg, cub_kernel, src.data_ptr(), dst.data_ptr())
                torch.cuda.synchronize()
                assert torch.equal(dst, src), f"CUB {dtype} {alg} copy is wrong"
                if alg == "vectorize":  # the CUB C++ kernel that knows the alignment, as coop's do
                    dst.fill_(0)
                    cub_aligned = cub[(threads, items, alg, dtype, True)]
                    launch(stream, cfg, cub_aligned, src.data_ptr(), dst.data_ptr())
                    torch.cuda.synchronize()
                    assert torch.equal(dst, src), f"CUB (aligned) {dtype} {alg} copy is wrong"
                    fns["cub_aligned"] = lambda k=cub_aligned, c=cfg, s=src, d=dst: launch(
                        stream, c, k, s.data_ptr(), d.data_ptr()
                    )
                dst.fill_(0)
                t0 = time.perf_counter()
                cute_fn = cutlass_coop.compile(_cute_copy(alg, items, threads, dtype), cute_src, cute_dst)
                row["cute_cold_s"] = time.perf_counter() - t0
                cute_fn(cute_src, cute_dst)
                torch.cuda.synchronize()
                assert torch.equal(dst, src), f"coop CuTe {dtype} {alg} copy is wrong"
                t0 = time.perf_counter()
                warm_fn = cutlass_coop.compile(_cute_copy(alg, items, threads, dtype), cute_src, cute_dst)
                row["cute_warm_s"] = time.perf_counter() - t0
                row["cute_split"] = warm_fn.timings
                if dtype == "int32":
                    t0 = time.perf_counter()
                    cute.compile(_plain_cute_copy(items, threads), cute_src, cute_dst)
                    row["plain_cute_s"] = time.perf_counter() - t0
                fns["cute"] = lambda f=cute_fn, s=cute_src, d=cute_dst: f(s, d)
                fns["cub"] = lambda k=cub_kernel, c=cfg, s=src, d=dst: launch(
                    stream, c, k, s.data_ptr(), d.data_ptr()
                )
                fns["torch"] = lambda s=src, d=dst: d.copy_(s)
                if args.profile:
                    torch.cuda.synchronize()
                    torch.cuda.profiler.start()
                    for name, f in fns.items():
                        print(f"profiled: {dtype} {threads}x{items} {alg} {name}", flush=True)
                        f()
                        torch.cuda.synchronize()
                    torch.cuda.profiler.stop()
                    continue
                t = _interleaved(fns, args.reps, torch)
                row.update({f"{k}_gbs": nbytes / v / 1e9 for k, v in t.items()})
                rows.append(row)
        del src, dst, nb_src, nb_dst, cute_src, cute_dst
    if args.profile:
        return

    print(
        f"device: {dev.name}, {n} elements of {', '.join(dtypes)}, median of {args.reps} "
        f"interleaved batches of {BATCH} launches, each queued behind a GPU sleep"
    )

    def cell(r: dict[str, Any], key: str, fmt: str = "{:.0f}") -> str:
        return fmt.format(r[key]) if key in r else "-"

    def ratio(r: dict[str, Any], a: str, b: str) -> str:
        return f"{r[a] / r[b]:.3f}" if a in r and b in r else "-"

    _table(
        "Numba backend (no bfloat16: numba-cuda 0.30 has no bfloat16 arrays)",
        [
            "dtype",
            "threads x items",
            "algorithm",
            "coop GB/s",
            "CUB C++ GB/s",
            "coop/CUB",
            "CUB C++ aligned GB/s",
            "coop/CUB aligned",
            "torch copy_ GB/s",
            "cold compile s",
            "warm compile s",
            "NVRTC calls",
        ],  # fmt: skip
        [
            [
                r["dtype"],
                f"{r['threads']} x {r['items']}",
                r["algorithm"],
                cell(r, "coop_gbs"),
                cell(r, "cub_gbs"),
                ratio(r, "coop_gbs", "cub_gbs"),
                cell(r, "cub_aligned_gbs"),
                ratio(r, "coop_gbs", "cub_aligned_gbs"),
                cell(r, "torch_gbs"),
                cell(r, "cold_s", "{:.2f}"),
                cell(r, "warm_s", "{:.2f}"),
                cell(r, "nvrtc_calls", "{}"),
            ]  # fmt: skip
            for r in rows
        ],
    )
    if have_mlir:
        _table(
            "numba-cuda-mlir backend (the Numba kernel with numba-cuda-mlir's cuda module)",
            [
                "dtype",
                "threads x items",
                "algorithm",
                "coop GB/s",
                "CUB C++ GB/s",
                "coop/CUB",
                "cold compile s",
            ],
            [
                [
                    r["dtype"],
                    f"{r['threads']} x {r['items']}",
                    r["algorithm"],
                    cell(r, "mlir_gbs"),
                    cell(r, "cub_gbs"),
                    ratio(r, "mlir_gbs", "cub_gbs"),
                    cell(r, "mlir_cold_s", "{:.2f}"),
                ]  # fmt: skip
                for r in rows
            ],
        )
    splits = ("trace_and_lower", "nvrtc", "libnvvm", "nvjitlink", "cute_compile")
    _table(
        "CUTLASS backend (CuTe DSL)",
        [
            "dtype",
            "threads x items",
            "algorithm",
            "coop GB/s",
            "CUB C++ GB/s",
            "coop/CUB",
            "coop/CUB aligned",
            "torch copy_ GB/s",
            "cold compile s",
            "warm compile s",
            "plain CuTe compile s",
            "warm split ms: trace+lower / NVRTC / libNVVM / nvJitLink / 2nd CuTe compile",
        ],  # fmt: skip
        [
            [
                r["dtype"],
                f"{r['threads']} x {r['items']}",
                r["algorithm"],
                cell(r, "cute_gbs"),
                cell(r, "cub_gbs"),
                ratio(r, "cute_gbs", "cub_gbs"),
                ratio(r, "cute_gbs", "cub_aligned_gbs"),
                cell(r, "torch_gbs"),
                cell(r, "cute_cold_s", "{:.2f}"),
                cell(r, "cute_warm_s", "{:.3f}"),
                cell(r, "plain_cute_s", "{:.3f}"),
                " / ".join(f"{1e3 * r['cute_split'].get(k, 0.0):.0f}" for k in splits),
            ]  # fmt: skip
            for r in rows
        ],
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": dev.name, "elements": n, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
