# SPDX-License-Identifier: Apache-2.0
"""Diagnose a CuTe-backend copy that is slower than CUB C++ (e.g. warp_transpose_timesliced at
256 x 4, see RESULTS.md): does the gap follow the linked cubin or CuTe's launch path?

In the same run, on one algorithm and configuration: the coop CuTe kernel launched by CuTe's
compiled function, the *same linked cubin* launched directly with cuda.core (its parameters are
two global pointers), the coop Numba kernel and the CUB C++ kernel; with each kernel's occupancy.

    python benchmarks/cute_launch_probe.py [--algorithm A] [--threads T] [--items I]
"""

# No `from __future__ import annotations`: CuTe evaluates kernel annotations when it traces.
import os
import sys

# Keep this folder (which holds copy.py) off sys.path so that `import copy` finds the stdlib.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402


def _bench() -> Any:
    """benchmarks/copy.py as a module (its name shadows the stdlib's, so load it by path)."""
    spec = importlib.util.spec_from_file_location("coop_copy_bench", Path(__file__).with_name("copy.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--algorithm", default="warp_transpose_timesliced")
    ap.add_argument("--threads", type=int, default=256)
    ap.add_argument("--items", type=int, default=4)
    ap.add_argument("--elements", type=int, default=1 << 28)
    ap.add_argument("--reps", type=int, default=15)
    args = ap.parse_args()
    os.environ.setdefault("CUDA_COOP_CACHE_DIR", tempfile.mkdtemp(prefix="coop-probe-cache-"))

    import cuda.coop.cutlass as cutlass_coop
    import torch
    from cuda.core import Device, LaunchConfig, ObjectCode, Stream, launch
    from cutlass.cute.runtime import from_dlpack
    from numba import cuda

    bench = _bench()
    dev = Device()
    dev.set_current()
    arch = f"sm_{dev.compute_capability.major}{dev.compute_capability.minor}"
    alg, threads, items = args.algorithm, args.threads, args.items
    tile = threads * items
    n = args.elements // tile * tile
    src = torch.randint(-(2**31), 2**31 - 1, (n,), dtype=torch.int32, device="cuda")
    dst = torch.empty_like(src)
    stream = Stream.from_handle(torch.cuda.current_stream().cuda_stream)
    cfg = LaunchConfig(grid=n // tile, block=threads)

    c_src, c_dst = from_dlpack(src, assumed_align=16), from_dlpack(dst, assumed_align=16)
    cute_fn = cutlass_coop.compile(bench._cute_copy(alg, items, threads), c_src, c_dst)
    report = cute_fn.inspect()
    raw = ObjectCode.from_cubin(cute_fn.cubin).get_kernel(report.functions[0])
    numba_kernel = bench._coop_copy(alg, items, tile)
    nb_src, nb_dst = cuda.as_cuda_array(src), cuda.as_cuda_array(dst)
    numba_launch = numba_kernel[n // tile, threads]
    cub = bench._cub_kernels(arch)[(threads, items, alg)]

    fns = {
        "CuTe compiled function": lambda: cute_fn(c_src, c_dst),
        "same cubin via cuda.core": lambda: launch(stream, cfg, raw, src.data_ptr(), dst.data_ptr()),
        "coop Numba": lambda: numba_launch(nb_src, nb_dst),
        "CUB C++": lambda: launch(stream, cfg, cub, src.data_ptr(), dst.data_ptr()),
    }
    for name, fn in fns.items():
        dst.zero_()
        fn()
        torch.cuda.synchronize()
        assert torch.equal(dst, src), f"{name}: wrong copy"
    times = bench._interleaved(fns, args.reps, torch)
    occupancy = {
        "same cubin via cuda.core": raw.occupancy.max_active_blocks_per_multiprocessor(threads, 0),
        "CUB C++": cub.occupancy.max_active_blocks_per_multiprocessor(threads, 0),
    }
    print(f"{dev.name}: {alg} at {threads} x {items}, {n} int32, median of {args.reps} x {bench.BATCH}")
    print(report.summary())
    for name, t in times.items():
        occ = occupancy.get(name, "?")
        print(f"  {name:28s} {2 * n * 4 / t / 1e9:7.0f} GB/s   blocks/SM: {occ}")


if __name__ == "__main__":
    main()
