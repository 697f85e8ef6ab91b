# SPDX-License-Identifier: Apache-2.0
"""Kernels and NumPy references of the grid-scan tests (issue 22). Each block takes its tile with
``coop.grid.tile_index``, waits a pseudo-random time (so blocks finish out of order), loads its tile
(blocked, the last one partial), scans it with a ``coop.grid`` scan and stores the result and, in
every thread, the ``total`` (the aggregate through its tile) and the ``tile_prefix`` (the aggregate
before it): ``totals`` holds the pair of each thread. Numba and CuTe kernels of one form."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

#: name -> (method, operator, initial value) of the scans tested
SCANS = {
    "exclusive_sum": ("exclusive_sum", None, None),
    "inclusive_sum": ("inclusive_sum", None, None),
    "exclusive_max": ("exclusive_scan", "max", None),
    "inclusive_max_init": ("inclusive_scan", "max", -5),
    "exclusive_user_init": ("exclusive_scan", "user", 3),
}


@dataclass(frozen=True)
class Config:
    scan: str
    dtype: str
    block: tuple[int, int, int]
    items: int
    grid: int
    delay: int = 8  # sleeps of 1 us at most per block
    algorithm: str = "warp_scans"  # the block scan within the tile
    order: str = "ticket"  # coop.grid.tile_index's order

    @property
    def threads(self) -> int:
        return math.prod(self.block)

    @property
    def tile(self) -> int:
        return self.threads * self.items

    @property
    def length(self) -> int:
        """The array's items: the grid's tiles less part of the last one's."""
        return self.grid * self.tile - (self.tile // 3 if self.grid > 1 else 0)

    def id(self) -> str:
        b = "x".join(map(str, self.block))
        alg = "" if self.algorithm == "warp_scans" else f"-{self.algorithm}"
        order = "" if self.order == "ticket" else f"-{self.order}"
        return f"{self.scan}-{self.dtype}-b{b}-i{self.items}-g{self.grid}{alg}{order}"


def data(rng: np.random.Generator, cfg: Config) -> np.ndarray:
    """Fresh items of ``cfg``: small integers, so that float sums are exact in any order (float16 and
    bfloat16 in {-1, 0, 1}: their prefixes stay below 2^8); bfloat16 is given as float32."""
    if cfg.dtype in ("float16", "bfloat16"):
        return rng.integers(-1, 2, cfg.length).astype("float32" if cfg.dtype == "bfloat16" else cfg.dtype)
    if cfg.dtype.startswith("float"):
        return rng.integers(-8, 9, cfg.length).astype(cfg.dtype)
    if cfg.dtype.startswith("complex"):
        return (rng.integers(-8, 9, cfg.length) + 1j * rng.integers(-8, 9, cfg.length)).astype(cfg.dtype)
    if cfg.dtype.startswith("uint"):
        return rng.integers(0, min(1000, np.iinfo(cfg.dtype).max), cfg.length).astype(cfg.dtype)
    return rng.integers(-1000, 1000, cfg.length).astype(cfg.dtype)


def _user(a: Any, b: Any) -> Any:
    """An associative operator that is not a built-in: the larger, then plus one (max(a, b) + 1 is
    not associative; the larger in absolute value is)."""
    return a if abs(a) >= abs(b) else b


def reference(cfg: Config, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(the scanned array, the total through each tile, the prefix before each tile) of ``x``, in
    NumPy (tile 0's prefix: the initial value, 0 for a sum, 0 for another operator without one)."""
    _method, op, init = SCANS[cfg.scan]
    if op is None:
        inclusive = np.cumsum(x, dtype=x.dtype)
    elif op == "max":
        inclusive = np.maximum.accumulate(x if init is None else np.maximum(x, x.dtype.type(init)))
    else:
        seq = [x.dtype.type(init)] if init is not None else []
        acc = []
        for v in x:
            seq = [v] if not seq else [_user(seq[0], v)]
            acc.append(seq[0])
        inclusive = np.array(acc, x.dtype)
    if "exclusive" in cfg.scan:
        first = x.dtype.type(0 if op is None else init if init is not None else 0)
        scanned = np.concatenate([[first], inclusive[:-1]]).astype(x.dtype)
    else:
        scanned = inclusive
    # the total through tile t: the inclusive scan at the tile's last item (partial tile: padded)
    ends = np.minimum((np.arange(cfg.grid) + 1) * cfg.tile, cfg.length) - 1
    first = x.dtype.type(0 if init is None else init)
    return scanned, inclusive[ends], np.concatenate([[first], inclusive[ends[:-1]]]).astype(x.dtype)


def padding(cfg: Config) -> Any:
    """The value a partial tile is padded with: the operator's identity."""
    _method, op, _init = SCANS[cfg.scan]
    if op is None:
        return 0
    if op == "max":
        return -np.inf if "float" in cfg.dtype else int(np.iinfo(cfg.dtype).min)
    return 0  # the user operator keeps the larger in absolute value: 0 never wins


def numba_kernel(cfg: Config, cuda: Any = None) -> Any:
    """The Numba-family kernel of ``cfg``: (src, dst, totals, state, n); ``cuda`` is the DSL's
    ``cuda`` module (default: numba-cuda's)."""
    from cuda import coop

    if cuda is None:
        from numba import cuda

    method, op, init = SCANS[cfg.scan]
    tile_items, n_items, delay = cfg.tile, cfg.items, cfg.delay
    dtype = np.dtype(cfg.dtype)
    fill = dtype.type(padding(cfg))
    scan = getattr(coop.grid, method)
    operator = _user if op == "user" else op
    seed = None if init is None else dtype.type(init)
    alg, order = cfg.algorithm, cfg.order

    if op is None:

        def kernel(src, dst, totals, state, n):  # type: ignore[no-untyped-def]
            tile = coop.grid.tile_index(state, order=order)
            for _k in range((tile * 2654435761 >> 7) % delay):
                cuda.nanosleep(1000)
            base = tile * tile_items
            valid = min(n - base, tile_items)
            items = coop.ThreadData(n_items, dtype)
            coop.block.load(src, items, offset=base, valid_items=valid, oob_default=fill)
            out, total, before = scan(items, state, tile, total=True, tile_prefix=True, algorithm=alg)
            coop.block.store(dst, out, offset=base, valid_items=valid)
            t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
            at = 2 * (tile * cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z + t)
            totals[at] = total
            totals[at + 1] = before

    elif seed is None:

        def kernel(src, dst, totals, state, n):  # type: ignore[no-untyped-def]
            tile = coop.grid.tile_index(state, order=order)
            for _k in range((tile * 2654435761 >> 7) % delay):
                cuda.nanosleep(1000)
            base = tile * tile_items
            valid = min(n - base, tile_items)
            items = coop.ThreadData(n_items, dtype)
            coop.block.load(src, items, offset=base, valid_items=valid, oob_default=fill)
            out, total, before = scan(
                items, operator, state, tile, total=True, tile_prefix=True, algorithm=alg
            )
            coop.block.store(dst, out, offset=base, valid_items=valid)
            t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
            at = 2 * (tile * cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z + t)
            totals[at] = total
            totals[at + 1] = before

    else:

        def kernel(src, dst, totals, state, n):  # type: ignore[no-untyped-def]
            tile = coop.grid.tile_index(state, order=order)
            for _k in range((tile * 2654435761 >> 7) % delay):
                cuda.nanosleep(1000)
            base = tile * tile_items
            valid = min(n - base, tile_items)
            items = coop.ThreadData(n_items, dtype)
            coop.block.load(src, items, offset=base, valid_items=valid, oob_default=fill)
            out, total, before = scan(
                items, operator, state, tile, initial_value=seed, total=True, tile_prefix=True, algorithm=alg
            )
            coop.block.store(dst, out, offset=base, valid_items=valid)
            t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
            at = 2 * (tile * cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z + t)
            totals[at] = total
            totals[at + 1] = before

    return kernel


def check(cfg: Config, x: np.ndarray, dst: np.ndarray, totals: np.ndarray, seed: object) -> None:
    """``totals``: each thread's (total, tile_prefix), in thread order."""
    scanned, through, before = reference(cfg, x)
    _method, op, init = SCANS[cfg.scan]
    got = dst.copy()
    if "exclusive" in cfg.scan and op is not None and init is None:
        got[0] = scanned[0]  # undefined, as in CUB
    np.testing.assert_array_equal(got, scanned, err_msg=f"{cfg.id()} seed={seed}")
    want = np.repeat(through, cfg.threads)  # the partial tile's padding is the operator's identity
    np.testing.assert_array_equal(totals[0::2], want, err_msg=f"{cfg.id()} totals seed={seed}")
    got_before, want_before = totals[1::2].copy(), np.repeat(before, cfg.threads)
    if op is not None and init is None:
        got_before[: cfg.threads] = want_before[: cfg.threads]  # tile 0's: undefined, as in CUB
    np.testing.assert_array_equal(got_before, want_before, err_msg=f"{cfg.id()} tile_prefix seed={seed}")
