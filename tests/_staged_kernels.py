# SPDX-License-Identifier: Apache-2.0
"""Kernels and NumPy references of the ``coop.block.load_to_shared`` tests, Numba and CuTe of the same
form: each block copies two runs of ``src`` into one shared array and every thread writes back what
the array holds, read in reverse (so that each thread reads items that other threads' copies, or the
bulk copy, brought). The first run is aligned for the bulk copy when the case says so; the second
starts one item later (never 16-byte aligned: the striped fallback), after a block barrier, reusing
the call's scratch and the shared array. ``out`` gets ``2 * num`` items a block."""

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

#: Block shapes: whole warps, 96 threads in 2-D, 70 threads in 3-D (a partial hardware warp).
BLOCKS: tuple[tuple[int, int, int], ...] = ((128, 1, 1), (32, 3, 1), (5, 7, 2))
GRID = 3


@dataclass(frozen=True)
class Case:
    dtype: str
    block: tuple[int, int, int]
    num: int  # items a run
    cap: int  # the shared array's items (>= num)
    stride: int  # items between blocks' runs in src
    dynamic: bool = False  # Numba: a dynamic shared array, launched with ``shared_bytes``

    @property
    def shared_bytes(self) -> int:
        return self.cap * np.dtype(self.dtype).itemsize

    @property
    def threads(self) -> int:
        return math.prod(self.block)

    @property
    def bulk(self) -> bool:
        """The first run takes the bulk copy (16-byte aligned start, stride and length)."""
        size = np.dtype(self.dtype).itemsize
        return (self.num * size) % 16 == 0 and (self.stride * size) % 16 == 0

    def id(self) -> str:
        dynamic = "-dynamic" if self.dynamic else ""
        return f"{self.dtype}-{'x'.join(map(str, self.block))}-n{self.num}-s{self.stride}{dynamic}"


def cases() -> list[Case]:
    out = []
    for block in BLOCKS:
        out.append(Case("float32", block, 4096, 4096, 4096))  # bulk, 16 KB
        out.append(Case("float32", block, 1001, 1024, 1003))  # odd length and stride: fallback
        out.append(Case("int16", block, 2048, 2048, 2056))  # 2-byte items, bulk
        out.append(Case("float64", block, 777, 800, 800))  # fallback (length not a multiple of 2)
    # the other element types, one block shape: bulk where the run is whole 16-byte units
    for dtype, num, stride in (("int8", 4096, 4096), ("uint8", 1001, 1003), ("float16", 2048, 2048),
                               ("uint32", 1000, 1000), ("int64", 512, 512), ("int64", 777, 800)):  # fmt: skip
        out.append(Case(dtype, (128, 1, 1), num, max(num, 1024), stride))
    # 64 KB of shared memory: above the 48 KB a kernel may take without opting in
    out.append(Case("float32", (512, 1, 1), 16384, 16384, 16384, dynamic=True))
    return out


def data(rng: np.random.Generator, case: Case) -> np.ndarray:
    n = GRID * case.stride + 1 + case.num
    if case.dtype.startswith("float"):
        return rng.standard_normal(n).astype(case.dtype)
    info = np.iinfo(case.dtype)
    return rng.integers(info.min, info.max, n, dtype=case.dtype, endpoint=True)


def reference(src: np.ndarray, case: Case) -> np.ndarray:
    out = np.empty(GRID * 2 * case.num, case.dtype)
    for b in range(GRID):
        first = src[b * case.stride : b * case.stride + case.num]
        second = src[b * case.stride + 1 : b * case.stride + 1 + case.num]
        out[b * 2 * case.num : (2 * b + 1) * case.num] = first[::-1]
        out[(2 * b + 1) * case.num : (2 * b + 2) * case.num] = second[::-1]
    return out


def numba_kernel(case: Case) -> Any:
    from cuda import coop
    from numba import cuda

    num, cap, stride, threads, (bx, by, _bz) = case.num, case.cap, case.stride, case.threads, case.block
    dtype, dynamic = np.dtype(case.dtype), case.dynamic

    def kernel(src, out):  # type: ignore[no-untyped-def]
        b = cuda.blockIdx.x
        t = cuda.threadIdx.x + bx * (cuda.threadIdx.y + by * cuda.threadIdx.z)
        staged = cuda.shared.array(0 if dynamic else cap, dtype)
        coop.block.load_to_shared(src, staged, num, offset=b * stride)
        for i in range(t, num, threads):
            out[b * 2 * num + i] = staged[num - 1 - i]
        cuda.syncthreads()  # every thread has read the first run before the second overwrites it
        coop.block.load_to_shared(src, staged, num, offset=b * stride + 1)
        for i in range(t, num, threads):
            out[(2 * b + 1) * num + i] = staged[num - 1 - i]

    return kernel


def cute_host(case: Case) -> Any:
    import cutlass.cute as cute
    from cuda import coop
    from cutlass.memory import SmemAllocator

    num, cap, stride, threads, (bx, by, bz) = case.num, case.cap, case.stride, case.threads, case.block
    from cuda.coop.cutlass._backend import cutlass_type

    kind = cutlass_type(case.dtype)

    @cute.kernel
    def kernel(src: cute.Tensor, out: cute.Tensor) -> None:
        b, _, _ = cute.arch.block_idx()
        tx, ty, tz = cute.arch.thread_idx()
        t = tx + bx * (ty + by * tz)
        staged = SmemAllocator().allocate_tensor(kind, cute.make_layout(cap), byte_alignment=16)
        coop.block.load_to_shared(src, staged, num, offset=b * stride)
        for i in range(t, num, threads):
            out[b * 2 * num + i] = staged[num - 1 - i]
        cute.arch.sync_threads()
        coop.block.load_to_shared(src, staged, num, offset=b * stride + 1)
        for i in range(t, num, threads):
            out[(2 * b + 1) * num + i] = staged[num - 1 - i]

    @cute.jit
    def host(src: cute.Tensor, out: cute.Tensor) -> None:
        kernel(src, out).launch(grid=(GRID, 1, 1), block=(bx, by, bz))

    return host


def cute_error_hosts() -> tuple[Any, Any]:
    """Two CuTe hosts whose calls are refused: ``dst`` a tensor in global memory, and ``src`` one in
    shared memory."""
    import cutlass
    import cutlass.cute as cute
    from cuda import coop
    from cutlass.memory import SmemAllocator

    @cute.kernel
    def global_dst(x: cute.Tensor, y: cute.Tensor) -> None:
        coop.block.load_to_shared(x, y, 128)

    @cute.kernel
    def shared_src(x: cute.Tensor, y: cute.Tensor) -> None:
        s = SmemAllocator().allocate_tensor(cutlass.Float32, cute.make_layout(128), byte_alignment=16)
        t = SmemAllocator().allocate_tensor(cutlass.Float32, cute.make_layout(128), byte_alignment=16)
        coop.block.load_to_shared(s, t, 128)

    @cute.jit
    def host_global_dst(x: cute.Tensor, y: cute.Tensor) -> None:
        global_dst(x, y).launch(grid=(1, 1, 1), block=(128, 1, 1))

    @cute.jit
    def host_shared_src(x: cute.Tensor, y: cute.Tensor) -> None:
        shared_src(x, y).launch(grid=(1, 1, 1), block=(128, 1, 1))

    return host_global_dst, host_shared_src
