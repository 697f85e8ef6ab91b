# SPDX-License-Identifier: Apache-2.0
"""A per-block histogram of an image: each block counts the 256 grey levels of its strip of pixels.

The image (uint8, row-major) is cut into strips of 4096 pixels, one per block (256 threads x 16
pixels, loaded with vector loads). ``coop.block.histogram`` counts the strip into 256 counters in
shared memory (``cuda.shared.array``) with block-scope atomics; after a barrier each thread writes
one bin of the block's histogram to its row of ``hist``. The rows add up to ``np.bincount`` of the
whole image.
"""

from __future__ import annotations

import cuda.coop.numba as numba_coop
import numpy as np
from cuda import coop
from numba import cuda
from numpy.typing import NDArray

THREADS, ITEMS, BINS = 256, 16, 256
STRIP = THREADS * ITEMS


@numba_coop.jit
def strip_histograms(image: NDArray[np.uint8], hist: NDArray[np.uint32]) -> None:
    pixels = coop.ThreadData(ITEMS, np.uint8)
    coop.block.load(image, pixels, offset=cuda.blockIdx.x * STRIP, algorithm="vectorize")
    counts = cuda.shared.array(BINS, np.uint32)
    coop.block.histogram(pixels, counts, bins=BINS)  # zeroes the counters, then counts
    cuda.syncthreads()  # every thread's samples are in
    hist[cuda.blockIdx.x * BINS + cuda.threadIdx.x] = counts[cuda.threadIdx.x]  # one bin per thread


def main() -> None:
    signature = "void(uint8[::1], uint32[::1])"
    if not cuda.is_available():
        report = numba_coop.compile(strip_histograms, signature, block=THREADS).inspect()
        print("compiled strip_histograms for sm_90a (no GPU here)\n" + report.summary())
        return
    height, width = 1024, 1536
    y, x = np.mgrid[0:height, 0:width]
    image = ((x * 255 // width + y % 17) % 256).astype(np.uint8)  # a gradient with stripes
    strips = image.size // STRIP
    hist = cuda.device_array(strips * BINS, np.uint32)
    strip_histograms[strips, THREADS](cuda.to_device(image.reshape(-1)), hist)
    got = hist.copy_to_host().reshape(strips, BINS)
    want = np.stack([np.bincount(s, minlength=BINS) for s in image.reshape(strips, STRIP)])
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got.sum(axis=0), np.bincount(image.reshape(-1), minlength=BINS))
    print(f"{strips} strips of {STRIP} pixels counted; the histograms match np.bincount")


if __name__ == "__main__":
    main()
