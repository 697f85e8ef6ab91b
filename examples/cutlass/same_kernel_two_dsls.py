# SPDX-License-Identifier: Apache-2.0
"""One algorithm written for both DSLs: the coop calls are identical in Numba and in CuTe.

Each kernel loads a tile with ``warp_transpose``, doubles it, and stores it back. In the CuTe
kernel the ThreadData is a register tensor: ``cutlass_coop.to_ssa(items)`` gives a TensorSSA that
ordinary CuTe arithmetic uses, and ``cutlass_coop.from_ssa(items, value)`` puts the result back.

On a GPU both run and their outputs are compared bit for bit; without one both are compiled ahead
of time for sm_90a and their SASS is reported.
"""

import os

import cuda.coop.numba as numba_coop
import numpy as np
from cuda import coop
from numba import cuda
from numpy.typing import NDArray

THREADS, ITEMS = 128, 8
TILE = THREADS * ITEMS


@numba_coop.jit
def numba_scale(src: NDArray[np.float32], dst: NDArray[np.float32]) -> None:
    items = coop.ThreadData(ITEMS, np.float32)
    coop.block.load(src, items, offset=cuda.blockIdx.x * TILE, algorithm="warp_transpose")
    for i in range(ITEMS):
        items[i] *= 2.0
    coop.block.store(dst, items, offset=cuda.blockIdx.x * TILE, algorithm="warp_transpose")


if not cuda.is_available():
    os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")  # compile-only: name the target

import cuda.coop.cutlass as cutlass_coop  # noqa: E402
import cutlass  # noqa: E402
import cutlass.cute as cute  # noqa: E402


@cute.kernel  # type: ignore[untyped-decorator]
def cute_scale_kernel(src: cute.Tensor, dst: cute.Tensor) -> None:
    bidx, _, _ = cute.arch.block_idx()
    items = coop.ThreadData(ITEMS, cutlass.Float32)
    coop.block.load(src, items, offset=bidx * TILE, algorithm="warp_transpose")
    cutlass_coop.from_ssa(items, cutlass_coop.to_ssa(items) * 2.0)
    coop.block.store(dst, items, offset=bidx * TILE, algorithm="warp_transpose")


@cute.jit  # type: ignore[untyped-decorator]
def cute_scale(src: cute.Tensor, dst: cute.Tensor) -> None:
    cute_scale_kernel(src, dst).launch(grid=(cute.size(src) // TILE, 1, 1), block=(THREADS, 1, 1))


def main() -> None:
    if not cuda.is_available():
        from cutlass.cute.runtime import make_fake_compact_tensor

        n = 64 * TILE
        fake = [make_fake_compact_tensor(cutlass.Float32, (n,), assumed_align=16) for _ in range(2)]
        print("no GPU here: compiled for sm_90a")
        print("CuTe:  " + cutlass_coop.compile(cute_scale, *fake).inspect().summary())
        sig = "void(float32[::1], float32[::1])"
        print("Numba: " + numba_coop.compile(numba_scale, sig, block=THREADS).inspect().summary())
        return
    import torch
    from cutlass.cute.runtime import from_dlpack

    n = 64 * TILE
    src = torch.randn(n, device="cuda")
    out_numba, out_cute = torch.empty_like(src), torch.empty_like(src)
    numba_scale[n // TILE, THREADS](cuda.as_cuda_array(src), cuda.as_cuda_array(out_numba))
    args = [from_dlpack(t, assumed_align=16) for t in (src, out_cute)]
    cutlass_coop.compile(cute_scale, *args)(*args)
    torch.cuda.synchronize()
    assert torch.equal(out_numba, out_cute) and torch.equal(out_cute, src * 2)
    print(f"Numba and CuTe kernels agree bit for bit on {n} items")


if __name__ == "__main__":
    main()
