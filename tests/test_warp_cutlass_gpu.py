# SPDX-License-Identifier: Apache-2.0
"""GPU correctness of the ``coop.warp`` primitives in CuTe DSL kernels, against the NumPy
references of ``tests/_warp_cases.py``: the same cases, written the same way, as the Numba suite
(user operators are ``@cute.jit`` and plain Python functions)."""

import numpy as np
import pytest

pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")

from ._reference import check_cases, gpu_tensor, host_array  # noqa: E402
from ._warp_cases import (  # noqa: E402
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
from ._warp_kernels import cute_source, load  # noqa: E402

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("cfg", gpu_params())
def test_warp_grid(cfg: Config) -> None:
    import cuda.coop.cutlass as cutlass_coop
    import cutlass
    import torch
    from cutlass.cute.runtime import from_dlpack

    cs = cases(cfg)
    host = load(f"cute_{cfg.id.replace('-', '_')}", cute_source(cfg, cs)).host
    compiled = None

    def run(m: int, case: Case, rng: np.random.Generator) -> list[str]:
        nonlocal compiled
        d = data(rng, cfg)
        poisons = poisoned_outputs(rng, cfg)
        outs = {k: gpu_tensor(v, out_dtype(cfg, k)) for k, v in poisons.items()}
        tensors = [gpu_tensor(d.x, cfg.dtype), outs["out"], outs["red"], outs["agg"], outs["vout"]]
        tensors += [gpu_tensor(d.ranks, "int32"), gpu_tensor(d.init, cfg.dtype)]
        a = [from_dlpack(t, assumed_align=16) for t in tensors]
        if compiled is None:
            compiled = cutlass_coop.compile(host, *a, cutlass.Int32(1), cutlass.Int32(0), cutlass.Int32(0))
        compiled(*a, d.nv, d.ni, m)
        torch.cuda.synchronize()
        got = {k: host_array(v, out_dtype(cfg, k)) for k, v in outs.items()}
        return [f"{case.name}: {p}" for p in mismatches(cfg, got, reference(case, cfg, d, poisons))]

    check_cases(cs, run)
