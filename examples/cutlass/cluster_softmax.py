# SPDX-License-Identifier: Apache-2.0
"""Rows longer than a block in a CuTe DSL kernel: softmax over rows of 65536 float32 with
``coop.cluster`` (sm_90+).

One thread-block cluster of ``CLUSTER`` blocks per row, launched with ``cluster=(CLUSTER, 1, 1)``:
block ``cute.arch.block_idx_in_cluster()`` loads its part of the row (striped, 1024 threads x 16
items, kept in registers: one pass over memory), ``coop.cluster.reduce(..., "max")`` and
``coop.cluster.sum`` give every thread of every block the row's maximum and sum, and each block
stores its part of ``exp(x - max) / sum``.

On a GPU the result is checked against NumPy; without one the kernel is compiled ahead of time for
sm_90a and its SASS is reported.
"""

import os

import numpy as np
from cuda import coop
from numba import cuda

CLUSTER, THREADS, ITEMS = 4, 1024, 16
TILE = THREADS * ITEMS
N = CLUSTER * TILE  # 65536
LOG2E = 1.4426950408889634

if not cuda.is_available():
    os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")  # compile-only: name the target

import cuda.coop.cutlass as cutlass_coop  # noqa: E402
import cutlass  # noqa: E402
import cutlass.cute as cute  # noqa: E402


@cute.kernel  # type: ignore[untyped-decorator]
def softmax_kernel(x: cute.Tensor, y: cute.Tensor) -> None:
    b, _, _ = cute.arch.block_idx()
    offset = (b // CLUSTER) * N + cute.arch.block_idx_in_cluster() * TILE
    items = coop.ThreadData(ITEMS, cutlass.Float32)
    coop.block.load(x, items, offset=offset, algorithm="striped")
    top = items[0]
    for i in cutlass.range_constexpr(1, ITEMS):
        top = cutlass.max(top, items[i])
    top = coop.cluster.reduce(top, "max")  # the row's maximum, in every thread of the cluster
    part = cutlass.Float32(0.0)
    for i in cutlass.range_constexpr(ITEMS):
        items[i] = cute.math.exp2((items[i] - top) * LOG2E, fastmath=True)
        part += items[i]
    inv = cute.arch.rcp_approx(coop.cluster.sum(part))  # rcp.approx, as quack-kernels
    for i in cutlass.range_constexpr(ITEMS):
        items[i] = items[i] * inv
    coop.block.store(y, items, offset=offset, algorithm="striped")


@cute.jit  # type: ignore[untyped-decorator]
def softmax(x: cute.Tensor, y: cute.Tensor) -> None:
    rows = cute.size(x) // N
    softmax_kernel(x, y).launch(grid=(rows * CLUSTER, 1, 1), block=(THREADS, 1, 1), cluster=(CLUSTER, 1, 1))


def main() -> None:
    rows = 48
    if not cuda.is_available():
        from cutlass.cute.runtime import make_fake_compact_tensor

        fake = [make_fake_compact_tensor(cutlass.Float32, (rows * N,), assumed_align=16) for _ in range(2)]
        print(f"no GPU here: compiled softmax for sm_90a, clusters of {CLUSTER}")
        print(cutlass_coop.compile(softmax, *fake).inspect().summary())
        return
    import torch
    from cutlass.cute.runtime import from_dlpack

    x = torch.randn(rows * N, device="cuda")
    y = torch.full_like(x, float("nan"))
    args = [from_dlpack(t, assumed_align=16) for t in (x, y)]
    cutlass_coop.compile(softmax, *args)(*args)
    want = torch.softmax(x.view(rows, N).double(), dim=-1)
    np.testing.assert_allclose(y.view(rows, N).cpu().numpy(), want.cpu().numpy(), rtol=1e-4, atol=1e-10)
    print(f"softmax of {rows} rows of {N} (clusters of {CLUSTER} blocks of {THREADS}): ok")


if __name__ == "__main__":
    main()
