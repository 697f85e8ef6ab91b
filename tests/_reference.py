# SPDX-License-Identifier: Apache-2.0
"""NumPy references for coop.block.load/store, independent of CUB: where each item goes; and the
loop the GPU grid tests share (fresh data per case, a seed reported on failure)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np

C = TypeVar("C")


def tile_positions(threads: int, ipt: int, algorithm: str) -> np.ndarray:
    """``pos[t, j]``: index within the tile of thread ``t``'s item ``j``."""
    t = np.arange(threads)[:, None]
    j = np.arange(ipt)[None, :]
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
