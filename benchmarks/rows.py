# SPDX-License-Identifier: Apache-2.0
"""Row kernels (issue 19): RMSNorm, softmax and LayerNorm forward, cross-entropy forward, row argmax
and row top-k over rows of 1024 to 262144 float32 (RMSNorm and softmax also bfloat16 and float16),
written with coop (one block per row, or one thread-block cluster per row with ``coop.cluster``;
top-k: one warp or one block per row), next to CUB C++ of the same design, quack-kernels,
liger-kernel and torch, same run, both backends.

Every kernel keeps the row in registers (one pass over memory): a striped ``coop.block.load`` of the
block's part of the row, per-thread partials, one ``coop.block.sum`` / ``reduce(..., broadcast=True)``
(cluster: ``coop.cluster.sum`` / ``reduce``, the result in every thread of every block), the scaled
items stored striped. RMSNorm multiplies by a weight row, loaded striped after the reduction so that
no second row is held in registers through it (variant ``prefetch``, float32 striped: before it, as
quack does; measured slower at every configuration, 2026-12-03; variant ``staged``, float32 striped: the
weights loaded into registers, then the block's part of the row copied into shared memory by
``coop.block.load_to_shared`` and read from there twice, no row in registers; variant ``staged_late``:
the row staged first, then the weights (CUB C++'s order, 8% faster at 262144); their CUB C++ peer
stages with ``cub::detail::BlockLoadToShared``, an experiment of this script, not something coop
uses); softmax takes the row's maximum and sum (exp through ``ex2.approx``: Numba ``fastmath=True``,
CuTe ``exp2(..., fastmath=True)``, as quack; variant ``staged``, float32 striped: the row part
staged in shared memory, exp written back in place, one exp an item).

LayerNorm takes the row's mean and variance in one reduction: a block (cluster) reduce of each
thread's ``(count, mean, M2)`` with Welford's (Chan's) combination as a user operator on the tuple
(variant ``sumsq``: one field-wise sum of ``(sum, sum of squares)``). Cross-entropy and argmax
write one value per row, so a block need not keep its part of the row: it may loop over several
tiles (``REDUCE_CONFIGS``); cross-entropy folds each thread's ``(max, sum of exp(x - max))`` online
and combines them in one tuple reduce (variant ``twice``: a max, then a sum), then reads the label's
logit directly; argmax is ``coop.block.argmax`` / ``coop.cluster.argmax`` with each striped item's
index where a block's part of the row is one tile (variant ``loop``, CUB C++'s design: each thread's
first largest, then the argmax of those scalars, as at more tiles). Top-k (k = 16) streams each
warp's part of the row through a threshold filter, its candidates merged into a list of 16 in
registers by shuffle networks (see ``numba_topk``).

The Numba kernels of the main designs are the examples' (``examples/numba/``, loaded by ``example``):
RMSNorm ``after`` and ``staged`` from ``rmsnorm_rows.py``, softmax ``registers`` from
``row_softmax.py``, LayerNorm ``welford`` from ``layernorm_rows.py``, cross-entropy ``online`` from
``cross_entropy_loss.py``, argmax ``arranged`` from ``argmax_rows.py`` and top-k ``primitive`` from
``top_k_stream_rows.py``; the other variants are what-ifs written here.

GB/s counts the row bytes read + written (2 x 4 B per float32 element, 2 x 2 B per 2-byte one; the
weight row stays in L2; 1 x 4 B for cross-entropy, argmax and top-k, which write one value or 16 per
row); medians of interleaved batches (benchmarks/copy.py); torch's ``copy_`` of the same tensor is
the roof (``torch.sum`` over the rows for the kernels that only read). Every output is checked
against torch (float64 where it computes) before it is timed. quack-kernels and liger-kernel are
benchmark-only: a peer that is not installed, or refuses a shape, is skipped, and the table says so.

    python benchmarks/rows.py [--elements N] [--reps R] [--json PATH] [--only KERNEL] [--n N] [--aot]
                              [--dtype float32|bfloat16|float16] [--algorithms striped,striped_vectors]

``--aot`` compiles every coop and CUB C++ kernel for sm_90a (no GPU needed) and prints each coop
kernel's SASS verdict.

``--dtype bfloat16`` (or float16), RMSNorm and softmax: x, y and the weight row of that type (the
peers get the same tensors), items converted to float32 in the kernel and back; the weight row loaded
with the rows' algorithm after the reduction; the CUB C++ kernels of the same design take
``cub::BlockLoad<T>``; 2-byte rows also try more items per thread (``NARROW_CONFIGS``). The Numba
kernels are float32 only (numba-cuda 0.30 has no bfloat16 arrays). ``--algorithms`` (default
``striped``) also measures ``vectorize`` rows (blocked; 2-byte items move as 4-byte words),
``striped_vectors`` rows (striped runs of 4 items, one vector access each; its CUB C++ peer moves the
runs with ``cub::LoadDirectStriped`` / ``StoreDirectStriped`` of vector words, ``Runs`` in CUB_SOURCE)
and, for 2-byte rows, ``striped_words``: a CuTe what-if (no coop algorithm; no CUB C++ peer) that
loads and stores the rows as int32 words, striped, and reads the items through a recast of the words
(_rows_cutlass.py). LayerNorm, cross-entropy, argmax and top-k are float32 ``striped`` designs: at
another ``--dtype``, or when ``--algorithms`` leaves out ``striped``, they are skipped with a line
that says so.
"""

# No `from __future__ import annotations`: CuTe evaluates kernel annotations when it traces.
import os
import sys

sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import argparse  # noqa: E402
import functools  # noqa: E402
import importlib.util  # noqa: E402
import inspect  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

EPS = 1e-6
LOG2E = 1.4426950408889634
IGNORE_INDEX = -100  # cross-entropy: a row whose label is this has loss 0 (torch's default)
#: (cluster blocks, threads, items per thread) tried for each row length; cluster * threads * items = N.
CONFIGS: dict[int, list[tuple[int, int, int]]] = {
    4096: [(1, 256, 16), (1, 512, 8)],
    16384: [(1, 1024, 16), (2, 512, 16)],
    65536: [(4, 512, 32), (8, 256, 32), (8, 512, 16)],
    262144: [(16, 256, 64), (16, 512, 32), (16, 1024, 16)],
}
#: Kernels that write one value (or k) per row need not keep the row in registers: a block may loop
#: over ``tiles = N / (cluster * threads * items)`` tiles of its part of the row.
REDUCE_CONFIGS: dict[int, list[tuple[int, int, int]]] = {
    4096: [(1, 256, 16), (1, 512, 8)],
    16384: [(1, 1024, 16), (1, 512, 16)],
    65536: [(8, 256, 32), (4, 512, 32), (1, 1024, 16)],
    262144: [(16, 512, 32), (4, 512, 32), (1, 1024, 32)],
}
#: Top-k: (warps per row, threads, items per lane of a warp's tile); each warp streams its part of
#: the row (N / warps per row) in tiles of 32 x items; a block holds threads / 32 / warps per row rows.
TOPK_CONFIGS: dict[int, list[tuple[int, int, int]]] = {
    1024: [(1, 128, 32), (1, 256, 16)],
    4096: [(1, 128, 32), (1, 128, 64)],
    16384: [(4, 128, 32), (8, 256, 32)],
    65536: [(8, 256, 32), (16, 512, 32)],
    262144: [(8, 256, 32), (16, 512, 32)],
}
TOPK = 16  # k of the top-k rows (--k: 8, 16 or 32)
KERNELS = ("rmsnorm", "softmax", "layernorm", "cross_entropy", "argmax", "topk")
_KERNEL_CONFIGS = {"cross_entropy": REDUCE_CONFIGS, "argmax": REDUCE_CONFIGS, "topk": TOPK_CONFIGS}
#: Designs of one kernel measured side by side: the first is the default (its tag has no suffix).
VARIANTS: dict[str, tuple[str, ...]] = {
    # after: the row in registers, the weights loaded after the reduction; staged: the weights loaded
    # into registers, then the row part staged in shared memory (the call waits for it) (both:
    # examples/numba/rmsnorm_rows.py); staged_late: the row part staged first, then the weights (CUB's order)
    "rmsnorm": ("after", "prefetch", "staged", "staged_late"),
    # softmax: the row in registers (examples/numba/row_softmax.py), or staged in shared memory
    # (load_to_shared first; exp written back in place, one exp an item), or staged and read from
    # there once into registers (staged_once, striped_vectors rows of any dtype: quack's design)
    "softmax": ("registers", "staged", "staged_once"),
    "layernorm": ("welford", "sumsq"),
    "cross_entropy": ("online", "twice"),
    # argmax at one tile a block: coop.block.argmax of the items with their indices, or the thread's
    # own loop then an argmax of scalars (CUB C++'s design, whatever the variant), or
    # coop.block.argmax of the striped items with their default striped indices (no index per item)
    "argmax": ("items", "loop", "arranged", "auto"),
    # top-k: the hand-written design (Numba, CuTe, CUB C++), or the example's kernel as a user writes it
    # with coop.warp.top_k (examples/numba/top_k_stream_rows.py, examples/cutlass/top_k_stream_rows_cute.py)
    "topk": ("bitonic", "primitive"),
}
#: Designs that only some of numba / cute / cub have (the others have the kernel's first design).
_ONLY = {("topk", "primitive"): ("numba", "cute")}
#: Row bytes moved per element: read + written, or read only.
_PASSES = {"cross_entropy": 1, "argmax": 1, "topk": 1}
#: The kernels that also take 2-byte rows and other load/store algorithms (``--dtype``,
#: ``--algorithms``); the others are float32 ``striped`` designs.
CONVERTED = ("rmsnorm", "softmax")
#: More (cluster, threads, items) for 2-byte rows: a thread's items hold half the bytes of float32's.
NARROW_CONFIGS: dict[int, list[tuple[int, int, int]]] = {
    4096: [(1, 128, 32)],
    16384: [(1, 512, 32), (1, 256, 64)],
}
DTYPES = ("float32", "bfloat16", "float16")
#: The C++ element type of each dtype (CUB_SOURCE's converted kernels).
CXX = {"float32": "float", "bfloat16": "__nv_bfloat16", "float16": "__half"}

#: The CUB C++ peers, compiled with NVRTC (``rows_cub.cu``; the kernels instantiated by name).
CUB_SOURCE = Path(__file__).with_name("rows_cub.cu").read_text()


def _by_path(name: str, file: str) -> Any:
    """A module of this folder loaded by path (the folder is kept off sys.path: copy.py shadows the
    stdlib's copy)."""
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(file))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _copy_bench() -> Any:
    return _by_path("coop_copy_bench", "copy.py")


def _cutlass_half() -> Any:
    return _by_path("coop_rows_cutlass", "_rows_cutlass.py")


def _kernel_configs(kernel: str, dtype: str = "float32") -> dict[int, list[tuple[int, int, int]]]:
    """(cluster, threads, items) tried for each row length: the kernel's (``_KERNEL_CONFIGS``, else
    ``CONFIGS``), and ``NARROW_CONFIGS`` for 2-byte rows."""
    extra = NARROW_CONFIGS if dtype != "float32" and kernel in CONVERTED else {}
    return {n: cs + extra.get(n, []) for n, cs in _KERNEL_CONFIGS.get(kernel, CONFIGS).items()}


def _configs(kernel: str = "rmsnorm", dtype: str = "float32") -> list[tuple[int, int, int, int]]:
    return [(n, c, t, i) for n, cs in _kernel_configs(kernel, dtype).items() for c, t, i in cs]


def _variants(kernel: str) -> tuple[str, ...]:
    return VARIANTS.get(kernel, ("",))


def _designs(kernel: str, dtype: str, algorithms: tuple[str, ...]) -> list[tuple[str, str]]:
    """(variant, algorithm) of each design of ``kernel`` measured with rows of ``dtype``: its variants
    by the ``algorithms`` it takes (all of them for the ``CONVERTED`` kernels; float32 ``striped``
    only for the others, so none at another dtype)."""
    if kernel in CONVERTED:
        algs = algorithms
    else:
        algs = ("striped",) if dtype == "float32" and "striped" in algorithms else ()
    first = _variants(kernel)[0]

    def takes(v: str, a: str) -> bool:  # a converted kernel's other variants: float32 striped rows
        if v == first or kernel not in CONVERTED:  # (staged_late: also in runs; staged_once: any dtype)
            return True
        if v == "staged_once":
            return a == "striped_vectors"
        if v == "staged_late":  # float32 rows, striped or in striped runs
            return dtype == "float32" and a in ("striped", "striped_vectors")
        return (dtype, a) == ("float32", "striped")

    return [(v, a) for v in _variants(kernel) for a in algs if takes(v, a)]


def _selected_kernels(only: str | None, dtype: str, algorithms: tuple[str, ...]) -> tuple[str, ...]:
    """The kernels to run (``only``, default all) at ``dtype`` with ``algorithms``; one line for each
    left out (the kernels other than RMSNorm and softmax are float32 ``striped`` only)."""
    kernels = []
    for k in KERNELS:
        if only not in (None, k):
            continue
        if _designs(k, dtype, algorithms):
            kernels.append(k)
        else:
            print(
                f"{k}: skipped (float32 striped rows only, not --dtype {dtype} --algorithms "
                f"{','.join(algorithms)})",
                flush=True,
            )
    return tuple(kernels)


def _tag(kernel: str, c: int, t: int, i: int, variant: str = "", alg: str = "striped") -> str:
    """A configuration's name in the tables and result keys: cluster x threads x items (top-k: warps
    per row w threads x items), the variant unless it is the kernel's first, the algorithm unless it is
    ``striped`` (float32 striped's as in earlier runs)."""
    shape = f"{c}w{t}x{i}" if kernel == "topk" else f"{c}x{t}x{i}"
    if variant not in ("", _variants(kernel)[0]):
        shape = f"{shape} {variant}"
    return shape if alg == "striped" else f"{shape} {alg}"


def _cluster(kernel: str, c: int) -> int | None:
    """The launch's cluster (None: none); top-k's first number is warps per row, not a cluster."""
    return c if kernel != "topk" and c > 1 else None


def _blocks(kernel: str, rows: int, c: int, t: int) -> int:
    """The grid in blocks: a block (a cluster of c) per row; top-k: t / 32 / c rows per block."""
    return rows // (t // 32 // c) if kernel == "topk" else rows * c


def _cub_name(
    kernel: str,
    n: int,
    c: int,
    t: int,
    i: int,
    variant: str = "",
    dtype: str = "float32",
    alg: str = "striped",
) -> str:
    """The CUB C++ kernel of a design (RMSNorm and softmax: templated on the element type and the
    load and store algorithms)."""
    extra = {
        "welford": ", true",
        "sumsq": ", false",
        "online": ", true",
        "twice": ", false",
        "prefetch": ", true",
    }.get(variant, "")
    if variant == "staged" and kernel == "softmax":  # float32 striped rows, the row part staged
        return f"cub_softmax_staged<float, {n}, {c}, {t}, {i}, false>"
    if variant == "staged_once":  # striped runs of any dtype, the row part staged
        return f"cub_softmax_staged<{CXX[dtype]}, {n}, {c}, {t}, {i}, true>"
    if variant.startswith("staged"):  # float32 rows: the row part staged by CUB's BlockLoadToShared
        return f"cub_rmsnorm_staged<{n}, {c}, {t}, {i}, false, {str(alg == 'striped_vectors').lower()}>"
    if kernel in CONVERTED:
        if alg == "striped_vectors":  # in striped runs (Runs in CUB_SOURCE)
            runs = ", false, true" if kernel == "rmsnorm" else ", true"
            algs = "cub::BLOCK_LOAD_STRIPED, cub::BLOCK_STORE_STRIPED"
            return f"cub_{kernel}<{CXX[dtype]}, {n}, {c}, {t}, {i}, {algs}{extra or ''}{runs}>"
        algs = f"cub::BLOCK_LOAD_{alg.upper()}, cub::BLOCK_STORE_{alg.upper()}"
        return f"cub_{kernel}<{CXX[dtype]}, {n}, {c}, {t}, {i}, {algs}{extra}>"
    if kernel == "topk":
        return f"cub_topk<{n}, {c}, {t}, {i}, {TOPK}>"
    return f"cub_{kernel}<{n}, {c}, {t}, {i}{extra}>"


def _cub_compile(arch: str, names: tuple[str, ...]) -> Any:
    """CUB_SOURCE with ``names`` instantiated, compiled for ``arch`` (``-use_fast_math``: exp2f and
    rsqrtf as the approximations the coop kernels use)."""
    from cuda.cccl import get_include_paths
    from cuda.coop._render import INCLUDE_DIR
    from cuda.core import Program, ProgramOptions

    paths = get_include_paths()
    # coop's headers too: CUB_SOURCE moves striped runs with coop/striped_runs.cuh
    incs = [str(p) for p in (paths.cub, paths.cuda, INCLUDE_DIR) if p is not None]
    macros = [("EPS", f"{EPS!r}f"), ("LOG2E", f"{LOG2E!r}f"), ("IGNORE_INDEX", str(IGNORE_INDEX))]
    options = ProgramOptions(
        arch=arch, std="c++17", include_path=incs, define_macro=macros, use_fast_math=True
    )
    return Program(CUB_SOURCE, "c++", options).compile("cubin", name_expressions=names)


def _cub_kernels(
    arch: str,
    load: bool = True,
    kernels: tuple[str, ...] = KERNELS,
    lengths: list[int] | None = None,
    dtype: str = "float32",
    algorithms: tuple[str, ...] = ("striped",),
) -> dict[tuple[Any, ...], Any]:
    """The CUB C++ kernels of the same design (of ``kernels`` at ``lengths``, default all, rows of
    ``dtype`` moved with ``algorithms``), compiled (and, with ``load``, loaded) for ``arch``, keyed by
    (kernel, n, c, t, i, variant, algorithm)."""
    names = {}
    for k in kernels:
        for n, c, t, i in _configs(k, dtype):
            if lengths and n not in lengths:
                continue
            for v, a in _designs(k, dtype, algorithms):
                if a != "striped_words" and "cub" in _ONLY.get((k, v), ("cub",)):  # (what-if: CuTe only)
                    names[(k, n, c, t, i, v, a)] = _cub_name(k, n, c, t, i, v, dtype, a)
    if not names:
        return {}
    module = _cub_compile(arch, tuple(dict.fromkeys(names.values())))  # variants may share one
    return {k: module.get_kernel(v) if load else module for k, v in names.items()}


# --- Numba kernels ---------------------------------------------------------------------------------


def numba_rmsnorm(
    n: int, cluster: int, threads: int, items: int, variant: str = "after", algorithm: str = "striped"
) -> Any:
    """y = x / sqrt(mean(x^2) + eps) * w. Variants ``after`` (the row in registers, the weights loaded
    after the reduction) and ``staged`` (the weights into registers, then the row part staged in
    shared memory and read from there twice) are the kernels of ``examples/numba/rmsnorm_rows.py``;
    ``prefetch`` (the weights loaded before the reduction, quack's order) and ``staged_late`` (the row
    part staged first, then the weights: CUB C++'s order) are what-ifs kept here."""
    import numpy as np
    from cuda import coop
    from cuda.coop._primitive import run_items
    from numba import cuda
    from numba.cuda import libdevice

    if variant in ("after", "staged"):  # the example's kernels, as a user copies them
        staged = variant == "staged"
        return example("rmsnorm_rows").make_rmsnorm(
            cluster, threads, items, staged=staged, algorithm=algorithm, eps=EPS
        )
    tile = threads * items
    inv_n, eps = np.float32(1.0 / n), np.float32(EPS)
    late = variant == "staged_late"
    # a thread's item i of a staged row part: (i // v * threads + t) * v + i % v (striped: v = 1), in
    # unsigned arithmetic: with Python's signed floor division and modulo of the loop's int64 index,
    # Numba's sum loop below was not unrolled (160 instructions a run of 4 items, scalar LDS) and the
    # kernel ran at 0.59x CuTe's (2026-12-04, ncu: 4.4x the instructions)
    v = np.uint32(run_items(4, items) if algorithm == "striped_vectors" else 1)
    nt = np.uint32(threads)

    def kernel(x, w, y):  # type: ignore[no-untyped-def]
        b = np.uint32(cuda.blockIdx.x)  # unsigned: the offsets stay provably whole runs
        t = np.uint32(cuda.threadIdx.x)  # unsigned: Numba's indexing then skips negative-index checks
        rank = b % np.uint32(cluster)
        offset = (b // np.uint32(cluster)) * np.uint32(n) + rank * np.uint32(tile)
        xs = coop.ThreadData(items, np.float32)
        ws = coop.ThreadData(items, np.float32)
        if late:  # the row part into shared memory (one bulk copy, issued first), then the weights
            row = cuda.shared.array(0, np.float32)  # tile floats: the launch's dynamic shared memory
            coop.block.load_to_shared(x, row, tile, offset=offset)
        else:  # prefetch: the row, then the weights into registers before the reduction (quack's order);
            # their registers may cost occupancy (2026-12-03: 3.1 instead of 3.9 TB/s at 65536, 4 x 512 x 32)
            coop.block.load(x, xs, offset=offset, algorithm=algorithm)
        coop.block.load(w, ws, offset=rank * tile, algorithm=algorithm)
        part = np.float32(0.0)
        for i in range(items):
            j = np.uint32(i)
            e = row[(j // v * nt + t) * v + j % v] if late else xs[i]
            part += e * e
        if cluster > 1:
            total = coop.cluster.sum(part)
        else:
            total = coop.block.sum(part, broadcast=True)
        scale = libdevice.rsqrtf(total * inv_n + eps)
        for i in range(items):
            if late:  # read again from shared memory: no row held in registers across the reduction
                j = np.uint32(i)
                xs[i] = row[(j // v * nt + t) * v + j % v] * scale * ws[i]
            else:
                xs[i] = xs[i] * scale * ws[i]
        coop.block.store(y, xs, offset=offset, algorithm=algorithm)

    return kernel


def numba_softmax(
    n: int, cluster: int, threads: int, items: int, variant: str = "registers", algorithm: str = "striped"
) -> Any:
    """Variant ``registers`` (the row in registers) is the kernel of ``examples/numba/row_softmax.py``;
    ``staged`` and ``staged_once`` (the row part staged in shared memory first) are what-ifs kept here."""
    import numpy as np
    from cuda import coop
    from cuda.coop._primitive import run_items
    from numba import cuda

    if variant == "registers":  # the example's kernel, as a user copies it
        return example("row_softmax").make_softmax(cluster, threads, items, algorithm=algorithm)
    if variant == "staged":
        return _numba_softmax_staged(n, cluster, threads, items)
    # staged_once: the row part staged in shared memory (load_to_shared), read from there once into
    # registers as striped_vectors arranges a thread's items (run i // v, item i % v of it)
    tile = threads * items
    v = run_items(4, items)  # striped_vectors' run of float32 items

    def kernel(x, y):  # type: ignore[no-untyped-def]
        b = np.uint32(cuda.blockIdx.x)  # unsigned: the offsets stay provably whole runs
        t = np.uint32(cuda.threadIdx.x)  # unsigned: no negative-index checks
        rank = b % np.uint32(cluster)
        offset = (b // np.uint32(cluster)) * np.uint32(n) + rank * np.uint32(tile)
        xs = coop.ThreadData(items, np.float32)
        row = cuda.shared.array(0, np.float32)  # tile floats: the launch's dynamic shared memory
        coop.block.load_to_shared(x, row, tile, offset=offset)
        for i in range(items):
            xs[i] = row[((i // v) * threads + t) * v + i % v]
        top = xs[0]
        for i in range(1, items):
            top = max(top, xs[i])
        if cluster > 1:
            top = coop.cluster.reduce(top, "max")
        else:
            top = coop.block.reduce(top, "max", broadcast=True)
        part = np.float32(0.0)
        for i in range(items):
            xs[i] = math.exp(xs[i] - top)  # fastmath: ex2.approx of (x - top) * log2(e)
            part += xs[i]
        if cluster > 1:
            total = coop.cluster.sum(part)
        else:
            total = coop.block.sum(part, broadcast=True)
        inv = np.float32(1.0) / total
        for i in range(items):
            xs[i] = xs[i] * inv
        coop.block.store(y, xs, offset=offset, algorithm=algorithm)

    return kernel


def _numba_softmax_staged(n: int, cluster: int, threads: int, items: int) -> Any:
    """Softmax with the block's part of the row staged in shared memory (``load_to_shared`` first):
    the maximum and the sum read it there; exp(x - max) is written back in place (each thread's own
    striped items), then scaled into a ThreadData and stored striped."""
    import numpy as np
    from cuda import coop
    from numba import cuda

    tile = threads * items

    def kernel(x, y):  # type: ignore[no-untyped-def]
        b = np.uint32(cuda.blockIdx.x)  # unsigned: the offsets stay provably whole runs
        t = np.uint32(cuda.threadIdx.x)  # unsigned: no negative-index checks
        rank = b % np.uint32(cluster)
        offset = (b // np.uint32(cluster)) * np.uint32(n) + rank * np.uint32(tile)
        row = cuda.shared.array(0, np.float32)  # tile floats: the launch's dynamic shared memory
        coop.block.load_to_shared(x, row, tile, offset=offset)
        top = row[t]
        for i in range(1, items):
            top = max(top, row[t + i * threads])
        if cluster > 1:
            top = coop.cluster.reduce(top, "max")
        else:
            top = coop.block.reduce(top, "max", broadcast=True)
        part = np.float32(0.0)
        for i in range(items):
            e = math.exp(row[t + i * threads] - top)  # fastmath: ex2.approx
            row[t + i * threads] = e
            part += e
        if cluster > 1:
            total = coop.cluster.sum(part)
        else:
            total = coop.block.sum(part, broadcast=True)
        inv = np.float32(1.0) / total
        xs = coop.ThreadData(items, np.float32)
        for i in range(items):
            xs[i] = row[t + i * threads] * inv
        coop.block.store(y, xs, offset=offset, algorithm="striped")

    return kernel


def before(a, b):  # type: ignore[no-untyped-def]
    """Top-k order of (value, index): the larger value first, of equal values the smaller index."""
    return a[0] > b[0] or (a[0] == b[0] and a[1] < b[1])


def numba_layernorm(n: int, cluster: int, threads: int, items: int, variant: str = "welford") -> Any:
    """y = (x - mean) / sqrt(var + eps) * w + b: the row in registers (striped), each thread's
    (count, mean, M2) from its items (two passes over registers), one block (cluster) reduce of the
    tuple with ``welford`` (the kernel of ``examples/numba/layernorm_rows.py``); variant ``sumsq``:
    one field-wise sum of (sum, sum of squares)."""
    import numpy as np
    from cuda import coop
    from numba import cuda
    from numba.cuda import libdevice

    if variant == "welford":  # the example's kernel, as a user copies it
        return example("layernorm_rows").make_layernorm(cluster, threads, items, EPS)
    tile = threads * items
    inv_n, eps = np.float32(1.0 / n), np.float32(EPS)

    def kernel(x, w, bias, y):  # type: ignore[no-untyped-def]
        b = cuda.blockIdx.x
        rank = b % cluster
        offset = (b // cluster) * n + rank * tile
        xs = coop.ThreadData(items, np.float32)
        coop.block.load(x, xs, offset=offset, algorithm="striped")
        s = np.float32(0.0)
        sq = np.float32(0.0)
        for i in range(items):
            s += xs[i]
            sq += xs[i] * xs[i]
        if cluster > 1:
            sums = coop.cluster.sum((s, sq))
        else:
            sums = coop.block.sum((s, sq), broadcast=True)
        mean = sums[0] * inv_n
        var = sums[1] * inv_n - mean * mean
        rstd = libdevice.rsqrtf(var + eps)
        base = rank * tile + cuda.threadIdx.x  # weight and bias read as each item is scaled (striped)
        ws, bs = w[base:], bias[base:]  # views: constant indices, no negative-index checks per item
        for i in range(items):
            xs[i] = (xs[i] - mean) * rstd * ws[i * threads] + bs[i * threads]
        coop.block.store(y, xs, offset=offset, algorithm="striped")

    return kernel


def numba_cross_entropy(n: int, cluster: int, threads: int, items: int, variant: str = "online") -> Any:
    """loss = logsumexp(x) - x[label] per row: each block loops over its tiles (striped), folding its
    items into each thread's (max, sum of exp(x - max)); one block (cluster) reduce of the pair with
    ``max_sum`` (the kernel of ``examples/numba/cross_entropy_loss.py``); variant ``twice``: a max,
    then a sum of the rescaled sums. Thread 0 of the row's first block writes the loss."""
    import numpy as np
    from cuda import coop
    from numba import cuda

    if variant == "online":  # the example's kernel, as a user copies it
        made = example("cross_entropy_loss")
        assert made.IGNORE_INDEX == IGNORE_INDEX  # the one the reference and the C++ peer use
        return made.make_cross_entropy(n, cluster, threads, items)
    tile = threads * items
    tiles = n // (cluster * tile)
    ninf = np.float32(-np.inf)

    def kernel(x, labels, loss):  # type: ignore[no-untyped-def]
        b = cuda.blockIdx.x
        rank = b % cluster
        row = b // cluster
        first = row * n + rank * tiles * tile
        xs = coop.ThreadData(items, np.float32)
        m, s = ninf, np.float32(0.0)
        for j in range(tiles):
            coop.block.load(x, xs, offset=first + j * tile, algorithm="striped")
            top = m
            for i in range(items):
                top = max(top, xs[i])
            s *= math.exp(m - top)  # fastmath: ex2.approx; exp(-inf) = 0 at the first tile
            for i in range(items):
                s += math.exp(xs[i] - top)
            m = top
        if cluster > 1:
            top = coop.cluster.reduce(m, "max")
            total = coop.cluster.sum(s * math.exp(m - top))
        else:
            top = coop.block.reduce(m, "max", broadcast=True)
            total = coop.block.sum(s * math.exp(m - top))
        if rank == 0 and cuda.threadIdx.x == 0:
            label = labels[row]
            if label == IGNORE_INDEX:
                loss[row] = np.float32(0.0)
            else:
                loss[row] = top + math.log(total) - x[row * n + label]

    return kernel


def numba_argmax(n: int, cluster: int, threads: int, items: int, variant: str = "items") -> Any:
    """The row's largest value and its first index: with one tile per block, ``coop.block.argmax``
    (``coop.cluster.argmax``) of the striped items with their row indices; with more (or variant
    ``loop``, CUB C++'s design at any tile count), each thread's first largest over its tiles, then
    the argmax of those (value, index) scalars."""
    import numpy as np
    from cuda import coop
    from numba import cuda

    tile = threads * items
    tiles = n // (cluster * tile)
    ninf = np.float32(-np.inf)
    whole = tiles == 1 and variant in ("items", "arranged", "auto")
    arranged = variant in ("arranged", "auto")  # default indices (striped / runs), no index ThreadData
    load = "auto" if variant == "auto" else "striped"
    if whole and arranged and cluster == 1:  # the example's kernel, as a user copies it
        return example("argmax_rows").make_row_argmax(threads, items, algorithm=load)

    def kernel(x, values, indices):  # type: ignore[no-untyped-def]
        b = cuda.blockIdx.x
        t = cuda.threadIdx.x
        rank = b % cluster
        row = b // cluster
        first = rank * tiles * tile  # the block's first item in the row
        xs = coop.ThreadData(items, np.float32)
        if whole and arranged:  # a cluster's parts, each striped (or in runs) over its block
            coop.block.load(x, xs, offset=row * n + first, algorithm=load)
            value, index = coop.cluster.argmax(xs, arrangement=load)
        elif whole:
            coop.block.load(x, xs, offset=row * n + first, algorithm="striped")
            where = coop.ThreadData(items, np.int32)
            for i in range(items):
                where[i] = first + t + i * threads  # striped: item i of thread t
            if cluster > 1:
                value, index = coop.cluster.argmax(xs, indices=where)
            else:
                value, index = coop.block.argmax(xs, indices=where)
        else:
            best, at = ninf, np.int32(first + t)
            for j in range(tiles):
                coop.block.load(x, xs, offset=row * n + first + j * tile, algorithm="striped")
                for i in range(items):
                    if xs[i] > best:  # indices ascend: the first of equal values stays
                        best, at = xs[i], np.int32(first + j * tile + t + i * threads)
            if cluster > 1:
                value, index = coop.cluster.argmax(best, indices=at)
            else:
                value, index = coop.block.argmax(best, indices=at)
        if rank == 0 and t == 0:
            values[row] = value
            indices[row] = index

    return kernel


def numba_topk(n: int, wr: int, threads: int, items: int, variant: str = "bitonic") -> Any:
    """The row's 16 (``TOPK``) largest values and their indices, largest first, ties to the smaller
    index. Variant ``primitive``: the kernel of ``examples/numba/top_k_stream_rows.py``, written with
    ``coop.warp.top_k`` (the same design, in coop's header: a list of ``k`` entries; a tile's few
    candidates inserted one at a time, more, values and indices, kept in the pending slots and merged).
    The hand-written design follows (with k = 32 its list and networks span 32 lanes).

    A warp (``wr`` = 1; ``threads / 32`` rows per block) or ``wr`` warps of a block stream the row: each
    warp its part in tiles of 32 x ``items`` (``coop.warp.load``, striped). Its first tile sets a
    threshold: the 16th largest of the lanes' maxima, so that at least 16 of the tile's items reach it
    (a bitonic network by ``cuda.shfl_xor_sync``: the lanes' halves sorted in opposite directions, the
    larger of each pair across them, the least of those 16). Each lane marks its items that pass (>= on
    the first tile, > after) in a bit mask, one compare an item; ``coop.warp.exclusive_sum`` of the
    masks' popcounts places them, and each lane writes the row index of its marked items (a loop over
    the mask's set bits, a few trips a tile on random rows) into the warp's 32 pending slots in shared
    memory. The warp's list of 16 (value, index) lives in registers, entry l in lane l. A merge (after a
    tile that leaves 16 or more pending, when the slots would overflow, and after the last tile) reads
    the pending values back from the row (L1/L2), sorts their best 16 ascending into lanes 0-15 (15
    compare-exchange stages by shuffles), keeps the better of each lane's list and pending entry (a
    bitonic sequence: the best 16 of both) and sorts it descending (4 stages); the threshold becomes the
    list's 16th value (``coop.warp.broadcast``). When a tile's candidates would overflow the pending
    slots, the pending ones are merged first and the tile's items counted again against the raised
    threshold; any that still do not fit are written 32 at a time, a merge between. Any row is exact.
    With ``wr`` > 1 the row's first warp sorts the ``wr`` lists (``coop.warp.merge_sort``,
    ``wr * 16 / 32`` entries a lane) at the end.

    Why this design: a row of 4096 is 16 KB, read once, and the answer is 16 entries. quack's bitonic
    top-k sorts instead (per thread, 8 runs of 16 sorted by a network, merged, then 5 shuffle rounds
    of merges). CUB's radix select (``coop.block.top_k``) takes 4 passes of 256-bucket shared-memory
    histograms whose atomics collide on the few buckets that random floats fill. Filtering costs a
    compare and an OR an item; the candidates (about 22 of a tile of 1024 random items at the first
    threshold, fewer after) cost a few instructions each; a merge ~20 shuffle stages of one (value,
    index) a lane, no shared memory but the pending indices. The design before (until 2026-12-03,
    removed since: logs/RESULTS_history.md, runs 7-11) sorted 32 keys for the threshold and a buffer
    of 64 pairs with ``coop.warp.merge_sort`` through shared memory, and wrote candidates item by
    item: it issued about twice quack's instructions a row (Nsight Compute, N = 1024, H200) and ran
    0.55-0.84x this one. NaN items are never selected (their comparisons are false; torch counts NaN
    as the largest)."""
    if variant == "primitive":  # the example's kernel, as a user copies it
        return example("top_k_stream_rows").make_row_top_k(n, TOPK, items, threads, wr)
    import numpy as np
    from cuda import coop
    from numba import cuda

    k, cap = TOPK, 32  # the list; pending slots: one a lane
    warps = threads // 32
    rows_per_block = warps // wr
    span = n // wr
    wtile = 32 * items
    tiles = span // wtile
    merge = max(wr * k // 32, 1)
    word = np.uint64 if items > 32 else np.uint32  # a lane's mask: item i at bit (bits - 1 - i)
    topbit = word(1 << (64 if items > 32 else 32) - 1)
    ninf, big, full = np.float32(-np.inf), np.int32(2**31 - 1), np.uint32(0xFFFFFFFF)
    # (block, distance) of the 10 stages of a bitonic network that sorts blocks of 16 lanes
    stages = tuple((s, s >> e) for s in (2, 4, 8, 16) for e in range(1, s.bit_length()))
    lanes = 16 if k <= 16 else 32  # the list's lanes (its best ``lanes`` are kept; lane k - 1 is the k-th)
    down = (8, 4, 2, 1) if lanes == 16 else (16, 8, 4, 2, 1)

    @cuda.jit(device=True)
    def exchange(v, i, d, up):  # type: ignore[no-untyped-def]
        """(v, i) and lane ^ d's: the better (``before``) if ``up``, else the other."""
        pv = cuda.shfl_xor_sync(full, v, d)
        pi = cuda.shfl_xor_sync(full, i, d)
        if ((pv > v) | ((pv == v) & (pi < i))) == up:
            return pv, pi
        return v, i

    @cuda.jit(device=True)
    def halves_max(m, lane):  # type: ignore[no-untyped-def]
        """Blocks of 2 to 16 lanes sorted, lanes 0-15 descending, 16-31 ascending (a bitonic network:
        at distance d within blocks of s lanes, lane l keeps the larger when l & d and l & s are both
        0 or both not): one float a lane."""
        for s, d in stages:
            p = cuda.shfl_xor_sync(full, m, d)
            m = max(m, p) if ((lane & d) == 0) == ((lane & s) == 0) else min(m, p)
        return m

    @cuda.jit(device=True)
    def halves_pairs(v, i, lane):  # type: ignore[no-untyped-def]
        """``halves_max`` of one (value, index) a lane, by ``before``."""
        for s, d in stages:
            v, i = exchange(v, i, d, ((lane & d) == 0) == ((lane & s) == 0))
        return v, i

    def kernel(x, values, indices):  # type: ignore[no-untyped-def]
        t = np.uint32(cuda.threadIdx.x)  # unsigned: Numba's indexing then skips negative-index checks
        lane, w = t % 32, t // 32
        row = np.uint32(cuda.blockIdx.x) * rows_per_block + w // wr
        part = w % wr
        slots = cuda.shared.array((warps, cap), np.int32)  # pending candidates' row indices
        slot = slots[w]
        xs = coop.ThreadData(items, np.float32)
        lv, li = ninf, big  # the list: lane l < 16 holds its l-th best (value, index) so far
        tau = ninf
        pend = np.int32(0)  # (Numba widens int32 arithmetic to 64 bits: the casts keep it 32)
        for j in range(tiles):
            first = np.int32(part * span + j * wtile)  # the tile's first item in the row
            coop.warp.load(x, xs, offset=row * n + first, algorithm="striped")
            mask = word(0)
            if j == 0:  # the threshold: the 16th largest of the lanes' maxima
                m = ninf
                for i in range(items):
                    m = max(m, xs[i])
                if lanes == 16:
                    m = halves_max(m, lane)
                    m = max(m, cuda.shfl_xor_sync(full, m, 16))  # lanes 0-15 (and 16-31): the best 16
                for d in down:  # the least of the best 16 (32: of all the lanes' maxima)
                    m = min(m, cuda.shfl_xor_sync(full, m, d))
                for i in range(items):
                    if xs[i] >= m:
                        mask = word(mask | (topbit >> word(i)))
            else:
                for i in range(items):
                    if xs[i] > tau:
                        mask = word(mask | (topbit >> word(i)))
            off, total = coop.warp.exclusive_sum(np.int32(cuda.popc(mask)), warp_aggregate=True)
            recount = pend > 0 and pend + total > cap  # merge the pending first, count again
            done = np.int32(0)
            r = off  # the rank of the lane's next candidate in the tile
            while True:
                if not recount:  # ranks done .. done + take - 1 to slots pend ..
                    lim = np.int32(done + min(total - done, cap - pend))
                    while mask != 0 and r < lim:
                        i = np.int32(cuda.clz(mask))
                        slot[np.uint32(pend + r - done)] = first + np.int32(lane) + 32 * i
                        mask = word(mask ^ (topbit >> word(i)))
                        r = np.int32(r + 1)
                    pend = np.int32(pend + lim - done)
                    done = lim
                    if done == total and (pend == 0 or (j < tiles - 1 and pend < k)):
                        break  # all written; 16 or more pending are merged at once
                cuda.syncwarp()
                cv, ci = ninf, big
                if lane < pend:
                    ci = slot[lane]
                    cv = x[row * n + np.uint32(ci)]
                cv, ci = halves_pairs(cv, ci, lane)  # the pending's best 16 (32) ascending in lanes 0-15
                if lanes == 16:
                    cv, ci = exchange(cv, ci, 16, lane < 16)
                for d in down:
                    cv, ci = exchange(cv, ci, d, (lane & d) != 0)
                if (cv > lv) | ((cv == lv) & (ci < li)):  # list descending, pending ascending
                    lv, li = cv, ci
                for d in down:  # the bitonic best 16 (32) sorted descending
                    lv, li = exchange(lv, li, d, (lane & d) == 0)
                tau = coop.warp.broadcast(lv, k - 1)
                pend = np.int32(0)
                cuda.syncwarp()
                if recount:  # this tile against the new threshold (the list holds earlier items)
                    recount = False
                    mask = word(0)
                    for i in range(items):
                        if xs[i] > tau:
                            mask = word(mask | (topbit >> word(i)))
                    off, total = coop.warp.exclusive_sum(np.int32(cuda.popc(mask)), warp_aggregate=True)
                    r = off
                elif done == total:
                    break
        if wr == 1:
            if lane < k:
                values[row * k + lane] = lv
                indices[row * k + lane] = li
        else:
            bv = cuda.shared.array((warps, k), np.float32)
            bi = cuda.shared.array((warps, k), np.int32)
            if lane < k:
                bv[w, lane] = lv
                bi[w, lane] = li
            cuda.syncthreads()
            if part == 0:
                mv = coop.ThreadData(merge, np.float32)
                mi = coop.ThreadData(merge, np.int32)
                for s in range(merge):
                    e = lane * merge + s
                    mv[s] = bv[w + e // k, e % k]
                    mi[s] = bi[w + e // k, e % k]
                coop.warp.merge_sort((mv, mi), before)
                for s in range(merge):
                    if lane * merge + s < k:
                        values[row * k + lane * merge + s] = mv[s]
                        indices[row * k + lane * merge + s] = mi[s]

    return kernel


_SIGS = {
    "rmsnorm": "void(float32[::1], float32[::1], float32[::1])",
    "softmax": "void(float32[::1], float32[::1])",
    "layernorm": "void(float32[::1], float32[::1], float32[::1], float32[::1])",
    "cross_entropy": "void(float32[::1], int64[::1], float32[::1])",
    "argmax": "void(float32[::1], float32[::1], int64[::1])",
    "topk": "void(float32[::1], float32[::1], int64[::1])",
}
_NUMBA = {
    "rmsnorm": numba_rmsnorm,
    "softmax": numba_softmax,
    "layernorm": numba_layernorm,
    "cross_entropy": numba_cross_entropy,
    "argmax": numba_argmax,
    "topk": numba_topk,
}


@functools.cache
def example(name: str, dsl: str = "numba") -> Any:
    """The module of ``examples/<dsl>/<name>.py`` (the benchmark measures the examples' kernels)."""
    path = Path(__file__).resolve().parents[1] / "examples" / dsl / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"coop_example_{dsl}_{name}", path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def numba_kernel(kernel: str, n: int, c: int, t: int, i: int, variant: str = "", alg: str = "striped") -> Any:
    import cuda.coop.numba as numba_coop

    extra: dict[str, str] = {"variant": variant} if variant else {}
    if alg != "striped":  # RMSNorm, softmax: float32 rows moved with another algorithm
        extra["algorithm"] = alg
    made = _NUMBA[kernel](n, c, t, i, **extra)
    return numba_coop.jit(made, fastmath=True) if inspect.isfunction(made) else made  # an example's: jitted


#: Each kernel's parameters, inputs first: (name, element type, extent), the element type "T" the
#: rows' (``--dtype``), the extent in elements of the rows ("x": rows x N), of one row ("n"), one per
#: row ("rows") or 16 per row ("k"). Numba takes them as 1-D arrays, CuTe as 1-D tensors, the CUB C++
#: kernels as pointers.
_PARAMS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "rmsnorm": (("x", "T", "x"), ("w", "T", "n"), ("y", "T", "x")),
    "softmax": (("x", "T", "x"), ("y", "T", "x")),
    "layernorm": (("x", "float32", "x"), ("w", "float32", "n"), ("b", "float32", "n"), ("y", "float32", "x")),
    "cross_entropy": (("x", "float32", "x"), ("labels", "int64", "rows"), ("loss", "float32", "rows")),
    "argmax": (("x", "float32", "x"), ("values", "float32", "rows"), ("indices", "int64", "rows")),
    "topk": (("x", "float32", "x"), ("values", "float32", "k"), ("indices", "int64", "k")),
}
_INPUTS = ("x", "w", "b", "labels")


def _extent(extent: str, rows: int, n: int) -> int:
    return {"x": rows * n, "n": n, "rows": rows, "k": rows * TOPK}[extent]


def _cute_kernel(
    kernel: str,
    n: int,
    c: int,
    t: int,
    i: int,
    variant: str = "",
    dtype: str = "float32",
    alg: str = "striped",
) -> Any:
    """The CuTe host of ``kernel`` in ``benchmarks/_rows_cutlass.py`` (top-k ``primitive``: the
    example's)."""
    if kernel == "topk" and variant == "primitive":
        return example("top_k_stream_rows_cute", "cutlass").make_row_top_k(n, TOPK, i, t, c)
    extra: dict[str, str] = {"variant": variant} if variant else {}
    if dtype != "float32" or alg != "striped":  # RMSNorm, softmax: converted, or another algorithm
        extra.update(dtype=dtype, algorithm=alg)
    return getattr(_cutlass_half(), kernel)(n, c, t, i, **extra)


def aot(
    only: str | None = None,
    dtype: str = "float32",
    algorithms: tuple[str, ...] = ("striped",),
    lengths: list[int] | None = None,
) -> int:
    """Compile every kernel (or ``only``'s; at ``lengths``, default all) for sm_90a and report the coop
    kernels' SASS (and, for 2-byte rows or other algorithms, the CUB C++ kernels' global loads and
    stores next to the CuTe kernels')."""
    os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")
    import cuda.coop.cutlass as cutlass_coop
    import cuda.coop.numba as numba_coop
    from cuda.coop._sass import inspect_cubin
    from cuda.coop.cutlass._backend import cutlass_type
    from cutlass.cute.runtime import make_fake_compact_tensor

    kernels = _selected_kernels(only, dtype, algorithms)
    if not kernels:
        return 0
    _cub_kernels("sm_90a", load=False, kernels=kernels, lengths=lengths, dtype=dtype, algorithms=algorithms)
    print(f"CUB C++ kernels: compiled for sm_90a ({dtype})", flush=True)
    bad = 0

    def memory(rep: Any) -> str:
        ops = rep.opcodes()
        return " ".join(f"{op} x{c}" for op, c in ops.items() if op.startswith(("LDG", "STG")))

    for k in kernels:
        for n, c, t, i in _configs(k, dtype):
            if lengths and n not in lengths:
                continue
            for v, a in _designs(k, dtype, algorithms):
                tag = _tag(k, c, t, i, v, a)
                reports = []
                if dtype == "float32" and a in ("striped", "striped_vectors"):  # Numba: float32 rows
                    r = numba_coop.compile(
                        numba_kernel(k, n, c, t, i, v, a),
                        _aligned_sig(_SIGS[k]),
                        block=t,
                        cluster=_cluster(k, c),
                    ).inspect()
                    reports.append(("numba", r))
                if "cute" not in _ONLY.get((k, v), ("cute",)):
                    tensors = None
                else:
                    tensors = []
                for _, dt, e in _PARAMS[k] if tensors is not None else ():
                    held, size = dtype if dt == "T" else dt, _extent(e, 64, n)
                    if a == "striped_words" and dt == "T":  # int32 views of the rows (half as many)
                        held, size = "int32", size // 2
                    tensors.append(make_fake_compact_tensor(cutlass_type(held), (size,), assumed_align=16))
                if tensors is not None:
                    q = cutlass_coop.compile(_cute_kernel(k, n, c, t, i, v, dtype, a), *tensors).inspect()
                    reports.append(("cute", q))
                for name, rep in reports:
                    regs = max(rep.registers.values())
                    ok = rep.calls == 0 and rep.local_loads == 0 and rep.local_stores == 0
                    bad += not ok
                    print(
                        f"{k} {dtype} N={n} {tag} {name}: {regs} registers, {rep.calls} CALL, "
                        f"{rep.local_loads} LDL, {rep.local_stores} STL{'' if ok else '  <-- not inlined'}; "
                        f"{memory(rep)}",
                        flush=True,
                    )
                if (dtype != "float32" or a != "striped") and a != "striped_words":  # CUB C++, same design
                    own = inspect_cubin(_cub_cubin(_cub_name(k, n, c, t, i, v, dtype, a)))
                    print(
                        f"{k} {dtype} N={n} {tag} cub: {max(own.registers.values())} registers; "
                        f"{memory(own)}",
                        flush=True,
                    )
    return 1 if bad else 0


def _aligned_sig(sig: str) -> Any:
    """``sig`` with its arrays typed as 16-byte aligned: what ``cuda.coop.numba.jit`` compiles for
    the benchmark's torch tensors (their data is aligned)."""
    from cuda.coop.numba.kernel._types import AlignedArrayType
    from numba.cuda import types
    from numba.cuda.core import sigutils

    args, ret = sigutils.normalize_signature(sig)
    aligned = [AlignedArrayType(a.dtype, a.ndim, a.layout) if isinstance(a, types.Array) else a for a in args]
    return ret(*aligned)


def _cub_cubin(name: str) -> bytes:
    """The sm_90a cubin of one CUB C++ kernel alone (the module holds them all: compiled again, alone)."""
    return bytes(_cub_compile("sm_90a", (name,)).code)


# --- the GPU run -----------------------------------------------------------------------------------


def _peers() -> dict[str, dict[str, Any]]:
    """The installed peers' functions: name -> {kernel: f(x, w, b, labels), or the reason it is
    missing}. A function returns a tensor, or a tuple of them (values, indices)."""
    import torch
    import torch.nn.functional as F

    peers: dict[str, dict[str, Any]] = {
        "torch": {
            "rmsnorm": lambda x, w, b, lab: F.rms_norm(x, (x.shape[-1],), w, EPS),
            "softmax": lambda x, w, b, lab: torch.softmax(x, -1),
            "layernorm": lambda x, w, b, lab: F.layer_norm(x, (x.shape[-1],), w, b, EPS),
            "cross_entropy": lambda x, w, b, lab: F.cross_entropy(x, lab, reduction="none"),
            "argmax": lambda x, w, b, lab: tuple(torch.max(x, -1)),
            "topk": lambda x, w, b, lab: tuple(torch.topk(x, TOPK, -1)),
        },
        "torch.argmax": {"argmax": lambda x, w, b, lab: torch.argmax(x, -1)},
        "quack": {},
        "liger": {},
    }

    def peer(name: str, kernels: tuple[str, ...], make: Any) -> None:
        try:
            fns = make()
        except Exception as exc:  # not installed, or it fails to import here
            fns = [f"{name} not available ({type(exc).__name__}: {exc})"] * len(kernels)
        peers[name].update(zip(kernels, fns, strict=True))

    def quack_rms_softmax() -> Any:
        from quack.rmsnorm import rmsnorm_fwd
        from quack.softmax import softmax_fwd

        return (lambda x, w, b, lab: rmsnorm_fwd(x, w, eps=EPS)[0], lambda x, w, b, lab: softmax_fwd(x))

    def quack_layernorm() -> Any:
        from quack.rmsnorm import layernorm_fwd

        return (lambda x, w, b, lab: layernorm_fwd(x, w, b, eps=EPS),)

    def quack_cross_entropy() -> Any:
        from quack.cross_entropy import cross_entropy_fwd

        return (lambda x, w, b, lab: cross_entropy_fwd(x, lab, ignore_index=IGNORE_INDEX),)

    def quack_topk() -> Any:
        from quack.topk import topk_fwd  # N <= 4096, a power of two: it refuses the others

        return (lambda x, w, b, lab: tuple(topk_fwd(x, TOPK)),)

    def liger_rms_softmax() -> Any:
        from liger_kernel.ops.rms_norm import LigerRMSNormFunction
        from liger_kernel.ops.softmax import LigerSoftmaxFunction

        return (
            lambda x, w, b, lab: LigerRMSNormFunction.apply(x, w, EPS, 0.0, "llama", False),
            lambda x, w, b, lab: LigerSoftmaxFunction.apply(x),
        )

    def liger_layernorm() -> Any:
        from liger_kernel.ops.layer_norm import LigerLayerNormFunction

        return (lambda x, w, b, lab: LigerLayerNormFunction.apply(x, w, b, EPS),)

    def liger_cross_entropy() -> Any:
        from liger_kernel.ops.cross_entropy import cross_entropy_forward

        # (input, target, weight, ignore_index, lse_square_scale, label_smoothing, reduction, softcap,
        # return_z_loss) -> (loss, ...); it reads the labels on the host (.item()) before it launches
        def fwd(x: Any, w: Any, b: Any, lab: Any) -> Any:
            return cross_entropy_forward(x, lab, None, IGNORE_INDEX, 0.0, 0.0, "none", None, False)[0]

        return (fwd,)

    peer("quack", ("rmsnorm", "softmax"), quack_rms_softmax)
    peer("quack", ("layernorm",), quack_layernorm)
    peer("quack", ("cross_entropy",), quack_cross_entropy)
    peer("quack", ("topk",), quack_topk)
    peer("liger", ("rmsnorm", "softmax"), liger_rms_softmax)
    peer("liger", ("layernorm",), liger_layernorm)
    peer("liger", ("cross_entropy",), liger_cross_entropy)
    return peers


def _reference(kernel: str, x: Any, w: Any, b: Any = None, labels: Any = None) -> Any:
    import torch
    import torch.nn.functional as F

    x64 = x.double()
    if kernel == "rmsnorm":
        return x64 * (x64.square().mean(-1, keepdim=True) + EPS).rsqrt() * w.double()
    if kernel == "layernorm":
        return F.layer_norm(x64, (x.shape[-1],), w.double(), b.double(), EPS)
    if kernel == "cross_entropy":
        return F.cross_entropy(x64, labels, reduction="none", ignore_index=IGNORE_INDEX)
    if kernel == "argmax":
        return x.amax(-1).double()  # exact: the value; any index holding it is right
    if kernel == "topk":
        return torch.topk(x, TOPK, -1).values.double()  # exact values, largest first
    return x64.softmax(-1)


def _close(kernel: str, got: Any, ref: Any, x: Any = None) -> tuple[bool, float]:
    """(within tolerance, largest error relative to the row's largest reference value; argmax and
    top-k: relative to the value, with the index checked by reading x there; 2-byte results within
    their rounding: 2^-8 relative for bfloat16)."""
    if isinstance(got, (tuple, list)) and len(got) == 1:
        got = got[0]
    if kernel == "argmax":
        values, index = got if isinstance(got, (tuple, list)) else (None, got)
        if int(index.min()) < 0 or int(index.max()) >= x.shape[-1]:
            return False, math.inf
        at = x.gather(-1, index.long().view(-1, 1)).view(-1).double()
        worst = float((at - ref).abs().max())
        if values is not None:
            worst = max(worst, float((values.double() - ref).abs().max()))
        return worst == 0.0, worst
    if kernel == "topk":
        values, index = got
        index = index.long()
        if int(index.min()) < 0 or int(index.max()) >= x.shape[-1]:
            return False, math.inf
        distinct = bool((index.sort(-1).values.diff(dim=-1) > 0).all())
        rel = ((values.double() - ref).abs() / ref.abs().clamp_min(1e-30)).max()
        at = x.gather(-1, index).double()
        rel_at = ((at - values.double()).abs() / at.abs().clamp_min(1e-30)).max()
        worst = max(float(rel), float(rel_at))
        # quack keeps each index in the low log2(N) bits of its value: values off by up to 2^-11 there
        return distinct and worst < 1e-3, worst if distinct else math.inf
    if kernel == "cross_entropy":
        worst = float(((got.double() - ref).abs() / ref.abs().clamp_min(1.0)).max())
        return worst < 1e-5, worst
    err = (got.double() - ref).abs().amax(-1) / ref.abs().amax(-1)
    worst = float(err.max())
    limit = 1e-4 if kernel == "softmax" else 1e-5
    return worst < (limit if got.element_size() == 4 else 1e-2), worst


def _outputs(kernel: str, rows: int, n: int, dtype: str = "float32") -> tuple[Any, ...]:
    """Fresh output tensors of ``kernel`` with rows of ``dtype`` (NaN / -1 filled: a kernel that skips
    one shows)."""
    import torch

    out = []
    for name, dt, e in _PARAMS[kernel]:
        if name not in _INPUTS:
            kind = getattr(torch, dtype if dt == "T" else dt)
            fill = float("nan") if kind.is_floating_point else -1
            out.append(torch.full((_extent(e, rows, n),), fill, device="cuda", dtype=kind))
    return tuple(out)


def _shaped(kernel: str, outs: tuple[Any, ...], rows: int) -> Any:
    """The outputs as the peers return them: y (rows, N); a loss per row; (values, indices)."""
    shaped = tuple(o.view(rows, -1) if o.numel() != rows else o for o in outs)
    return shaped[0] if len(shaped) == 1 else shaped


def set_kernel_attribute(kernel: Any, name: str, value: int) -> None:
    """Set ``CU_FUNC_ATTRIBUTE_<name>`` of ``kernel`` (a cuda.core Kernel: a library CUkernel) on
    the current device."""
    from cuda.bindings import driver
    from cuda.core import Device

    attr = getattr(driver.CUfunction_attribute, f"CU_FUNC_ATTRIBUTE_{name}")
    handle = driver.CUkernel(int(kernel.handle))
    (err,) = driver.cuKernelSetAttribute(attr, value, handle, driver.CUdevice(Device().device_id))
    if err:
        raise RuntimeError(f"cuKernelSetAttribute({name}, {value}): {err}")


def allow_non_portable(kernel: Any) -> None:
    """Let ``kernel`` run in clusters of more than 8 blocks."""
    set_kernel_attribute(kernel, "NON_PORTABLE_CLUSTER_SIZE_ALLOWED", 1)


def run(
    elements: int,
    reps: int,
    only: str | None,
    lengths: list[int] | None = None,
    dtype: str = "float32",
    algorithms: tuple[str, ...] = ("striped",),
) -> dict[str, Any]:
    import cuda.coop.cutlass as cutlass_coop
    import torch
    from cuda.core import LaunchConfig, launch
    from cutlass.cute.runtime import from_dlpack

    bench = _copy_bench()
    _dev, arch, _s, _d, stream = bench._device_and_data(1 << 10)
    kernels = _selected_kernels(only, dtype, algorithms)
    cub = _cub_kernels(arch, kernels=kernels, lengths=lengths, dtype=dtype, algorithms=algorithms)
    peers = _peers()
    props = torch.cuda.get_device_properties(0)
    res: dict[str, Any] = {
        "device": props.name,
        "elements": elements,
        "dtype": dtype,
        "peers": {
            p: {k: v if isinstance(v, str) else "ok" for k, v in fns.items()} for p, fns in peers.items()
        },
        "rows": [],
        "checks": [],
    }
    for n in lengths or sorted({n for k in kernels for n in _kernel_configs(k, dtype)}):
        rows = elements // n
        x = torch.randn(rows, n, device="cuda", dtype=getattr(torch, dtype))
        w = 1.0 + 0.1 * torch.randn(n, device="cuda", dtype=getattr(torch, dtype))
        bias = 0.1 * torch.randn(n, device="cuda", dtype=torch.float32)
        labels = torch.randint(0, n, (rows,), device="cuda", dtype=torch.int64)
        inputs = {"x": x.view(-1), "w": w, "b": bias, "labels": labels}
        roof_out = torch.empty_like(x)
        for kernel in kernels:
            if n not in _kernel_configs(kernel, dtype):
                continue
            passes = _PASSES.get(kernel, 2)
            gb = passes * x.numel() * x.element_size() / 1e9
            ref = _reference(kernel, x, w, bias, labels)
            fns: dict[str, Any] = {"copy": lambda o=roof_out, x=x: o.copy_(x)}
            if passes == 1:  # the roof of a kernel that only reads: a row sum
                fns = {"sum": lambda x=x: x.sum(-1)}
            outs: dict[str, Any] = {}
            for name, table in peers.items():
                f = table.get(kernel)
                if f is None or isinstance(f, str):
                    continue
                args = (x, w, bias, labels)
                try:
                    print(f"first call: {kernel} N={n} {name}", file=sys.stderr, flush=True)
                    outs[name] = f(*args)
                    torch.cuda.synchronize()
                except Exception as exc:  # e.g. liger refuses rows longer than 65536
                    res["checks"].append(
                        {
                            "kernel": kernel,
                            "n": n,
                            "who": name,
                            "skipped": f"{type(exc).__name__}: {exc}"[:200],
                        }
                    )
                    outs.pop(name, None)
                    continue
                fns[name] = lambda f=f, args=args: f(*args)
            for c, t, i in _kernel_configs(kernel, dtype)[n]:
                cl = _cluster(kernel, c)
                blocks = _blocks(kernel, rows, c, t)
                for v, alg in _designs(kernel, dtype, algorithms):
                    tag = _tag(kernel, c, t, i, v, alg)
                    numba_rows = dtype == "float32" and alg in ("striped", "striped_vectors")
                    whos = ["numba"] if numba_rows else []  # Numba: float32 rows
                    whos += ["cute"] + (["cub"] if alg != "striped_words" else [])
                    whos = [who for who in whos if who in _ONLY.get((kernel, v), whos)]
                    if (kernel, v) == ("topk", "bitonic") and TOPK != 16:
                        # the CuTe hand design is written for k = 16: at 8 and 32 its results are wrong
                        # (H100, 2026-12-07) and one of its kernels stopped the run (illegal instruction)
                        whos = [who for who in whos if who != "cute"]
                    ins = tuple(inputs[p] for p, _, _ in _PARAMS[kernel] if p in _INPUTS)
                    ys = {who: _outputs(kernel, rows, n, dtype) for who in whos}
                    shmem = x.element_size() * t * i if v.startswith("staged") else 0  # the row part
                    if "numba" in whos:
                        nb = numba_kernel(kernel, n, c, t, i, v, alg)
                        launch_nb = nb.configure(blocks, t, 0, shmem, cluster=cl)
                        fns[f"numba {tag}"] = lambda launch_nb=launch_nb, a=ins + ys["numba"]: launch_nb(*a)
                    if "cute" in whos:
                        held = ins + ys["cute"]
                        if alg == "striped_words":  # the rows as int32 words (a what-if, see the docstring)
                            held = tuple(a.view(torch.int32) for a in held)
                        cts = [from_dlpack(a, assumed_align=16) for a in held]
                        compiled = cutlass_coop.compile(_cute_kernel(kernel, n, c, t, i, v, dtype, alg), *cts)
                        fns[f"cute {tag}"] = lambda compiled=compiled, cts=cts: compiled(*cts)
                    if "cub" in whos:
                        # cuda.core's grid counts clusters when a cluster is given (coop's, CuTe's: blocks)
                        cfg = (
                            LaunchConfig(grid=rows, block=t, cluster=cl, shmem_size=shmem)
                            if cl
                            else LaunchConfig(grid=blocks, block=t, shmem_size=shmem)
                        )
                        params = [a.data_ptr() for a in ins + ys["cub"]]
                        k_cub = cub[(kernel, n, c, t, i, v, alg)]
                        if shmem > 48 * 1024:  # more dynamic shared memory than the default 48 KB
                            set_kernel_attribute(k_cub, "MAX_DYNAMIC_SHARED_SIZE_BYTES", shmem)
                        # cuda.core's launch does not opt in to non-portable cluster sizes: we do
                        if (cl or 1) > 8:
                            allow_non_portable(k_cub)
                        fns[f"cub {tag}"] = lambda cfg=cfg, k_cub=k_cub, params=params: launch(
                            stream, cfg, k_cub, *params
                        )
                    for who in whos:
                        print(f"first call: {kernel} N={n} {who} {tag}", file=sys.stderr, flush=True)
                        fns[f"{who} {tag}"]()
                        torch.cuda.synchronize()
                    outs.update({f"{who} {tag}": _shaped(kernel, y, rows) for who, y in ys.items()})
            for who, got in outs.items():
                ok, worst = _close(kernel, got, ref, x)
                res["checks"].append({"kernel": kernel, "n": n, "who": who, "ok": ok, "error": worst})
                if not ok:
                    print(f"CHECK FAILED: {kernel} N={n} {who}: relative error {worst:.2e}", file=sys.stderr)
                    fns.pop(who, None)
            del ref, outs
            times = bench._interleaved(fns, reps, torch)
            row = {"kernel": kernel, "n": n, **{k: gb / v for k, v in times.items()}}
            res["rows"].append(row)
            print(
                f"{kernel} N={n}: "
                + ", ".join(f"{k} {v:.0f}" for k, v in row.items() if isinstance(v, float))
            )
    return res


def _print_tables(res: dict[str, Any]) -> None:
    table = _copy_bench()._table
    for kernel in KERNELS:
        rows = [r for r in res["rows"] if r["kernel"] == kernel]
        if not rows:
            continue
        peers = [p for p in ("quack", "liger", "torch", "torch.argmax") if any(p in r for r in rows)]
        out = []
        for r in rows:

            def best(who: str, r: dict[str, Any] = r) -> tuple[float, str]:
                cands = [
                    (v, k.split(" ", 1)[1])
                    for k, v in r.items()
                    if k.startswith(who + " ") and "striped_words" not in k  # the what-if: not coop's
                ]
                return max(cands) if cands else (math.nan, "-")

            nb, ct, cb = best("numba"), best("cute"), best("cub")
            peer = {p: r.get(p, math.nan) for p in ("quack", "liger", *peers)}
            roof = r.get("copy", r.get("sum", math.nan))
            ours = max((v for v in (nb[0], ct[0]) if not math.isnan(v)), default=math.nan)  # no Numba: 2-byte
            out.append(
                [
                    str(r["n"]),
                    f"{nb[0]:.0f} ({nb[1]})",
                    f"{ct[0]:.0f} ({ct[1]})",
                    f"{cb[0]:.0f} ({cb[1]})",
                    *(f"{peer[p]:.0f}" for p in peers),
                    f"{roof:.0f}",
                    f"{nb[0] / peer['quack']:.3f} / {ct[0] / peer['quack']:.3f}",
                    f"{nb[0] / peer['liger']:.3f} / {ct[0] / peer['liger']:.3f}",
                    f"{ours / roof:.3f}",
                ]
            )
        shape = "warps per row w threads x items" if kernel == "topk" else "cluster x threads x items"
        moved = "read + written" if _PASSES.get(kernel, 2) == 2 else "read"
        suffix = " [algorithm]" if kernel in CONVERTED else " [variant]" if kernel in VARIANTS else ""
        table(
            f"{kernel} forward, {res.get('dtype', 'float32')}, {res['elements']} elements, GB/s {moved} "
            f"(best of the configurations: {shape}{suffix})",
            [
                "N",
                "coop Numba",
                "coop CuTe",
                "CUB C++",
                *peers,
                "copy" if _PASSES.get(kernel, 2) == 2 else "sum",
                "Numba / CuTe vs quack",
                "vs liger",
                "best / roof",
            ],
            out,
        )
        per_config = [
            [
                str(r["n"]),
                k.split(" ", 1)[1],
                f"{v:.0f}",
                f"{r.get('cub ' + k.split(' ', 1)[1], math.nan):.0f}",
                f"{v / r.get('cub ' + k.split(' ', 1)[1], math.nan):.3f}",
                f"{v / r.get('quack', math.nan):.3f}",
            ]
            for r in rows
            for k, v in r.items()
            if k.startswith("cute ")
        ]
        table(
            f"{kernel}, {res.get('dtype', 'float32')}: coop CuTe and CUB C++ (same design), by configuration",
            ["N", "configuration", "coop CuTe", "CUB C++", "CuTe / CUB", "CuTe / quack"],
            per_config,
        )
        words = [(r, k, v) for r in rows for k, v in r.items() if "striped_words" in k]
        for r, k, v in words:
            print(
                f"what-if (int32 words, striped; not a coop algorithm): {kernel} N={r['n']} {k}: {v:.0f} GB/s"
            )
    for name, state in res["peers"].items():
        for kernel, why in state.items() if isinstance(state, dict) else [("", state)]:
            if why != "ok":
                print(f"\n{name} {kernel}: {why}")
    skipped = [c for c in res["checks"] if "skipped" in c]
    for c in skipped:
        print(f"{c['who']} {c['kernel']} N={c['n']}: {c['skipped']}")


def main() -> None:
    global TOPK
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--elements", type=int, default=1 << 27)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--json", default=None)
    ap.add_argument("--only", choices=KERNELS, default=None)
    ap.add_argument("--aot", action="store_true")
    ap.add_argument("--k", type=int, choices=(8, 16, 32), default=TOPK, help="k of the top-k rows")
    ap.add_argument(
        "--n",
        type=int,
        action="append",
        choices=sorted({n for k in KERNELS for n in _kernel_configs(k)}),
        help="row lengths (default: all of the kernels')",
    )
    ap.add_argument(
        "--dtype",
        choices=DTYPES,
        default="float32",
        help="element type of x, y and the weight (RMSNorm, softmax; the other kernels run float32 only)",
    )
    ap.add_argument(
        "--algorithms",
        default="striped",
        help="comma-separated: striped, vectorize, striped_vectors, striped_words (RMSNorm, softmax; the "
        "others: striped)",
    )
    args = ap.parse_args()
    algorithms = tuple(args.algorithms.split(","))
    TOPK = args.k
    _cutlass_half().TOPK = args.k
    if args.aot:
        sys.exit(aot(args.only, args.dtype, algorithms, args.n))
    res = run(args.elements, args.reps, args.only, args.n, args.dtype, algorithms)
    _print_tables(res)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)
    failed = [c for c in res["checks"] if c.get("ok") is False]
    if failed:
        sys.exit(f"{len(failed)} outputs failed their check")


if __name__ == "__main__":
    main()
