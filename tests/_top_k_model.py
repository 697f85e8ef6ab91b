# SPDX-License-Identifier: Apache-2.0
"""A lane-by-lane model of ``coop_warp_top_k`` (``cuda_coop/include/coop/top_k.cuh``) in NumPy: the
same steps (threshold, marks, while many candidates remain merges of pending slots by shuffle
networks, then the few inserted one at a time), each shuffle a permutation of a lane vector. It
checks the design's networks, insertions and overflow handling without a GPU
(``tests/test_warp_top_k.py``); the GPU tests check the C++ itself."""

from __future__ import annotations

import numpy as np

NO_INDEX = 2**31 - 1


def _pow2(k: int) -> int:
    p = 1
    while p < k:
        p *= 2
    return p


def _before(av: np.ndarray, ai: np.ndarray, bv: np.ndarray, bi: np.ndarray) -> np.ndarray:
    return (av > bv) | ((av == bv) & (ai < bi))


def _exchange(v: np.ndarray, i: np.ndarray, d: int, first: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    lanes = np.arange(len(v))
    pv, pi = v[lanes ^ d], i[lanes ^ d]
    take = _before(pv, pi, v, i) == first
    return np.where(take, pv, v), np.where(take, pi, i)


def _direction(lane: np.ndarray, s: int, d: int) -> np.ndarray:
    return ((lane & d) == 0) == ((lane & s) == 0)


def pth_largest(m: np.ndarray, p: int) -> np.ndarray:
    w = len(m)
    lane = np.arange(w)
    with np.errstate(invalid="ignore"):
        if p < w:
            s = 2
            while s <= p:
                d = s // 2
                while d:
                    q = m[lane ^ d]
                    m = np.where(_direction(lane, s, d), np.fmax(m, q), np.fmin(m, q))
                    d //= 2
                s *= 2
            big = p
            while big < w:
                m = np.fmax(m, m[lane ^ big])
                if 2 * big < w:
                    d = p // 2
                    while d:
                        q = m[lane ^ d]
                        m = np.where(_direction(lane, 2 * big, d), np.fmax(m, q), np.fmin(m, q))
                        d //= 2
                big *= 2
        d = p // 2
        while d:
            m = np.fmin(m, m[lane ^ d])
            d //= 2
    return m


def wth_largest_of_two(m1: np.ndarray, m2: np.ndarray) -> np.ndarray:
    """``coop_topk_wth_largest_of_two``: m1 sorted descending and m2 ascending over the lanes, the
    larger of each lane's two, the least of those (the W-th largest of the 2 W values)."""
    w = len(m1)
    lane = np.arange(w)
    s = 2
    while s <= w:
        d = s // 2
        while d:
            keep = _direction(lane, s, d)
            p1, p2 = m1[lane ^ d], m2[lane ^ d]
            m1 = np.where(keep, np.fmax(m1, p1), np.fmin(m1, p1))
            m2 = np.where(keep, np.fmin(m2, p2), np.fmax(m2, p2))
            d //= 2
        s *= 2
    m = np.fmax(m1, m2)
    d = w // 2
    while d:
        m = np.fmin(m, m[lane ^ d])
        d //= 2
    return m


def threshold(items: np.ndarray, p: int, low: np.ndarray) -> np.ndarray:
    """The warp's threshold while the list is not full, in every lane (``threshold``): with P == W
    (W > 1, 2+ items a lane), the W-th largest of the lanes' two best items, NaN items passed over;
    else the P-th largest of the lanes' maxima."""
    w, n = items.shape
    if p == w and w > 1 and n > 1:
        m1 = np.full(w, low, items.dtype)
        m2 = m1.copy()
        with np.errstate(invalid="ignore"):
            for i in range(n):
                x = items[:, i]
                lo = np.where(x > m1, m1, x)  # a NaN item: NaN, which fmax passes over
                m2 = np.fmax(lo, m2)
                m1 = np.fmax(x, m1)
        return wth_largest_of_two(m1, m2)
    return pth_largest(np.fmax.reduce(np.concatenate([np.full((w, 1), low), items], 1), 1), p)


def best_ascending(v: np.ndarray, i: np.ndarray, p: int) -> tuple[np.ndarray, np.ndarray]:
    w = len(v)
    lane = np.arange(w)
    stop = w if p == w else p + 1  # blocks of P sorted (P == W: all but the last stage)
    s = 2
    while s < stop:
        d = s // 2
        while d:
            v, i = _exchange(v, i, d, _direction(lane, s, d))
            d //= 2
        s *= 2
    if p < w:
        big = p
        while big < w:
            v, i = _exchange(v, i, big, (lane & big) == 0)
            if 2 * big < w:
                d = p // 2
                while d:
                    v, i = _exchange(v, i, d, _direction(lane, 2 * big, d))
                    d //= 2
            big *= 2
    d = p // 2
    while d:
        v, i = _exchange(v, i, d, (lane & d) != 0)
        d //= 2
    return v, i


def merge(lv, li, cv, ci, p):  # type: ignore[no-untyped-def]
    w = len(lv)
    lane = np.arange(w)
    cv, ci = best_ascending(cv, ci, p)
    take = _before(cv, ci, lv, li)
    lv, li = np.where(take, cv, lv), np.where(take, ci, li)
    d = p // 2
    while d:
        lv, li = _exchange(lv, li, d, (lane & d) == 0)
        d //= 2
    return lv, li


def next_up(x):  # type: ignore[no-untyped-def]
    """``coop_topk_next_up``: the least value above ``x`` of its type (+inf and the largest integer
    stay: items equal to them are then marked too)."""
    if np.issubdtype(x.dtype, np.integer):
        return x + 1 if x < np.iinfo(x.dtype).max else x
    return x if np.isinf(x) and x > 0 else np.nextafter(x, np.array(np.inf, x.dtype))


def merge_stages(p: int, w: int) -> int:
    """Shuffle stages of ``coop_topk_merge<P, W>`` (``coop_topk_merge_stages``)."""
    lp, lw = p.bit_length() - 1, w.bit_length() - 1
    if p == w:
        return lw * (lw - 1) // 2 + 2 * lw
    return lp * (lp + 1) // 2 + (lw - lp) + (lw - lp - 1) * lp + 2 * lp


def few(k: int, w: int, items: int) -> int:
    """How many candidates a call inserts one at a time rather than merges (``coop_topk_few``)."""
    return max(1, min(w, (3 * items + 9 * merge_stages(_pow2(k), w) + 6) // 21))


def insert(lv, li, cv, ci, k):  # type: ignore[no-untyped-def]
    """``coop_topk_insert``: (cv, ci) into the sorted list of lanes 0..k-1; the lanes from its place
    take their lower neighbour's entry (a shuffle up: lane 0 keeps its own)."""
    lane = np.arange(len(lv))
    place = int(((lane < k) & _before(lv, li, cv, ci)).sum())
    uv, ui = np.concatenate([lv[:1], lv[:-1]]), np.concatenate([li[:1], li[:-1]])
    at = lane == place
    after = lane > place
    return np.where(at, cv, np.where(after, uv, lv)), np.where(at, ci, np.where(after, ui, li))


def top_k_call(
    items: np.ndarray,
    k: int,
    *,
    running: tuple[np.ndarray, np.ndarray] | None = None,
    first: int = 0,
    indices: np.ndarray | None = None,
    striped: bool = True,
    stats: dict[str, int] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """One call: ``items[lane, i]`` of a logical warp of ``items.shape[0]`` lanes; returns the list
    (values, indices) by lane, lanes >= k the empty entry. ``stats``: the merges and the insertions."""
    w, n = items.shape
    lane = np.arange(w)
    p = _pow2(k)
    low = np.array(-np.inf, items.dtype)
    given = indices is not None
    if indices is None:
        indices = (
            first + lane[:, None] + w * np.arange(n)[None, :]
            if striped
            else first + lane[:, None] * n + np.arange(n)[None, :]
        )
    lv = np.full(w, low, items.dtype)
    li = np.full(w, NO_INDEX, np.int64)
    if running is not None:
        lv = np.where(lane < k, running[0], low)
        li = np.where(lane < k, running[1], NO_INDEX)
    thr, ti = lv[k - 1], li[k - 1]
    full = running is not None and bool(thr > low)
    bits = np.ones(items.shape, bool)
    total = 2**31 - 1
    with np.errstate(invalid="ignore"):
        if full:
            ge = given or first <= ti  # a tie with the k-th enters only with a smaller index
            bits = items >= (thr if ge else next_up(thr))
            total = int(bits.sum())
        if total > w:  # not full, or more than the lanes: the tile's lane maxima raise the threshold
            ms = threshold(items, p, low)
            assert (ms == ms[0]).all(), "the P-th largest is the same in every lane"
            m = ms[0]
            if not full or (ms > thr).any():  # a vote (__any_sync), which ptxas knows is warp-uniform
                bits &= items >= m
                total = int(bits.sum())
    if stats is not None:
        stats["merges"] = stats["insertions"] = 0
    while total > few(k, w, n):  # many: merged a warp's worth at a time, the rest filtered after each
        take = min(total, w)
        order = [(lane_, j) for lane_ in range(w) for j in range(n) if bits[lane_, j]][:take]
        cv = np.full(w, low, items.dtype)
        ci = np.full(w, NO_INDEX, np.int64)
        for r, (lane_, j) in enumerate(order):
            cv[r], ci[r] = items[lane_, j], indices[lane_, j]
            bits[lane_, j] = False
        lv, li = merge(lv, li, cv, ci, p)
        if stats is not None:
            stats["merges"] += 1
        total -= take
        if total > 0:
            thr, ti = lv[k - 1], li[k - 1]
            bits &= _before(items, indices, thr, ti)
            total = int(bits.sum())
    while bits.any():  # few: each lane's first marked item, then inserted lane by lane
        for lane_ in range(w):
            if bits[lane_].any():
                j = int(np.argmax(bits[lane_]))
                bits[lane_, j] = False
                lv, li = insert(lv, li, items[lane_, j], indices[lane_, j], k)
                if stats is not None:
                    stats["insertions"] += 1
    return np.where(lane < k, lv, low), np.where(lane < k, li, NO_INDEX)
