# SPDX-License-Identifier: Apache-2.0
"""Copy bandwidth of coop.block.load/store (both backends) next to CUB C++ and torch, same run.

For each algorithm at (256 threads, 4 items) and (128, 16): a coop copy kernel under the Numba
backend and under the CUTLASS (CuTe DSL) backend, a CUB C++ kernel of the same configuration
compiled here through NVRTC (cuda.core), and torch ``copy_``, measured in alternation, each batch
of launches queued behind a GPU sleep so that the host's launch path is not timed (see
``_time_batch``; ``benchmarks/launch.py`` times that). Also: cold and warm compile time of the
coop kernels, NVRTC calls, and the CuTe bridge's compile split.

    python benchmarks/copy.py [--elements N] [--reps R] [--json PATH]
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
from typing import Any  # noqa: E402

CONFIGS = [(256, 4), (128, 16)]
ALGORITHMS = ["direct", "striped", "vectorize", "transpose", "warp_transpose", "warp_transpose_timesliced"]

CUB_SOURCE = r"""
#include <cub/block/block_load.cuh>
#include <cub/block/block_store.cuh>
template <int Threads, int Items, cub::BlockLoadAlgorithm LA, cub::BlockStoreAlgorithm SA>
__global__ void __launch_bounds__(Threads) cub_copy(const int* src, int* dst)
{
  using Load = cub::BlockLoad<int, Threads, Items, LA>;
  using Store = cub::BlockStore<int, Threads, Items, SA>;
  __shared__ union { typename Load::TempStorage load; typename Store::TempStorage store; } ts;
  const size_t base = size_t(blockIdx.x) * Threads * Items;
  int items[Items];
  Load(ts.load).Load(src + base, items);
  if (LA == cub::BLOCK_LOAD_TRANSPOSE || LA == cub::BLOCK_LOAD_WARP_TRANSPOSE
      || LA == cub::BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED)
  {
    __syncthreads();  // the store reuses the load's shared memory
  }
  Store(ts.store).Store(dst + base, items);
}
"""


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


def _cub_name(threads: int, items: int, alg: str) -> str:
    """The name expression of CUB_SOURCE's kernel for one configuration."""
    return f"cub_copy<{threads}, {items}, cub::BLOCK_LOAD_{alg.upper()}, cub::BLOCK_STORE_{alg.upper()}>"


def _cub_program(arch: str, lto: bool = False) -> Any:
    """CUB_SOURCE as a cuda.core Program for ``arch``, with the cuda-cccl headers."""
    from cuda.cccl import get_include_paths
    from cuda.core import Program, ProgramOptions

    paths = get_include_paths()
    incs = [str(p) for p in (paths.cub, paths.cuda) if p is not None]
    opts = ProgramOptions(arch=arch, std="c++17", include_path=incs, link_time_optimization=lto)
    return Program(CUB_SOURCE, "c++", opts)


def _cub_kernels(arch: str, configs: list[tuple[int, int]] = CONFIGS):  # type: ignore[no-untyped-def]
    names = {(t, i, a): _cub_name(t, i, a) for t, i in configs for a in ALGORITHMS}
    module = _cub_program(arch).compile("cubin", name_expressions=tuple(names.values()))
    return {k: module.get_kernel(v) for k, v in names.items()}


def _coop_copy(alg: str, items: int, tile: int) -> Any:
    """A fresh coop Numba copy kernel (a new kernel object: compiles on its first launch)."""
    import cuda.coop.numba as numba_coop
    import numba
    from cuda import coop
    from numba import cuda

    def copy(s, d):  # type: ignore[no-untyped-def]
        buf = coop.ThreadData(items, numba.int32)
        base = cuda.blockIdx.x * tile
        coop.block.load(s, buf, offset=base, algorithm=alg)
        coop.block.store(d, buf, offset=base, algorithm=alg)

    return numba_coop.jit(copy)


def _cute_copy(alg: str, items: int, threads: int) -> Any:
    """A CuTe DSL host function launching a coop copy kernel (CUTLASS backend)."""
    import cutlass
    import cutlass.cute as cute
    from cuda import coop

    tile = threads * items

    @cute.kernel
    def kernel(s: cute.Tensor, d: cute.Tensor):  # type: ignore[no-untyped-def]
        bidx, _, _ = cute.arch.block_idx()
        buf = coop.ThreadData(items, cutlass.Int32)
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--elements", type=int, default=1 << 28)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--json", default=None)
    ap.add_argument("--algorithms", default=",".join(ALGORITHMS), help="comma-separated subset")
    ap.add_argument("--configs", default="256x4,128x16", help="comma-separated THREADSxITEMS")
    args = ap.parse_args()
    os.environ.setdefault("CUDA_COOP_CACHE_DIR", tempfile.mkdtemp(prefix="coop-bench-cache-"))

    import torch
    from cuda import coop
    from cuda.core import LaunchConfig, launch
    from numba import cuda

    n = args.elements
    dev, arch, src, dst, stream = _device_and_data(n)
    nbytes = 2 * n * 4
    configs = [(int(t), int(i)) for t, i in (c.split("x") for c in args.configs.split(","))]
    cub = _cub_kernels(arch, configs)
    nb_src, nb_dst = cuda.as_cuda_array(src), cuda.as_cuda_array(dst)
    import cuda.coop.cutlass as cutlass_coop
    from cutlass.cute.runtime import from_dlpack

    cute_src, cute_dst = from_dlpack(src, assumed_align=16), from_dlpack(dst, assumed_align=16)

    rows = []
    for threads, items in configs:
        tile = threads * items
        grid = n // tile
        for alg in args.algorithms.split(","):
            dst.fill_(0)
            before = coop.compile_stats()
            t0 = time.perf_counter()
            kernel = _coop_copy(alg, items, tile)
            kernel[grid, threads](nb_src, nb_dst)
            cuda.synchronize()
            cold = time.perf_counter() - t0
            nvrtc_calls = coop.compile_stats().nvrtc_compiles - before.nvrtc_compiles
            assert torch.equal(dst, src), f"coop {alg} copy is wrong"
            t0 = time.perf_counter()
            _coop_copy(alg, items, tile)[grid, threads](nb_src, nb_dst)  # new kernel, warm disk cache
            cuda.synchronize()
            warm = time.perf_counter() - t0
            dst.fill_(0)
            cub_kernel, cfg = cub[(threads, items, alg)], LaunchConfig(grid=grid, block=threads)
            launch(stream, cfg, cub_kernel, src.data_ptr(), dst.data_ptr())
            torch.cuda.synchronize()
            assert torch.equal(dst, src), f"CUB {alg} copy is wrong"
            dst.fill_(0)
            t0 = time.perf_counter()
            cute_fn = cutlass_coop.compile(_cute_copy(alg, items, threads), cute_src, cute_dst)
            cute_cold = time.perf_counter() - t0
            cute_fn(cute_src, cute_dst)
            torch.cuda.synchronize()
            assert torch.equal(dst, src), f"coop CuTe {alg} copy is wrong"
            t0 = time.perf_counter()
            warm_fn = cutlass_coop.compile(_cute_copy(alg, items, threads), cute_src, cute_dst)
            cute_warm = time.perf_counter() - t0
            import cutlass.cute as cute

            t0 = time.perf_counter()
            cute.compile(_plain_cute_copy(items, threads), cute_src, cute_dst)
            plain = time.perf_counter() - t0
            coop_launch = kernel.for_block(threads)[grid, threads]
            t = _interleaved(
                {
                    "cute": lambda f=cute_fn: f(cute_src, cute_dst),
                    "coop": lambda f=coop_launch: f(nb_src, nb_dst),
                    "cub": lambda k=cub_kernel, c=cfg: launch(stream, c, k, src.data_ptr(), dst.data_ptr()),
                    "torch": lambda: dst.copy_(src),
                },
                args.reps,
                torch,
            )
            rows.append(
                {
                    "threads": threads,
                    "items": items,
                    "algorithm": alg,
                    "coop_gbs": nbytes / t["coop"] / 1e9,
                    "cute_gbs": nbytes / t["cute"] / 1e9,
                    "cute_cold_s": cute_cold,
                    "cute_warm_s": cute_warm,
                    "plain_cute_s": plain,
                    "cute_split": warm_fn.timings,
                    "cub_gbs": nbytes / t["cub"] / 1e9,
                    "torch_gbs": nbytes / t["torch"] / 1e9,
                    "cold_s": cold,
                    "warm_s": warm,
                    "nvrtc_calls": nvrtc_calls,
                }
            )

    print(
        f"device: {dev.name}, {n} int32 elements ({n * 4 / 2**30:.1f} GiB), median of {args.reps} "
        f"interleaved batches of {BATCH} launches, each queued behind a GPU sleep"
    )
    print("\nNumba backend")
    print(
        "| threads x items | algorithm | coop GB/s | CUB C++ GB/s | coop/CUB | torch copy_ GB/s | "
        "cold compile s | warm compile s | NVRTC calls |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['threads']} x {r['items']} | {r['algorithm']} | {r['coop_gbs']:.0f} | "
            f"{r['cub_gbs']:.0f} | "
            f"{r['coop_gbs'] / r['cub_gbs']:.3f} | {r['torch_gbs']:.0f} | {r['cold_s']:.2f} | "
            f"{r['warm_s']:.2f} | {r['nvrtc_calls']} |"
        )
    print("\nCUTLASS backend (CuTe DSL)")
    print(
        "| threads x items | algorithm | coop GB/s | CUB C++ GB/s | coop/CUB | torch copy_ GB/s | "
        "cold compile s | warm compile s | plain CuTe compile s | warm split ms: trace+lower / NVRTC / "
        "libNVVM / nvJitLink / 2nd CuTe compile |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        sp = r["cute_split"]
        split = " / ".join(
            f"{1e3 * sp.get(k, 0.0):.0f}"
            for k in ("trace_and_lower", "nvrtc", "libnvvm", "nvjitlink", "cute_compile")
        )
        print(
            f"| {r['threads']} x {r['items']} | {r['algorithm']} | {r['cute_gbs']:.0f} | "
            f"{r['cub_gbs']:.0f} | "
            f"{r['cute_gbs'] / r['cub_gbs']:.3f} | {r['torch_gbs']:.0f} | {r['cute_cold_s']:.2f} | "
            f"{r['cute_warm_s']:.3f} | {r['plain_cute_s']:.3f} | {split} |"
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": dev.name, "elements": n, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
