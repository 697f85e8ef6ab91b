# SPDX-License-Identifier: Apache-2.0
"""Kernels whose warps run different ``coop.warp`` calls at the same time, each needing scratch of
another size (``tests/test_warp_scratch*.py``): even warps sort 64 (key, value) pairs (2 a lane,
logical warps of 32), odd warps sort keys in logical warps of 16 lanes (1 a lane, descending), over
``reps`` rounds with no block barrier. With the slices of one scratch buffer at each call's own
stride, a pair sort's slice overlapped the key sorts' slices of the next warp."""

from typing import Any  # (no postponed annotations: the CuTe DSL reads the kernels' own)

import numpy as np

PAIRS = 2  # items a lane of the pair sorts
REPS = 64


def numba_kernel(shared: bool = False) -> Any:
    """The Numba kernel (``shared``: both sorts take one caller-owned ``coop.TempStorage``)."""
    from cuda import coop
    from numba import cuda

    def kernel(keys, vals, pk, pv, sk, reps):  # type: ignore[no-untyped-def]
        t = cuda.threadIdx.x
        w, lane = t // 32, t % 32
        g = cuda.blockIdx.x * (cuda.blockDim.x // 32) + w  # this warp's part of the data
        scratch = coop.TempStorage()
        for _ in range(reps):
            if w % 2 == 0:
                k = coop.ThreadData(PAIRS, np.float32)
                v = coop.ThreadData(PAIRS, np.int32)
                for s in range(PAIRS):
                    k[s] = keys[g * 32 * PAIRS + lane * PAIRS + s]
                    v[s] = vals[g * 32 * PAIRS + lane * PAIRS + s]
                if shared:
                    coop.warp.merge_sort(k, "less", values=v, temp_storage=scratch)
                else:
                    coop.warp.merge_sort(k, "less", values=v)
                for s in range(PAIRS):
                    pk[g * 32 * PAIRS + lane * PAIRS + s] = k[s]
                    pv[g * 32 * PAIRS + lane * PAIRS + s] = v[s]
            else:
                one = coop.ThreadData(1, np.float32)
                one[0] = keys[g * 32 * PAIRS + lane]
                if shared:
                    coop.warp.merge_sort(one, "greater", threads_in_warp=16, temp_storage=scratch)
                else:
                    coop.warp.merge_sort(one, "greater", threads_in_warp=16)
                sk[g * 32 + lane] = one[0]
            if shared:
                cuda.syncwarp()  # the caller's storage: a barrier between two uses, as in CUB

    return kernel


def cute_host(shared: bool = False) -> Any:
    """The CuTe kernel of ``numba_kernel`` (1-D tensors; ``launch(grid, threads)``)."""
    import cutlass
    import cutlass.cute as cute
    from cuda import coop

    @cute.kernel
    def kernel(
        keys: cute.Tensor,
        vals: cute.Tensor,
        pk: cute.Tensor,
        pv: cute.Tensor,
        sk: cute.Tensor,
        reps: cutlass.Int32,
    ) -> None:
        t, _, _ = cute.arch.thread_idx()
        b, _, _ = cute.arch.block_idx()
        bd, _, _ = cute.arch.block_dim()
        w, lane = t // 32, t % 32
        g = b * (bd // 32) + w
        scratch = coop.TempStorage()
        for _ in cutlass.range(reps):
            if w % 2 == 0:
                k = coop.ThreadData(PAIRS, cutlass.Float32)
                v = coop.ThreadData(PAIRS, cutlass.Int32)
                for s in cutlass.range_constexpr(PAIRS):
                    k[s] = keys[g * 32 * PAIRS + lane * PAIRS + s]
                    v[s] = vals[g * 32 * PAIRS + lane * PAIRS + s]
                if cutlass.const_expr(shared):
                    coop.warp.merge_sort(k, "less", values=v, temp_storage=scratch)
                else:
                    coop.warp.merge_sort(k, "less", values=v)
                for s in cutlass.range_constexpr(PAIRS):
                    pk[g * 32 * PAIRS + lane * PAIRS + s] = k[s]
                    pv[g * 32 * PAIRS + lane * PAIRS + s] = v[s]
            else:
                one = coop.ThreadData(1, cutlass.Float32)
                one[0] = keys[g * 32 * PAIRS + lane]
                if cutlass.const_expr(shared):
                    coop.warp.merge_sort(one, "greater", threads_in_warp=16, temp_storage=scratch)
                else:
                    coop.warp.merge_sort(one, "greater", threads_in_warp=16)
                sk[g * 32 + lane] = one[0]
            if cutlass.const_expr(shared):
                cute.arch.sync_warp()

    @cute.jit
    def host(
        keys: cute.Tensor,
        vals: cute.Tensor,
        pk: cute.Tensor,
        pv: cute.Tensor,
        sk: cute.Tensor,
        reps: cutlass.Int32,
        grid: cutlass.Constexpr,
        threads: cutlass.Constexpr,
    ) -> None:
        kernel(keys, vals, pk, pv, sk, reps).launch(grid=(grid, 1, 1), block=(threads, 1, 1))

    return host


def data(rng: np.random.Generator, warps: int) -> tuple[np.ndarray, np.ndarray]:
    """Distinct float32 keys (a permutation, so that the order is unique) and int32 values."""
    n = warps * 32 * PAIRS
    keys = (rng.permutation(n).astype(np.float32) - n / 2) * np.float32(0.25)
    return keys, rng.integers(-(2**31), 2**31 - 1, n, dtype=np.int32)


def pairs_warp(w: int, per_block: int) -> bool:
    """Whether warp ``w`` of the grid sorts pairs (even warps of its block) or keys (odd)."""
    return (w % per_block) % 2 == 0


def reference(keys: np.ndarray, vals: np.ndarray, warps: int, per_block: int) -> dict[str, np.ndarray]:
    """What the kernel writes, in NumPy: the pair sorting warps' pairs sorted by key; the others'
    first 32 keys, each 16 sorted descending (other warps' parts are left as the poison: checked
    apart)."""
    span = 32 * PAIRS
    pk = keys.copy().reshape(warps, span)
    pv = vals.copy().reshape(warps, span)
    sk = np.empty((warps, 32), np.float32)
    for w in range(warps):
        if pairs_warp(w, per_block):
            order = np.argsort(pk[w], kind="stable")
            pk[w], pv[w] = pk[w][order], pv[w][order]
        else:
            head = keys.reshape(warps, span)[w, :32]
            sk[w] = np.concatenate([-np.sort(-head[:16]), -np.sort(-head[16:])])
    return {"pk": pk, "pv": pv, "sk": sk}
