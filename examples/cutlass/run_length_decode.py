# SPDX-License-Identifier: Apache-2.0
"""Run-length decoding in a CuTe DSL kernel: runs (values and lengths) to a window per thread.

Each block loads its 256 runs (128 threads x 2 runs, blocked): int32 values and their lengths,
1 to 4. ``coop.block.run_length_decode`` returns a window of 128 x 4 = 512 decoded items, 4 per
thread in the blocked arrangement, and the decoded size; two windows (``from_decoded_offset`` 0 and
512) cover the longest sequence (256 x 4 items). The block stores both windows to its slice of
the output and thread 0 the size: the first ``size`` items equal ``np.repeat(values, lengths)``.

On a GPU the result is checked against NumPy; without one the kernel is compiled ahead of time for
sm_90a and its SASS is reported.
"""

import os

import numpy as np
from cuda import coop
from numba import cuda

THREADS, RUNS, DECODED = 128, 2, 4
TILE = THREADS * RUNS  # runs per block
WINDOW = THREADS * DECODED  # decoded items per call
MAX_LENGTH = 4
WINDOWS = TILE * MAX_LENGTH // WINDOW  # windows that cover the longest decoded sequence
OUT = WINDOWS * WINDOW  # decoded items per block

if not cuda.is_available():
    os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")  # compile-only: name the target

import cuda.coop.cutlass as cutlass_coop  # noqa: E402
import cutlass  # noqa: E402
import cutlass.cute as cute  # noqa: E402


@cute.kernel  # type: ignore[untyped-decorator]
def decode_kernel(values: cute.Tensor, lengths: cute.Tensor, out: cute.Tensor, sizes: cute.Tensor) -> None:
    bidx, _, _ = cute.arch.block_idx()
    tidx, _, _ = cute.arch.thread_idx()
    v = coop.ThreadData(RUNS, cutlass.Int32)
    n = coop.ThreadData(RUNS, cutlass.Int32)
    coop.block.load(values, v, offset=bidx * TILE)
    coop.block.load(lengths, n, offset=bidx * TILE)
    for w in cutlass.range_constexpr(WINDOWS):
        decoded, size = coop.block.run_length_decode(
            v, decoded_items_per_thread=DECODED, run_lengths=n, from_decoded_offset=w * WINDOW
        )
        coop.block.store(out, decoded, offset=bidx * OUT + w * WINDOW)
        if w == 0 and tidx == 0:
            sizes[bidx] = size


@cute.jit  # type: ignore[untyped-decorator]
def decode(values: cute.Tensor, lengths: cute.Tensor, out: cute.Tensor, sizes: cute.Tensor) -> None:
    decode_kernel(values, lengths, out, sizes).launch(
        grid=(cute.size(values) // TILE, 1, 1), block=(THREADS, 1, 1)
    )


def main() -> None:
    blocks = 16
    if not cuda.is_available():
        from cutlass.cute.runtime import make_fake_compact_tensor

        fake = [
            make_fake_compact_tensor(cutlass.Int32, (size,), assumed_align=16)
            for size in (blocks * TILE, blocks * TILE, blocks * OUT, blocks)
        ]
        print("no GPU here: compiled for sm_90a")
        print("CuTe: " + cutlass_coop.compile(decode, *fake).inspect().summary())
        return
    import torch
    from cutlass.cute.runtime import from_dlpack

    rng = np.random.default_rng()
    values = rng.integers(-1000, 1000, blocks * TILE, dtype=np.int32)
    lengths = rng.integers(1, MAX_LENGTH + 1, blocks * TILE, dtype=np.int32)
    out = torch.zeros(blocks * OUT, dtype=torch.int32, device="cuda")
    sizes = torch.zeros(blocks, dtype=torch.int32, device="cuda")
    args = [
        from_dlpack(t, assumed_align=16)
        for t in (torch.from_numpy(values).cuda(), torch.from_numpy(lengths).cuda(), out, sizes)
    ]
    cutlass_coop.compile(decode, *args)(*args)
    torch.cuda.synchronize()
    got, got_sizes = out.cpu().numpy().reshape(blocks, OUT), sizes.cpu().numpy()
    for b in range(blocks):
        runs = slice(b * TILE, (b + 1) * TILE)
        want = np.repeat(values[runs], lengths[runs])
        assert got_sizes[b] == want.size, (b, got_sizes[b], want.size)
        np.testing.assert_array_equal(got[b, : want.size], want)  # the rest of the window: unspecified
    print(f"{blocks} blocks of {TILE} runs decoded in windows of {WINDOW}: as np.repeat")


if __name__ == "__main__":
    main()
