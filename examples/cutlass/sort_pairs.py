# SPDX-License-Identifier: Apache-2.0
"""Radix sort of key/value pairs in a CuTe DSL kernel: descending, over a bit range.

Each block loads a tile of uint32 keys and their float32 values, sorts the pairs by the key's low
16 bits (``begin_bit=0, end_bit=16``, a runtime range), largest first, and stores them. Keys that
are equal in those bits keep their input order (the sort is stable).

On a GPU the result is checked against NumPy; without one the kernel is compiled ahead of time for
sm_90a and its SASS is reported.
"""

import os

import numpy as np
from cuda import coop
from numba import cuda

THREADS, ITEMS = 128, 4
TILE = THREADS * ITEMS

if not cuda.is_available():
    os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")  # compile-only: name the target

import cuda.coop.cutlass as cutlass_coop  # noqa: E402
import cutlass  # noqa: E402
import cutlass.cute as cute  # noqa: E402


@cute.kernel  # type: ignore[untyped-decorator]
def sort_kernel(keys: cute.Tensor, values: cute.Tensor, end_bit: cutlass.Int32) -> None:
    bidx, _, _ = cute.arch.block_idx()
    k = coop.ThreadData(ITEMS, cutlass.Uint32)
    v = coop.ThreadData(ITEMS, cutlass.Float32)
    coop.block.load(keys, k, offset=bidx * TILE)
    coop.block.load(values, v, offset=bidx * TILE)
    coop.block.radix_sort(k, values=v, descending=True, begin_bit=0, end_bit=end_bit)
    coop.block.store(keys, k, offset=bidx * TILE)
    coop.block.store(values, v, offset=bidx * TILE)


@cute.jit  # type: ignore[untyped-decorator]
def sort_pairs(keys: cute.Tensor, values: cute.Tensor, end_bit: cutlass.Int32) -> None:
    sort_kernel(keys, values, end_bit).launch(grid=(cute.size(keys) // TILE, 1, 1), block=(THREADS, 1, 1))


def main() -> None:
    blocks = 16
    if not cuda.is_available():
        from cutlass.cute.runtime import make_fake_compact_tensor

        fake = [
            make_fake_compact_tensor(t, (blocks * TILE,), assumed_align=16)
            for t in (cutlass.Uint32, cutlass.Float32)
        ]
        print("no GPU here: compiled for sm_90a")
        print("CuTe: " + cutlass_coop.compile(sort_pairs, *fake, cutlass.Int32(16)).inspect().summary())
        return
    import torch
    from cutlass.cute.runtime import from_dlpack

    rng = np.random.default_rng()
    keys = rng.integers(0, 2**32, size=blocks * TILE, dtype=np.uint32)
    values = rng.standard_normal(blocks * TILE).astype(np.float32)
    k = torch.from_numpy(keys.view(np.int32)).to("cuda").view(torch.uint32)
    v = torch.from_numpy(values).to("cuda")
    args = [from_dlpack(t, assumed_align=16) for t in (k, v)]
    cutlass_coop.compile(sort_pairs, *args, cutlass.Int32(16))(*args, 16)
    torch.cuda.synchronize()
    low = (keys & 0xFFFF).reshape(blocks, TILE)
    order = np.argsort(0xFFFF - low, axis=1, kind="stable")  # descending, stable
    want_k = np.take_along_axis(keys.reshape(blocks, TILE), order, axis=1)
    want_v = np.take_along_axis(values.reshape(blocks, TILE), order, axis=1)
    np.testing.assert_array_equal(
        k.view(torch.int32).cpu().numpy().view(np.uint32).reshape(blocks, TILE), want_k
    )
    np.testing.assert_array_equal(v.cpu().numpy().reshape(blocks, TILE), want_v)
    print(f"{blocks} tiles of key/value pairs sorted by the low 16 key bits, descending, stably")


if __name__ == "__main__":
    main()
