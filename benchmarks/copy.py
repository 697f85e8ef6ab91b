# SPDX-License-Identifier: Apache-2.0
"""Copy bandwidth of coop.block.load/store (Numba backend) next to CUB C++ and torch, same run.

For each algorithm at (256 threads, 4 items) and (128, 16): a coop Numba copy kernel, a CUB C++
kernel of the same configuration compiled here through NVRTC (cuda.core), and torch ``copy_``.
Also: cold and warm compile time of the coop kernel and its NVRTC calls.

    python benchmarks/copy.py [--elements N] [--reps R] [--json PATH]
"""

from __future__ import annotations

import os
import sys

# This file is named copy.py: keep its folder off sys.path so that `import copy` finds the stdlib.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import argparse  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

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


def _timer(fn, reps: int, torch) -> float:  # type: ignore[no-untyped-def]
    """Median seconds per call of ``fn`` over ``reps`` batches of 10 calls, CUDA events."""
    fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(10):
            fn()
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop) / 1e3 / 10)
    return statistics.median(samples)


def _cub_kernels(arch: str):  # type: ignore[no-untyped-def]
    from cuda.cccl import get_include_paths
    from cuda.core import Program, ProgramOptions

    paths = get_include_paths()
    names = {}
    for threads, items in CONFIGS:
        for alg in ALGORITHMS:
            names[(threads, items, alg)] = (
                f"cub_copy<{threads}, {items}, cub::BLOCK_LOAD_{alg.upper()}, cub::BLOCK_STORE_{alg.upper()}>"
            )
    incs = [str(p) for p in (paths.cub, paths.cuda) if p is not None]
    prog = Program(CUB_SOURCE, "c++", ProgramOptions(arch=arch, std="c++17", include_path=incs))
    module = prog.compile("cubin", name_expressions=tuple(names.values()))
    return {k: module.get_kernel(v) for k, v in names.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--elements", type=int, default=1 << 28)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    os.environ.setdefault("CUDA_COOP_CACHE_DIR", tempfile.mkdtemp(prefix="coop-bench-cache-"))

    import numba
    import torch
    from cuda.core import Device, LaunchConfig, Stream, launch
    from numba import cuda

    from cuda import coop
    import cuda.coop.numba as numba_coop

    dev = Device()
    dev.set_current()
    arch = f"sm_{dev.compute_capability.major}{dev.compute_capability.minor}"
    n = args.elements
    src = torch.randint(-(2**31), 2**31 - 1, (n,), dtype=torch.int32, device="cuda")
    dst = torch.empty_like(src)
    nbytes = 2 * n * 4
    t_torch = _timer(lambda: dst.copy_(src), args.reps, torch)
    cub = _cub_kernels(arch)
    stream = Stream.from_handle(torch.cuda.current_stream().cuda_stream)
    nb_src, nb_dst = cuda.as_cuda_array(src), cuda.as_cuda_array(dst)

    rows = []
    for threads, items in CONFIGS:
        tile = threads * items
        grid = n // tile
        for alg in ALGORITHMS:

            def make(alg: str = alg, items: int = items, tile: int = tile):  # type: ignore[no-untyped-def]
                def copy(s, d):  # type: ignore[no-untyped-def]
                    buf = coop.ThreadData(items, numba.int32)
                    base = cuda.blockIdx.x * tile
                    coop.block.load(s, buf, offset=base, algorithm=alg)
                    coop.block.store(d, buf, offset=base, algorithm=alg)

                return numba_coop.jit(copy)

            dst.fill_(0)
            before = coop.compile_stats()
            t0 = time.perf_counter()
            kernel = make()
            kernel[grid, threads](nb_src, nb_dst)
            cuda.synchronize()
            cold = time.perf_counter() - t0
            nvrtc_calls = coop.compile_stats().nvrtc_compiles - before.nvrtc_compiles
            assert torch.equal(dst, src), f"coop {alg} copy is wrong"
            t0 = time.perf_counter()
            warm_kernel = make()
            warm_kernel[grid, threads](nb_src, nb_dst)
            cuda.synchronize()
            warm = time.perf_counter() - t0
            launch_coop = kernel.for_block(threads)[grid, threads]
            t_coop = _timer(lambda: launch_coop(nb_src, nb_dst), args.reps, torch)

            dst.fill_(0)
            k = cub[(threads, items, alg)]
            cfg = LaunchConfig(grid=grid, block=threads)
            t_cub = _timer(lambda: launch(stream, cfg, k, src.data_ptr(), dst.data_ptr()), args.reps, torch)
            assert torch.equal(dst, src), f"CUB {alg} copy is wrong"
            rows.append(
                {
                    "threads": threads, "items": items, "algorithm": alg,
                    "coop_gbs": nbytes / t_coop / 1e9, "cub_gbs": nbytes / t_cub / 1e9,
                    "torch_gbs": nbytes / t_torch / 1e9, "cold_s": cold, "warm_s": warm,
                    "nvrtc_calls": nvrtc_calls,
                }
            )

    print(f"device: {dev.name}, {n} int32 elements ({n * 4 / 2**30:.1f} GiB), median of {args.reps}x10")
    print("| threads x items | algorithm | coop GB/s | CUB C++ GB/s | coop/CUB | torch copy_ GB/s | "
          "cold compile s | warm compile s | NVRTC calls |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['threads']} x {r['items']} | {r['algorithm']} | {r['coop_gbs']:.0f} | {r['cub_gbs']:.0f} | "
            f"{r['coop_gbs'] / r['cub_gbs']:.3f} | {r['torch_gbs']:.0f} | {r['cold_s']:.2f} | "
            f"{r['warm_s']:.2f} | {r['nvrtc_calls']} |"
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": dev.name, "elements": n, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
