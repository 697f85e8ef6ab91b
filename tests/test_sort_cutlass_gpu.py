# SPDX-License-Identifier: Apache-2.0
"""GPU correctness of the sorting and data-dependent primitives (issue 10) in CuTe DSL kernels,
against the NumPy references of ``tests/_sort_cases.py``: the same cases, written the same way, as
the Numba suite."""

import numpy as np
import pytest

pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")

from ._compute_kernels import load  # noqa: E402
from ._reference import check_cases, gpu_tensor, host_array  # noqa: E402
from ._sort_cases import (  # noqa: E402
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
from ._sort_kernels import cute_source  # noqa: E402

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("cfg", gpu_params())
def test_sort_grid(cfg: Config) -> None:
    import cuda.coop.cutlass as cutlass_coop
    import cutlass
    import torch
    from cutlass.cute.runtime import from_dlpack

    cs = cases(cfg)
    host = load(f"cute_{cfg.id.replace('-', '_')}", cute_source(cfg, cs)).host
    n = GRID * TILES * cfg.tile
    vals = values_data(cfg)
    compiled = None

    def run(m: int, case: Case, rng: np.random.Generator) -> list[str]:
        nonlocal compiled
        failures = []
        for variant in VARIANTS:
            keys = keys_data(rng, cfg.key, n, variant, cfg.bins, case.ordered)
            p = params(rng, cfg, keys)
            poisons = {
                "ok": poison(rng, cfg.key, n), "ov": poison(rng, cfg.value, n), "oi": poison(rng, "int32", n)
            }  # fmt: skip
            outs = {k: gpu_tensor(v, v.dtype.name) for k, v in poisons.items()}
            a = [
                from_dlpack(t, assumed_align=16)
                for t in (
                    gpu_tensor(keys, cfg.key),
                    gpu_tensor(vals, cfg.value),
                    outs["ok"],
                    outs["ov"],
                    outs["oi"],
                )
            ]
            if compiled is None:
                compiled = cutlass_coop.compile(
                    host, *a, cutlass.Int32(0), cutlass.Int32(1), cutlass.Int32(0), cutlass.Int32(0)
                )
            compiled(*a, p.begin, p.end, p.nvalid, m)
            torch.cuda.synchronize()
            got = {k: host_array(t, poisons[k].dtype.name) for k, t in outs.items()}
            want = expected(case, cfg, keys, vals, p, poisons)
            bad = mismatches(got, want, case.any_zero_sign)
            failures += [f"{case.id} ({variant}, {p}): {e}" for e in bad]
        return failures

    check_cases(cs, run)
