# SPDX-License-Identifier: Apache-2.0
"""Warps of one block running ``coop.warp`` calls of different scratch sizes at the same time (a
merge sort of pairs in logical warps of 32 beside a merge sort of keys in logical warps of 16, no
block barrier), both backends, implicit and caller-owned scratch, against NumPy; outputs poisoned,
the parts a warp does not write checked untouched. Before each warp request sliced the kernel's
scratch at one stride (2026-12-03), the slices overlapped and these sorts came back corrupted."""

from __future__ import annotations

import numpy as np
import pytest

from . import _warp_scratch_kernels as K

pytestmark = pytest.mark.gpu

BLOCKS = 48
THREADS = [64, 96, 256, 1024]
POISON_F, POISON_I = np.float32(-7.5e30), np.int32(-123456789)


def _check(got: dict[str, np.ndarray], keys: np.ndarray, vals: np.ndarray, threads: int) -> None:
    warps = BLOCKS * threads // 32
    ref = K.reference(keys, vals, warps, threads // 32)
    span = 32 * K.PAIRS
    pk, pv, sk = got["pk"].reshape(warps, span), got["pv"].reshape(warps, span), got["sk"].reshape(warps, 32)
    for w in range(warps):
        if K.pairs_warp(w, threads // 32):
            np.testing.assert_array_equal(pk[w], ref["pk"][w], err_msg=f"warp {w}: pair sort keys")
            np.testing.assert_array_equal(pv[w], ref["pv"][w], err_msg=f"warp {w}: pair sort values")
            assert (sk[w] == POISON_F).all(), f"warp {w} wrote the key sorts' output"
        else:
            np.testing.assert_array_equal(sk[w], ref["sk"][w], err_msg=f"warp {w}: key sort")
            assert (pk[w] == POISON_F).all() and (pv[w] == POISON_I).all(), f"warp {w} wrote pairs"


def _poisoned(warps: int) -> dict[str, np.ndarray]:
    n = warps * 32 * K.PAIRS
    return {
        "pk": np.full(n, POISON_F, np.float32),
        "pv": np.full(n, POISON_I, np.int32),
        "sk": np.full(warps * 32, POISON_F, np.float32),
    }


@pytest.mark.parametrize("threads", THREADS)
@pytest.mark.parametrize("shared", [False, True], ids=["implicit", "caller"])
def test_numba_concurrent_warp_sorts(threads: int, shared: bool) -> None:
    import cuda.coop.numba as numba_coop
    from numba import cuda

    kernel = numba_coop.jit(K.numba_kernel(shared))
    warps = BLOCKS * threads // 32
    rng = np.random.default_rng()
    for _ in range(3):
        keys, vals = K.data(rng, warps)
        outs = {k: cuda.to_device(v) for k, v in _poisoned(warps).items()}
        kernel[BLOCKS, threads](
            cuda.to_device(keys), cuda.to_device(vals), outs["pk"], outs["pv"], outs["sk"], np.int32(K.REPS)
        )
        _check({k: v.copy_to_host() for k, v in outs.items()}, keys, vals, threads)


@pytest.mark.parametrize(
    "threads", [pytest.param(t, marks=[pytest.mark.sanitizer] if t == 96 else []) for t in THREADS]
)
@pytest.mark.parametrize("shared", [False, True], ids=["implicit", "caller"])
def test_cute_concurrent_warp_sorts(threads: int, shared: bool) -> None:
    pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
    import cuda.coop.cutlass as cutlass_coop
    import cutlass
    import torch
    from cutlass.cute.runtime import from_dlpack

    warps = BLOCKS * threads // 32
    rng = np.random.default_rng()
    compiled = None
    for _ in range(3):
        keys, vals = K.data(rng, warps)
        host = {k: torch.from_numpy(v).cuda() for k, v in _poisoned(warps).items()}
        ins = [torch.from_numpy(keys).cuda(), torch.from_numpy(vals).cuda()]
        a = [from_dlpack(x, assumed_align=16) for x in [*ins, host["pk"], host["pv"], host["sk"]]]
        if compiled is None:
            compiled = cutlass_coop.compile(K.cute_host(shared), *a, cutlass.Int32(1), BLOCKS, threads)
        compiled(*a, K.REPS)
        torch.cuda.synchronize()
        _check({k: v.cpu().numpy() for k, v in host.items()}, keys, vals, threads)
