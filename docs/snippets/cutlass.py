# SPDX-License-Identifier: Apache-2.0
"""docs/cutlass.rst: a CuTe kernel and its host function, compiled one at a time and many at once,
a prepared launch, and the cubin launched with cuda.core; and, for docs/structured.rst, complex
numbers as (re, im) pairs in a CuTe kernel.

``run``, ``prepared_launches`` and ``launch_cubin`` need a GPU (and torch for the second): the test
imports them and compiles their host functions on fake tensors."""

# ruff: noqa: E402, I001 (the page shows the kernel's imports with it)
import cuda.bindings.driver as cuda_driver
from cutlass.cute.runtime import make_fake_compact_tensor, make_fake_stream, make_ptr

# doc-start: cute-kernel
import cutlass
import cutlass.cute as cute

import cuda.coop.cutlass as cutlass_coop
from cuda import coop

THREADS, ITEMS = 128, 8
TILE = THREADS * ITEMS


@cute.kernel
def scale_kernel(src: cute.Tensor, dst: cute.Tensor):
    bidx, _, _ = cute.arch.block_idx()
    items = coop.ThreadData(ITEMS, cutlass.Float32)  # a 1-D register tensor
    coop.block.load(src, items, offset=bidx * TILE, algorithm="warp_transpose")
    items.store(items.load() * 2.0)  # TensorSSA arithmetic
    coop.block.store(dst, items, offset=bidx * TILE, algorithm="warp_transpose")


@cute.jit
def scale(src: cute.Tensor, dst: cute.Tensor):
    scale_kernel(src, dst).launch(grid=(cute.size(src) // TILE, 1, 1), block=(THREADS, 1, 1))
    # doc-end: cute-kernel


def run(src, dst):  # type: ignore[no-untyped-def]
    # doc-start: cute-call
    compiled = cutlass_coop.compile(scale, src, dst)  # src, dst: e.g. from_dlpack(torch_tensor)
    compiled(src, dst)
    # doc-end: cute-call


N = 64 * 1024


def fakes():  # type: ignore[no-untyped-def]
    """Two float32 tensors of N items, as the host functions are compiled for."""
    return [make_fake_compact_tensor(cutlass.Float32, (N,), assumed_align=16) for _ in range(2)]


def scale_host(threads):  # type: ignore[no-untyped-def]
    """``scale`` for blocks of ``threads`` threads."""
    tile = threads * ITEMS

    @cute.kernel
    def kernel(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        bidx, _, _ = cute.arch.block_idx()
        items = coop.ThreadData(ITEMS, cutlass.Float32)
        coop.block.load(src, items, offset=bidx * tile, algorithm="warp_transpose")
        items.store(items.load() * 2.0)
        coop.block.store(dst, items, offset=bidx * tile, algorithm="warp_transpose")

    @cute.jit
    def host(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        kernel(src, dst).launch(grid=(cute.size(src) // tile, 1, 1), block=(threads, 1, 1))

    return host


def compile_many():  # type: ignore[no-untyped-def]
    src, dst = fakes()
    # doc-start: compile-many
    jobs = [(scale_host(threads), src, dst) for threads in (64, 128, 256, 512)]
    compiled = cutlass_coop.compile_many(jobs, arch="sm_90a")
    # doc-end: compile-many
    return compiled


@cute.kernel
def axpb_kernel(src: cute.Tensor, dst: cute.Pointer, a: cutlass.Int32, b: cutlass.Float32):
    bidx, _, _ = cute.arch.block_idx()
    items = coop.ThreadData(ITEMS, cutlass.Float32)
    coop.block.load(src, items, offset=bidx * TILE)
    items.store(items.load() * a.to(cutlass.Float32) + b)
    coop.block.store(dst, items, offset=bidx * TILE)


@cute.jit
def host(
    src: cute.Tensor, dst: cute.Pointer, a: cutlass.Int32, b: cutlass.Float32, stream: cuda_driver.CUstream
):
    axpb_kernel(src, dst, a, b).launch(grid=(N // TILE, 1, 1), block=(THREADS, 1, 1), stream=stream)


def host_fakes():  # type: ignore[no-untyped-def]
    """The arguments ``host`` is compiled for: a tensor, a pointer, two scalars and a stream."""
    dst = make_ptr(cutlass.Float32, 0, cute.AddressSpace.gmem, assumed_align=16)
    return [fakes()[0], dst, cutlass.Int32(3), cutlass.Float32(1.0), make_fake_stream()]


def prepared_launches(dst, batches):  # type: ignore[no-untyped-def]
    """On a GPU: ``host`` prepared once and launched on each torch tensor of ``batches``."""
    import torch

    fake_args = host_fakes()
    src = batches[0]
    # doc-start: prepared
    compiled = cutlass_coop.compile(host, *fake_args)
    p = compiled.prepare(src, dst.data_ptr(), 3, 1.0, torch.cuda.current_stream().cuda_stream)
    for src in batches:
        p.launch(src, dst.data_ptr(), 3, 1.0, torch.cuda.current_stream().cuda_stream)
    # doc-end: prepared


def launch_cubin(src_ptr, dst_ptr):  # type: ignore[no-untyped-def]
    """On a GPU: ``scale`` compiled for 4 blocks, its cubin launched with cuda.core."""
    compiled = cutlass_coop.compile(scale, *[make_fake_compact_tensor(cutlass.Float32, (4 * TILE,))] * 2)
    # fmt: off
    # doc-start: cuda-core
    from cuda.core import Device, LaunchConfig, ObjectCode, launch

    dev = Device()
    dev.set_current()
    kernel = ObjectCode.from_cubin(compiled.cubin).get_kernel(compiled.inspect().functions[0])
    launch(dev.create_stream(), LaunchConfig(grid=4, block=128), kernel, src_ptr, dst_ptr)
    # doc-end: cuda-core
    # fmt: on


@cute.kernel
def complex_kernel(src_re: cute.Tensor, src_im: cute.Tensor, dst: cute.Tensor):
    bidx, _, _ = cute.arch.block_idx()
    # doc-start: complex-pairs
    re = coop.ThreadData(4, cutlass.Float32)  # np.float32 in Numba
    im = coop.ThreadData(4, cutlass.Float32)
    coop.block.load(src_re, re)
    coop.block.load(src_im, im)
    p_re, p_im = coop.block.inclusive_scan((re, im), "complex_mul")
    s = coop.block.sum((re, im))  # (sum of re, sum of im)
    # doc-end: complex-pairs
    # doc-start: complex-user-op
    e_re, e_im = coop.block.exclusive_scan((re, im), product, initial_value=(1.0, 0.0))
    # doc-end: complex-user-op
    coop.block.store(dst, p_re, offset=bidx * 4 * THREADS)
    tidx, _, _ = cute.arch.thread_idx()
    if tidx == 0:
        dst[0] = s[0] + s[1] + p_im[0] + e_re[0] + e_im[0]


# doc-start: complex-operator
def product(p, q):  # the same product, as a user operator
    return p[0] * q[0] - p[1] * q[1], p[0] * q[1] + p[1] * q[0]
    # doc-end: complex-operator


@cute.jit
def complex_host(src_re: cute.Tensor, src_im: cute.Tensor, dst: cute.Tensor):
    complex_kernel(src_re, src_im, dst).launch(grid=(1, 1, 1), block=(THREADS, 1, 1))


#: (host function, a function that makes the fake arguments) of each CuTe host function
CUTE = [
    (scale, fakes),
    (host, host_fakes),
    (complex_host, lambda: [make_fake_compact_tensor(cutlass.Float32, (4 * THREADS,)) for _ in range(3)]),
]
HOST = [
    compile_many,
]
