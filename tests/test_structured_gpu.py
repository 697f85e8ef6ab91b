# SPDX-License-Identifier: Apache-2.0
"""GPU correctness of structured items (issue 18) on every backend: the block reductions, scans and
exchanges and the warp reductions, scans, broadcasts, segmented and batched reductions and
exchanges, on tuples of (float32, int32), (float64, int64, float32) and (int8, float16), with
1-D, 2-D and 3-D blocks (one with a partial hardware warp), 1 to 8 items per thread, partial
tiles and counts, initial values, aggregates and running prefixes; each field checked against the
scalar suites' NumPy references (``tests/_structured_cases.py``; fresh random data, poisoned
outputs)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from . import _structured_cases as sc
from ._compute_cases import GRID
from ._numba_family import BACKENDS, family
from ._reference import check_cases
from ._structured_grid_kernels import cute_source, load, numba_source

pytestmark = pytest.mark.gpu


def _inputs(cfg: sc.Config, d: list[Any]) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """(the fields' items, the shared int inputs, the fields' initial values), as the kernel takes
    them."""
    first = d[0]
    shared = [first.ranks, first.granks, first.flags] if cfg.suite == "block" else [first.ranks]
    return (
        [x.x.astype(f) for x, f in zip(d, cfg.fields, strict=True)],
        shared,
        [x.init.astype(f) for x, f in zip(d, cfg.fields, strict=True)],
    )


def _scalars(cfg: sc.Config, d: list[Any], m: int) -> list[int]:
    return [d[0].nvalid, m] if cfg.suite == "block" else [d[0].nv, d[0].ni, m]


_OUTPUTS = ("out", "red", "agg")  # each field's; a warp config's int32 ``vout`` once (field 0's)


def _label(case: Any) -> str:
    """How a failure names its case (block cases have an ``id``, warp cases a ``name``)."""
    return getattr(case, "id", None) or case.name


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("cfg", sc.gpu_params())
def test_structured_grid_numba(cfg: sc.Config, backend: str) -> None:
    """The Numba-family backends (numba-cuda, numba-cuda-mlir) compile the same source."""
    jit, cuda, source = family(backend)
    cs = sc.cases(cfg)
    name = f"{backend}_{cfg.id.replace('-', '_').replace('+', '_')}"
    kernel = jit(load(name, source(numba_source(cfg, cs))).kernel)

    def run(m: int, case: Any, rng: np.random.Generator) -> list[str]:
        d = sc.data(rng, cfg)
        p = sc.poisons(rng, cfg)
        xs, shared, inits = _inputs(cfg, d)
        dev = [{k: cuda.to_device(v) for k, v in pk.items()} for pk in p]
        outs = [dev[k][name] for name in _OUTPUTS for k in range(len(cfg.fields))]
        vout = [dev[0]["vout"]] if cfg.suite == "warp" else []
        kernel[GRID, cfg.block](
            *[cuda.to_device(x) for x in xs],
            *outs,
            *vout,
            *[cuda.to_device(v) for v in shared],
            *[cuda.to_device(v) for v in inits],
            *[np.int32(v) for v in _scalars(cfg, d, m)],
        )
        got = [{k: v.copy_to_host() for k, v in dk.items()} for dk in dev]
        return [f"{_label(case)}: {e}" for e in sc.mismatches(case, cfg, d, p, got)]

    check_cases(cs, run)


@pytest.mark.parametrize("cfg", sc.gpu_params())
def test_structured_grid_cute(cfg: sc.Config) -> None:
    pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
    torch = pytest.importorskip("torch", reason="the CuTe half moves data with torch")
    import cuda.coop.cutlass as cutlass_coop
    import cutlass
    from cutlass.cute.runtime import from_dlpack

    from ._reference import gpu_tensor, host_array

    cs = sc.cases(cfg)
    host = load(f"cute_{cfg.id.replace('-', '_').replace('+', '_')}", cute_source(cfg, cs)).host
    compiled = None
    shared_types = ["int32", "int32", "uint8"] if cfg.suite == "block" else ["int32"]

    def run(m: int, case: Any, rng: np.random.Generator) -> list[str]:
        nonlocal compiled
        d = sc.data(rng, cfg)
        p = sc.poisons(rng, cfg)
        xs, shared, inits = _inputs(cfg, d)
        outs = [
            {k: gpu_tensor(v, "int32" if k == "vout" else f) for k, v in pk.items()}
            for pk, f in zip(p, cfg.fields, strict=True)
        ]
        tensors = [gpu_tensor(x, f) for x, f in zip(xs, cfg.fields, strict=True)]
        tensors += [outs[k][name] for name in _OUTPUTS for k in range(len(cfg.fields))]
        tensors += [outs[0]["vout"]] if cfg.suite == "warp" else []
        tensors += [gpu_tensor(v, t) for v, t in zip(shared, shared_types, strict=True)]
        tensors += [gpu_tensor(v, f) for v, f in zip(inits, cfg.fields, strict=True)]
        args = [from_dlpack(t, assumed_align=16) for t in tensors]
        scalars = _scalars(cfg, d, m)
        if compiled is None:
            compiled = cutlass_coop.compile(host, *args, *[cutlass.Int32(v) for v in scalars])
        compiled(*args, *scalars)
        torch.cuda.synchronize()
        got = [
            {k: host_array(v, "int32" if k == "vout" else f) for k, v in ok.items()}
            for ok, f in zip(outs, cfg.fields, strict=True)
        ]
        return [f"{_label(case)}: {e}" for e in sc.mismatches(case, cfg, d, p, got)]

    check_cases(cs, run)
