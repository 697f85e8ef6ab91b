# SPDX-License-Identifier: Apache-2.0
"""GPU correctness of the sorting and data-dependent primitives (issue 10) under the Numba backend,
against the NumPy references of ``tests/_sort_cases.py`` (fresh random data each run, incl.
duplicates, -0.0/+0.0, NaN and infinities, all-equal keys; poisoned outputs).

Every key type (bfloat16 only ahead of time: numba-cuda takes no bfloat16 arrays), several value
types, block shapes (1-D, 2-D, 3-D, not a whole number of warps) and items per thread; each kernel
holds every case, each launched on three data sets.

The grid runs under numba-cuda and under numba-cuda-mlir: the same kernel source with its ``cuda``
module (``tests/_numba_family.py``).
"""

from __future__ import annotations

import numpy as np
import pytest

from ._compute_kernels import load
from ._numba_family import BACKENDS, family
from ._reference import check_cases
from ._sort_cases import (
    GRID,
    TILES,
    VARIANTS,
    Case,
    Config,
    cases,
    expected,
    gpu_params,
    keys_data,
    mismatches,
    params,
    poison,
    values_data,
)
from ._sort_kernels import numba_source

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("cfg", gpu_params())
def test_sort_grid(cfg: Config, backend: str) -> None:
    jit, cuda, source = family(backend, cfg.key)

    cs = cases(cfg)
    kernel = jit(load(f"{backend}_{cfg.id.replace('-', '_')}", source(numba_source(cfg, cs))).kernel)
    n = GRID * TILES * cfg.tile
    vals = values_data(cfg)

    def run(m: int, case: Case, rng: np.random.Generator) -> list[str]:
        failures = []
        for variant in VARIANTS:
            keys = keys_data(rng, cfg.key, n, variant, cfg.bins, case.ordered)
            p = params(rng, cfg, keys)
            poisons = {
                "ok": poison(rng, cfg.key, n), "ov": poison(rng, cfg.value, n), "oi": poison(rng, "int32", n)
            }  # fmt: skip
            dev = {k: cuda.to_device(v) for k, v in poisons.items()}
            kernel[GRID, cfg.block](
                cuda.to_device(keys), cuda.to_device(vals), dev["ok"], dev["ov"], dev["oi"],
                np.int32(p.begin), np.int32(p.end), np.int32(p.nvalid), np.int32(m),
            )  # fmt: skip
            got = {k: v.copy_to_host() for k, v in dev.items()}
            want = expected(case, cfg, keys, vals, p, poisons)
            bad = mismatches(got, want, case.any_zero_sign)
            failures += [f"{case.id} ({variant}, {p}): {e}" for e in bad]
        return failures

    check_cases(cs, run)
