# SPDX-License-Identifier: Apache-2.0
"""The sorting primitives (issue 10) next to CUB C++ and torch, same run, both backends.

Tables (medians of interleaved batches, as benchmarks/copy.py):
  radix sort   per-tile block radix sort, load (warp_transpose) -> radix_sort (output="striped") ->
               store (striped), 256 threads x 8 int32 keys, keys only and key/value pairs (int32
               values); the same kernel in CUB C++ (BlockLoad + BlockRadixSort::SortBlockedToStriped
               + BlockStore, one TempStorage union); GB/s counts bytes read + written
  row sort     each row of a (65536 x 2048) float32 tensor sorted by one block (256 x 8), keys only
               and with the column index as the value (what torch.sort returns); torch.sort(dim=-1)
  histogram    256-bin histogram of 2^28 uint8 samples: each block counts 16 tiles of 256 x 16
               samples (vectorized load) into int32 counters in shared memory (BlockHistogram,
               atomic; init on the first tile, composite on the others), then adds them to the
               global histogram with one atomic per bin; the same kernel in CUB C++, and
               torch.bincount(minlength=256); GB/s counts the samples read. The tiles are a loop
               (Numba, CuTe ``cutlass.range``, CUB ``#pragma unroll(1)``) or unrolled (CuTe
               ``range_constexpr``, CUB ``#pragma unroll(Tiles)``): each compared with CUB of its form

  row top-k    the 16 largest of each row of the row sort table's tensor, with their column indices
               (coop.block.top_k with values, the row's first 16 slots written, unordered), against
               torch.topk(k=16, dim=-1, sorted=False)
  merge sort   the radix sort table's kernel config (256 threads x 8 int32 keys, one tile per block,
               load warp_transpose -> merge_sort -> store warp_transpose) with the built-in comparator
               ``'less'`` and with a user function ``a < b``, keys only; the issue's target for the
               user comparator is >= 0.98x of the built-in one

    python benchmarks/sort.py [--rows R] [--reps R] [--json PATH] [--aot]

``--aot`` compiles every kernel ahead of time for sm_90a and prints each one's SASS facts (one
function, CALL, LDL/STL, registers, shared bytes); no GPU needed.
"""

# No `from __future__ import annotations`: CuTe evaluates kernel annotations when it traces.
import os
import sys

sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

THREADS, ITEMS = 256, 8
TILE = THREADS * ITEMS
ROW = 2048  # one block per row: 256 x 8
TILES = 1 << 15  # radix sort table: 2^15 tiles of 2048 int32 (256 MiB in, 256 MiB out)
TOPK = 16  # row-wise top-k table: the 16 largest of each row's 2048
BINS, HITEMS, HTILES = 256, 16, 16  # histogram table: 256 bins; a block counts 16 tiles of 256 x 16
HTILE = THREADS * HITEMS
SAMPLES = 1 << 28  # uint8 samples (256 MiB)

#: The CUB C++ peers, compiled with NVRTC (``sort_cub.cu``; the kernels instantiated by name).
CUB_SOURCE = Path(__file__).with_name("sort_cub.cu").read_text()


def _copy_bench() -> Any:
    """benchmarks/copy.py as a module (its name shadows the stdlib's): the timing loop and device
    setup are shared."""
    spec = importlib.util.spec_from_file_location("coop_copy_bench", Path(__file__).with_name("copy.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cub_kernels(arch: str, load: bool = True) -> dict[str, Any]:
    """The CUB C++ reference kernels, compiled (and, with ``load``, loaded) for ``arch``."""
    from cuda.cccl import get_include_paths
    from cuda.core import Program, ProgramOptions

    paths = get_include_paths()
    incs = [str(p) for p in (paths.cub, paths.cuda) if p is not None]
    names = {
        "keys": f"cub_sort_keys<{THREADS}, {ITEMS}>",
        "pairs": f"cub_sort_pairs<{THREADS}, {ITEMS}>",
        "histogram": f"cub_histogram<{THREADS}, {HITEMS}, {BINS}, {HTILES}, false>",
        "histogram unrolled": f"cub_histogram<{THREADS}, {HITEMS}, {BINS}, {HTILES}, true>",
    }
    program = Program(CUB_SOURCE, "c++", ProgramOptions(arch=arch, std="c++17", include_path=incs))
    module = program.compile("cubin", name_expressions=tuple(names.values()))
    return {k: module.get_kernel(v) if load else module for k, v in names.items()}


# --- Numba kernels ---------------------------------------------------------------------------------


def numba_sort(pairs: bool, dtype: str = "int32", dsl: str = "numba") -> Any:
    """load -> radix_sort -> store, one tile per block; with ``pairs`` the values are int32 (loaded
    from an array, or for ``dtype='float32'`` each key's position in its row)."""
    import numpy as np
    from cuda import coop

    jit, cuda = _copy_bench().numba_dsl(dsl)  # numba-cuda or numba-cuda-mlir: the same source

    if not pairs:

        def keys(src, dst):  # type: ignore[no-untyped-def]
            base = cuda.blockIdx.x * TILE
            k = coop.ThreadData(ITEMS, dtype)
            coop.block.load(src, k, offset=base, algorithm="warp_transpose")
            coop.block.radix_sort(k, output="striped")
            coop.block.store(dst, k, offset=base, algorithm="striped")

        return jit(keys)

    if dtype == "float32":

        def rows(src, dst, idx):  # type: ignore[no-untyped-def]
            base = cuda.blockIdx.x * TILE
            k = coop.ThreadData(ITEMS, np.float32)
            v = coop.ThreadData(ITEMS, np.int32)
            coop.block.load(src, k, offset=base, algorithm="warp_transpose")
            for i in range(ITEMS):
                v[i] = cuda.threadIdx.x * ITEMS + i
            coop.block.radix_sort(k, values=v, output="striped")
            coop.block.store(dst, k, offset=base, algorithm="striped")
            coop.block.store(idx, v, offset=base, algorithm="striped")

        return jit(rows)

    def kv(src, vsrc, dst, vdst):  # type: ignore[no-untyped-def]
        base = cuda.blockIdx.x * TILE
        k = coop.ThreadData(ITEMS, np.int32)
        v = coop.ThreadData(ITEMS, np.int32)
        coop.block.load(src, k, offset=base, algorithm="warp_transpose")
        coop.block.load(vsrc, v, offset=base, algorithm="warp_transpose")
        coop.block.radix_sort(k, values=v, output="striped")
        coop.block.store(dst, k, offset=base, algorithm="striped")
        coop.block.store(vdst, v, offset=base, algorithm="striped")

    return jit(kv)


def numba_top_k(dsl: str = "numba") -> Any:
    """Each block: one row of ROW float32 scores -> coop.block.top_k (TOPK largest, with the column
    index as the value) -> the row's first TOPK slots written out (unordered, as
    ``torch.topk(sorted=False)``)."""
    import numpy as np
    from cuda import coop

    jit, cuda = _copy_bench().numba_dsl(dsl)  # numba-cuda or numba-cuda-mlir: the same source

    def top_k(src, top, idx):  # type: ignore[no-untyped-def]
        t = cuda.threadIdx.x
        k = coop.ThreadData(ITEMS, np.float32)
        v = coop.ThreadData(ITEMS, np.int32)
        coop.block.load(src, k, offset=cuda.blockIdx.x * TILE, algorithm="warp_transpose")
        for i in range(ITEMS):
            v[i] = t * ITEMS + i
        coop.block.top_k(k, TOPK, values=v)
        if t * ITEMS < TOPK:
            for i in range(ITEMS):
                top[cuda.blockIdx.x * TOPK + t * ITEMS + i] = k[i]
                idx[cuda.blockIdx.x * TOPK + t * ITEMS + i] = v[i]

    return jit(top_k)


def numba_merge_sort(user: bool, dsl: str = "numba") -> Any:
    """load -> merge_sort (the built-in ``'less'``, or with ``user`` a Python function) -> store."""
    import numpy as np
    from cuda import coop

    jit, cuda = _copy_bench().numba_dsl(dsl)  # numba-cuda or numba-cuda-mlir: the same source

    def less(a, b):  # type: ignore[no-untyped-def]
        return a < b

    op = less if user else "less"

    def merge(src, dst):  # type: ignore[no-untyped-def]
        base = cuda.blockIdx.x * TILE
        k = coop.ThreadData(ITEMS, np.int32)
        coop.block.load(src, k, offset=base, algorithm="warp_transpose")
        coop.block.merge_sort(k, op)
        coop.block.store(dst, k, offset=base, algorithm="warp_transpose")

    return jit(merge)


def numba_histogram(dsl: str = "numba") -> Any:
    """Each block: HTILES tiles of uint8 samples counted into shared counters, then added to ``out``
    (THREADS == BINS: one bin per thread)."""
    import numpy as np
    from cuda import coop

    jit, cuda = _copy_bench().numba_dsl(dsl)  # numba-cuda or numba-cuda-mlir: the same source

    def histogram(src, out):  # type: ignore[no-untyped-def]
        counts = cuda.shared.array(BINS, np.int32)
        base = cuda.blockIdx.x * (HTILE * HTILES)
        s = coop.ThreadData(HITEMS, np.uint8)
        coop.block.load(src, s, offset=base, algorithm="vectorize")
        coop.block.histogram(s, counts, bins=BINS)
        for tile in range(1, HTILES):
            coop.block.load(src, s, offset=base + tile * HTILE, algorithm="vectorize")
            coop.block.histogram(s, counts, bins=BINS, init=False)
        cuda.syncthreads()
        cuda.atomic.add(out, cuda.threadIdx.x, counts[cuda.threadIdx.x])

    return jit(histogram)


# --- CuTe kernels ----------------------------------------------------------------------------------


def cute_histogram(unrolled: bool = False) -> Any:
    """The CuTe twin of :func:`numba_histogram`: a loop over the tiles (``cutlass.range``), or with
    ``unrolled`` the tiles unrolled at trace time (``cutlass.range_constexpr``)."""
    import cutlass
    import cutlass.cute as cute
    from cuda import coop
    from cutlass.memory import SmemAllocator

    @cute.kernel
    def histogram_kernel(src: cute.Tensor, out: cute.Tensor):  # type: ignore[no-untyped-def]
        bidx, _, _ = cute.arch.block_idx()
        tidx, _, _ = cute.arch.thread_idx()
        counts = SmemAllocator().allocate_tensor(cutlass.Int32, cute.make_layout(BINS), 16)
        base = bidx * (HTILE * HTILES)
        s = coop.ThreadData(HITEMS, cutlass.Uint8)
        coop.block.load(src, s, offset=base, algorithm="vectorize")
        coop.block.histogram(s, counts, bins=BINS)
        if cutlass.const_expr(unrolled):
            for tile in cutlass.range_constexpr(1, HTILES):
                coop.block.load(src, s, offset=base + tile * HTILE, algorithm="vectorize")
                coop.block.histogram(s, counts, bins=BINS, init=False)
        else:
            for tile in cutlass.range(1, HTILES, 1, unroll=1):
                coop.block.load(src, s, offset=base + tile * HTILE, algorithm="vectorize")
                coop.block.histogram(s, counts, bins=BINS, init=False)
        cute.arch.barrier()
        cute.arch.atomic_add(out.iterator + tidx, counts[tidx])

    @cute.jit
    def histogram_host(src: cute.Tensor, out: cute.Tensor):  # type: ignore[no-untyped-def]
        blocks = cute.size(src) // (HTILE * HTILES)
        histogram_kernel(src, out).launch(grid=(blocks, 1, 1), block=(THREADS, 1, 1))

    return histogram_host


def cute_top_k() -> Any:
    """The CuTe twin of :func:`numba_top_k`."""
    import cutlass
    import cutlass.cute as cute
    from cuda import coop

    @cute.kernel
    def top_k_kernel(src: cute.Tensor, top: cute.Tensor, idx: cute.Tensor):  # type: ignore[no-untyped-def]
        bidx, _, _ = cute.arch.block_idx()
        tidx, _, _ = cute.arch.thread_idx()
        k = coop.ThreadData(ITEMS, cutlass.Float32)
        v = coop.ThreadData(ITEMS, cutlass.Int32)
        coop.block.load(src, k, offset=bidx * TILE, algorithm="warp_transpose")
        for i in cutlass.range_constexpr(ITEMS):
            v[i] = tidx * ITEMS + i
        coop.block.top_k(k, TOPK, values=v)
        if tidx * ITEMS < TOPK:
            for i in cutlass.range_constexpr(ITEMS):
                top[bidx * TOPK + tidx * ITEMS + i] = k[i]
                idx[bidx * TOPK + tidx * ITEMS + i] = v[i]

    @cute.jit
    def top_k_host(src: cute.Tensor, top: cute.Tensor, idx: cute.Tensor):  # type: ignore[no-untyped-def]
        top_k_kernel(src, top, idx).launch(grid=(cute.size(src) // TILE, 1, 1), block=(THREADS, 1, 1))

    return top_k_host


def cute_merge_sort(user: bool) -> Any:
    """The CuTe twin of :func:`numba_merge_sort`."""
    import cutlass
    import cutlass.cute as cute
    from cuda import coop

    def less(a, b):  # type: ignore[no-untyped-def]
        return a < b

    op = less if user else "less"

    @cute.kernel
    def merge_kernel(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        bidx, _, _ = cute.arch.block_idx()
        k = coop.ThreadData(ITEMS, cutlass.Int32)
        coop.block.load(src, k, offset=bidx * TILE, algorithm="warp_transpose")
        coop.block.merge_sort(k, op)
        coop.block.store(dst, k, offset=bidx * TILE, algorithm="warp_transpose")

    @cute.jit
    def merge_host(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        merge_kernel(src, dst).launch(grid=(cute.size(src) // TILE, 1, 1), block=(THREADS, 1, 1))

    return merge_host


def cute_sort(pairs: bool, row_index: bool = False) -> Any:
    """The CuTe twin of :func:`numba_sort` (int32 keys, or float32 rows with their positions)."""
    import cutlass
    import cutlass.cute as cute
    from cuda import coop

    key_t = cutlass.Float32 if row_index else cutlass.Int32

    if not pairs:

        @cute.kernel
        def keys_kernel(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
            bidx, _, _ = cute.arch.block_idx()
            k = coop.ThreadData(ITEMS, key_t)
            coop.block.load(src, k, offset=bidx * TILE, algorithm="warp_transpose")
            coop.block.radix_sort(k, output="striped")
            coop.block.store(dst, k, offset=bidx * TILE, algorithm="striped")

        @cute.jit
        def keys_host(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
            keys_kernel(src, dst).launch(grid=(cute.size(src) // TILE, 1, 1), block=(THREADS, 1, 1))

        return keys_host

    if row_index:

        @cute.kernel
        def rows_kernel(src: cute.Tensor, dst: cute.Tensor, idx: cute.Tensor):  # type: ignore[no-untyped-def]
            bidx, _, _ = cute.arch.block_idx()
            tidx, _, _ = cute.arch.thread_idx()
            k = coop.ThreadData(ITEMS, cutlass.Float32)
            v = coop.ThreadData(ITEMS, cutlass.Int32)
            coop.block.load(src, k, offset=bidx * TILE, algorithm="warp_transpose")
            for i in cutlass.range_constexpr(ITEMS):
                v[i] = tidx * ITEMS + i
            coop.block.radix_sort(k, values=v, output="striped")
            coop.block.store(dst, k, offset=bidx * TILE, algorithm="striped")
            coop.block.store(idx, v, offset=bidx * TILE, algorithm="striped")

        @cute.jit
        def rows_host(src: cute.Tensor, dst: cute.Tensor, idx: cute.Tensor):  # type: ignore[no-untyped-def]
            rows_kernel(src, dst, idx).launch(grid=(cute.size(src) // TILE, 1, 1), block=(THREADS, 1, 1))

        return rows_host

    @cute.kernel
    def kv_kernel(src: cute.Tensor, vsrc: cute.Tensor, dst: cute.Tensor, vdst: cute.Tensor):  # type: ignore[no-untyped-def]
        bidx, _, _ = cute.arch.block_idx()
        k = coop.ThreadData(ITEMS, cutlass.Int32)
        v = coop.ThreadData(ITEMS, cutlass.Int32)
        coop.block.load(src, k, offset=bidx * TILE, algorithm="warp_transpose")
        coop.block.load(vsrc, v, offset=bidx * TILE, algorithm="warp_transpose")
        coop.block.radix_sort(k, values=v, output="striped")
        coop.block.store(dst, k, offset=bidx * TILE, algorithm="striped")
        coop.block.store(vdst, v, offset=bidx * TILE, algorithm="striped")

    @cute.jit
    def kv_host(src: cute.Tensor, vsrc: cute.Tensor, dst: cute.Tensor, vdst: cute.Tensor):  # type: ignore[no-untyped-def]
        kv_kernel(src, vsrc, dst, vdst).launch(grid=(cute.size(src) // TILE, 1, 1), block=(THREADS, 1, 1))

    return kv_host


# --- ahead of time ---------------------------------------------------------------------------------


def aot() -> None:
    """Compile every benchmark kernel for sm_90a without a GPU; print each one's SASS facts."""
    os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")
    import cuda.coop.cutlass as cutlass_coop
    import cuda.coop.numba as numba_coop
    import cutlass
    from cutlass.cute.runtime import make_fake_compact_tensor

    def fake(dtype: Any, n: int = 64 * TILE) -> Any:
        return make_fake_compact_tensor(dtype, (n,), assumed_align=16)

    _cub_kernels("sm_90a", load=False)
    print("CUB C++ kernels: compiled")
    i32, f32 = cutlass.Int32, cutlass.Float32
    rows = [
        ("numba keys", numba_coop.compile(numba_sort(False), "void(int32[::1], int32[::1])", block=THREADS)),
        (
            "numba pairs",
            numba_coop.compile(
                numba_sort(True), "void(int32[::1], int32[::1], int32[::1], int32[::1])", block=THREADS
            ),
        ),
        (
            "numba rows float32 keys",
            numba_coop.compile(
                numba_sort(False, "float32"), "void(float32[::1], float32[::1])", block=THREADS
            ),
        ),
        (
            "numba rows float32 + index",
            numba_coop.compile(
                numba_sort(True, "float32"), "void(float32[::1], float32[::1], int32[::1])", block=THREADS
            ),
        ),
        ("cute keys", cutlass_coop.compile(cute_sort(False), fake(i32), fake(i32))),
        ("cute pairs", cutlass_coop.compile(cute_sort(True), fake(i32), fake(i32), fake(i32), fake(i32))),
        (
            "cute rows float32 + index",
            cutlass_coop.compile(cute_sort(True, True), fake(f32), fake(f32), fake(i32)),
        ),
        *(
            (
                f"{dsl} merge sort, {which} comparator",
                numba_coop.compile(numba_merge_sort(user), "void(int32[::1], int32[::1])", block=THREADS)
                if dsl == "numba"
                else cutlass_coop.compile(cute_merge_sort(user), fake(i32), fake(i32)),
            )
            for dsl in ("numba", "cute")
            for which, user in (("built-in", False), ("user", True))
        ),
        (
            "numba histogram",
            numba_coop.compile(numba_histogram(), "void(uint8[::1], int32[::1])", block=THREADS),
        ),
        (
            "numba top_k rows",
            numba_coop.compile(numba_top_k(), "void(float32[::1], float32[::1], int32[::1])", block=THREADS),
        ),
        (
            "cute top_k rows",
            cutlass_coop.compile(cute_top_k(), fake(f32), fake(f32, 64 * TOPK), fake(i32, 64 * TOPK)),
        ),
        *(
            (
                f"cute histogram ({'unrolled' if unrolled else 'loop'})",
                cutlass_coop.compile(
                    cute_histogram(unrolled), fake(cutlass.Uint8, 64 * HTILE * HTILES), fake(i32, BINS)
                ),
            )
            for unrolled in (False, True)
        ),
    ]
    if importlib.util.find_spec("numba_cuda_mlir") is not None:  # the same Numba sources
        import cuda.coop.numba_mlir as mlir_coop

        def ncm(k: Any, sig: str) -> Any:
            return mlir_coop.compile(k.py_func, sig, block=THREADS)

        i32x4 = "void(int32[::1], int32[::1], int32[::1], int32[::1])"

        rows += [
            ("numba-mlir keys", ncm(numba_sort(False, dsl="numba_mlir"), "void(int32[::1], int32[::1])")),
            (
                "numba-mlir pairs",
                ncm(numba_sort(True, dsl="numba_mlir"), i32x4),
            ),
            ("numba-mlir histogram", ncm(numba_histogram("numba_mlir"), "void(uint8[::1], int32[::1])")),
            *(
                (f"numba-mlir merge {'user' if user else 'built-in'}",
                 ncm(numba_merge_sort(user, "numba_mlir"), "void(int32[::1], int32[::1])"))
                for user in (False, True)
            ),
        ]  # fmt: skip
    for name, compiled in rows:
        r = compiled.inspect()
        print(
            f"{name}: {len(r.functions)} function(s), {r.calls} CALL, {r.local_loads} LDL, "
            f"{r.local_stores} STL, {max(r.registers.values())} registers, "
            f"{max(r.shared_bytes.values())} B shared, leftover {r.leftover_symbols or 'none'}"
        )


# --- on the GPU ------------------------------------------------------------------------------------


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=65536, help="rows of 2048 float32 in the row-sort table")
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--json", default=None)
    ap.add_argument("--aot", action="store_true", help="compile for sm_90a only (no GPU)")
    args = ap.parse_args()
    if args.aot:
        aot()
        return
    os.environ.setdefault("CUDA_COOP_CACHE_DIR", tempfile.mkdtemp(prefix="coop-bench-cache-"))

    import cuda.coop.cutlass as cutlass_coop
    import torch
    from cuda.core import LaunchConfig, launch
    from cutlass.cute.runtime import from_dlpack
    from numba import cuda

    bench = _copy_bench()
    n = TILES * TILE
    dev, arch, src, dst, stream = bench._device_and_data(n)
    cub = _cub_kernels(arch)
    vsrc = torch.arange(n, dtype=torch.int32, device="cuda") % TILE
    vdst = torch.empty_like(vsrc)
    nb = {k: cuda.as_cuda_array(v) for k, v in dict(src=src, dst=dst, vsrc=vsrc, vdst=vdst).items()}
    # numba-cuda-mlir (when installed): the Numba kernels' source, on its own device arrays
    M = ["numba_mlir"] if importlib.util.find_spec("numba_cuda_mlir") is not None else []
    mb: dict[str, Any] = {}
    if M:
        from numba_cuda_mlir import cuda as mlir_cuda

        mb = {k: mlir_cuda.as_cuda_array(v) for k, v in dict(src=src, dst=dst, vsrc=vsrc, vdst=vdst).items()}
    ct = {
        k: from_dlpack(v, assumed_align=16) for k, v in dict(src=src, dst=dst, vsrc=vsrc, vdst=vdst).items()
    }
    result: dict[str, Any] = {"device": dev.name, "tiles": TILES, "tile": TILE}

    # -- block radix sort vs CUB C++ ---------------------------------------------------------------
    want_keys = torch.sort(src.view(TILES, TILE), dim=-1, stable=True)
    cfg = LaunchConfig(grid=TILES, block=THREADS)
    nk, np_ = numba_sort(False)[TILES, THREADS], numba_sort(True)[TILES, THREADS]
    ck = cutlass_coop.compile(cute_sort(False), ct["src"], ct["dst"])
    cp = cutlass_coop.compile(cute_sort(True), ct["src"], ct["vsrc"], ct["dst"], ct["vdst"])
    keys = {
        "numba": lambda: nk(nb["src"], nb["dst"]),
        "cute": lambda: ck(ct["src"], ct["dst"]),
        "cub": lambda: launch(stream, cfg, cub["keys"], src.data_ptr(), dst.data_ptr()),
    }
    pairs = {
        "numba": lambda: np_(nb["src"], nb["vsrc"], nb["dst"], nb["vdst"]),
        "cute": lambda: cp(ct["src"], ct["vsrc"], ct["dst"], ct["vdst"]),
        "cub": lambda: launch(
            stream, cfg, cub["pairs"], src.data_ptr(), vsrc.data_ptr(), dst.data_ptr(), vdst.data_ptr()
        ),
    }
    if M:
        mk = numba_sort(False, dsl="numba_mlir")[TILES, THREADS]
        mp = numba_sort(True, dsl="numba_mlir")[TILES, THREADS]
        keys["numba_mlir"] = lambda: mk(mb["src"], mb["dst"])
        pairs["numba_mlir"] = lambda: mp(mb["src"], mb["vsrc"], mb["dst"], mb["vdst"])
    for table in (keys, pairs):
        for name, fn in table.items():
            dst.fill_(-1)
            vdst.fill_(-1)
            fn()
            torch.cuda.synchronize()
            assert torch.equal(dst.view(TILES, TILE), want_keys.values), name
            if table is pairs:
                assert torch.equal(vdst.view(TILES, TILE), want_keys.indices.int()), name
    radix_rows = []
    for label, table, moved in (("keys", keys, 8), ("pairs", pairs, 16)):
        ts = bench._interleaved(table, args.reps, torch)
        gbs = {k: n * moved / v / 1e9 for k, v in ts.items()}
        radix_rows.append({"what": label, **gbs})
    result["radix_sort"] = radix_rows
    bench._table(
        f"block radix sort, {THREADS} x {ITEMS} int32, {TILES} tiles (GB/s, read + written)",
        ["what", "numba", "cute", "CUB C++", "numba / CUB", "cute / CUB",
         *(["numba-mlir", "numba-mlir / CUB"] if M else [])],
        [
            [r["what"], f"{r['numba']:.0f}", f"{r['cute']:.0f}", f"{r['cub']:.0f}",
             f"{r['numba'] / r['cub']:.3f}", f"{r['cute'] / r['cub']:.3f}",
             *bench._gbs(r, *M), *bench._ratio(r, *[(m, "cub") for m in M])]
            for r in radix_rows
        ],
    )  # fmt: skip
    del want_keys
    print("radix sort: done", file=sys.stderr, flush=True)

    # -- row-wise sort vs torch.sort ---------------------------------------------------------------
    rows_n = args.rows
    x = torch.randn(rows_n, ROW, device="cuda")
    xs, xi = torch.empty_like(x), torch.empty(rows_n, ROW, dtype=torch.int32, device="cuda")
    flat = {k: v.view(-1) for k, v in dict(x=x, xs=xs, xi=xi).items()}
    nbr = {k: cuda.as_cuda_array(v) for k, v in flat.items()}
    ctr = {k: from_dlpack(v, assumed_align=16) for k, v in flat.items()}
    nrk, nrp = numba_sort(False, "float32")[rows_n, THREADS], numba_sort(True, "float32")[rows_n, THREADS]
    crk = cutlass_coop.compile(cute_sort(False, True), ctr["x"], ctr["xs"])
    crp = cutlass_coop.compile(cute_sort(True, True), ctr["x"], ctr["xs"], ctr["xi"])
    want = torch.sort(x, dim=-1)
    checks = {
        "numba keys": lambda: nrk(nbr["x"], nbr["xs"]),
        "cute keys": lambda: crk(ctr["x"], ctr["xs"]),
        "numba keys + index": lambda: nrp(nbr["x"], nbr["xs"], nbr["xi"]),
        "cute keys + index": lambda: crp(ctr["x"], ctr["xs"], ctr["xi"]),
    }
    for name, fn in checks.items():
        xs.zero_()
        xi.fill_(-1)
        fn()
        torch.cuda.synchronize()
        assert torch.equal(xs, want.values), name
        if "index" in name:
            assert torch.equal(torch.gather(x, 1, xi.long()), want.values), name
    del want
    timed = {**checks, "torch.sort": lambda: torch.sort(x, dim=-1)}
    ts = bench._interleaved(timed, args.reps, torch)
    result["row_sort"] = {k: v * 1e3 for k, v in ts.items()}
    bench._table(
        f"row-wise sort, ({rows_n} x {ROW}) float32, one block per row (ms; speed-up over torch.sort, which "
        "also returns the indices)",
        ["what", "ms", "torch.sort / this"],
        [[k, f"{v * 1e3:.3f}", f"{ts['torch.sort'] / v:.2f}"] for k, v in ts.items()],
    )
    print("row sort: done", file=sys.stderr, flush=True)

    # -- row-wise top-k vs torch.topk ----------------------------------------------------------------
    top = torch.empty(rows_n, TOPK, device="cuda")
    top_i = torch.empty(rows_n, TOPK, dtype=torch.int32, device="cuda")
    nt, ct_top = cuda.as_cuda_array(top.view(-1)), from_dlpack(top.view(-1), assumed_align=16)
    nti, cti = cuda.as_cuda_array(top_i.view(-1)), from_dlpack(top_i.view(-1), assumed_align=16)
    ntk = numba_top_k()[rows_n, THREADS]
    ctk = cutlass_coop.compile(cute_top_k(), ctr["x"], ct_top, cti)
    want_top = torch.topk(x, TOPK, dim=-1).values  # sorted, largest first
    tops = {
        "numba top_k": lambda: ntk(nbr["x"], nt, nti),
        "cute top_k": lambda: ctk(ctr["x"], ct_top, cti),
    }
    for name, fn in tops.items():
        top.zero_()
        top_i.fill_(-1)
        fn()
        torch.cuda.synchronize()
        assert torch.equal(torch.sort(top, dim=-1, descending=True).values, want_top), name
        assert torch.equal(torch.gather(x, 1, top_i.long()), top), name
    del want_top
    timed = {**tops, "torch.topk": lambda: torch.topk(x, TOPK, dim=-1, sorted=False)}
    ts = bench._interleaved(timed, args.reps, torch)
    result["row_top_k"] = {k: v * 1e3 for k, v in ts.items()}
    bench._table(
        f"row-wise top-{TOPK}, ({rows_n} x {ROW}) float32, one block per row, values and column indices, "
        "unordered (ms; speed-up over torch.topk(sorted=False))",
        ["what", "ms", "torch.topk / this"],
        [[k, f"{v * 1e3:.3f}", f"{ts['torch.topk'] / v:.2f}"] for k, v in ts.items()],
    )
    print("top-k: done", file=sys.stderr, flush=True)

    # -- 256-bin histogram vs CUB C++ and torch.bincount ------------------------------------------
    samples = torch.randint(0, 256, (SAMPLES,), dtype=torch.uint8, device="cuda")
    samples[::3] = 17  # a peak: contended bins
    counts = torch.zeros(BINS, dtype=torch.int32, device="cuda")
    blocks = SAMPLES // (HTILE * HTILES)
    nh = numba_histogram()[blocks, THREADS]
    sa, ca = cuda.as_cuda_array(samples), cuda.as_cuda_array(counts)
    cs, cc = from_dlpack(samples, assumed_align=16), from_dlpack(counts, assumed_align=16)
    chist = cutlass_coop.compile(cute_histogram(), cs, cc)
    chist_unrolled = cutlass_coop.compile(cute_histogram(unrolled=True), cs, cc)
    hcfg = LaunchConfig(grid=blocks, block=THREADS)
    want_hist = torch.bincount(samples, minlength=BINS).int()

    def cub_histogram(kernel: Any) -> Any:
        return lambda: (counts.zero_(), launch(stream, hcfg, kernel, samples.data_ptr(), counts.data_ptr()))

    histo = {
        "numba (loop)": lambda: (counts.zero_(), nh(sa, ca)),
        "cute (loop)": lambda: (counts.zero_(), chist(cs, cc)),
        "cute (unrolled)": lambda: (counts.zero_(), chist_unrolled(cs, cc)),
        "CUB C++ (loop)": cub_histogram(cub["histogram"]),
        "CUB C++ (unrolled)": cub_histogram(cub["histogram unrolled"]),
        "torch.bincount": lambda: torch.bincount(samples, minlength=BINS),
    }
    if M:
        mh = numba_histogram("numba_mlir")[blocks, THREADS]
        msa, mca = mlir_cuda.as_cuda_array(samples), mlir_cuda.as_cuda_array(counts)
        histo["numba-mlir (loop)"] = lambda: (counts.zero_(), mh(msa, mca))
    for name, fn in histo.items():
        if name == "torch.bincount":
            continue
        counts.fill_(-1)
        fn()
        torch.cuda.synchronize()
        assert torch.equal(counts, want_hist), name
    ts = bench._interleaved(histo, args.reps, torch)
    result["histogram"] = {k: SAMPLES / v / 1e9 for k, v in ts.items()}

    def same_cub(name: str) -> str:  # speed over the CUB C++ kernel of the same loop form
        form = "(unrolled)" if "unrolled" in name else "(loop)"
        return "" if name.startswith("torch") else f"{ts[f'CUB C++ {form}'] / ts[name]:.3f}"

    bench._table(
        f"histogram, {BINS} bins of 2^{SAMPLES.bit_length() - 1} uint8 samples (GB/s of samples; the "
        f"coop kernels and CUB also zero the 1 KiB histogram each time; a block's {HTILES} tiles in a "
        "loop, or unrolled)",
        ["what", "GB/s", "this / CUB C++ of the same form", "this / torch.bincount"],
        [[k, f"{SAMPLES / v / 1e9:.0f}", same_cub(k), f"{ts['torch.bincount'] / v:.2f}"]
         for k, v in ts.items()],
    )  # fmt: skip

    # -- merge sort: a user comparator vs the built-in one -----------------------------------------
    merge = {
        "numba built-in": numba_merge_sort(False)[TILES, THREADS],
        "numba user": numba_merge_sort(True)[TILES, THREADS],
        "cute built-in": cutlass_coop.compile(cute_merge_sort(False), ct["src"], ct["dst"]),
        "cute user": cutlass_coop.compile(cute_merge_sort(True), ct["src"], ct["dst"]),
    }
    if M:
        merge["numba_mlir built-in"] = numba_merge_sort(False, "numba_mlir")[TILES, THREADS]
        merge["numba_mlir user"] = numba_merge_sort(True, "numba_mlir")[TILES, THREADS]
    arrays = {"numba": nb, "cute": ct, "numba_mlir": mb}
    merge_fns = {}
    for k, f in merge.items():
        a = arrays[k.rsplit(" ", 1)[0]]
        merge_fns[k] = lambda f=f, a=a: f(a["src"], a["dst"])
    want_keys = torch.sort(src.view(TILES, TILE), dim=-1).values
    for name, fn in merge_fns.items():
        dst.fill_(-1)
        fn()
        torch.cuda.synchronize()
        assert torch.equal(dst.view(TILES, TILE), want_keys), name
    del want_keys
    ts = bench._interleaved(merge_fns, args.reps, torch)
    result["merge_sort"] = {k: n * 8 / v / 1e9 for k, v in ts.items()}
    bench._table(
        f"block merge sort, {THREADS} x {ITEMS} int32 keys, {TILES} tiles (GB/s, read + written; user / "
        "built-in: the issue's target is >= 0.98)",
        ["what", "built-in GB/s", "user GB/s", "user / built-in"],
        [[dsl, f"{n * 8 / ts[f'{dsl} built-in'] / 1e9:.0f}", f"{n * 8 / ts[f'{dsl} user'] / 1e9:.0f}",
          f"{ts[f'{dsl} built-in'] / ts[f'{dsl} user']:.3f}"] for dsl in ("numba", "cute", *M)],
    )  # fmt: skip
    print("merge sort: done", file=sys.stderr, flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
