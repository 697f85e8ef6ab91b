# SPDX-License-Identifier: Apache-2.0
"""Row softmax and RMSNorm in a CuTe DSL kernel: coop block reductions next to ``cute.math``.

One block per row of 4096 float32: a striped load of ``src[row, None]``, the row's maximum and
sum with ``coop.block.reduce`` / ``coop.block.sum`` (``broadcast=True`` gives them to every
thread), ``cute.math.exp`` and ``cute.math.rsqrt`` on the items' TensorSSA in between (libdevice,
linked and inlined with the CUB bundle), a striped store. ``auto_sync=True`` on the shared
``coop.TempStorage`` puts the barrier between the reductions that reuse it.

On a GPU the results are checked against NumPy; without one the kernels are compiled ahead of time
for sm_90a and their SASS is reported.
"""

import os

import numpy as np
from cuda import coop
from numba import cuda

N, THREADS = 4096, 256
ITEMS = N // THREADS

if not cuda.is_available():
    os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")  # compile-only: name the target

import cuda.coop.cutlass as cutlass_coop  # noqa: E402
import cutlass  # noqa: E402
import cutlass.cute as cute  # noqa: E402


@cute.kernel  # type: ignore[untyped-decorator]
def softmax_kernel(src: cute.Tensor, dst: cute.Tensor) -> None:
    row, _, _ = cute.arch.block_idx()
    scratch = coop.TempStorage(auto_sync=True)
    items = coop.ThreadData(ITEMS, cutlass.Float32)
    coop.block.load(src[row, None], items, algorithm="striped")
    top = coop.block.reduce(items, "max", broadcast=True, temp_storage=scratch)
    cutlass_coop.from_ssa(items, cute.math.exp(cutlass_coop.to_ssa(items) - top))
    total = coop.block.sum(items, broadcast=True, temp_storage=scratch)
    cutlass_coop.from_ssa(items, cutlass_coop.to_ssa(items) * (1.0 / total))  # one division per thread
    coop.block.store(dst[row, None], items, algorithm="striped")


@cute.kernel  # type: ignore[untyped-decorator]
def rmsnorm_kernel(src: cute.Tensor, dst: cute.Tensor) -> None:
    row, _, _ = cute.arch.block_idx()
    items = coop.ThreadData(ITEMS, cutlass.Float32)
    squares = coop.ThreadData(ITEMS, cutlass.Float32)
    coop.block.load(src[row, None], items, algorithm="striped")
    x = cutlass_coop.to_ssa(items)
    cutlass_coop.from_ssa(squares, x * x)
    mean_square = coop.block.sum(squares, broadcast=True) / N
    cutlass_coop.from_ssa(items, x * cute.math.rsqrt(mean_square + 1e-6))
    coop.block.store(dst[row, None], items, algorithm="striped")


@cute.jit  # type: ignore[untyped-decorator]
def softmax(src: cute.Tensor, dst: cute.Tensor) -> None:
    softmax_kernel(src, dst).launch(grid=(cute.size(src, mode=[0]), 1, 1), block=(THREADS, 1, 1))


@cute.jit  # type: ignore[untyped-decorator]
def rmsnorm(src: cute.Tensor, dst: cute.Tensor) -> None:
    rmsnorm_kernel(src, dst).launch(grid=(cute.size(src, mode=[0]), 1, 1), block=(THREADS, 1, 1))


def main() -> None:
    rows = 64
    if not cuda.is_available():
        from cutlass.cute.runtime import make_fake_compact_tensor

        def fake() -> object:
            return make_fake_compact_tensor(cutlass.Float32, (rows, N), stride_order=(1, 0), assumed_align=16)

        print("no GPU here: compiled for sm_90a")
        for name, host in (("softmax", softmax), ("rmsnorm", rmsnorm)):
            print(f"{name}: " + cutlass_coop.compile(host, fake(), fake()).inspect().summary())
        return
    import torch
    from cutlass.cute.runtime import from_dlpack

    x = np.random.default_rng(0).standard_normal((rows, N)).astype(np.float32) * 4
    src = torch.from_numpy(x).cuda()
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    want = {
        "softmax": e / e.sum(axis=1, keepdims=True),
        "rmsnorm": x64 / np.sqrt((x64 * x64).mean(axis=1, keepdims=True) + 1e-6),
    }
    for name, host in (("softmax", softmax), ("rmsnorm", rmsnorm)):
        dst = torch.full_like(src, float("nan"))
        args = [from_dlpack(t, assumed_align=16) for t in (src, dst)]
        cutlass_coop.compile(host, *args)(*args)
        torch.cuda.synchronize()
        np.testing.assert_allclose(dst.cpu().numpy(), want[name], rtol=1e-5, atol=1e-6)
        print(f"{name} of {rows} rows of {N}: matches NumPy")


if __name__ == "__main__":
    main()
