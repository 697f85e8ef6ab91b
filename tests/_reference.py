# SPDX-License-Identifier: Apache-2.0
"""NumPy references for coop.block.load/store, independent of CUB: where each item goes; and the
loop the GPU grid tests share (fresh data per case, a seed reported on failure), and the moves of
exact bits between NumPy and the torch tensors of the CuTe tests; and a Python process of its own
for test modules that run kernels in one (``run_python``); and what an inlined kernel's report shows
(``assert_inlined``)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

C = TypeVar("C")


def tile_positions(threads: int, ipt: int, algorithm: str, itemsize: int = 4) -> np.ndarray:
    """``pos[t, j]``: index within the tile of thread ``t``'s item ``j`` (of ``itemsize`` bytes).

    ``striped_vectors`` (and ``auto``, documented to stand for it): runs of ``v`` items striped over
    the threads, ``v`` the largest of 4, 2, 1 that divides ``ipt`` with ``v * itemsize <= 16`` (as
    documented in ``BlockLoadAlgorithm``)."""
    t = np.arange(threads)[:, None]
    j = np.arange(ipt)[None, :]
    if algorithm in ("striped_vectors", "auto"):
        v = max(v for v in (1, 2, 4) if ipt % v == 0 and v * itemsize <= 16)
        return ((j // v) * threads + t) * v + j % v
    return j * threads + t if algorithm == "striped" else t * ipt + j


def random_array(rng: np.random.Generator, dtype: np.dtype, n: int) -> np.ndarray:
    """Fresh random data of ``dtype`` (never all zeros), within the type's range."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)
    return rng.uniform(-1000, 1000, size=n).astype(dtype)


def io_dtype(dtype: str) -> str:
    """The element type of the arrays a Numba kernel reads ``dtype`` items from and writes them to
    (numba-cuda takes no bfloat16 array arguments: those go through float32)."""
    return "float32" if dtype == "bfloat16" else dtype


def check_cases(cases: Sequence[C], run: Callable[[int, C, np.random.Generator], list[str]]) -> None:
    """Call ``run(mode, case, rng)`` for every case (``mode`` its index in the kernel), each on fresh
    random data drawn from ``rng``; ``run`` returns the case's mismatches. A new seed every test run,
    reported with the mismatches of all cases on failure."""
    seed = int(np.random.SeedSequence().entropy) % 2**63
    rng = np.random.default_rng(seed)
    failures = [f for m, case in enumerate(cases) for f in run(m, case, rng)]
    assert not failures, f"seed {seed}:\n" + "\n".join(failures)


_SIGNED = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}


def gpu_tensor(values: np.ndarray, dtype: str):  # type: ignore[no-untyped-def]
    """A CUDA torch tensor of ``dtype`` holding ``values`` (converted to ``dtype``, then its bits moved
    exactly; bfloat16 through float32)."""
    import torch

    if dtype == "bfloat16":
        return torch.from_numpy(values.astype(np.float32)).to(torch.bfloat16).to("cuda")
    a = np.ascontiguousarray(values.astype(dtype))
    return torch.from_numpy(a.view(_SIGNED[a.itemsize])).to("cuda").view(getattr(torch, dtype))


def host_array(tensor, dtype: str) -> np.ndarray:  # type: ignore[no-untyped-def]
    """A CUDA torch tensor's bits on the host as ``dtype`` (bfloat16 as float32)."""
    import torch

    if dtype == "bfloat16":
        return tensor.float().cpu().numpy()
    signed = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[tensor.element_size()]
    return tensor.view(signed).cpu().numpy().view(np.dtype(dtype))


ROOT = Path(__file__).resolve().parents[1]


def run_python(*args: str) -> list[str]:
    """The lines ``python *args`` prints, run from the repository root with it on the path (a test
    module's kernels in a process of their own); its failure fails the test with its output."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    out = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, check=False, cwd=ROOT, env=env
    )
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout.splitlines()


def assert_inlined(report: Any, functions: int | None = 1) -> None:
    """A CubinReport of a kernel whose coop calls are inlined away: ``functions`` functions (None:
    any number), no CALL, no local memory, no provider symbol left."""
    if functions is not None:
        assert len(report.functions) == functions, report.functions
    assert report.calls == 0, report.sass
    assert report.local_loads == 0 and report.local_stores == 0, report.sass
    assert not report.leftover_symbols, report.leftover_symbols
