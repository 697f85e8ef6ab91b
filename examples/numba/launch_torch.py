# SPDX-License-Identifier: Apache-2.0
"""Launch a coop kernel on torch tensors: ``kernel[grid, block]``, a prepared launch, a CUDA graph.

Torch tensors go straight in (no conversion): ``axpy[blocks, THREADS, stream](a, x, y, n)``
launches on torch's current stream. A prepared launch binds the configuration, the stream and the
compiled kernel once; each ``launch(...)`` then only rewrites the argument slots, so it costs
little more than a bare ``cuLaunchKernel``, and it can be captured in a ``torch.cuda.CUDAGraph``.
Launches read the tensors' pointers directly: launch on the stream that wrote them.

Without a GPU it compiles the kernel ahead of time for sm_90a and prints the cubin report;
without torch it says so and exits.
"""

from __future__ import annotations

import cuda.coop.numba as numba_coop
import numpy as np
from cuda import coop
from numba import cuda
from numpy.typing import NDArray

THREADS, ITEMS = 128, 4
TILE = THREADS * ITEMS


@numba_coop.jit
def axpy(a: float, x: NDArray[np.float32], y: NDArray[np.float32], n: int) -> None:
    xs = coop.ThreadData(ITEMS, np.float32)
    ys = coop.ThreadData(ITEMS, np.float32)
    base = cuda.blockIdx.x * TILE
    valid = min(TILE, n - base)
    coop.block.load(x, xs, offset=base, algorithm="vectorize", valid_items=valid, oob_default=0.0)
    coop.block.load(y, ys, offset=base, algorithm="vectorize", valid_items=valid, oob_default=0.0)
    for i in range(ITEMS):
        ys[i] += a * xs[i]
    coop.block.store(y, ys, offset=base, algorithm="vectorize", valid_items=valid)


def run_on_gpu() -> None:
    try:
        import torch
    except ImportError:
        print("torch is not installed: nothing to run here (pip install torch)")
        return
    n = 1_000_003
    blocks = (n + TILE - 1) // TILE
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    want = y + 2.0 * x
    stream = torch.cuda.current_stream()
    axpy[blocks, THREADS, stream](2.0, x, y, n)  # the first launch compiles
    torch.testing.assert_close(y, want)

    # Bind once; each launch rewrites only the argument slots (same dtypes, ranks and layouts).
    prepared = axpy.prepare(blocks, THREADS, 2.0, x, y, n, stream=stream)
    for a in (0.5, -1.5, 3.0):
        x2, y2 = torch.randn_like(x), torch.randn_like(y)
        want = y2 + a * x2
        prepared.launch(a, x2, y2, n)
        torch.testing.assert_close(y2, want)

    # Capture the prepared launch in a CUDA graph (on torch's capture stream), then replay it.
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        prepared.launch(0.25, x, y, n, stream=torch.cuda.current_stream())
    for _ in range(3):
        x.copy_(torch.randn_like(x))
        y.copy_(torch.randn_like(y))
        want = y + 0.25 * x
        graph.replay()
        torch.testing.assert_close(y, want)
    print(f"axpy on {n} torch float32: kernel[grid, block], prepared launch and CUDA graph replay verified")


def compile_ahead_of_time(arch: str = "sm_90a") -> None:
    compiled = numba_coop.compile(
        axpy, "void(float64, float32[::1], float32[::1], int64)", block=THREADS, arch=arch
    )
    report = compiled.inspect()
    print(f"no GPU here: compiled axpy for {arch} (torch tensors would be passed as float32[::1])")
    print(report.summary())
    assert report.calls == 0 and report.local_loads == report.local_stores == 0


def main() -> None:
    if cuda.is_available():
        run_on_gpu()
    else:
        compile_ahead_of_time()


if __name__ == "__main__":
    main()
