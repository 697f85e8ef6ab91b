# SPDX-License-Identifier: Apache-2.0
"""Models of the primitives that move items without combining them: load and store (block and
logical warp), exchange, shuffle."""

from __future__ import annotations

import numpy as np

from ._core import LANES, Frame, Panel, _choice, memory_panel, positions, threads_panel

# --- load, store ----------------------------------------------------------------------------------


def load_result(
    threads: int, items: int, algorithm: str, enum: str = "BlockLoadAlgorithm"
) -> dict[str, np.ndarray]:
    """What each thread (lane) holds after the load: the tile positions ``[t, j]`` (the catalog's
    arrangement of the algorithm)."""
    return {"positions": positions(_choice(enum, algorithm).arrangement, threads, items)}


def load_frames(threads: int, items: int, algorithm: str, enum: str = "BlockLoadAlgorithm") -> list[Frame]:
    """The steps of a block load (or, with ``enum="WarpLoadAlgorithm"``, of a logical warp's, whose
    lanes are the threads)."""
    option = _choice(enum, algorithm)
    label, who = ("lane ", "lanes") if enum.startswith("Warp") else ("t", "threads")
    n = threads * items
    tile = np.arange(n)
    final = positions(option.arrangement, threads, items)
    memory = memory_panel("global memory (the tile)", list(tile), list(tile))
    empty = threads_panel(
        "registers", np.full((threads, items), None), np.full((threads, items), -1), label=label
    )
    frames = [
        Frame(f"A tile of {n} items in global memory; {threads} {who}, {items} items each.", (memory, empty))
    ]

    def regs(pos: np.ndarray, title: str = "registers") -> Panel:
        return threads_panel(title, pos, pos, np.full(pos.shape, "new"), label=label)

    if option.stages_tile or option.value == "warp_transpose_timesliced":
        first = positions("warp_striped" if option.whole_warps else "striped", threads, items)
        how = "warp-striped" if option.whole_warps else "striped"
        warps = f" (warps drawn with {LANES} lanes)" if option.whole_warps else ""
        frames.append(
            Frame(
                f"Coalesced {how} reads: consecutive threads read consecutive items{warps}.",
                (memory, regs(first)),
            )
        )
        smem = memory_panel("shared memory", list(tile), list(tile), ["new"] * n)
        scope = "each warp's items" if option.whole_warps else "the tile"
        if option.value == "warp_transpose_timesliced":
            scope = "each warp's items, one warp at a time"
        frames.append(
            Frame(
                f"Each thread writes its items to shared memory: {scope} in tile order.", (smem, regs(first))
            )
        )
        frames.append(
            Frame(
                "Each thread reads its consecutive items back: the blocked arrangement.", (smem, regs(final))
            )
        )
    else:
        caption = {
            "direct": "Each thread reads its own consecutive items (the blocked arrangement).",
            "vectorize": "Each thread reads its consecutive items in vectors where it can (blocked).",
            "striped": "Consecutive threads read consecutive items: the striped arrangement.",
            "striped_vectors": "Consecutive threads read consecutive runs of up to 4 items, one vector each.",
        }[option.value]
        frames.append(Frame(caption, (memory, regs(final))))
    return frames


def store_result(
    threads: int, items: int, algorithm: str, enum: str = "BlockStoreAlgorithm"
) -> dict[str, np.ndarray]:
    """Where each thread's (lane's) item ``[t, j]`` lands in the tile."""
    return {"positions": positions(_choice(enum, algorithm).arrangement, threads, items)}


def store_frames(threads: int, items: int, algorithm: str, enum: str = "BlockStoreAlgorithm") -> list[Frame]:
    """The steps of a block store (or, with ``enum="WarpStoreAlgorithm"``, of a logical warp's)."""
    option = _choice(enum, algorithm)
    label = "lane " if enum.startswith("Warp") else "t"
    n = threads * items
    dest = positions(option.arrangement, threads, items)
    regs = threads_panel("registers (each item labelled with its tile position)", dest, dest, label=label)
    blank = memory_panel("global memory", [None] * n, [-1] * n)
    frames = [
        Frame(
            f"Each thread holds {items} items in the {option.arrangement.replace('_', ' ')} arrangement "
            "this algorithm stores.",
            (regs, blank),
        )
    ]
    tile = np.arange(n)
    if option.stages_tile or option.value == "warp_transpose_timesliced":
        smem = memory_panel("shared memory", list(tile), list(tile), ["new"] * n)
        scope = "within each warp" if option.whole_warps else "block-wide"
        frames.append(
            Frame(f"The items go through shared memory ({scope}) to be written back coalesced.", (regs, smem))
        )
        how = "warp-striped" if option.whole_warps else "striped"
        staged = positions("warp_striped" if option.whole_warps else "striped", threads, items)
        regs2 = threads_panel(f"registers ({how})", staged, staged, np.full(staged.shape, "new"), label=label)
        frames.append(Frame(f"Each thread now holds {how} items...", (regs2, smem)))
        out = memory_panel("global memory", list(tile), list(tile), ["new"] * n)
        frames.append(Frame("...and consecutive threads write consecutive items.", (regs2, out)))
    else:
        out = memory_panel("global memory", list(tile), list(tile), ["new"] * n)
        frames.append(
            Frame(f"Thread t writes item j to tile position {_formula(option.arrangement)}.", (regs, out))
        )
    return frames


def _formula(arrangement: str) -> str:
    return {"blocked": "t*n + j", "striped": "j*T + t", "striped_vectors": "((j//v)*T + t)*v + j%v"}[
        arrangement
    ]


# exchange

_EXCHANGE_FROM_TO = {
    "striped_to_blocked": ("striped", "blocked"),
    "blocked_to_striped": ("blocked", "striped"),
    "warp_striped_to_blocked": ("warp_striped", "blocked"),
    "blocked_to_warp_striped": ("blocked", "warp_striped"),
}


def exchange_ranks(threads: int, items: int, mode: str) -> tuple[np.ndarray, np.ndarray]:
    """The ranks (and valid flags) the explorer scatters by: a fixed permutation of the tile; the
    guarded mode drops every third item (rank -1), the flagged one clears its flag."""
    n = threads * items
    perm = np.random.default_rng(n).permutation(n).reshape(threads, items)
    flags = np.ones((threads, items), dtype=np.int32)
    if mode in ("scatter_to_striped_guarded", "scatter_to_striped_flagged"):
        drop = (np.arange(n) % 3 == 1).reshape(threads, items)
        if mode == "scatter_to_striped_guarded":
            perm = np.where(drop, -1, perm)
        else:
            flags = np.where(drop, 0, 1).astype(np.int32)
    return perm, flags


def exchange_result(
    threads: int, items: int, mode: str, x: np.ndarray | None = None, lanes: int = LANES
) -> dict[str, np.ndarray]:
    """The exchange of ``x[t, j]`` (default: the items' tile positions in the input arrangement) in
    warps of ``lanes``; ``defined[t, j]``: False where the output is unspecified (a slot no item was
    scattered to)."""
    if mode in _EXCHANGE_FROM_TO:
        src, dst = _EXCHANGE_FROM_TO[mode]
        pin, pout = positions(src, threads, items, lanes), positions(dst, threads, items, lanes)
        x = pin if x is None else x
        tile = np.empty(threads * items, dtype=x.dtype)
        tile[pin.reshape(-1)] = x.reshape(-1)
        return {"out": tile[pout], "defined": np.ones((threads, items), bool)}
    ranks, flags = exchange_ranks(threads, items, mode)
    x = ranks if x is None else x
    n = threads * items
    tile = np.zeros(n, dtype=x.dtype)
    written = np.zeros(n, bool)
    keep = (ranks >= 0) & (flags != 0)
    tile[ranks[keep]] = x[keep]
    written[ranks[keep]] = True
    pout = positions("blocked" if mode == "scatter_to_blocked" else "striped", threads, items)
    return {"out": tile[pout], "defined": written[pout]}


def exchange_frames(threads: int, items: int, mode: str) -> list[Frame]:
    n = threads * items
    lanes = f" (warps drawn with {LANES} lanes)" if "warp" in mode else ""
    if mode in _EXCHANGE_FROM_TO:
        src, dst = _EXCHANGE_FROM_TO[mode]
        pin = positions(src, threads, items)
        before = threads_panel(f"registers: {src.replace('_', '-')}", pin, pin)
        smem = memory_panel("shared memory", list(range(n)), list(range(n)), ["new"] * n)
        res = exchange_result(threads, items, mode)["out"]
        after = threads_panel(f"registers: {dst.replace('_', '-')}", res, res, np.full(res.shape, "new"))
        return [
            Frame(
                f"Each item is labelled with its tile position; the threads hold them {src.replace('_', '-')}"
                f"{lanes}.",
                (before,),
            ),
            Frame("Each thread writes its items to shared memory at their tile positions.", (before, smem)),
            Frame(f"Each thread reads back its {dst.replace('_', '-')} items.", (smem, after)),
        ]
    ranks, flags = exchange_ranks(threads, items, mode)
    keys = np.arange(n).reshape(threads, items)  # colour: where the item started
    marks = np.where((ranks < 0) | (flags == 0), "off", "")
    before = threads_panel(
        "registers: each item labelled with its rank", np.where(ranks >= 0, ranks, -1), keys, marks
    )
    panels: tuple[Panel, ...] = (before,)
    if mode == "scatter_to_striped_flagged":
        panels = (before, threads_panel("valid_flags", flags, None))
    tile_keys = [-1] * n
    keep = (ranks >= 0) & (flags != 0)
    for t, j in zip(*np.nonzero(keep), strict=True):
        tile_keys[ranks[t, j]] = keys[t, j]
    written = [k >= 0 for k in tile_keys]
    smem = memory_panel(
        "shared memory",
        [i if w else None for i, w in enumerate(written)],
        tile_keys,
        ["new" if w else "undef" for w in written],
    )
    res = exchange_result(threads, items, mode)
    read = "blocked" if mode == "scatter_to_blocked" else "striped"
    pout = positions(read, threads, items)
    out_keys = np.array([[tile_keys[p] for p in row] for row in pout])
    out_marks = np.where(res["defined"], "new", "undef")
    after = threads_panel(
        f"registers: read {read}", np.where(res["defined"], res["out"], None), out_keys, out_marks
    )
    what = {
        "scatter_to_blocked": "every item",
        "scatter_to_striped": "every item",
        "scatter_to_striped_guarded": "every item whose rank is >= 0",
        "scatter_to_striped_flagged": "every item whose flag is set",
    }[mode]
    return [
        Frame("Each item is labelled with its rank (its colour: where it started).", panels),
        Frame(f"Each thread writes {what} to shared memory at its rank.", (before, smem)),
        Frame(
            f"Each thread reads back its {read} items; slots nothing was written to are unspecified.",
            (smem, after),
        ),
    ]


# --- shuffle ------------------------------------------------------------------------------------------


def shuffle_result(
    threads: int, items: int, mode: str, distance: int, x: np.ndarray | None = None
) -> dict[str, np.ndarray]:
    """``offset``/``rotate`` move each thread's value (one per call: here item by item); ``up`` and
    ``down`` move the blocked tile by one position."""
    x = np.arange(threads * items).reshape(threads, items) if x is None else x
    flat = x.reshape(-1)
    if mode in ("offset", "rotate"):
        t = np.arange(threads)
        src = (t + distance) % threads if mode == "rotate" else t + distance
        inside = (src >= 0) & (src < threads)
        return {"out": np.where(inside[:, None], x[np.clip(src, 0, threads - 1)], x)}
    out = flat.copy()
    if mode == "up":
        out[1:] = flat[:-1]
    else:
        out[:-1] = flat[1:]
    return {"out": out.reshape(threads, items)}


def shuffle_frames(threads: int, items: int, mode: str, distance: int) -> list[Frame]:
    x = np.arange(threads * items).reshape(threads, items)
    out = shuffle_result(threads, items, mode, distance)["out"]
    moved = np.where(out != x, "new", "")
    before = threads_panel("before", x, x)
    after = threads_panel("after", out, out, moved)
    caption = {
        "offset": f"Thread t takes thread t+{distance}'s value; threads whose source is outside the block "
        "keep "
        "their own (one value per call: drawn for each item).",
        "rotate": f"Thread t takes thread (t+{distance}) % {threads}'s value "
        "(one value per call: each item).",
        "up": "Every item moves one tile position up: out[i] = x[i-1]; the tile's first item keeps its value "
        "(block_suffix=True also returns the last one).",
        "down": "Every item moves one tile position down: out[i] = x[i+1]; the tile's last item keeps its "
        "value "
        "(block_prefix=True also returns the first one).",
    }[mode]
    return [
        Frame("Each item labelled with its tile position (blocked).", (before,)),
        Frame(caption, (before, after)),
    ]
