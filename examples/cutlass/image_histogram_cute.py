# SPDX-License-Identifier: Apache-2.0
"""A per-block histogram of an image in a CuTe DSL kernel, counted straight into global memory.

Each block loads a strip of 4096 uint8 pixels (256 threads x 16) and counts its 256 grey levels
with ``algorithm="sort"`` (a block radix sort of the samples, then one thread per bin adds its run
length: no atomics) into its own row of ``hist`` (``offset=`` the row's first counter). Beside it,
the atomic algorithm counts the same strip into a shared-memory tensor, which is copied to a
second array after a barrier.

On a GPU the result is checked against NumPy; without one the kernel is compiled ahead of time for
sm_90a and its SASS is reported.
"""

import os

import numpy as np
from cuda import coop
from numba import cuda

THREADS, ITEMS, BINS = 256, 16, 256
STRIP = THREADS * ITEMS

if not cuda.is_available():
    os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")  # compile-only: name the target

import cuda.coop.cutlass as cutlass_coop  # noqa: E402
import cutlass  # noqa: E402
import cutlass.cute as cute  # noqa: E402
from cutlass.memory import SmemAllocator  # noqa: E402


@cute.kernel  # type: ignore[untyped-decorator]
def histogram_kernel(image: cute.Tensor, hist: cute.Tensor, hist_shared: cute.Tensor) -> None:
    bidx, _, _ = cute.arch.block_idx()
    tidx, _, _ = cute.arch.thread_idx()
    pixels = coop.ThreadData(ITEMS, cutlass.Uint8)
    coop.block.load(image, pixels, offset=bidx * STRIP, algorithm="vectorize")
    counts = SmemAllocator().allocate_tensor(cutlass.Uint32, cute.make_layout(BINS), 16)
    coop.block.histogram(pixels, counts, bins=BINS)  # atomic, into shared memory
    coop.block.histogram(pixels, hist, bins=BINS, offset=bidx * BINS, algorithm="sort")  # sorts pixels
    cute.arch.barrier()
    hist_shared[bidx * BINS + tidx] = counts[tidx]  # one bin per thread


@cute.jit  # type: ignore[untyped-decorator]
def strip_histograms(image: cute.Tensor, hist: cute.Tensor, hist_shared: cute.Tensor) -> None:
    strips = cute.size(image) // STRIP
    histogram_kernel(image, hist, hist_shared).launch(grid=(strips, 1, 1), block=(THREADS, 1, 1))


def main() -> None:
    strips = 384
    if not cuda.is_available():
        from cutlass.cute.runtime import make_fake_compact_tensor

        fake = [
            make_fake_compact_tensor(t, (n,), assumed_align=16)
            for t, n in (
                (cutlass.Uint8, strips * STRIP),
                (cutlass.Uint32, strips * BINS),
                (cutlass.Uint32, strips * BINS),
            )
        ]
        print("no GPU here: compiled for sm_90a")
        print("CuTe: " + cutlass_coop.compile(strip_histograms, *fake).inspect().summary())
        return
    import torch
    from cutlass.cute.runtime import from_dlpack

    image = torch.randint(0, 256, (strips * STRIP,), dtype=torch.uint8, device="cuda")
    image[::5] = 7  # a peak
    hist = torch.zeros(strips * BINS, dtype=torch.int32, device="cuda").view(torch.uint32)
    hist_shared = torch.zeros_like(hist)
    args = [from_dlpack(t, assumed_align=16) for t in (image, hist, hist_shared)]
    cutlass_coop.compile(strip_histograms, *args)(*args)
    torch.cuda.synchronize()
    pixels = image.cpu().numpy().reshape(strips, STRIP)
    want = np.stack([np.bincount(s, minlength=BINS) for s in pixels]).astype(np.uint32)
    for got in (hist, hist_shared):
        np.testing.assert_array_equal(
            got.view(torch.int32).cpu().numpy().view(np.uint32).reshape(strips, BINS), want
        )
    print(
        f"{strips} strips of {STRIP} pixels counted (sort into global, atomic into shared); "
        "they match np.bincount"
    )


if __name__ == "__main__":
    main()
