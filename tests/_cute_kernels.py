# SPDX-License-Identifier: Apache-2.0
"""CuTe DSL kernels shared by the CUTLASS backend tests (written once, traced per config).

No ``from __future__ import annotations`` here: CuTe evaluates kernel annotations at trace time.
"""

from typing import Any

import cuda.bindings.driver as cuda
import cutlass
import cutlass.cute as cute
from cuda import coop
from cuda.coop.cutlass._backend import cutlass_type

ALGORITHMS = [
    "direct", "striped", "vectorize", "striped_vectors",
    "transpose", "warp_transpose", "warp_transpose_timesliced",
]  # fmt: skip
KINDS = ["load", "load_partial", "load_oob", "store", "store_partial"]
GRID = 3


def grid_host(dtype: str, block: tuple[int, int, int], ipt: int, modes: list[tuple[str, str]]) -> Any:
    """A @cute.jit host launching one kernel that runs ``modes[mode]`` (all traced, one chosen at
    run time): loads write the thread's items back thread-major; stores write through coop, then the
    thread's items (which a store leaves as they are) into ``src``."""
    dt = cutlass_type(dtype)
    bx, by, bz = block
    tile = bx * by * bz * ipt

    @cute.kernel
    def kernel(src: cute.Tensor, init: cute.Tensor, out: cute.Tensor, oob: cute.Tensor,
               mode: cutlass.Int32, shift: cutlass.Int32, valid: cutlass.Int32):  # fmt: skip
        tx, ty, tz = cute.arch.thread_idx()
        bidx, _, _ = cute.arch.block_idx()
        t = tx + bx * (ty + by * tz)
        base = bidx * tile
        items = coop.ThreadData(ipt, dt)
        for j in cutlass.range_constexpr(ipt):
            items[j] = init[base + t * ipt + j]
        for m in cutlass.range_constexpr(len(modes)):
            if mode == m:
                alg, kind = modes[m]
                if cutlass.const_expr(kind == "load"):
                    coop.block.load(src, items, offset=base + shift, algorithm=alg)
                if cutlass.const_expr(kind == "load_partial"):
                    coop.block.load(src, items, offset=base + shift, algorithm=alg, valid_items=valid)
                if cutlass.const_expr(kind == "load_oob"):
                    coop.block.load(src, items, offset=base + shift, algorithm=alg, valid_items=valid,
                                    oob_default=oob[0])  # fmt: skip
                if cutlass.const_expr(kind == "store"):
                    coop.block.store(out, items, offset=base + shift, algorithm=alg)
                if cutlass.const_expr(kind == "store_partial"):
                    coop.block.store(out, items, offset=base + shift, algorithm=alg, valid_items=valid)
                if cutlass.const_expr(kind.startswith("load")):
                    for j in cutlass.range_constexpr(ipt):
                        out[base + t * ipt + j] = items[j]
                else:  # a store leaves the items as they are: written into src
                    for j in cutlass.range_constexpr(ipt):
                        src[base + t * ipt + j] = items[j]

    @cute.jit
    def host(src: cute.Tensor, init: cute.Tensor, out: cute.Tensor, oob: cute.Tensor,
             mode: cutlass.Int32, shift: cutlass.Int32, valid: cutlass.Int32):  # fmt: skip
        kernel(src, init, out, oob, mode, shift, valid).launch(grid=(GRID, 1, 1), block=(bx, by, bz))

    return host


def copy_host(dtype: str, block: tuple[int, int, int], ipt: int, algorithm: str, **load_kwargs: Any) -> Any:
    """A @cute.jit host launching a load + store copy kernel over a 1-D tensor."""
    dt = cutlass_type(dtype)
    tile = block[0] * block[1] * block[2] * ipt

    @cute.kernel
    def kernel(src: cute.Tensor, dst: cute.Tensor):
        bidx, _, _ = cute.arch.block_idx()
        items = coop.ThreadData(ipt, dt)
        coop.block.load(src, items, offset=bidx * tile, algorithm=algorithm, **load_kwargs)
        coop.block.store(dst, items, offset=bidx * tile, algorithm=algorithm)

    @cute.jit
    def host(src: cute.Tensor, dst: cute.Tensor):
        kernel(src, dst).launch(grid=(4, 1, 1), block=block)

    return host


def narrow_rows_host(dtype: str, threads: int, items: int) -> Any:
    """A @cute.jit host launching an RMSNorm of rows of ``threads * items`` items of ``dtype`` (a
    float type; items converted to float32 and back in the kernel): x and the weight row loaded and
    y stored with ``vectorize``, one block per row."""
    dt = cutlass_type(dtype)
    tile = threads * items

    @cute.kernel
    def kernel(x: cute.Tensor, w: cute.Tensor, y: cute.Tensor):
        b, _, _ = cute.arch.block_idx()
        xs = coop.ThreadData(items, dt)
        ws = coop.ThreadData(items, dt)
        coop.block.load(x, xs, offset=b * tile, algorithm="vectorize")
        coop.block.load(w, ws, algorithm="vectorize")
        part = cutlass.Float32(0.0)
        for i in cutlass.range_constexpr(items):
            v = xs[i].to(cutlass.Float32)
            part += v * v
        scale = cute.math.rsqrt(coop.block.sum(part, broadcast=True) * (1.0 / tile) + 1e-6)
        for i in cutlass.range_constexpr(items):
            xs[i] = (xs[i].to(cutlass.Float32) * scale * ws[i].to(cutlass.Float32)).to(dt)
        coop.block.store(y, xs, offset=b * tile, algorithm="vectorize")

    @cute.jit
    def host(x: cute.Tensor, w: cute.Tensor, y: cute.Tensor):
        kernel(x, w, y).launch(grid=(cute.size(x) // tile, 1, 1), block=(threads, 1, 1))

    return host


TWO_KERNEL_TILE = 256 * 16  # the large kernel's tile (int32)


def two_kernel_host() -> Any:
    """One host function launching two coop kernels with different blocks and scratch sizes, the
    second through a nested @cute.jit. ``small`` moves the first 64 x 2 int32 of ``src`` to
    ``dst_small`` (transpose load, striped store: blocked in, striped out); ``large`` copies all
    of ``src`` to ``dst_large`` in tiles of 256 x 16 (warp_transpose load, transpose store)."""

    @cute.kernel
    def small(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(2, cutlass.Int32)
        coop.block.load(src, items, algorithm="transpose")
        coop.block.store(dst, items, algorithm="striped")

    @cute.kernel
    def large(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        base = cute.arch.block_idx()[0] * TWO_KERNEL_TILE
        items = coop.ThreadData(16, cutlass.Int32)
        coop.block.load(src, items, offset=base, algorithm="warp_transpose")
        coop.block.store(dst, items, offset=base, algorithm="transpose")

    @cute.jit
    def launch_large(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        large(src, dst).launch(grid=(cute.size(src) // TWO_KERNEL_TILE, 1, 1), block=(256, 1, 1))

    @cute.jit
    def host(src: cute.Tensor, dst_small: cute.Tensor, dst_large: cute.Tensor):  # type: ignore[no-untyped-def]
        small(src, dst_small).launch(grid=(1, 1, 1), block=(64, 1, 1))
        launch_large(src, dst_large)

    return host


def env_stream_copy_host() -> Any:
    """A @cute.jit host copying a whole 1-D int32 tensor (tiles of 128 x 4, a transpose load and
    store) on the stream it is given; compiled with ``make_fake_stream(use_tvm_ffi_env_stream=True)``
    and ``--enable-tvm-ffi`` its entry takes only the two tensors and launches on TVM-FFI's
    environment stream (``tvm_ffi.use_torch_stream()`` sets it to torch's current stream)."""
    import cuda.bindings.driver as cuda_driver

    tile = 128 * 4

    @cute.kernel
    def kernel(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        b, _, _ = cute.arch.block_idx()
        items = coop.ThreadData(4, cutlass.Int32)
        coop.block.load(src, items, offset=b * tile, algorithm="transpose")
        coop.block.store(dst, items, offset=b * tile, algorithm="transpose")

    @cute.jit
    def host(src: cute.Tensor, dst: cute.Tensor, stream: cuda_driver.CUstream):  # type: ignore[no-untyped-def]
        kernel(src, dst).launch(grid=(cute.size(src) // tile, 1, 1), block=(128, 1, 1), stream=stream)

    return host


def env_stream_copy_args(n: int) -> tuple[Any, ...]:
    """Compile-time arguments of :func:`env_stream_copy_host` for ``n`` items (a multiple of 512)."""
    from cutlass.cute.runtime import make_fake_stream

    return fake_tensor("int32", n), fake_tensor("int32", n), make_fake_stream(use_tvm_ffi_env_stream=True)


def plain_host() -> Any:
    """A @cute.jit host launching a kernel without coop calls (adds 1 to 64 int32s)."""

    @cute.kernel
    def kernel(dst: cute.Tensor):
        tidx, _, _ = cute.arch.thread_idx()
        dst[tidx] = dst[tidx] + 1

    @cute.jit
    def host(dst: cute.Tensor):
        kernel(dst).launch(grid=(1, 1, 1), block=(64, 1, 1))

    return host


def fake_tensor(dtype: str, n: int) -> Any:
    """A CuTe tensor description for ahead-of-time compiles (no memory, no GPU)."""
    from cutlass.cute.runtime import make_fake_compact_tensor

    return make_fake_compact_tensor(cutlass_type(dtype), (n,), assumed_align=16)


def temp_storage_host() -> Any:
    """A @cute.jit host whose kernel reuses one caller-owned TempStorage for a transpose load, an
    exclusive sum with its aggregate, a blocked-to-striped exchange and a striped store (tiles of
    128 x 4 int32; thread 0 writes each tile's total)."""

    @cute.kernel
    def kernel(src: cute.Tensor, dst: cute.Tensor, totals: cute.Tensor):  # type: ignore[no-untyped-def]
        bidx, _, _ = cute.arch.block_idx()
        tidx, _, _ = cute.arch.thread_idx()
        ts = coop.TempStorage()
        items = coop.ThreadData(4, cutlass.Int32)
        coop.block.load(src, items, offset=bidx * 512, algorithm="transpose", temp_storage=ts)
        cute.arch.barrier()
        out, total = coop.block.exclusive_sum(items, block_aggregate=True, temp_storage=ts)
        cute.arch.barrier()
        coop.block.exchange(out, "blocked_to_striped", temp_storage=ts)
        cute.arch.barrier()
        coop.block.store(dst, out, offset=bidx * 512, algorithm="striped", temp_storage=ts)
        if tidx == 0:
            totals[bidx] = total

    @cute.jit
    def host(src: cute.Tensor, dst: cute.Tensor, totals: cute.Tensor):  # type: ignore[no-untyped-def]
        kernel(src, dst, totals).launch(grid=(cute.size(totals), 1, 1), block=(128, 1, 1))

    return host


def launch_host() -> Any:
    """A @cute.jit host with one argument of each kind a prepared launch rewrites: a tensor ``src``,
    a raw pointer ``dst`` (int32, 16-byte aligned), an int32 ``scale``, a float32 ``offset`` and a
    stream. Tiles of 128 x 4 int32: ``dst[i] = src[i] * scale + int(offset)`` over
    ``cute.size(src)`` items (a whole number of tiles), through a transpose load and store."""

    @cute.kernel
    def kernel(src: cute.Tensor, dst: cute.Pointer, scale: cutlass.Int32, offset: cutlass.Float32):  # type: ignore[no-untyped-def]
        bidx, _, _ = cute.arch.block_idx()
        items = coop.ThreadData(4, cutlass.Int32)
        coop.block.load(src, items, offset=bidx * 512, algorithm="transpose")
        for j in cutlass.range_constexpr(4):
            items[j] = items[j] * scale + cutlass.Int32(offset)
        coop.block.store(dst, items, offset=bidx * 512, algorithm="transpose")

    @cute.jit
    def host(src: cute.Tensor, dst: cute.Pointer, scale: cutlass.Int32, offset: cutlass.Float32,  # type: ignore[no-untyped-def]
             stream: cuda.CUstream):  # fmt: skip
        kernel(src, dst, scale, offset).launch(
            grid=(cute.size(src) // 512, 1, 1), block=(128, 1, 1), stream=stream
        )

    return host


def launch_args(n: int) -> tuple[Any, ...]:
    """Compile-time arguments of :func:`launch_host` for ``n`` items."""
    from cutlass.cute.runtime import make_fake_stream, make_ptr

    return (fake_tensor("int32", n), make_ptr(cutlass.Int32, 0, cute.AddressSpace.gmem, assumed_align=16),
            cutlass.Int32(1), cutlass.Float32(0.0), make_fake_stream())  # fmt: skip
