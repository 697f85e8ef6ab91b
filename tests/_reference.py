# SPDX-License-Identifier: Apache-2.0
"""NumPy references for coop.block.load/store, independent of CUB: where each item goes."""

from __future__ import annotations

import numpy as np


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
