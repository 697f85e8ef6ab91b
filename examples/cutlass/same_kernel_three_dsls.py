# SPDX-License-Identifier: Apache-2.0
"""One algorithm written for three DSLs: the coop calls are identical in numba-cuda,
numba-cuda-mlir and CuTe.

Each kernel loads a tile with ``warp_transpose``, doubles it, and stores it back. The
numba-cuda-mlir kernel is the numba-cuda one with the other ``cuda`` module. In the CuTe kernel the
ThreadData is a register tensor: ``cutlass_coop.to_ssa(items)`` gives a TensorSSA that ordinary CuTe
arithmetic uses, and ``cutlass_coop.from_ssa(items, value)`` puts the result back.

On a GPU all three run and their outputs are compared bit for bit; without one they are compiled
ahead of time for sm_90a and their SASS is reported. Without numba-cuda-mlir (Python 3.10, or the
numba-mlir extra not installed) the other two run.
"""

import importlib.util
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


HAVE_MLIR = importlib.util.find_spec("numba_cuda_mlir") is not None
if HAVE_MLIR:
    import cuda.coop.numba_mlir as mlir_coop
    from numba_cuda_mlir import cuda as mlir_cuda

    @mlir_coop.jit
    def mlir_scale(src: NDArray[np.float32], dst: NDArray[np.float32]) -> None:
        items = coop.ThreadData(ITEMS, np.float32)
        coop.block.load(src, items, offset=mlir_cuda.blockIdx.x * TILE, algorithm="warp_transpose")
        for i in range(ITEMS):
            items[i] *= 2.0
        coop.block.store(dst, items, offset=mlir_cuda.blockIdx.x * TILE, algorithm="warp_transpose")


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
        if HAVE_MLIR:
            print("numba-cuda-mlir: " + mlir_coop.compile(mlir_scale, sig, block=THREADS).inspect().summary())
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
    if HAVE_MLIR:
        out_mlir = torch.full_like(src, float("nan"))
        mlir_scale[n // TILE, THREADS](src, out_mlir)
        torch.cuda.synchronize()
        assert torch.equal(out_mlir, out_numba)
    dsls = "numba-cuda, numba-cuda-mlir and CuTe" if HAVE_MLIR else "Numba and CuTe"
    print(f"{dsls} kernels agree bit for bit on {n} items")


if __name__ == "__main__":
    main()
