# SPDX-License-Identifier: Apache-2.0
"""A linear recurrence ``h[t] = a[t] * h[t-1] + b[t]`` (the SSM / Mamba scan) in a CuTe DSL kernel.

Each element is the map ``h -> a*h + b``; composing two maps is associative, so the recurrence is
an inclusive scan of the tuple ``(a, b)`` with the operator ``compose``, and the scanned ``b`` field
is ``h`` (for ``h[-1] = 0``). One block scans a row of ``TILES`` tiles: each tile's ``(a, b)`` is
loaded from the two tensors with one ``coop.block.load`` of a tuple (one ``BlockLoad`` per field),
scanned with ``prefix_op=`` a tuple of one-item register tensors that carries the map of every
earlier tile, and ``h`` is stored.

On a GPU the results are checked against a sequential NumPy loop; without one the kernel is
compiled ahead of time for sm_90a and its SASS is reported.
"""

import os

import numpy as np
from cuda import coop
from numba import cuda

THREADS, ITEMS, TILES = 256, 8, 8
TILE = THREADS * ITEMS
ROW = TILES * TILE

if not cuda.is_available():
    os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")  # compile-only: name the target

import cuda.coop.cutlass as cutlass_coop  # noqa: E402
import cutlass  # noqa: E402
import cutlass.cute as cute  # noqa: E402


def compose(p, q):  # type: ignore[no-untyped-def]
    """Map ``p`` then map ``q``: h -> q.a * (p.a * h + p.b) + q.b."""
    return p[0] * q[0], q[0] * p[1] + q[1]


@cute.kernel  # type: ignore[untyped-decorator]
def scan_kernel(a: cute.Tensor, b: cute.Tensor, h: cute.Tensor) -> None:
    row, _, _ = cute.arch.block_idx()
    running = (coop.ThreadData(1, cutlass.Float32), coop.ThreadData(1, cutlass.Float32))
    running[0][0] = cutlass.Float32(1.0)  # the identity map
    running[1][0] = cutlass.Float32(0.0)
    for tile in cutlass.range(TILES):
        base = row * ROW + tile * TILE
        items = (coop.ThreadData(ITEMS, cutlass.Float32), coop.ThreadData(ITEMS, cutlass.Float32))
        coop.block.load((a, b), items, offset=base, algorithm="warp_transpose")
        _, hs = coop.block.inclusive_scan(items, compose, prefix_op=running)
        coop.block.store(h, hs, offset=base, algorithm="warp_transpose")


@cute.jit  # type: ignore[untyped-decorator]
def scan_rows(a: cute.Tensor, b: cute.Tensor, h: cute.Tensor) -> None:
    scan_kernel(a, b, h).launch(grid=(cute.size(h) // ROW, 1, 1), block=(THREADS, 1, 1))


def main() -> None:
    rows = 16
    if not cuda.is_available():
        from cutlass.cute.runtime import make_fake_compact_tensor

        fake = [make_fake_compact_tensor(cutlass.Float32, (rows * ROW,), assumed_align=16) for _ in range(3)]
        print("no GPU here: compiled for sm_90a")
        print("CuTe: " + cutlass_coop.compile(scan_rows, *fake).inspect().summary())
        return
    import torch
    from cutlass.cute.runtime import from_dlpack

    rng = np.random.default_rng()
    a_host = rng.uniform(0.9, 1.0, rows * ROW).astype(np.float32)  # decays: h stays bounded
    b_host = rng.standard_normal(rows * ROW).astype(np.float32)
    a, b = torch.from_numpy(a_host).cuda(), torch.from_numpy(b_host).cuda()
    h = torch.full_like(a, float("nan"))
    args = [from_dlpack(t, assumed_align=16) for t in (a, b, h)]
    cutlass_coop.compile(scan_rows, *args)(*args)
    torch.cuda.synchronize()
    want = np.empty((rows, ROW))
    state = np.zeros(rows)
    ar, br = a_host.reshape(rows, ROW).astype(np.float64), b_host.reshape(rows, ROW).astype(np.float64)
    for t in range(ROW):  # the recurrence, one step at a time
        state = ar[:, t] * state + br[:, t]
        want[:, t] = state
    np.testing.assert_allclose(h.cpu().numpy().reshape(rows, ROW), want, rtol=1e-3, atol=1e-3)
    print(f"{rows} rows of {ROW}: h = a*h + b by a scan of (a, b) tuples matches the sequential loop")


if __name__ == "__main__":
    main()
