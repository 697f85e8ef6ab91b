# SPDX-License-Identifier: Apache-2.0
"""Row kernels (issue 19): RMSNorm and softmax forward over rows of 4096 to 262144 float32, written
with coop (one block per row, or one thread-block cluster per row with ``coop.cluster``), next to
CUB C++ of the same design, quack-kernels, liger-kernel and torch, same run, both backends.

Every kernel keeps the row in registers (one pass over memory): a striped ``coop.block.load`` of the
block's part of the row, per-thread partials, one ``coop.block.sum`` / ``reduce(..., broadcast=True)``
(cluster: ``coop.cluster.sum`` / ``reduce``, the result in every thread of every block), the scaled
items stored striped. RMSNorm multiplies by a weight row (read item by item as it scales, striped,
so that it holds no second row in registers); softmax takes the row's maximum and sum
(exp through ``ex2.approx``: Numba ``fastmath=True``, CuTe ``exp2(..., fastmath=True)``, as quack).

GB/s counts the row bytes read + written (2 x 4 B per element; the weight row stays in L2); medians of
interleaved batches (benchmarks/copy.py); torch's ``copy_`` of the same tensor is the roof. Every
output is checked against torch in float64 before it is timed. quack-kernels and liger-kernel are
benchmark-only: a peer that is not installed is skipped, and the table says so.

    python benchmarks/rows.py [--elements N] [--reps R] [--json PATH] [--only rmsnorm|softmax] [--aot]
                              [--dtype float32|bfloat16|float16] [--algorithms striped,vectorize]

``--aot`` compiles every coop and CUB C++ kernel for sm_90a (no GPU needed) and prints each coop
kernel's SASS verdict.

``--dtype bfloat16`` (or float16): x, y and the weight row of that type (the peers get the same
tensors), items converted to float32 in the kernel and back; the weight row loaded with the rows'
algorithm after the reduction; the CUB C++ kernels of the same design take ``cub::BlockLoad<T>``;
2-byte rows also try more items per thread (``NARROW_CONFIGS``). The Numba kernels are float32
``striped`` only (numba-cuda 0.30 has no bfloat16 arrays). ``--algorithms`` (default ``striped``)
also measures ``vectorize`` rows (blocked; 2-byte items move as 4-byte words) and, for 2-byte rows,
``striped_words``: a CuTe what-if (no coop algorithm; no CUB C++ peer) that loads and stores the rows
as int32 words, striped, and reads the items through a recast of the words (_rows_cutlass.py).
"""

# No `from __future__ import annotations`: CuTe evaluates kernel annotations when it traces.
import os
import sys

sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

EPS = 1e-6
#: (cluster blocks, threads, items per thread) tried for each row length; cluster * threads * items = N.
CONFIGS: dict[int, list[tuple[int, int, int]]] = {
    4096: [(1, 256, 16), (1, 512, 8)],
    16384: [(1, 1024, 16), (2, 512, 16)],
    65536: [(4, 512, 32), (8, 256, 32), (8, 512, 16)],
    262144: [(16, 256, 64), (16, 512, 32), (16, 1024, 16)],
}
KERNELS = ("rmsnorm", "softmax")
#: More (cluster, threads, items) for 2-byte rows: a thread's items hold half the bytes of float32's.
NARROW_CONFIGS: dict[int, list[tuple[int, int, int]]] = {4096: [(1, 128, 32)], 16384: [(1, 512, 32)]}
DTYPES = ("float32", "bfloat16", "float16")
#: The C++ element type of each dtype (CUB_SOURCE's converted kernels).
CXX = {"float32": "float", "bfloat16": "__nv_bfloat16", "float16": "__half"}

CUB_SOURCE = r"""
#include <cub/block/block_load.cuh>
#include <cub/block/block_store.cuh>
#include <cub/block/block_reduce.cuh>
#include <cuda/ptx>
#include <cuda/std/cstdint>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda/std/functional>

// The cluster step of coop.cluster, written by hand: the kernel's prologue arms two stages of
// mbarriers (one arrival: thread 0's, expecting the call's bytes) and publishes them with one cluster
// barrier; each reduction is CUB's BlockReduce, then warp 0 pushes the block's aggregate into slot
// `rank` of every block's stage with st.async (its bytes complete that block's mbarrier transaction),
// and every thread waits on its own block's and folds the slots in rank order. Calls alternate between
// the stages (the call count in shared memory).
template <int Cluster>
struct State
{
  float slot[2][Cluster];
  ::cuda::std::uint64_t full[2];
  unsigned calls;
};

template <int Cluster>
__device__ __forceinline__ void prologue(State<Cluster>& s)
{
  if (Cluster == 1)
    return;
  if (threadIdx.x == 0)
  {
    ::cuda::ptx::mbarrier_init(&s.full[0], 1);
    ::cuda::ptx::mbarrier_init(&s.full[1], 1);
    s.calls = 0;
    ::cuda::ptx::fence_mbarrier_init(::cuda::ptx::sem_release, ::cuda::ptx::scope_cluster);
  }
  __syncthreads();
  ::cuda::ptx::barrier_cluster_arrive(::cuda::ptx::sem_relaxed);
  ::cuda::ptx::barrier_cluster_wait();
}

// The block's (Cluster == 1) or the cluster's aggregate, in every thread.
template <int Threads, int Cluster, typename Reduce, typename Op>
__device__ __forceinline__ float
row_reduce(float x, Op op, typename Reduce::TempStorage& ts, State<Cluster>& s)
{
  if (Cluster == 1)
  {
    float block = Reduce(ts).Reduce(x, op);
    if (threadIdx.x == 0) s.slot[0][0] = block;
    __syncthreads();
    float total = s.slot[0][0];
    __syncthreads();
    return total;
  }
  const unsigned call = s.calls;
  float block = Reduce(ts).Reduce(x, op);
  const int stage = call & 1;
  namespace ptx = ::cuda::ptx;
  if (threadIdx.x < 32)
  {
    if (threadIdx.x == 0)
    {
      s.calls = call + 1;
      ptx::mbarrier_arrive_expect_tx(
        ptx::sem_release, ptx::scope_cta, ptx::space_shared, &s.full[stage], Cluster * sizeof(float));
    }
    block = __shfl_sync(0xffffffffu, block, 0);
    const unsigned rank = ptx::get_sreg_cluster_ctarank();
    for (int peer = threadIdx.x; peer < Cluster; peer += 32)
    {
      State<Cluster>& theirs = *static_cast<State<Cluster>*>(__cluster_map_shared_rank(&s, peer));
      ptx::st_async(&theirs.slot[stage][rank], block, &theirs.full[stage]);
    }
  }
  while (!ptx::mbarrier_try_wait_parity(&s.full[stage], (call >> 1) & 1))
  {
  }
  float total = s.slot[stage][0];
#pragma unroll
  for (int r = 1; r < Cluster; ++r)
    total = op(total, s.slot[stage][r]);
  return total;
}

template <int N, int Cluster, int Threads, int Items>
__global__ void __launch_bounds__(Threads) cub_rmsnorm(const float* x, const float* w, float* y)
{
  using Load = cub::BlockLoad<float, Threads, Items, cub::BLOCK_LOAD_STRIPED>;
  using Store = cub::BlockStore<float, Threads, Items, cub::BLOCK_STORE_STRIPED>;
  using Reduce = cub::BlockReduce<float, Threads>;
  __shared__ typename Reduce::TempStorage ts;
  __shared__ State<Cluster> state;
  prologue(state);
  const int rank = blockIdx.x % Cluster;
  const size_t offset = size_t(blockIdx.x / Cluster) * N + rank * (Threads * Items);
  float xs[Items];
  Load().Load(x + offset, xs);
  float part = 0.0f;
  for (int i = 0; i < Items; ++i) part += xs[i] * xs[i];
  const float total = row_reduce<Threads, Cluster, Reduce>(part, ::cuda::std::plus<>{}, ts, state);
  const float scale = rsqrtf(total * (1.0f / N) + EPS);
  const float* ws = w + rank * (Threads * Items) + threadIdx.x;
  for (int i = 0; i < Items; ++i) xs[i] = xs[i] * scale * ws[i * Threads];
  Store().Store(y + offset, xs);
}

template <int N, int Cluster, int Threads, int Items>
__global__ void __launch_bounds__(Threads) cub_softmax(const float* x, float* y)
{
  using Load = cub::BlockLoad<float, Threads, Items, cub::BLOCK_LOAD_STRIPED>;
  using Store = cub::BlockStore<float, Threads, Items, cub::BLOCK_STORE_STRIPED>;
  using Reduce = cub::BlockReduce<float, Threads>;
  __shared__ typename Reduce::TempStorage ts;
  __shared__ State<Cluster> state;
  prologue(state);
  const int rank = blockIdx.x % Cluster;
  const size_t offset = size_t(blockIdx.x / Cluster) * N + rank * (Threads * Items);
  float xs[Items];
  Load().Load(x + offset, xs);
  float top = xs[0];
  for (int i = 1; i < Items; ++i) top = ::cuda::std::max(top, xs[i]);
  top = row_reduce<Threads, Cluster, Reduce>(top, ::cuda::maximum<>{}, ts, state);
  __syncthreads();
  const float log2e = 1.4426950408889634f, shift = top * log2e;
  float part = 0.0f;
  for (int i = 0; i < Items; ++i)
  {
    xs[i] = exp2f(xs[i] * log2e - shift);
    part += xs[i];
  }
  const float total = row_reduce<Threads, Cluster, Reduce>(part, ::cuda::std::plus<>{}, ts, state);
  const float inv = 1.0f / total;
  for (int i = 0; i < Items; ++i) xs[i] *= inv;
  Store().Store(y + offset, xs);
}

// The kernels above for rows of T (float, __nv_bfloat16, __half) moved with any load and store
// algorithm: items converted to float, the weight row loaded with the same algorithm after the
// reduction, the result converted back (coop's converted kernels in _rows_cutlass.py).
template <typename T, int N, int Cluster, int Threads, int Items, cub::BlockLoadAlgorithm LA,
          cub::BlockStoreAlgorithm SA>
__global__ void __launch_bounds__(Threads) cub_rmsnorm_t(const T* x, const T* w, T* y)
{
  using Load = cub::BlockLoad<T, Threads, Items, LA>;
  using Store = cub::BlockStore<T, Threads, Items, SA>;
  using Reduce = cub::BlockReduce<float, Threads>;
  __shared__ typename Reduce::TempStorage ts;
  __shared__ float slot;
  const int rank = blockIdx.x % Cluster;
  const size_t offset = size_t(blockIdx.x / Cluster) * N + rank * (Threads * Items);
  T xs[Items];
  Load().Load(x + offset, xs);
  float part = 0.0f;
  for (int i = 0; i < Items; ++i)
  {
    const float v = float(xs[i]);
    part += v * v;
  }
  const float total = row_reduce<Threads, Cluster, Reduce>(part, ::cuda::std::plus<>{}, ts, &slot);
  const float scale = rsqrtf(total * (1.0f / N) + EPS);
  T ws[Items];
  Load().Load(w + rank * (Threads * Items), ws);
  for (int i = 0; i < Items; ++i) xs[i] = T(float(xs[i]) * scale * float(ws[i]));
  Store().Store(y + offset, xs);
}

template <typename T, int N, int Cluster, int Threads, int Items, cub::BlockLoadAlgorithm LA,
          cub::BlockStoreAlgorithm SA>
__global__ void __launch_bounds__(Threads) cub_softmax_t(const T* x, T* y)
{
  using Load = cub::BlockLoad<T, Threads, Items, LA>;
  using Store = cub::BlockStore<T, Threads, Items, SA>;
  using Reduce = cub::BlockReduce<float, Threads>;
  __shared__ typename Reduce::TempStorage ts;
  __shared__ float slot;
  const int rank = blockIdx.x % Cluster;
  const size_t offset = size_t(blockIdx.x / Cluster) * N + rank * (Threads * Items);
  T xs[Items];
  Load().Load(x + offset, xs);
  float fs[Items];
  for (int i = 0; i < Items; ++i) fs[i] = float(xs[i]);
  float top = fs[0];
  for (int i = 1; i < Items; ++i) top = ::cuda::std::max(top, fs[i]);
  top = row_reduce<Threads, Cluster, Reduce>(top, ::cuda::maximum<>{}, ts, &slot);
  __syncthreads();
  const float log2e = 1.4426950408889634f, shift = top * log2e;
  float part = 0.0f;
  for (int i = 0; i < Items; ++i)
  {
    fs[i] = exp2f(fs[i] * log2e - shift);
    part += fs[i];
  }
  const float total = row_reduce<Threads, Cluster, Reduce>(part, ::cuda::std::plus<>{}, ts, &slot);
  const float inv = 1.0f / total;
  for (int i = 0; i < Items; ++i) xs[i] = T(fs[i] * inv);
  Store().Store(y + offset, xs);
}
"""


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


def _lengths_configs(dtype: str = "float32") -> dict[int, list[tuple[int, int, int]]]:
    """(cluster, threads, items) tried for each row length: CONFIGS, and NARROW_CONFIGS for 2-byte rows."""
    extra = NARROW_CONFIGS if dtype != "float32" else {}
    return {n: cs + extra.get(n, []) for n, cs in CONFIGS.items()}


def _configs(dtype: str = "float32") -> list[tuple[int, int, int, int]]:
    return [(n, c, t, i) for n, cs in _lengths_configs(dtype).items() for c, t, i in cs]


def _tag(c: int, t: int, i: int, alg: str) -> str:
    """A kernel's configuration in the result keys (float32 striped's as in earlier runs)."""
    return f"{c}x{t}x{i}" if alg == "striped" else f"{c}x{t}x{i} {alg}"


def _cub_kernels(
    arch: str, load: bool = True, dtype: str = "float32", algorithms: tuple[str, ...] = ("striped",)
) -> dict[tuple[Any, ...], Any]:
    """The CUB C++ kernels of the same design, compiled (and, with ``load``, loaded) for ``arch``
    (``-use_fast_math``: exp2f and rsqrtf as the approximations the coop kernels use), keyed
    ``(kernel, n, cluster, threads, items, algorithm)``."""
    from cuda.cccl import get_include_paths
    from cuda.core import Program, ProgramOptions

    paths = get_include_paths()
    incs = [str(p) for p in (paths.cub, paths.cuda) if p is not None]
    names = {}
    for n, c, t, i in _configs(dtype):
        for k in KERNELS:
            for a in algorithms:
                if a == "striped_words":  # a CuTe what-if: no CUB C++ kernel
                    continue
                if dtype == "float32" and a == "striped":
                    names[(k, n, c, t, i, a)] = f"cub_{k}<{n}, {c}, {t}, {i}>"
                else:
                    algs = f"cub::BLOCK_LOAD_{a.upper()}, cub::BLOCK_STORE_{a.upper()}"
                    names[(k, n, c, t, i, a)] = f"cub_{k}_t<{CXX[dtype]}, {n}, {c}, {t}, {i}, {algs}>"
    options = ProgramOptions(
        arch=arch, std="c++17", include_path=incs, define_macro=[("EPS", f"{EPS!r}f")], use_fast_math=True
    )
    module = Program(CUB_SOURCE, "c++", options).compile("cubin", name_expressions=tuple(names.values()))
    return {k: module.get_kernel(v) if load else module for k, v in names.items()}


# --- Numba kernels ---------------------------------------------------------------------------------


def numba_rmsnorm(n: int, cluster: int, threads: int, items: int) -> Any:
    import numpy as np
    from cuda import coop
    from numba import cuda
    from numba.cuda import libdevice

    tile = threads * items
    inv_n, eps = np.float32(1.0 / n), np.float32(EPS)

    def kernel(x, w, y):  # type: ignore[no-untyped-def]
        b = cuda.blockIdx.x
        rank = b % cluster
        offset = (b // cluster) * n + rank * tile
        xs = coop.ThreadData(items, np.float32)
        coop.block.load(x, xs, offset=offset, algorithm="striped")
        part = np.float32(0.0)
        for i in range(items):
            part += xs[i] * xs[i]
        if cluster > 1:
            total = coop.cluster.sum(part)
        else:
            total = coop.block.sum(part, broadcast=True)
        scale = libdevice.rsqrtf(total * inv_n + eps)
        # the weight of each item, read as it is scaled (striped): loaded before the reduction, the
        # weights' registers cost occupancy (measured 2026-12-03: 3.1 instead of 3.9 TB/s at 65536)
        base = rank * tile + cuda.threadIdx.x
        for i in range(items):
            xs[i] = xs[i] * scale * w[base + i * threads]
        coop.block.store(y, xs, offset=offset, algorithm="striped")

    return kernel


def numba_softmax(n: int, cluster: int, threads: int, items: int) -> Any:
    import numpy as np
    from cuda import coop
    from numba import cuda

    tile = threads * items

    def kernel(x, y):  # type: ignore[no-untyped-def]
        b = cuda.blockIdx.x
        rank = b % cluster
        offset = (b // cluster) * n + rank * tile
        xs = coop.ThreadData(items, np.float32)
        coop.block.load(x, xs, offset=offset, algorithm="striped")
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
        coop.block.store(y, xs, offset=offset, algorithm="striped")

    return kernel


_SIGS = {
    "rmsnorm": "void(float32[::1], float32[::1], float32[::1])",
    "softmax": "void(float32[::1], float32[::1])",
}
_NUMBA = {"rmsnorm": numba_rmsnorm, "softmax": numba_softmax}


def numba_kernel(kernel: str, n: int, c: int, t: int, i: int) -> Any:
    import cuda.coop.numba as numba_coop

    return numba_coop.jit(_NUMBA[kernel](n, c, t, i), fastmath=True)


def aot(
    dtype: str = "float32", algorithms: tuple[str, ...] = ("striped",), lengths: list[int] | None = None
) -> int:
    """Compile every kernel for sm_90a and report the coop kernels' SASS (and the CUB C++ kernels'
    global loads and stores next to the CuTe kernels')."""
    os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")
    import cuda.coop.cutlass as cutlass_coop
    import cuda.coop.numba as numba_coop
    from cuda.coop._sass import inspect_cubin
    from cuda.coop.cutlass._backend import cutlass_type
    from cutlass.cute.runtime import make_fake_compact_tensor

    _cub_kernels("sm_90a", load=False, dtype=dtype, algorithms=algorithms)
    print(f"CUB C++ kernels: compiled for sm_90a ({dtype})")
    ct = _cutlass_half()
    kind = cutlass_type(dtype)
    bad = 0

    def memory(rep: Any) -> str:
        ops = rep.opcodes()
        return " ".join(f"{op} x{c}" for op, c in ops.items() if op.startswith(("LDG", "STG")))

    for n, c, t, i in _configs(dtype):
        if lengths and n not in lengths:
            continue
        for k in KERNELS:
            for a in algorithms:
                reports = []
                if dtype == "float32" and a == "striped":
                    r = numba_coop.compile(
                        numba_kernel(k, n, c, t, i), _SIGS[k], block=t, cluster=c if c > 1 else None
                    ).inspect()
                    reports.append(("numba", r))
                # striped_words: int32 views of the rows (half as many elements)
                held, per = (cutlass_type("int32"), 2) if a == "striped_words" else (kind, 1)
                tensors = [make_fake_compact_tensor(held, (n * 8 // per,), assumed_align=16)]
                if k == "rmsnorm":
                    tensors.append(make_fake_compact_tensor(held, (n // per,), assumed_align=16))
                tensors.append(make_fake_compact_tensor(held, (n * 8 // per,), assumed_align=16))
                reports.append(
                    ("cute", cutlass_coop.compile(getattr(ct, k)(n, c, t, i, dtype, a), *tensors).inspect())
                )
                for name, rep in reports:
                    regs = max(rep.registers.values())
                    ok = rep.calls == 0 and rep.local_loads == 0 and rep.local_stores == 0
                    bad += not ok
                    print(
                        f"{k} {dtype} N={n} {_tag(c, t, i, a)} {name}: {regs} registers, {rep.calls} CALL, "
                        f"{rep.local_loads} LDL, {rep.local_stores} STL{'' if ok else '  <-- not inlined'}; "
                        f"{memory(rep)}"
                    )
                if (dtype != "float32" or a != "striped") and a != "striped_words":  # CUB C++, same design
                    own = inspect_cubin(_cub_cubin((k, n, c, t, i, a), dtype))
                    print(
                        f"{k} {dtype} N={n} {_tag(c, t, i, a)} cub: {max(own.registers.values())} registers; "
                        f"{memory(own)}"
                    )
    return 1 if bad else 0


def _cub_cubin(key: tuple[Any, ...], dtype: str) -> bytes:
    """The cubin of one CUB C++ kernel alone (the module holds them all: compiled again, alone)."""
    from cuda.cccl import get_include_paths
    from cuda.core import Program, ProgramOptions

    k, n, c, t, i, a = key
    paths = get_include_paths()
    incs = [str(p) for p in (paths.cub, paths.cuda) if p is not None]
    algs = f"cub::BLOCK_LOAD_{a.upper()}, cub::BLOCK_STORE_{a.upper()}"
    name = f"cub_{k}_t<{CXX[dtype]}, {n}, {c}, {t}, {i}, {algs}>"
    options = ProgramOptions(
        arch="sm_90a", std="c++17", include_path=incs, define_macro=[("EPS", f"{EPS!r}f")], use_fast_math=True
    )
    return bytes(Program(CUB_SOURCE, "c++", options).compile("cubin", name_expressions=(name,)).code)


# --- the GPU run -----------------------------------------------------------------------------------


def _peers() -> dict[str, Any]:
    """The installed peers' functions: name -> (rmsnorm(x, w), softmax(x)) or the reason it is missing."""
    import torch

    peers: dict[str, Any] = {
        "torch": (
            lambda x, w: torch.nn.functional.rms_norm(x, (x.shape[-1],), w, EPS),
            lambda x: torch.softmax(x, -1),
        )
    }
    try:
        from quack.rmsnorm import rmsnorm_fwd
        from quack.softmax import softmax_fwd

        peers["quack"] = (lambda x, w: rmsnorm_fwd(x, w, eps=EPS)[0], softmax_fwd)
    except Exception as exc:  # not installed, or it fails to import here
        peers["quack"] = f"quack-kernels not available ({type(exc).__name__}: {exc})"
    try:
        from liger_kernel.ops.rms_norm import LigerRMSNormFunction
        from liger_kernel.ops.softmax import LigerSoftmaxFunction

        peers["liger"] = (
            lambda x, w: LigerRMSNormFunction.apply(x, w, EPS, 0.0, "llama", False),
            LigerSoftmaxFunction.apply,
        )
    except Exception as exc:
        peers["liger"] = f"liger-kernel not available ({type(exc).__name__}: {exc})"
    return peers


def _reference(kernel: str, x: Any, w: Any) -> Any:
    x64 = x.double()
    if kernel == "rmsnorm":
        return x64 * (x64.square().mean(-1, keepdim=True) + EPS).rsqrt() * w.double()
    return x64.softmax(-1)


def _close(kernel: str, got: Any, ref: Any) -> tuple[bool, float]:
    """(within tolerance, largest error relative to the row's largest reference value; 2-byte
    results within their rounding: 2^-8 relative for bfloat16)."""
    err = (got.double() - ref).abs().amax(-1) / ref.abs().amax(-1)
    worst = float(err.max())
    limit = 1e-5 if kernel == "rmsnorm" else 1e-4
    return worst < (limit if got.element_size() == 4 else 1e-2), worst


def allow_non_portable(kernel: Any) -> None:
    """Let ``kernel`` (a cuda.core Kernel: a library CUkernel) run in clusters of more than 8 blocks."""
    from cuda.bindings import driver
    from cuda.core import Device

    attr = driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED
    handle = driver.CUkernel(int(kernel.handle))
    (err,) = driver.cuKernelSetAttribute(attr, 1, handle, driver.CUdevice(Device().device_id))
    if err:
        raise RuntimeError(f"cuKernelSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED): {err}")


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
    cub = _cub_kernels(arch, dtype=dtype, algorithms=algorithms)
    configs = _lengths_configs(dtype)
    ct = _cutlass_half()
    peers = _peers()
    props = torch.cuda.get_device_properties(0)
    res: dict[str, Any] = {
        "device": props.name,
        "elements": elements,
        "dtype": dtype,
        "peers": {k: v if isinstance(v, str) else "ok" for k, v in peers.items()},
        "rows": [],
        "checks": [],
    }
    kernels = [k for k in KERNELS if only in (None, k)]
    for n in lengths or CONFIGS:
        rows = elements // n
        x = torch.randn(rows, n, device="cuda", dtype=getattr(torch, dtype))
        w = 1.0 + 0.1 * torch.randn(n, device="cuda", dtype=getattr(torch, dtype))
        roof_out = torch.empty_like(x)
        gb = 2 * x.numel() * x.element_size() / 1e9
        for kernel in kernels:
            ref = _reference(kernel, x, w)
            fns: dict[str, Any] = {"copy": lambda o=roof_out, x=x: o.copy_(x)}
            outs: dict[str, Any] = {}
            for name, fn in peers.items():
                if isinstance(fn, str):
                    continue
                f = fn[0] if kernel == "rmsnorm" else fn[1]
                args = (x, w) if kernel == "rmsnorm" else (x,)
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
                    continue
                fns[name] = lambda f=f, args=args: f(*args)
            for c, t, i in configs[n]:
                for alg in algorithms:
                    tag = _tag(c, t, i, alg)
                    whos = ["numba"] if dtype == "float32" and alg == "striped" else []  # Numba: float32 rows
                    whos += ["cute"] + (["cub"] if alg != "striped_words" else [])
                    ys = {who: torch.full_like(x, float("nan")) for who in whos}
                    xf = x.view(-1)
                    if "numba" in whos:
                        nb = numba_kernel(kernel, n, c, t, i)
                        launch_nb = nb.configure(rows * c, t, cluster=c if c > 1 else None)
                        y_nb = ys["numba"].view(-1)
                        nb_args = (xf, w, y_nb) if kernel == "rmsnorm" else (xf, y_nb)
                        fns[f"numba {tag}"] = lambda launch_nb=launch_nb, a=nb_args: launch_nb(*a)
                    y_ct = ys["cute"].view(-1)
                    held = (xf, w, y_ct) if kernel == "rmsnorm" else (xf, y_ct)
                    if alg == "striped_words":  # the rows as int32 words (a what-if, see the docstring)
                        held = tuple(v.view(torch.int32) for v in held)
                    cts = [from_dlpack(v, assumed_align=16) for v in held]
                    compiled = cutlass_coop.compile(getattr(ct, kernel)(n, c, t, i, dtype, alg), *cts)
                    fns[f"cute {tag}"] = lambda compiled=compiled, cts=cts: compiled(*cts)
                    if "cub" in whos:
                        # cuda.core's grid counts clusters when a cluster is given (coop's, CuTe's: blocks)
                        cfg = (
                            LaunchConfig(grid=rows, block=t, cluster=c)
                            if c > 1
                            else LaunchConfig(grid=rows, block=t)
                        )
                        y_cub = ys["cub"]
                        params = [
                            v.data_ptr() for v in ((x, w, y_cub) if kernel == "rmsnorm" else (x, y_cub))
                        ]
                        k_cub = cub[(kernel, n, c, t, i, alg)]
                        if c > 8:  # cuda.core's launch does not opt in to non-portable cluster sizes: we do
                            allow_non_portable(k_cub)
                        fns[f"cub {tag}"] = lambda cfg=cfg, k_cub=k_cub, params=params: launch(
                            stream, cfg, k_cub, *params
                        )
                    for who in whos:
                        print(f"first call: {kernel} N={n} {who} {tag}", file=sys.stderr, flush=True)
                        fns[f"{who} {tag}"]()
                        torch.cuda.synchronize()
                    outs.update({f"{who} {tag}": y for who, y in ys.items()})
            for who, got in outs.items():
                ok, worst = _close(kernel, got, ref)
                res["checks"].append({"kernel": kernel, "n": n, "who": who, "ok": ok, "error": worst})
                if not ok:
                    print(f"CHECK FAILED: {kernel} N={n} {who}: relative error {worst:.2e}", file=sys.stderr)
                    fns.pop(who, None)
            del ref
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
            peer = {p: r.get(p, math.nan) for p in ("quack", "liger", "torch")}
            ours = max((v for v in (nb[0], ct[0]) if not math.isnan(v)), default=math.nan)  # no Numba: 2-byte
            out.append(
                [
                    str(r["n"]),
                    f"{nb[0]:.0f} ({nb[1]})",
                    f"{ct[0]:.0f} ({ct[1]})",
                    f"{cb[0]:.0f} ({cb[1]})",
                    *(f"{peer[p]:.0f}" for p in peer),
                    f"{r['copy']:.0f}",
                    f"{nb[0] / peer['quack']:.3f} / {ct[0] / peer['quack']:.3f}",
                    f"{nb[0] / peer['liger']:.3f} / {ct[0] / peer['liger']:.3f}",
                    f"{ours / r['copy']:.3f}",
                ]
            )
        table(
            f"{kernel} forward, {res.get('dtype', 'float32')}, {res['elements']} elements, GB/s (best of the "
            "configurations: cluster x threads x items [algorithm])",
            [
                "N",
                "coop Numba",
                "coop CuTe",
                "CUB C++",
                "quack",
                "liger",
                "torch",
                "copy",
                "Numba / CuTe vs quack",
                "vs liger",
                "best / copy",
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
        if state != "ok":
            print(f"\n{name}: {state}")
    skipped = [c for c in res["checks"] if "skipped" in c]
    for c in skipped:
        print(f"{c['who']} {c['kernel']} N={c['n']}: {c['skipped']}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--elements", type=int, default=1 << 27)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--json", default=None)
    ap.add_argument("--only", choices=KERNELS, default=None)
    ap.add_argument("--aot", action="store_true")
    ap.add_argument(
        "--n", type=int, action="append", choices=sorted(CONFIGS), help="row lengths (default: all)"
    )
    ap.add_argument("--dtype", choices=DTYPES, default="float32", help="element type of x, y and the weight")
    ap.add_argument("--algorithms", default="striped", help="comma-separated: striped, vectorize")
    args = ap.parse_args()
    algorithms = tuple(args.algorithms.split(","))
    if args.aot:
        sys.exit(aot(args.dtype, algorithms, args.n))
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
