# SPDX-License-Identifier: Apache-2.0
"""Launch a coop kernel on CuPy arrays, on a CuPy stream, plain and prepared.

CuPy arrays go straight in: ``clip_scale[blocks, THREADS, stream](...)`` takes a
``cupy.cuda.Stream`` as its stream. ``prepare`` binds the configuration, the stream and the
compiled kernel once; ``launch(...)`` then rewrites only the argument slots (CuPy arrays, raw
device pointers such as ``array.data.ptr``, scalars). Launches read the arrays' pointers
directly: launch on the stream that wrote them.

Without a GPU it compiles the kernel ahead of time for sm_90a and prints the cubin report;
without CuPy it says so and exits.
"""

from __future__ import annotations

import cuda.coop.numba as numba_coop
import numpy as np
from cuda import coop
from numba import cuda
from numpy.typing import NDArray

THREADS, ITEMS = 256, 4
TILE = THREADS * ITEMS


@numba_coop.jit
def clip_scale(
    src: NDArray[np.float32], dst: NDArray[np.float32], limit: float, scale: float, n: int
) -> None:
    items = coop.ThreadData(ITEMS, np.float32)
    base = cuda.blockIdx.x * TILE
    valid = min(TILE, n - base)
    coop.block.load(src, items, offset=base, algorithm="warp_transpose", valid_items=valid, oob_default=0.0)
    for i in range(ITEMS):
        items[i] = min(max(items[i], -limit), limit) * scale
    coop.block.store(dst, items, offset=base, algorithm="warp_transpose", valid_items=valid)


def run_on_gpu() -> None:
    try:
        import cupy as cp
    except ImportError:
        print("CuPy is not installed: nothing to run here (pip install cupy-cuda13x)")
        return
    n = 777_777
    blocks = (n + TILE - 1) // TILE
    rng = np.random.default_rng()
    stream = cp.cuda.Stream(non_blocking=True)

    def check(src: NDArray[np.float32], dst: object, limit: float, scale: float) -> None:
        stream.synchronize()
        want = (np.clip(src.astype(np.float64), -limit, limit) * scale).astype(np.float32)
        np.testing.assert_array_equal(cp.asnumpy(dst), want)

    src = rng.standard_normal(n).astype(np.float32)
    with stream:
        d_src, d_dst = cp.asarray(src), cp.full(n, cp.nan, dtype=cp.float32)
    clip_scale[blocks, THREADS, stream](d_src, d_dst, 1.0, 3.0, n)
    check(src, d_dst, 1.0, 3.0)

    prepared = clip_scale.prepare(blocks, THREADS, d_src, d_dst, 1.0, 3.0, n, stream=stream)
    for limit in (0.5, 2.0):
        src = rng.standard_normal(n).astype(np.float32)
        with stream:
            d_src, d_dst = cp.asarray(src), cp.full(n, cp.nan, dtype=cp.float32)
        prepared.launch(d_src, d_dst, limit, 2.0, n)
        check(src, d_dst, limit, 2.0)
    prepared.launch(d_src.data.ptr, d_dst.data.ptr, 0.25, -1.0, n)  # raw pointers: only data slots change
    check(src, d_dst, 0.25, -1.0)
    print(f"clip_scale on {n} CuPy float32: kernel[grid, block, stream] and prepared launches verified")


def compile_ahead_of_time(arch: str = "sm_90a") -> None:
    sig = "void(float32[::1], float32[::1], float64, float64, int64)"
    report = numba_coop.compile(clip_scale, sig, block=THREADS, arch=arch).inspect()
    print(f"no GPU here: compiled clip_scale for {arch} (CuPy arrays would be passed as float32[::1])")
    print(report.summary())
    assert report.calls == 0 and report.local_loads == report.local_stores == 0


def main() -> None:
    if cuda.is_available():
        run_on_gpu()
    else:
        compile_ahead_of_time()


if __name__ == "__main__":
    main()
