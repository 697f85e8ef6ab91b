# SPDX-License-Identifier: Apache-2.0
"""Call a CuTe kernel with torch tensors and CuPy arrays, and launch it prepared.

The ``@cute.jit`` function is compiled once, for a tensor of a fixed size, a raw pointer, a
scalar and a stream. Its compiled form then takes torch tensors and CuPy arrays where the tensor
goes (no ``from_dlpack`` in user code: each is checked against the compiled tensor), an int
address or a GPU array where the pointer goes, and a stream object or handle. Each thread calls
through a call state of its own (made at its first call, keeping none of the arguments): a torch
tensor or CuPy array like one passed before costs a few attribute reads, not a conversion. A
prepared launch binds the arguments once and then only rewrites their slots.

Without a GPU it compiles ahead of time for sm_90a and prints the cubin report.
"""

from __future__ import annotations

import os

try:
    from cuda.core import Device

    Device().set_current()
    HAVE_GPU = True
except Exception:  # no driver or no device
    HAVE_GPU = False
if not HAVE_GPU:
    os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")  # compile-only: name the target

import cuda.bindings.driver as cuda  # noqa: E402
import cuda.coop.cutlass as cutlass_coop  # noqa: E402
import cutlass  # noqa: E402
import cutlass.cute as cute  # noqa: E402
from cuda import coop  # noqa: E402
from cutlass.cute.runtime import make_fake_compact_tensor, make_fake_stream, make_ptr  # noqa: E402

THREADS, ITEMS = 128, 4
TILE = THREADS * ITEMS
N = TILE * 64


@cute.kernel  # type: ignore[untyped-decorator]
def scale_kernel(src: cute.Tensor, dst: cute.Pointer, factor: cutlass.Int32) -> None:
    bidx, _, _ = cute.arch.block_idx()
    items = coop.ThreadData(ITEMS, cutlass.Int32)
    coop.block.load(src, items, offset=bidx * TILE, algorithm="vectorize")
    for i in cutlass.range_constexpr(ITEMS):
        items[i] = items[i] * factor
    coop.block.store(dst, items, offset=bidx * TILE, algorithm="vectorize")


@cute.jit  # type: ignore[untyped-decorator]
def scale(src: cute.Tensor, dst: cute.Pointer, factor: cutlass.Int32, stream: cuda.CUstream) -> None:
    scale_kernel(src, dst, factor).launch(grid=(N // TILE, 1, 1), block=(THREADS, 1, 1), stream=stream)


def compile_for_this_machine() -> cutlass_coop.CompiledCuteFunction:
    fake_src = make_fake_compact_tensor(cutlass.Int32, (N,), assumed_align=16)
    fake_dst = make_ptr(cutlass.Int32, 0, cute.AddressSpace.gmem, assumed_align=16)
    return cutlass_coop.compile(scale, fake_src, fake_dst, cutlass.Int32(1), make_fake_stream())


def run_with_torch(compiled: cutlass_coop.CompiledCuteFunction) -> None:
    try:
        import torch
    except ImportError:
        print("torch is not installed: no torch run (pip install torch)")
        return
    stream = torch.cuda.current_stream()
    src = torch.randint(-1000, 1000, (N,), dtype=torch.int32, device="cuda")
    dst = torch.full((N,), -7, dtype=torch.int32, device="cuda")
    compiled(src, dst, 3, stream)  # a torch tensor for the tensor, a tensor's address for the pointer
    torch.testing.assert_close(dst, src * 3)
    for factor in (2, -5):  # tensors like the last ones: no conversion, only their data pointers
        src2 = torch.randint(-1000, 1000, (N,), dtype=torch.int32, device="cuda")
        compiled(src2, dst, factor, stream)
        torch.testing.assert_close(dst, src2 * factor)

    prepared = compiled.prepare(src, dst, 3, stream)
    for factor in (2, -5, 7):
        src2 = torch.randint(-1000, 1000, (N,), dtype=torch.int32, device="cuda")
        prepared.launch(src2, dst.data_ptr(), factor, stream)  # only the slots change
        torch.testing.assert_close(dst, src2 * factor)
    print("torch: 3 calls and 3 prepared launches match")


def run_with_cupy(compiled: cutlass_coop.CompiledCuteFunction) -> None:
    try:
        import cupy as cp
    except ImportError:
        print("CuPy is not installed: no CuPy run (pip install cupy-cuda13x)")
        return
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        src = cp.arange(-N // 2, N // 2, dtype=cp.int32)
        dst = cp.full(N, -7, dtype=cp.int32)
    compiled(src, dst, 4, stream)
    stream.synchronize()
    assert bool(cp.all(dst == src * 4)), "CuPy: wrong result"
    print("CuPy: the call on a CuPy stream matches")


def main() -> None:
    compiled = compile_for_this_machine()
    if not HAVE_GPU:
        print("no GPU here: compiled scale ahead of time for sm_90a")
        print(compiled.inspect().summary())
        return
    run_with_torch(compiled)
    run_with_cupy(compiled)


if __name__ == "__main__":
    main()
