# SPDX-License-Identifier: Apache-2.0
"""Head-segmented sums within each warp in a CuTe DSL kernel (``coop.warp.head_segmented_sum``).

Each lane holds one int32 value and one flag from a flags array; a set flag starts a segment of
consecutive lanes (lane 0 of each warp always starts one). One ``coop.warp.head_segmented_sum``
(shuffles, no shared memory) sums every segment; the sum is defined in the segment's first lane,
which writes it in place of its value, so that ``out`` holds each segment's total at its head.

On a GPU the result is checked against NumPy; without one the kernel is compiled ahead of time
for sm_90a and its SASS is reported.
"""

import os

import numpy as np
from cuda import coop
from numba import cuda

THREADS = 128

if not cuda.is_available():
    os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")  # compile-only: name the target

import cuda.coop.cutlass as cutlass_coop  # noqa: E402
import cutlass  # noqa: E402
import cutlass.cute as cute  # noqa: E402


@cute.kernel  # type: ignore[untyped-decorator]
def segments_kernel(x: cute.Tensor, flags: cute.Tensor, out: cute.Tensor) -> None:
    bidx, _, _ = cute.arch.block_idx()
    tidx, _, _ = cute.arch.thread_idx()
    i = bidx * THREADS + tidx
    head = flags[i] != 0
    total = coop.warp.head_segmented_sum(x[i], head)  # lane 0 starts a segment whatever its flag
    if head or tidx % 32 == 0:
        out[i] = total


@cute.jit  # type: ignore[untyped-decorator]
def segment_sums(x: cute.Tensor, flags: cute.Tensor, out: cute.Tensor) -> None:
    segments_kernel(x, flags, out).launch(grid=(cute.size(x) // THREADS, 1, 1), block=(THREADS, 1, 1))


def main() -> None:
    n = 64 * THREADS
    if not cuda.is_available():
        from cutlass.cute.runtime import make_fake_compact_tensor

        fake = [make_fake_compact_tensor(cutlass.Int32, (n,), assumed_align=16) for _ in range(3)]
        print("no GPU here: compiled for sm_90a")
        print("CuTe: " + cutlass_coop.compile(segment_sums, *fake).inspect().summary())
        return
    import torch
    from cutlass.cute.runtime import from_dlpack

    rng = np.random.default_rng()
    x = rng.integers(-1000, 1000, n, dtype=np.int32)
    flags = (rng.random(n) < 0.2).astype(np.int32)
    out = torch.zeros(n, dtype=torch.int32, device="cuda")
    args = [
        from_dlpack(t, assumed_align=16)
        for t in (torch.from_numpy(x).cuda(), torch.from_numpy(flags).cuda(), out)
    ]
    cutlass_coop.compile(segment_sums, *args)(*args)
    torch.cuda.synchronize()
    heads = flags.astype(bool)
    heads[::32] = True  # every warp's lane 0 starts a segment
    starts = np.flatnonzero(heads)
    want = np.zeros(n, dtype=np.int32)
    want[starts] = np.add.reduceat(x, starts)
    np.testing.assert_array_equal(out.cpu().numpy(), want)
    print(f"{len(starts)} segments in {n // 32} warps: sums at the segment heads equal NumPy's")


if __name__ == "__main__":
    main()
