# SPDX-License-Identifier: Apache-2.0
"""GPU correctness of ``coop.block.load_to_shared``: two runs a block copied into one shared array
(the first by one bulk copy where it is 16-byte aligned, the second one item later by the striped
fallback, reusing the call's scratch) and read back in reverse by every thread; float32, int16 and
float64 items in blocks of 128, (32, 3) and (5, 7, 2) threads, int8, uint8, float16, uint32 and int64
in blocks of 128; a 64 KB dynamic shared array (above the
48 KB a kernel may take without opting in; Numba: the front door opts in). Both DSLs, fresh random
data, poisoned outputs, checked against NumPy (``tests/_staged_kernels.py``). The 128-thread cases
are marked ``sanitizer``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from . import _staged_kernels as sk

pytestmark = pytest.mark.gpu


def _params() -> list[Any]:
    return [
        pytest.param(c, id=c.id(), marks=[pytest.mark.sanitizer] if c.block == (128, 1, 1) else [])
        for c in sk.cases()
    ]


def _poison(case: sk.Case) -> np.ndarray:
    fill = np.nan if case.dtype.startswith("float") else np.iinfo(case.dtype).max
    return np.full(sk.GRID * 2 * case.num, fill, case.dtype)


def _check(case: sk.Case, src: np.ndarray, got: np.ndarray, seed: int) -> None:
    np.testing.assert_array_equal(got, sk.reference(src, case), err_msg=f"{case.id()} seed {seed}")


@pytest.mark.parametrize("case", _params())
def test_load_to_shared_numba(case: sk.Case) -> None:
    import cuda.coop.numba as numba_coop
    from numba import cuda

    seed = int(np.random.SeedSequence().entropy) % 2**63
    src = sk.data(np.random.default_rng(seed), case)
    out = cuda.to_device(_poison(case))
    kernel = numba_coop.jit(sk.numba_kernel(case))
    shmem = case.shared_bytes if case.dynamic else 0
    kernel[sk.GRID, case.block, 0, shmem](cuda.to_device(src), out)
    _check(case, src, out.copy_to_host(), seed)
    # the launch coop caches after the first, and a prepared one
    out = cuda.to_device(_poison(case))
    kernel[sk.GRID, case.block, 0, shmem](cuda.to_device(src), out)
    _check(case, src, out.copy_to_host(), seed)
    out = cuda.to_device(_poison(case))
    kernel.prepare(sk.GRID, case.block, cuda.to_device(src), out, shared_mem=shmem).launch()
    _check(case, src, out.copy_to_host(), seed)


@pytest.mark.parametrize("case", _params())
def test_load_to_shared_cutlass(case: sk.Case) -> None:
    import cuda.coop.cutlass as cutlass_coop
    import torch
    from cutlass.cute.runtime import from_dlpack

    seed = int(np.random.SeedSequence().entropy) % 2**63
    src = sk.data(np.random.default_rng(seed), case)
    tensors = [torch.from_numpy(src).cuda(), torch.from_numpy(_poison(case)).cuda()]
    args = [from_dlpack(t, assumed_align=16) for t in tensors]
    compiled = cutlass_coop.compile(sk.cute_host(case), *args)
    compiled(*args)
    torch.cuda.synchronize()
    _check(case, src, tensors[1].cpu().numpy(), seed)
