# SPDX-License-Identifier: Apache-2.0
"""GPU correctness of exchange, sum/reduce and the scans under the Numba backend, against the
NumPy references of ``tests/_compute_cases.py`` (fresh random data, poisoned outputs).

Every dtype, block shape (1-D, 2-D, 3-D, non-power-of-two, not a whole number of warps) and items
per thread occurs; each kernel holds 8 to 24 cases (algorithms, operators built in and
user-defined, initial values, aggregates, running prefixes across tiles, scalar inputs, partial
counts, broadcast; every exchange mode, time-sliced or not, in place or ``out=``), each launched
on its own data. (bfloat16 items are loaded from and stored to float32 arrays: numba-cuda takes no
bfloat16 array arguments.)

The grid runs under numba-cuda and under numba-cuda-mlir: the same kernel source with its ``cuda``
module (``tests/_numba_family.py``).
"""

from __future__ import annotations

import numpy as np
import pytest
from cuda import coop

from ._compute_cases import GRID, Case, Config, cases, data, gpu_params, mismatches, poison, reference, sizes
from ._compute_kernels import load, numba_source
from ._numba_family import BACKENDS, family
from ._reference import check_cases, io_dtype

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("cfg", gpu_params())
def test_compute_grid(cfg: Config, backend: str) -> None:
    jit, cuda, source = family(backend, cfg.dtype)

    cs = cases(cfg)
    kernel = jit(load(f"{backend}_{cfg.id.replace('-', '_')}", source(numba_source(cfg, cs))).kernel)
    io = io_dtype(cfg.dtype)

    def run(m: int, case: Case, rng: np.random.Generator) -> list[str]:
        d = data(rng, cfg)
        poisons = {k: poison(rng, cfg.dtype, n).astype(io) for k, n in sizes(cfg).items()}
        dev = {k: cuda.to_device(v) for k, v in poisons.items()}
        kernel[GRID, cfg.block](
            cuda.to_device(d.x.astype(io)),
            dev["out"],
            dev["red"],
            dev["agg"],
            cuda.to_device(d.ranks),
            cuda.to_device(d.granks),
            cuda.to_device(d.flags),
            cuda.to_device(d.init.astype(io)),
            np.int32(d.nvalid),
            np.int32(m),
        )
        got = {k: v.copy_to_host() for k, v in dev.items()}
        return [f"{case.id}: {p}" for p in mismatches(cfg, got, reference(case, cfg, d, poisons))]

    check_cases(cs, run)


@pytest.mark.sanitizer
def test_one_temp_storage_serves_load_scan_exchange_and_store() -> None:
    """A caller-owned TempStorage reused by four primitives (barriers between them, as in CUB)."""
    import cuda.coop.numba as numba_coop
    from numba import cuda

    @numba_coop.jit
    def kernel(src, dst, totals):  # type: ignore[no-untyped-def]
        ts = coop.TempStorage()
        items = coop.ThreadData(4, np.int32)
        base = cuda.blockIdx.x * 512
        coop.block.load(src, items, offset=base, algorithm="transpose", temp_storage=ts)
        cuda.syncthreads()
        out, total = coop.block.exclusive_sum(items, block_aggregate=True, temp_storage=ts)
        cuda.syncthreads()
        coop.block.exchange(out, "blocked_to_striped", temp_storage=ts)
        cuda.syncthreads()
        coop.block.store(dst, out, offset=base, algorithm="striped", temp_storage=ts)
        if cuda.threadIdx.x == 0:
            totals[cuda.blockIdx.x] = total

    rng = np.random.default_rng(5)
    src = rng.integers(-1000, 1000, size=512 * 6, dtype=np.int32)
    dst, totals = cuda.to_device(np.full_like(src, -1)), cuda.to_device(np.zeros(6, dtype=np.int32))
    kernel[6, 128](cuda.to_device(src), dst, totals)
    tiles = src.reshape(6, 512)
    excl = np.cumsum(tiles, axis=1) - tiles  # blocked order, stored striped then read back striped
    np.testing.assert_array_equal(dst.copy_to_host(), excl.reshape(-1))
    np.testing.assert_array_equal(totals.copy_to_host(), tiles.sum(axis=1))


@pytest.mark.sanitizer
def test_thread_data_spellings_and_half_types() -> None:
    """``coop.ThreadData(4, dtype=...)``, float16 constants stored into items, bfloat16 items."""
    import cuda.coop.numba as numba_coop
    from numba import cuda

    @numba_coop.jit
    def kernel(src16, dst16, srcf, dstbf):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(4, dtype=np.float16)
        coop.block.load(src16, items)
        for i in range(4):
            items[i] = items[i] * np.float16(2) + np.float16(7)
        coop.block.store(dst16, items)
        bf = coop.ThreadData(items_per_thread=2, dtype="bfloat16")
        for i in range(2):
            bf[i] = srcf[cuda.threadIdx.x * 2 + i]
        scanned = coop.block.inclusive_sum(bf)
        for i in range(2):
            dstbf[cuda.threadIdx.x * 2 + i] = scanned[i]

    rng = np.random.default_rng(9)
    src16 = rng.integers(-50, 50, size=128).astype(np.float16)
    srcf = rng.choice(np.array([-1.0, 1.0], dtype=np.float32), size=64)
    dst16 = cuda.to_device(np.full(128, 1000, dtype=np.float16))
    dstbf = cuda.to_device(np.full(64, 1000, dtype=np.float32))
    kernel[1, 32](cuda.to_device(src16), dst16, cuda.to_device(srcf), dstbf)
    np.testing.assert_array_equal(dst16.copy_to_host(), src16 * np.float16(2) + np.float16(7))
    np.testing.assert_array_equal(dstbf.copy_to_host(), np.cumsum(srcf))  # small integers: exact
