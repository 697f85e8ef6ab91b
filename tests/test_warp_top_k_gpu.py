# SPDX-License-Identifier: Apache-2.0
"""``coop.warp.top_k`` on the GPU, every backend (numba-cuda, numba-cuda-mlir, CuTe): each case of
``tests/_warp_top_k_cases.py`` (k in {1, 8, 16, 32} x items a lane in {4, 8, 16, 32}, three tiles a
row; the first call without a list, blocked items, given indices; float16, bfloat16, int32; 64 items
a lane; logical warps of 16 and 8) on fresh random rows and the rows that defeat a threshold
(ascending, descending, constant, three values, -inf, +-0, NaN, fewer non-NaN items than k), every
lane's entry against the ``np.lexsort`` reference, values bit for bit; outputs poisoned."""

from __future__ import annotations

import numpy as np
import pytest

from ._numba_family import BACKENDS, family
from ._warp_top_k_cases import THREADS, Case, cases, mismatches, numba_kernel, rows

pytestmark = pytest.mark.gpu


def _poison(case: Case, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    dt = np.float32 if case.dtype == "bfloat16" else np.dtype(case.dtype)
    return np.full(case.rows * case.width, 7, dt), rng.integers(-9, -1, case.rows * case.width).astype(
        np.int32
    )


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", [c for c in cases() if c.dtype != "bfloat16"], ids=lambda c: c.id)
def test_warp_top_k_numba_family(case: Case, backend: str) -> None:
    jit, cuda, _source = family(backend, case.dtype)
    from ._numba_family import front

    coop_module, _ = front(backend)
    kernel = jit(numba_kernel(case, coop_module, cuda))
    rng = np.random.default_rng()
    for _ in range(2):  # fresh rows each launch
        x, idx = rows(case, rng)
        pv, pi = _poison(case, rng)
        values, indices = cuda.to_device(pv), cuda.to_device(pi)
        kernel[case.rows * case.width // THREADS, THREADS](
            cuda.to_device(x.astype(case.dtype).reshape(-1)), cuda.to_device(idx.reshape(-1)), values, indices
        )
        cuda.synchronize()
        bad = mismatches(case, x, idx, values.copy_to_host(), indices.copy_to_host())
        assert not bad, "\n".join(bad[:5])


@pytest.mark.parametrize("case", cases(), ids=lambda c: c.id)
def test_warp_top_k_cute(case: Case) -> None:
    pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
    torch = pytest.importorskip("torch", reason="the CuTe half moves data with torch")
    import cuda.coop.cutlass as cutlass_coop
    from cutlass.cute.runtime import from_dlpack

    from ._warp_top_k_cute import cute_host

    host, _ty = cute_host(case)
    held = {
        "float32": torch.float32,
        "float16": torch.float16,
        "bfloat16": torch.bfloat16,
        "int32": torch.int32,
    }
    rng = np.random.default_rng()
    compiled = None
    for _ in range(2):
        x, idx = rows(case, rng)
        pv, pi = _poison(case, rng)
        xt = torch.from_numpy(x.reshape(-1)).to(held[case.dtype]).cuda()
        tensors = [xt, torch.from_numpy(idx.reshape(-1)).cuda(),
                   torch.from_numpy(pv).to(held[case.dtype]).cuda(), torch.from_numpy(pi).cuda()]  # fmt: skip
        args = [from_dlpack(t, assumed_align=16) for t in tensors]
        compiled = compiled or cutlass_coop.compile(host, *args)
        compiled(*args)
        torch.cuda.synchronize()
        got_v = tensors[2].float().cpu().numpy() if case.dtype != "int32" else tensors[2].cpu().numpy()
        bad = mismatches(case, x, idx, got_v, tensors[3].cpu().numpy())
        assert not bad, "\n".join(bad[:5])
