# SPDX-License-Identifier: Apache-2.0
"""cuda.coop quick start: a Numba kernel that loads a tile with CUB, scales it, stores it back.

On a machine with a CUDA GPU it runs the kernel and checks the result against NumPy. Without one
it compiles the kernel ahead of time for sm_90a and reports what it built: the cubin's size,
registers, shared memory, and that no provider call (nor local-memory traffic) remains.
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
def scale(src: NDArray[np.float32], dst: NDArray[np.float32], factor: float, n: int) -> None:
    items = coop.ThreadData(ITEMS, np.float32)
    base = cuda.blockIdx.x * TILE
    valid = min(TILE, n - base)  # the last tile may be partial
    coop.block.load(src, items, offset=base, algorithm="auto", valid_items=valid, oob_default=0.0)
    for i in range(ITEMS):
        items[i] *= factor
    coop.block.store(dst, items, offset=base, algorithm="auto", valid_items=valid)


def run_on_gpu() -> None:
    n = 1_000_003
    rng = np.random.default_rng()
    src = rng.standard_normal(n).astype(np.float32)
    d_dst = cuda.to_device(np.full(n, np.nan, dtype=np.float32))
    blocks = (n + TILE - 1) // TILE
    scale[blocks, THREADS](cuda.to_device(src), d_dst, np.float32(3.0), n)
    np.testing.assert_allclose(d_dst.copy_to_host(), src * np.float32(3.0), rtol=0, atol=0)
    name = cuda.get_current_device().name
    name = name.decode() if isinstance(name, bytes) else name
    print(f"ran scale on {name}: {n} items verified against NumPy")
    print(f"NVRTC compiles: {coop.compile_stats().nvrtc_compiles}")


def compile_ahead_of_time(arch: str = "sm_90a") -> None:
    kernel = numba_coop.compile(
        scale, "void(float32[::1], float32[::1], float32, int64)", block=THREADS, arch=arch
    )
    report = kernel.inspect()
    print(f"no GPU here: compiled scale ahead of time for {arch} with a block of {THREADS} threads")
    print(report.summary())
    assert report.calls == 0 and not report.leftover_symbols, "a provider call was not inlined"
    assert report.local_loads == report.local_stores == 0, "items spilled to local memory"


def main() -> None:
    if cuda.is_available():
        run_on_gpu()
    else:
        compile_ahead_of_time()


if __name__ == "__main__":
    main()
