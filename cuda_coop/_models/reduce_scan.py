# SPDX-License-Identifier: Apache-2.0
"""Models of the primitives that combine items: block and batched warp reductions, block and warp
scans, and the arg-reductions over structured ``(value, index)`` items."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ._core import LANES, Frame, Panel, _data, memory_panel, threads_panel

# --- reductions -------------------------------------------------------------------------------------


def reduce_result(threads: int, items: int, broadcast: bool, x: np.ndarray) -> dict[str, np.ndarray]:
    """The block's sum: in thread 0 (``defined`` only there), or in every thread with ``broadcast``."""
    total = x.sum()
    defined = np.ones(threads, bool) if broadcast else np.arange(threads) == 0
    return {"out": np.full(threads, total), "defined": defined}


def _column(title: str, cells: Sequence[tuple[str, int] | None], marks: Sequence[str]) -> Panel:
    """One value per thread: ``(text, colour key)`` or None (nothing shown)."""
    text = np.array([[c[0] if c else None] for c in cells], dtype=object)
    keys = np.array([[c[1] if c else -1] for c in cells])
    return threads_panel(title, text, keys, np.array(marks)[:, None])


def _tree_frames(
    values: list[Any],
    combine: Callable[[Any, Any], Any],
    cell: Callable[[Any], tuple[str, int]],
    step: str,
    across: str,
    broadcast: bool,
    result: str,
) -> list[Frame]:
    """The frames of a block reduction after each thread's own: CUB's shuffle-down tree within each
    warp (offsets 1, 2, 4, ...), the warps' results combined by the first warp, then thread 0's
    result, or every thread's with ``broadcast``. ``step``: the caption of a tree step (``{offset}``
    in it); ``across``: of the step across warps; ``result``: what the call returns."""
    threads = len(values)
    frames = []
    offset = 1
    while offset < LANES:
        values = [
            combine(v, values[t + offset]) if t % LANES + offset < LANES else v for t, v in enumerate(values)
        ]
        live = [t % (2 * offset) == 0 for t in range(threads)]
        frames.append(
            Frame(
                f"Within each warp (drawn with {LANES} lanes), "
                + step.format(offset=offset, next=2 * offset),
                (
                    _column(
                        "per thread",
                        [cell(v) if ok else None for v, ok in zip(values, live, strict=True)],
                        ["new" if ok else "off" for ok in live],
                    ),
                ),
            )
        )
        offset *= 2
    top = values[0]
    for w in range(LANES, threads, LANES):
        top = combine(top, values[w])
    rest = threads - 1
    if threads > LANES:
        frames.append(
            Frame(across, (_column("per thread", [cell(top)] + [None] * rest, ["new"] + ["off"] * rest),))
        )
    if broadcast:
        caption = (
            f"broadcast=True: thread 0 shares {result} through shared memory, and every thread returns it."
        )
        frames.append(Frame(caption, (_column("result", [cell(top)] * threads, ["new"] * threads),)))
    else:
        caption = f"{result[0].upper()}{result[1:]} is defined in thread 0 only, as in CUB "
        caption += "(broadcast=True: in every thread)."
        frames.append(
            Frame(caption, (_column("result", [cell(top)] + [None] * rest, [""] + ["undef"] * rest),))
        )
    return frames


def reduce_frames(threads: int, items: int, broadcast: bool) -> list[Frame]:
    x = _data(threads * items, 7).reshape(threads, items)
    keys = np.arange(threads * items).reshape(threads, items)
    sums = [int(v) for v in x.sum(axis=1)]
    return [
        Frame(
            f"coop.block.sum: {threads} threads, {items} items each (algorithm='warp_reductions').",
            (threads_panel("items", x, keys),),
        ),
        Frame(
            "Each thread reduces its own items.",
            (
                threads_panel("items", x, keys),
                _column("per thread", [(str(v), -1) for v in sums], ["new"] * threads),
            ),
        ),
        *_tree_frames(
            sums,
            lambda a, b: a + b,
            lambda v: (str(v), -1),
            "lane l adds lane l+{offset}'s value (a shuffle down by {offset}); lanes that are multiples "
            "of {next} "
            "carry on.",
            "Each warp's first lane writes its total to shared memory; the first warp adds them: thread 0 "
            "holds "
            "the block's sum.",
            broadcast,
            "the sum",
        ),
    ]


def batched_result(batches: int, lanes: int, arrangement: str, x: np.ndarray) -> dict[str, np.ndarray]:
    """``x[l, b]``: lane ``l``'s item ``b`` (batch ``b``); out ``[l, i]``: the sum of the batch lane
    ``l``'s item ``i`` holds (striped: ``l + i*W``; blocked: ``l*ceil(B/W) + i``), -1 if none."""
    per = -(-batches // lanes)
    sums = x.sum(axis=0)
    out = np.full((lanes, per), -1, dtype=x.dtype)
    which = np.full((lanes, per), -1)
    for lane in range(lanes):
        for i in range(per):
            b = lane + i * lanes if arrangement == "striped" else lane * per + i
            if b < batches:
                out[lane, i], which[lane, i] = sums[b], b
    return {"out": out, "batch": which}


def batched_frames(batches: int, arrangement: str) -> list[Frame]:
    held = "l, l+W, ..." if arrangement == "striped" else "l*ceil(B/W), l*ceil(B/W)+1, ..."
    lanes = LANES
    x = _data(lanes * batches, 11).reshape(lanes, batches)
    keys = np.tile(np.arange(batches), (lanes, 1)) * lanes
    res = batched_result(batches, lanes, arrangement, x)
    before = threads_panel(
        f"items (item b of every lane is batch b; {batches} batches)", x, keys, label="lane "
    )
    out_keys = np.where(res["batch"] >= 0, res["batch"] * lanes, -1)
    texts = np.where(
        res["batch"] >= 0,
        [
            [f"b{b}: {v}" for b, v in zip(rb, rv, strict=True)]
            for rb, rv in zip(res["batch"], res["out"], strict=True)
        ],
        None,
    )
    marks = np.where(res["batch"] >= 0, "new", "undef")
    after = threads_panel(
        f"result ({arrangement}: lane l holds batches {held})",
        texts,
        out_keys,
        marks,
        label="lane ",
    )
    return [
        Frame(
            f"coop.warp.batched_sum on a warp of {lanes} lanes (drawn): every lane holds one value of each "
            "batch.",
            (before,),
        ),
        Frame(
            "Each batch is summed across the lanes (register shuffles) and its total lands in one lane; "
            "items with no batch are undefined.",
            (before, after),
        ),
    ]


# --- scans ------------------------------------------------------------------------------------------


def scan_result(x: np.ndarray, kind: str, prefix: int = 0) -> dict[str, np.ndarray]:
    """``x[t, j]`` scanned in blocked order (plus ``prefix``, what a ``prefix_op`` returned);
    ``aggregate``: the tile's sum."""
    flat = x.reshape(-1)
    inc = np.cumsum(flat) + prefix
    out = inc if kind == "inclusive_sum" else inc - flat
    return {"out": out.reshape(x.shape), "aggregate": np.array(flat.sum())}


def scan_frames(threads: int, items: int, kind: str, tiles: int) -> list[Frame]:
    frames = []
    running = 0
    call = f"coop.block.{kind}(items" + (", prefix_op=running_total)" if tiles > 1 else ")")
    for tile in range(tiles):
        x = _data(threads * items, 3 + tile).reshape(threads, items)
        keys = np.arange(threads * items).reshape(threads, items) + tile * threads * items
        tag = f"tile {tile}: " if tiles > 1 else ""
        items_panel = threads_panel(f"{tag}items", x, keys)
        frames.append(Frame(f"{tag}{call}: {threads} threads, {items} items each, blocked.", (items_panel,)))
        totals = x.sum(axis=1)
        frames.append(
            Frame(
                f"{tag}Each thread sums its own items.",
                (
                    items_panel,
                    threads_panel("thread totals", totals[:, None], None, np.full((threads, 1), "new")),
                ),
            )
        )
        before = np.concatenate([[0], np.cumsum(totals)[:-1]])
        frames.append(
            Frame(
                f"{tag}An exclusive scan of the thread totals across the block (within warps by "
                "shuffles, then across warps): what comes before each thread.",
                (threads_panel("before thread t", before[:, None], None, np.full((threads, 1), "new")),),
            )
        )
        aggregate = int(x.sum())
        if tiles > 1:
            frames.append(
                Frame(
                    f"{tag}The first warp calls prefix_op(block_aggregate = {aggregate}); it returns "
                    f"the total of the tiles before, {running}, and keeps {running + aggregate}.",
                    (memory_panel("prefix_op's state", [running + aggregate], [-1], ["new"]),),
                )
            )
        res = scan_result(x, kind, running)
        frames.append(
            Frame(
                f"{tag}Each thread scans its items from what comes before it"
                + (" (plus the prefix)" if tiles > 1 else "")
                + f": the {kind.replace('_', ' ')}; block_aggregate = {aggregate}.",
                (items_panel, threads_panel("result", res["out"], None, np.full(x.shape, "new"))),
            )
        )
        running += aggregate
    return frames


def warp_scan_frames(lanes: int, width: int, kind: str) -> list[Frame]:
    x = _data(lanes, 5)
    keys = np.arange(lanes)
    frames = [
        Frame(
            f"coop.warp.{kind}(x, threads_in_warp={width}): {lanes} lanes, logical warps of {width}.",
            (memory_panel("x (a value per lane)", list(x), list(keys), width=width),),
        )
    ]
    vals = x.astype(int).copy()
    step = 1
    while step < width:
        new = vals.copy()
        marks = []
        for lane in range(lanes):
            if lane % width >= step:
                new[lane] = vals[lane] + vals[lane - step]
                marks.append("new")
            else:
                marks.append("")
        vals = new
        frames.append(
            Frame(
                f"Lane l adds lane l-{step}'s value within its logical warp (a shuffle up by {step}).",
                (memory_panel("running sums", list(vals), [-1] * lanes, marks, width=width),),
            )
        )
        step *= 2
    res = warp_scan_result(x, width, kind)["out"]
    if kind == "exclusive_sum":
        frames.append(
            Frame(
                "Exclusive: each lane takes the inclusive sum of the lane before it (its logical "
                "warp's first lane: 0).",
                (memory_panel("result", list(res), [-1] * lanes, ["new"] * lanes, width=width),),
            )
        )
    return frames


def warp_scan_result(x: np.ndarray, width: int, kind: str) -> dict[str, np.ndarray]:
    seg = x.reshape(-1, width)
    inc = np.cumsum(seg, axis=1)
    return {"out": (inc if kind == "inclusive_sum" else inc - seg).reshape(-1)}


# --- structured items: argmax ---------------------------------------------------------------------


def argmax_result(x: np.ndarray) -> dict[str, np.ndarray]:
    """``(value, index)`` of the largest item in blocked order, ties to the smallest index (as
    ``np.argmax``)."""
    flat = x.reshape(-1)
    i = int(np.argmax(flat))
    return {"value": np.array(flat[i]), "index": np.array(i)}


def _better(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    """The larger of two ``(value, index)`` pairs, ties to the smaller index."""
    return a if (a[0], -a[1]) >= (b[0], -b[1]) else b


def argmax_frames(threads: int, items: int, broadcast: bool) -> list[Frame]:
    x = _data(threads * items, 37, high=6).reshape(threads, items)
    index = np.arange(threads * items).reshape(threads, items)
    pairs = np.array(
        [[f"{v}@{i}" for v, i in zip(xr, ir, strict=True)] for xr, ir in zip(x, index, strict=True)]
    )
    best = []
    for t in range(threads):
        b = (int(x[t, 0]), int(index[t, 0]))
        for j in range(1, items):
            b = _better(b, (int(x[t, j]), int(index[t, j])))
        best.append(b)

    def cell(pair: tuple[int, int]) -> tuple[str, int]:
        return f"{pair[0]}@{pair[1]}", pair[1]

    return [
        Frame(
            f"coop.block.argmax(items): {threads} threads, {items} items each; an item is value@index, its "
            "index its blocked position (or indices=).",
            (threads_panel("items", pairs, index),),
        ),
        Frame(
            "Each thread keeps its best pair: the larger value, ties to the smaller index.",
            (
                threads_panel("items", pairs, index),
                _column("per thread", [cell(b) for b in best], ["new"] * threads),
            ),
        ),
        *_tree_frames(
            best,
            _better,
            cell,
            "lane l keeps the better of its pair and lane l+{offset}'s (coop's total order: the answer does "
            "not "
            "depend on the tree).",
            "The first warp compares the warps' best pairs: thread 0 holds the block's.",
            broadcast,
            "(value, index)",
        ),
    ]
