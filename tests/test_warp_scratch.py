# SPDX-License-Identifier: Apache-2.0
"""Warp calls of different scratch sizes in one kernel slice its scratch at one stride (ahead of
time, no GPU): every warp request of the kernel reports the same ``TempStorage`` footprint, a unit
(the largest of theirs) per narrowest logical warp of the block. (Their behaviour on the GPU, with
warps running the calls at the same time: ``test_warp_scratch_gpu.py``.)"""

from __future__ import annotations

import pytest

from . import _warp_scratch_kernels as K


@pytest.mark.parametrize("threads", [64, 96, 256])
@pytest.mark.parametrize("shared", [False, True], ids=["implicit", "caller"])
def test_numba_warp_requests_share_one_slicing(threads: int, shared: bool) -> None:
    import cuda.coop.numba as numba_coop

    sig = "void(float32[::1], int32[::1], float32[::1], int32[::1], float32[::1], int32)"
    c = numba_coop.compile(K.numba_kernel(shared), sig, block=threads)
    sizes = {sym: v for sym, v in c.temp_storage.items() if sym.startswith("coop_warp_merge_sort")}
    assert len(sizes) == 2, sizes  # the pair sort and the key sort
    (size, align), other = sizes.popitem()[1], sizes.popitem()[1]
    assert (size, align) == other
    # a unit per 16 threads (the key sorts' logical warps), each at least a pair sort's (its 64
    # keys, 4 bytes each, at the least)
    units = threads // 16
    assert size % units == 0 and size // units >= 32 * K.PAIRS * 4, (size, units)
    r = c.inspect()
    assert r.calls == 0 and r.local_loads == 0 and r.local_stores == 0


@pytest.mark.parametrize("shared", [False, True], ids=["implicit", "caller"])
def test_cute_warp_requests_compile(shared: bool) -> None:
    pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
    import cuda.coop.cutlass as cutlass_coop
    import cutlass
    from cutlass.cute.runtime import make_fake_compact_tensor

    n = 4 * 32 * K.PAIRS
    t = [
        make_fake_compact_tensor(dt, (n,), assumed_align=16)
        for dt in (cutlass.Float32, cutlass.Int32, cutlass.Float32, cutlass.Int32, cutlass.Float32)
    ]
    r = cutlass_coop.compile(K.cute_host(shared), *t, cutlass.Int32(1), 1, 128).inspect()
    assert r.calls == 0 and r.local_loads == 0 and r.local_stores == 0
