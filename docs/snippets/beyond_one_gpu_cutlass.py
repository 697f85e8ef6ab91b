# SPDX-License-Identifier: Apache-2.0
"""docs/beyond_one_gpu.rst: a CuTe kernel with a coop call and NVSHMEM calls, and NVSHMEM's
initialisation of its device code. Needs nvshmem4py (the ``nvshmem`` extra) and the CuTe DSL:
tests/test_nvshmem_aot.py compiles ``NVSHMEM_CUTE`` where they are installed; ``run`` needs a GPU
(it only parses here)."""

# ruff: noqa: I001 (the page shows the imports in its order)
# doc-start: cute-kernel
import cutlass.cute as cute
import nvshmem.core.device.cute as shmem

import cuda.coop.cutlass as cutlass_coop
from cuda import coop

THREADS, BLOCKS = 128, 4


@cute.kernel
def block_sum_put(x: cute.Tensor, out: cute.Tensor):  # type: ignore[no-untyped-def]
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    total = coop.block.sum(x[bidx * THREADS + tidx])
    if tidx == 0:  # the block's total into out[bidx] on the next PE
        dst = cute.make_tensor(out.iterator + bidx, cute.make_layout(1))
        shmem.p(dst, total, (shmem.my_pe() + 1) % shmem.n_pes())


@cute.jit
def host(x: cute.Tensor, out: cute.Tensor):  # type: ignore[no-untyped-def]
    block_sum_put(x, out).launch(grid=(BLOCKS, 1, 1), block=(THREADS, 1, 1))
    # doc-end: cute-kernel


def run(x, out):  # type: ignore[no-untyped-def]
    """Needs a GPU: ``nvshmem.core.init`` done, ``x`` a tensor, ``out`` a symmetric one."""
    import nvshmem.core
    from cutlass.cute.runtime import from_dlpack

    # doc-start: cute-run
    compiled = cutlass_coop.compile(
        host, from_dlpack(x, assumed_align=16), from_dlpack(out, assumed_align=16)
    )
    handle = compiled.nvshmem_init()  # nvshmem.core.library_init of its loaded device code
    compiled(x, out)
    # ... once its launches are done:
    nvshmem.core.library_finalize(handle)
    # doc-end: cute-run


def _fake_args():  # type: ignore[no-untyped-def]
    import cutlass
    from cutlass.cute.runtime import make_fake_compact_tensor

    x = make_fake_compact_tensor(cutlass.Float32, (THREADS * BLOCKS,), assumed_align=16)
    return x, make_fake_compact_tensor(cutlass.Float32, (BLOCKS,), assumed_align=16)


NVSHMEM_CUTE = [
    (host, _fake_args),
]
