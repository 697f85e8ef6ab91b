# SPDX-License-Identifier: Apache-2.0
"""GPU correctness of exchange, sum/reduce and the scans in CuTe DSL kernels, against the NumPy
references of ``tests/_compute_cases.py``: the same cases, written the same way, as the Numba
suite (every dtype, block shape and items per thread; user operators are ``@cute.jit`` and plain
Python functions)."""

import numpy as np
import pytest

pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")

from ._compute_cases import Case, Config, cases, data, gpu_params, mismatches, poison, reference, sizes  # noqa: E402
from ._compute_kernels import cute_source, load  # noqa: E402
from ._reference import check_cases, gpu_tensor, host_array  # noqa: E402

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("cfg", gpu_params())
def test_compute_grid(cfg: Config) -> None:
    import cuda.coop.cutlass as cutlass_coop
    import cutlass
    import torch
    from cutlass.cute.runtime import from_dlpack

    cs = cases(cfg)
    host = load(f"cute_{cfg.id.replace('-', '_')}", cute_source(cfg, cs)).host

    def args(d, outs):  # type: ignore[no-untyped-def]
        tensors = [
            gpu_tensor(d.x, cfg.dtype),
            outs["out"],
            outs["red"],
            outs["agg"],
            gpu_tensor(d.ranks, "int32"),
            gpu_tensor(d.granks, "int32"),
            gpu_tensor(d.flags, "uint8"),
            gpu_tensor(d.init, cfg.dtype),
        ]
        return [from_dlpack(t, assumed_align=16) for t in tensors]

    compiled = None

    def run(m: int, case: Case, rng: np.random.Generator) -> list[str]:
        nonlocal compiled
        d = data(rng, cfg)
        poisons = {k: poison(rng, cfg.dtype, n) for k, n in sizes(cfg).items()}
        outs = {k: gpu_tensor(v, cfg.dtype) for k, v in poisons.items()}
        a = args(d, outs)
        if compiled is None:
            compiled = cutlass_coop.compile(host, *a, cutlass.Int32(d.nvalid), cutlass.Int32(0))
        compiled(*a, d.nvalid, m)
        torch.cuda.synchronize()
        got = {k: host_array(v, cfg.dtype) for k, v in outs.items()}
        return [f"{case.id}: {p}" for p in mismatches(cfg, got, reference(case, cfg, d, poisons))]

    check_cases(cs, run)


def test_one_temp_storage_serves_load_scan_exchange_and_store() -> None:
    """A caller-owned TempStorage reused by four primitives in a CuTe kernel."""
    import cuda.coop.cutlass as cutlass_coop
    import torch
    from cutlass.cute.runtime import from_dlpack

    from ._cute_kernels import temp_storage_host

    src = torch.randint(-1000, 1000, (512 * 6,), dtype=torch.int32, device="cuda")
    dst = torch.full_like(src, -1)
    totals = torch.zeros(6, dtype=torch.int32, device="cuda")
    args = [from_dlpack(t, assumed_align=16) for t in (src, dst, totals)]
    cutlass_coop.compile(temp_storage_host(), *args)(*args)
    torch.cuda.synchronize()
    tiles = src.cpu().numpy().reshape(6, 512)
    excl = np.cumsum(tiles, axis=1) - tiles
    np.testing.assert_array_equal(dst.cpu().numpy(), excl.reshape(-1))
    np.testing.assert_array_equal(totals.cpu().numpy(), tiles.sum(axis=1))
