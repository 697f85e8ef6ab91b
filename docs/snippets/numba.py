# SPDX-License-Identifier: Apache-2.0
"""docs/numba.rst: the decorator's forms, prepared launches, compiling ahead of time (one kernel,
many block shapes), a device helper that calls coop, and launching the cubin with cuda.core.

``prepared_launches`` and ``launch_with_cuda_core`` need a GPU (and torch for the first): the test
imports them (so they parse) and compiles their kernels; the other host functions run here."""

# ruff: noqa: I001 (the page shows the coop import on its own)
import numpy as np
from cuda import coop
from numba import cuda

# fmt: off
# doc-start: decorators
import cuda.coop.numba as numba_coop


@numba_coop.jit                                   # lazy: compiled for each launch's types
def k1(src, dst): ...

@numba_coop.jit(fastmath=True, lineinfo=True)     # with options
def k2(src, dst): ...

@numba_coop.jit("void(float32[::1], float32[::1])")    # exactly this signature
def k3(src, dst): ...

@numba_coop.jit(["void(float32[::1], float32[::1])",
                 "void(float64[::1], float64[::1])"])  # exactly these
def k4(src, dst): ...
# doc-end: decorators
# fmt: on

THREADS, ITEMS = 128, 4
TILE = THREADS * ITEMS


@numba_coop.jit
def axpy(a, x, y, n):  # type: ignore[no-untyped-def]
    xs = coop.ThreadData(ITEMS, np.float32)
    ys = coop.ThreadData(ITEMS, np.float32)
    base = cuda.blockIdx.x * TILE
    valid = min(TILE, n - base)
    coop.block.load(x, xs, offset=base, algorithm="vectorize", valid_items=valid, oob_default=0.0)
    coop.block.load(y, ys, offset=base, algorithm="vectorize", valid_items=valid, oob_default=0.0)
    for i in range(ITEMS):
        ys[i] += a * xs[i]
    coop.block.store(y, ys, offset=base, algorithm="vectorize", valid_items=valid)


def prepared_launches(blocks, x, y, n, x2, y2, other_stream):  # type: ignore[no-untyped-def]
    """On a GPU, with torch tensors."""
    import torch

    # doc-start: prepared
    prepared = axpy.prepare(blocks, THREADS, 2.0, x, y, n, stream=torch.cuda.current_stream())
    prepared.launch(0.5, x2, y2, n)  # new tensors: same dtype, rank and layout
    prepared.launch(0.5, x2.data_ptr(), y2.data_ptr(), n)  # raw pointers: only the data slots
    prepared.launch()  # the last arguments again
    prepared.launch(stream=other_stream)  # another stream, for this launch only
    # doc-end: prepared


def compile_k3():  # type: ignore[no-untyped-def]
    # doc-start: compile
    compiled = numba_coop.compile(k3, block=128, arch="sm_90a")  # arch=None: this GPU's
    print(compiled.inspect().summary())
    # doc-end: compile
    return compiled


def compile_shapes():  # type: ignore[no-untyped-def]
    # doc-start: compile-many
    shapes = (64, 128, 256, 512)
    compiled = numba_coop.compile_many([(k3, None, n) for n in shapes], arch="sm_90a")
    # doc-end: compile-many
    return compiled


# fmt: off
# doc-start: device-helper
@cuda.jit(device=True)
def tile_sum(x):
    return coop.block.sum(x)

@numba_coop.jit
def row_sums(src, dst):
    items = coop.ThreadData(4, np.float32)
    coop.block.load(src, items, offset=cuda.blockIdx.x * 512)
    total = tile_sum(items)      # compiled for the block this kernel is launched with
    # doc-end: device-helper
    # fmt: on
    if cuda.threadIdx.x == 0:
        dst[cuda.blockIdx.x] = total


def copy(src, dst):  # type: ignore[no-untyped-def]
    items = coop.ThreadData(ITEMS, np.float32)
    coop.block.load(src, items, offset=cuda.blockIdx.x * TILE)
    coop.block.store(dst, items, offset=cuda.blockIdx.x * TILE)


def launch_with_cuda_core(src_ptr, dst_ptr, n):  # type: ignore[no-untyped-def]
    """On a GPU: ``copy`` launched from its cubin with cuda.core (src_ptr, dst_ptr: float32 arrays)."""
    k3 = numba_coop.jit("void(float32[::1], float32[::1])")(copy)
    # fmt: off
    # doc-start: cuda-core
    import numpy as np
    from cuda.core import Device, LaunchConfig, ObjectCode, launch

    device = Device()
    device.set_current()
    compiled = numba_coop.compile(k3, block=128, arch=f"sm_{device.arch}")
    name = compiled.inspect().functions[0]
    kernel = ObjectCode.from_cubin(compiled.code).get_kernel(name)

    def array_args(ptr, n, itemsize):   # a 1-D contiguous array
        return [np.uint64(0), np.uint64(0), np.int64(n), np.int64(itemsize),
                np.uint64(ptr), np.int64(n), np.int64(itemsize)]

    stream = device.create_stream()
    launch(stream, LaunchConfig(grid=n // 512, block=128), kernel,
           *array_args(src_ptr, n, 4), *array_args(dst_ptr, n, 4))
    # doc-end: cuda-core
    # fmt: on
    stream.sync()


F32, F64 = "float32[::1]", "float64[::1]"
NUMBA = [
    (k1, f"void({F32}, {F32})", {"block": THREADS}),
    (k2, f"void({F64}, {F64})", {"block": THREADS}),
    (k4, f"void({F64}, {F64})", {"block": THREADS}),
    (axpy, f"void(float64, {F32}, {F32}, int64)", {"block": THREADS}),
    (row_sums, f"void({F32}, {F32})", {"block": THREADS}),
    (copy, f"void({F32}, {F32})", {"block": THREADS}),
]
HOST = [
    compile_k3,
    compile_shapes,
]
