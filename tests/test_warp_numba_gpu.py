# SPDX-License-Identifier: Apache-2.0
"""GPU correctness of the ``coop.warp`` primitives under the Numba backend, against the NumPy
references of ``tests/_warp_cases.py``, computed per logical warp (fresh random data, poisoned
outputs): every logical warp width, twelve dtypes, blocks that are not whole hardware warps, user
operators, partial lanes and partial tiles, merge sorts (keys and pairs, built-in and user
comparators, partial tiles, stability). (bfloat16 items are loaded from float32 arrays.)

The grid runs under numba-cuda and under numba-cuda-mlir: the same kernel source with its ``cuda``
module (``tests/_numba_family.py``).
"""

from __future__ import annotations

import numpy as np
import pytest
from cuda import coop

from ._numba_family import BACKENDS, family
from ._reference import check_cases, io_dtype
from ._warp_cases import (
    GRID,
    Case,
    Config,
    cases,
    data,
    gpu_params,
    mismatches,
    out_dtype,
    poisoned_outputs,
    reference,
)
from ._warp_kernels import load, numba_source

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("cfg", gpu_params())
def test_warp_grid(cfg: Config, backend: str) -> None:
    jit, cuda, source = family(backend, cfg.dtype)

    cs = cases(cfg)
    kernel = jit(load(f"{backend}_{cfg.id.replace('-', '_')}", source(numba_source(cfg, cs))).kernel)
    io = io_dtype(cfg.dtype)

    def run(m: int, case: Case, rng: np.random.Generator) -> list[str]:
        d = data(rng, cfg)
        poisons = poisoned_outputs(rng, cfg)
        poisons = {k: v.astype(io) if out_dtype(cfg, k) == cfg.dtype else v for k, v in poisons.items()}
        dev = {k: cuda.to_device(v) for k, v in poisons.items()}
        kernel[GRID, cfg.block](
            cuda.to_device(d.x.astype(io)),
            dev["out"],
            dev["red"],
            dev["agg"],
            dev["vout"],
            cuda.to_device(d.ranks),
            cuda.to_device(d.init.astype(io)),
            np.int32(d.nv),
            np.int32(d.ni),
            np.int32(m),
        )
        got = {k: v.copy_to_host() for k, v in dev.items()}
        return [f"{case.name}: {p}" for p in mismatches(cfg, got, reference(case, cfg, d, poisons))]

    check_cases(cs, run)


@pytest.mark.sanitizer
def test_warp_specialised_kernel_with_caller_temp_storage() -> None:
    """Warps take different branches (only even warps transpose); a caller TempStorage holds a slice
    per logical warp, reused by a load and a store with a __syncwarp between them."""
    import cuda.coop.numba as numba_coop
    from numba import cuda

    @numba_coop.jit
    def kernel(src, dst):  # type: ignore[no-untyped-def]
        ts = coop.TempStorage()
        items = coop.ThreadData(4, np.int32)
        warp = cuda.threadIdx.x // 16
        base = (cuda.blockIdx.x * 8 + warp) * 64
        if warp % 2 == 0:
            coop.warp.load(
                src, items, offset=base, algorithm="transpose", threads_in_warp=16, temp_storage=ts
            )
            cuda.syncwarp()
            coop.warp.store(
                dst, items, offset=base, algorithm="transpose", threads_in_warp=16, temp_storage=ts
            )
        else:
            coop.warp.load(src, items, offset=base, threads_in_warp=16)
            total = coop.warp.sum(items, broadcast=True, threads_in_warp=16)
            for i in range(4):
                items[i] = total
            coop.warp.store(dst, items, offset=base, threads_in_warp=16)

    rng = np.random.default_rng(3)
    src = rng.integers(-1000, 1000, size=6 * 8 * 64, dtype=np.int32)
    dst = cuda.to_device(np.full_like(src, -1))
    kernel[6, 128](cuda.to_device(src), dst)
    tiles = src.reshape(-1, 64)
    want = tiles.copy()
    want[1::2] = tiles[1::2].sum(axis=1, keepdims=True)
    np.testing.assert_array_equal(dst.copy_to_host(), want.reshape(-1))
