# SPDX-License-Identifier: Apache-2.0
"""The docs' models against the kernels (issue 23): each explorer's primitive in a one-block kernel
(numba-cuda and numba-cuda-mlir) on fresh random data, its outputs compared with what
``cuda.coop._models`` computes, the model the diagrams and explorers are drawn from
(``tests/_model_kernels.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from . import _model_kernels as mk
from ._numba_family import BACKENDS, family

CASES = mk.cases()


@pytest.mark.gpu
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_kernel_does_what_the_model_draws(case: mk.ModelCase, backend: str) -> None:
    jit, cuda, _ = family(backend)
    kernel = mk.build(case, jit, cuda)
    seed = int(np.random.SeedSequence().entropy) % 2**63
    rng = np.random.default_rng(seed)
    for _ in range(3):
        io = case.inputs(rng)
        dev = {k: cuda.to_device(v) for k, v in io.items()}
        kernel[1, case.threads](*dev.values())
        got = {k: v.copy_to_host() for k, v in dev.items()}
        errors = case.check(got)
        assert not errors, f"seed {seed}: " + "; ".join(errors)


def test_the_gpu_tests_kernels_compile() -> None:
    """Ahead of time, for sm_90a, on any machine (one compile_many: its units in worker processes):
    every kernel the GPU test runs compiles, with no call left."""
    import cuda.coop.numba as numba_coop
    from numba import cuda

    jobs = [{"func": mk.build(c, None, cuda), "signature": c.signature, "block": c.threads} for c in CASES]
    compiled = numba_coop.compile_many(jobs, arch="sm_90a")
    calls = {c.name: k.inspect().calls for c, k in zip(CASES, compiled, strict=True)}
    assert not {name: n for name, n in calls.items() if n}, calls
