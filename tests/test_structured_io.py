# SPDX-License-Identifier: Apache-2.0
"""Block loads and stores of tuples of arrays (issue 18) on both backends: every load and store
algorithm, full and partial tiles, ``oob_default`` a tuple or one number for all fields, items
kept past the count, caller-owned scratch shared by the fields (with and without auto_sync), on
(float32, int32), (float64, int64, float32) and (int8, float16) with 1-D, 2-D and 3-D blocks
(one with a partial hardware warp) and 1 to 8 items per thread, against NumPy (fresh random data,
poisoned outputs; ``tests/_structured_io.py``). Ahead of time on CPU: one function, no CALL, no
local memory."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from . import _structured_io as sio
from ._reference import check_cases

_CONFIGS = sio.configs()
_SANITIZED = {0, 4, 8}


def _params() -> list[Any]:
    return [
        pytest.param(c, id=c.id, marks=[pytest.mark.sanitizer] if i in _SANITIZED else [])
        for i, c in enumerate(_CONFIGS)
    ]


def _name(prefix: str, cfg: sio.Config) -> str:
    return f"{prefix}_io_{cfg.id.replace('-', '_').replace('+', '_')}"


def _numba_signature(cfg: sio.Config) -> str:
    return "void(" + ", ".join([f"{f}[::1]" for f in cfg.fields] * 3) + ", int32, int32)"


def _cute_fakes(cfg: sio.Config) -> list[Any]:
    import cutlass
    from cutlass.cute.runtime import make_fake_compact_tensor

    from ._compute_kernels import _CUTE_TYPES

    size = sio.GRID * sio.TILES * cfg.tile
    types = [getattr(cutlass, _CUTE_TYPES[f]) for f in cfg.fields]
    arrays = [make_fake_compact_tensor(t, (size,), assumed_align=16) for t in types]
    inits = [make_fake_compact_tensor(t, (1,), assumed_align=16) for t in types]
    return [*arrays, *arrays, *inits, cutlass.Int32(0), cutlass.Int32(0)]


@pytest.mark.parametrize("backend", ["numba", "cute"])
def test_tuple_loads_and_stores_keep_items_in_registers(backend: str) -> None:
    """Every case of the first and the last config in one kernel: one function, no CALL, no local
    memory (the fields' CUB calls inlined, the tuples in registers), at most one NVRTC call."""
    from cuda import coop

    for cfg in (_CONFIGS[0], _CONFIGS[-1]):
        before = coop.compile_stats().nvrtc_compiles
        if backend == "numba":
            import cuda.coop.numba as numba_coop

            kernel = sio.load(_name("numba", cfg), sio.numba_source(cfg)).kernel
            r = numba_coop.compile(kernel, _numba_signature(cfg), block=cfg.block).inspect()
        else:
            pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
            import cuda.coop.cutlass as cutlass_coop

            host = sio.load(_name("cute", cfg), sio.cute_source(cfg)).host
            r = cutlass_coop.compile(host, *_cute_fakes(cfg), arch="sm_90a").inspect()
        assert (r.calls, r.local_loads, r.local_stores, len(r.functions)) == (0, 0, 0, 1), cfg.id
        assert coop.compile_stats().nvrtc_compiles - before <= 1, cfg.id  # one bundle (none if cached)


@pytest.mark.gpu
@pytest.mark.parametrize("cfg", _params())
def test_tuple_loads_and_stores_numba(cfg: sio.Config) -> None:
    import cuda.coop.numba as numba_coop
    from numba import cuda

    cs = sio.cases(cfg)
    kernel = numba_coop.jit(sio.load(_name("numba", cfg), sio.numba_source(cfg)).kernel)

    def run(m: int, case: sio.Case, rng: np.random.Generator) -> list[str]:
        d = sio.inputs(rng, cfg)
        outs = [cuda.to_device(p) for p in d["poison"]]
        kernel[sio.GRID, cfg.block](
            *[cuda.to_device(x) for x in d["x"]],
            *outs,
            *[cuda.to_device(v) for v in d["init"]],
            np.int32(d["nvalid"]),
            np.int32(m),
        )
        return sio.mismatches(cfg, case, [o.copy_to_host() for o in outs], d)

    check_cases(cs, run)


@pytest.mark.gpu
@pytest.mark.parametrize("cfg", _params())
def test_tuple_loads_and_stores_cute(cfg: sio.Config) -> None:
    pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
    torch = pytest.importorskip("torch", reason="the CuTe half moves data with torch")
    import cuda.coop.cutlass as cutlass_coop
    import cutlass
    from cutlass.cute.runtime import from_dlpack

    from ._reference import gpu_tensor, host_array

    cs = sio.cases(cfg)
    host = sio.load(_name("cute", cfg), sio.cute_source(cfg)).host
    compiled = None

    def run(m: int, case: sio.Case, rng: np.random.Generator) -> list[str]:
        nonlocal compiled
        d = sio.inputs(rng, cfg)
        outs = [gpu_tensor(p, f) for p, f in zip(d["poison"], cfg.fields, strict=True)]
        tensors = [gpu_tensor(x, f) for x, f in zip(d["x"], cfg.fields, strict=True)]
        tensors += outs + [gpu_tensor(v, f) for v, f in zip(d["init"], cfg.fields, strict=True)]
        args = [from_dlpack(t, assumed_align=16) for t in tensors]
        if compiled is None:
            compiled = cutlass_coop.compile(host, *args, cutlass.Int32(0), cutlass.Int32(0))
        compiled(*args, d["nvalid"], m)
        torch.cuda.synchronize()
        got = [host_array(o, f) for o, f in zip(outs, cfg.fields, strict=True)]
        return sio.mismatches(cfg, case, got, d)

    check_cases(cs, run)
