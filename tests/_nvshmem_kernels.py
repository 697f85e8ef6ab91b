# SPDX-License-Identifier: Apache-2.0
"""Kernels that call a coop primitive and NVSHMEM (nvshmem4py's device API of their DSL): each block
sums its tile of ``x`` (``coop.block.sum``) and thread 0 puts the total into ``out[block]`` on the
next PE (``p``: PE 0 to itself with one PE). Compiled ahead of time by ``tests/test_nvshmem_aot.py``
and run by ``tests/test_nvshmem_gpu.py``.

Import-safe without nvshmem4py or any DSL: each factory imports what it needs. (No ``from __future__
import annotations``: CuTe evaluates a kernel's annotations, here ``cute`` of the factory's scope.)
"""

from typing import Any

#: Threads per block (one item each) and blocks of the kernels below.
THREADS = 128
BLOCKS = 4


def numba_kernel(threads: int = THREADS) -> Any:
    """A Python function for ``cuda.coop.numba`` (``jit`` or ``compile``), ``(x: float32[::1],
    out: float32[::1])``."""
    import nvshmem.core.device.numba as shmem
    from cuda import coop
    from numba import cuda

    def block_sum_put(x, out):  # type: ignore[no-untyped-def]
        b = cuda.blockIdx.x
        total = coop.block.sum(x[b * threads + cuda.threadIdx.x])
        if cuda.threadIdx.x == 0:
            shmem.p(out[b : b + 1], total, (shmem.my_pe() + 1) % shmem.n_pes())

    return block_sum_put


def numba_mlir_kernel(threads: int = THREADS) -> Any:
    """The same kernel for ``cuda.coop.numba_mlir``."""
    import nvshmem.core.device.numba_cuda_mlir as shmem
    from cuda import coop
    from numba_cuda_mlir import cuda

    def block_sum_put(x, out):  # type: ignore[no-untyped-def]
        b = cuda.blockIdx.x
        total = coop.block.sum(x[b * threads + cuda.threadIdx.x])
        if cuda.threadIdx.x == 0:
            shmem.p(out[b : b + 1], total, (shmem.my_pe() + 1) % shmem.n_pes())

    return block_sum_put


def cute_host(threads: int = THREADS, blocks: int = BLOCKS) -> Any:
    """A ``@cute.jit`` host for ``cuda.coop.cutlass.compile``, ``(x, out)`` float32 tensors."""
    import cutlass.cute as cute
    import nvshmem.core.device.cute as shmem
    from cuda import coop

    @cute.kernel
    def block_sum_put(x: cute.Tensor, out: cute.Tensor):  # type: ignore[no-untyped-def]
        tidx, _, _ = cute.arch.thread_idx()
        bidx, _, _ = cute.arch.block_idx()
        total = coop.block.sum(x[bidx * threads + tidx])
        if tidx == 0:
            dst = cute.make_tensor(out.iterator + bidx, cute.make_layout(1))
            shmem.p(dst, total, (shmem.my_pe() + 1) % shmem.n_pes())

    @cute.jit
    def host(x: cute.Tensor, out: cute.Tensor):  # type: ignore[no-untyped-def]
        block_sum_put(x, out).launch(grid=(blocks, 1, 1), block=(threads, 1, 1))

    return host
