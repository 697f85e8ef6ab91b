# SPDX-License-Identifier: Apache-2.0
"""GPU correctness of ``coop.cluster`` (issue 19): sum, a reduce with a user operator, argmax,
argmin and a tuple sum over clusters of 1, 2, 4, 8 and 16 blocks (16: non-portable), blocks of
128, (32, 3) and (5, 7, 2) threads, 1 and 4 items per thread, partial rows (the last blocks of a
cluster hold fewer valid items or none), three clusters per grid; both DSLs, fresh random data,
poisoned outputs, every thread of every block checked against NumPy (``tests/_cluster_kernels.py``).
Numba also through ``prepare(..., cluster=)``. A diagonal subset is marked ``sanitizer``.

Then several calls at one call site: persistent clusters looping over rows, two call sites of
different item types in the loop (and in Numba a device helper with a third, blocks sleeping by rank
and row so that they reach the calls at different times)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from . import _cluster_kernels as ck

pytestmark = pytest.mark.gpu

_DIAGONAL = {(2, 128, 4), (8, (32, 3), 1), (16, (5, 7, 2), 4)}


def _params() -> list[Any]:
    out = []
    for c in ck.CLUSTERS:
        for b in ck.BLOCKS:
            for n in ck.ITEMS:
                cfg = ck.Config(c, ck.dims(b), n)
                marks = [pytest.mark.sanitizer] if (c, b, n) in _DIAGONAL else []
                out.append(pytest.param(cfg, id=cfg.id(), marks=marks))
    return out


def _seed() -> tuple[int, np.random.Generator]:
    seed = int(np.random.SeedSequence().entropy) % 2**63
    return seed, np.random.default_rng(seed)


@pytest.mark.parametrize("cfg", _params())
def test_cluster_numba(cfg: ck.Config) -> None:
    import cuda.coop.numba as numba_coop
    from numba import cuda

    seed, rng = _seed()
    d = ck.data(rng, cfg)
    ins = [cuda.to_device(d[k]) for k in ("ints", "floats", "longs")]
    out = {k: cuda.to_device(v) for k, v in ck.outputs(cfg).items()}
    kernel = numba_coop.jit(ck.numba_kernel(cfg))
    kernel.configure(cfg.grid, cfg.block, cluster=cfg.cluster)(*ins, *out.values())
    ck.check(cfg, d, {k: v.copy_to_host() for k, v in out.items()}, seed)
    # the prepared launch, on fresh data and outputs
    d = ck.data(rng, cfg)
    ins = [cuda.to_device(d[k]) for k in ("ints", "floats", "longs")]
    out = {k: cuda.to_device(v) for k, v in ck.outputs(cfg).items()}
    kernel.prepare(cfg.grid, cfg.block, *ins, *out.values(), cluster=cfg.cluster).launch()
    ck.check(cfg, d, {k: v.copy_to_host() for k, v in out.items()}, seed)


@pytest.mark.parametrize("cfg", _params())
def test_cluster_cutlass(cfg: ck.Config) -> None:
    import cuda.coop.cutlass as cutlass_coop
    import torch
    from cutlass.cute.runtime import from_dlpack

    seed, rng = _seed()
    d = ck.data(rng, cfg)
    tensors = [torch.from_numpy(d[k]).cuda() for k in ("ints", "floats", "longs")]
    out = {k: torch.from_numpy(v).cuda() for k, v in ck.outputs(cfg).items()}
    args = [from_dlpack(t, assumed_align=16) for t in (*tensors, *out.values())]
    compiled = cutlass_coop.compile(ck.cute_host(cfg), *args)
    compiled(*args)
    torch.cuda.synchronize()
    ck.check(cfg, d, {k: v.cpu().numpy() for k, v in out.items()}, seed)


_LOOPS = [
    pytest.param(cfg, id=cfg.id(), marks=[pytest.mark.sanitizer] if cfg.cluster == 4 else [])
    for cfg in (ck.Config(c, ck.dims(b), 2) for c in (2, 4, 16) for b in (128, (5, 7, 2)))
]


@pytest.mark.parametrize("cfg", _LOOPS)
def test_cluster_loop_numba(cfg: ck.Config) -> None:
    import cuda.coop.numba as numba_coop
    from numba import cuda

    seed, rng = _seed()
    for _ in range(2):  # twice: a launch must not depend on what the last one left in shared memory
        d = ck.loop_data(rng, cfg)
        ins = [cuda.to_device(d[k]) for k in ("ints", "floats")]
        out = {k: cuda.to_device(v) for k, v in ck.loop_outputs(cfg).items()}
        kernel = numba_coop.jit(ck.loop_numba_kernel(cfg))
        kernel.configure(ck.LOOP_CLUSTERS * cfg.cluster, cfg.block, cluster=cfg.cluster)(*ins, *out.values())
        ck.loop_check(cfg, d, {k: v.copy_to_host() for k, v in out.items()}, seed, helper=True)


@pytest.mark.parametrize("cfg", _LOOPS)
def test_cluster_loop_cutlass(cfg: ck.Config) -> None:
    import cuda.coop.cutlass as cutlass_coop
    import torch
    from cutlass.cute.runtime import from_dlpack

    seed, rng = _seed()
    compiled = None
    for _ in range(2):
        d = ck.loop_data(rng, cfg)
        outs = ck.loop_outputs(cfg)
        del outs["helped"]
        tensors = [torch.from_numpy(d[k]).cuda() for k in ("ints", "floats")]
        out = {k: torch.from_numpy(v).cuda() for k, v in outs.items()}
        args = [from_dlpack(t, assumed_align=16) for t in (*tensors, *out.values())]
        compiled = compiled or cutlass_coop.compile(ck.loop_cute_host(cfg), *args)
        compiled(*args)
        torch.cuda.synchronize()
        ck.loop_check(cfg, d, {k: v.cpu().numpy() for k, v in out.items()}, seed, helper=False)
