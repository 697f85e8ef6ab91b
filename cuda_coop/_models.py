# SPDX-License-Identifier: Apache-2.0
"""Small models of how each primitive moves and combines items, for the documentation's diagrams and
explorers: each explorer steps through one call on a tile small enough to draw (a few threads, a few
items each, warps drawn with :data:`LANES` lanes), frame by frame.

The models are NumPy, independent of CUB, and read the catalog's facts where it has them (the load
and store algorithms' arrangements, the choice names); ``tests/test_models.py`` checks each model's
result against the references the GPU tests compare the kernels with, and
``tests/test_models_gpu.py`` against the kernels themselves. ``docs/_ext/coop_explorers.py`` turns the
frames into SVG diagrams and the explorers' JSON.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ._catalog import CATALOG, CHOICES

#: Slots of memory drawn in one row.
MEMORY_ROW = 16
#: Lanes of a warp as drawn (a real warp has 32): warp-striped arrangements, warp transposes and
#: warp-level steps are drawn with warps of this many lanes, and the explorers' captions say so.
LANES = 4


# --- frames ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    """One slot: its text, the colour key of the item in it (the item's position in the input, so
    that a moved item keeps its colour; -1: a computed value or an empty slot) and a mark
    (``""``; ``"new"``: written in this step; ``"undef"``: unspecified; ``"off"``: not taking part)."""

    text: str
    key: int = -1
    mark: str = ""


@dataclass(frozen=True)
class Row:
    label: str
    cells: tuple[Cell, ...]


@dataclass(frozen=True)
class Panel:
    """A labelled grid: a thread per row (registers), or memory (rows of consecutive slots)."""

    title: str
    rows: tuple[Row, ...]


@dataclass(frozen=True)
class Frame:
    caption: str
    panels: tuple[Panel, ...]


def _cells(
    values: Sequence[Any], keys: Sequence[int] | None = None, marks: Sequence[str] | None = None
) -> tuple[Cell, ...]:
    keys = list(keys) if keys is not None else [-1] * len(values)
    marks = list(marks) if marks is not None else [""] * len(values)
    return tuple(Cell(_text(v), int(k), m) for v, k, m in zip(values, keys, marks, strict=True))


def option_text(v: Any) -> str:
    """A control's option as the explorer's page writes it (``True``, ``warp_transpose``, ``8``)."""
    return str(v)


def _text(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, (bool, np.bool_)):
        return "1" if v else "0"
    if isinstance(v, (float, np.floating)):
        return f"{v:g}"
    return str(v)


def threads_panel(
    title: str,
    values: np.ndarray,
    keys: np.ndarray | None = None,
    marks: np.ndarray | None = None,
    label: str = "t",
) -> Panel:
    """A panel of ``values[t, j]`` (thread ``t``'s item ``j``), a row per thread."""
    rows = []
    for t in range(values.shape[0]):
        k = keys[t] if keys is not None else None
        m = marks[t] if marks is not None else None
        rows.append(Row(f"{label}{t}", _cells(list(values[t]), k, m)))
    return Panel(title, tuple(rows))


def memory_panel(
    title: str,
    values: Sequence[Any],
    keys: Sequence[int] | None = None,
    marks: Sequence[str] | None = None,
    width: int | None = None,
) -> Panel:
    """A panel of consecutive slots, ``width`` a row (default: :data:`MEMORY_ROW`)."""
    n = len(values)
    width = width or (n if n <= MEMORY_ROW else MEMORY_ROW)
    keys = list(keys) if keys is not None else [-1] * n
    marks = list(marks) if marks is not None else [""] * n
    rows = tuple(
        Row(f"{a}", _cells(values[a : a + width], keys[a : a + width], marks[a : a + width]))
        for a in range(0, n, width)
    )
    return Panel(title, rows)


# --- explorers ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Param:
    """A control of an explorer: its name (the primitive's argument where it is one), a label, the
    options offered and the one shown first. ``from_row``: the control is a choice parameter of the
    explorer's row, whose options it offers (its own ``options`` are filled in from the row)."""

    name: str
    label: str
    options: tuple[Any, ...]
    default: Any
    from_row: bool = False


@dataclass(frozen=True)
class Explorer:
    """One explorer: the catalog row it draws (``row``, a catalog key: ``"block.load"``; ``also`` follows
    its name in the title where it draws more), its controls, and the frames of each choice of them
    (``frames(**choice)``); ``valid(**choice)`` rules out a combination the primitive refuses."""

    name: str
    row: str
    page: str
    params: tuple[Param, ...]
    frames: Callable[..., list[Frame]]
    summary: str
    valid: Callable[..., bool] = field(default=lambda **_: True)
    also: str = ""

    def __post_init__(self) -> None:
        choices = CATALOG[self.row].choices()
        params = (
            replace(p, options=tuple(o.value for o in choices[p.name].options)) if p.from_row else p
            for p in self.params
        )
        object.__setattr__(self, "params", tuple(params))

    @property
    def title(self) -> str:
        """The row's call as a kernel writes it (``coop.block.load``), then ``also``."""
        return CATALOG[self.row].qualname + self.also

    def choices(self) -> list[dict[str, Any]]:
        """Every valid combination of the controls' options."""
        names = [p.name for p in self.params]
        out = []
        for combo in itertools.product(*(p.options for p in self.params)):
            choice = dict(zip(names, combo, strict=True))
            if self.valid(**choice):
                out.append(choice)
        return out

    def default(self) -> dict[str, Any]:
        choice = {p.name: p.default for p in self.params}
        assert self.valid(**choice), (self.name, choice)
        return choice

    @staticmethod
    def case_key(choice: dict[str, Any]) -> str:
        return "|".join(option_text(v) for v in choice.values())


def _threads_param(options: tuple[int, ...] = (4, 8), default: int = 8) -> Param:
    return Param("threads", "threads", options, default)


def _width_param(options: tuple[int, ...] = (4, 8), default: int = 8) -> Param:
    return Param("width", "threads_in_warp", options, default)


def _items_param(options: tuple[int, ...] = (1, 2, 3, 4), default: int = 4) -> Param:
    return Param("items", "items per thread", options, default)


def _data(n: int, seed: int, high: int = 10) -> np.ndarray:
    """The values a drawn tile holds: small integers, the same for the same size and seed."""
    return np.random.default_rng(seed).integers(0, high, n)


def _choice(enum_name: str, value: str) -> Any:
    return next(c for c in CHOICES if c.enum_name == enum_name)[value]


# --- arrangements: load, store, exchange ------------------------------------------------------------


def positions(arrangement: str, threads: int, items: int, lanes: int = LANES) -> np.ndarray:
    """``pos[t, j]``: the tile position thread ``t``'s item ``j`` holds in an arrangement:
    ``blocked`` (``t*n + j``), ``striped`` (``j*T + t``), ``warp_striped`` (warp ``w``'s lane ``l``:
    ``w*L*n + j*L + l``) or ``striped_vectors`` (runs of ``v`` items striped: ``v`` the largest of
    4, 2, 1 dividing ``n``; 4-byte items)."""
    t = np.arange(threads)[:, None]
    j = np.arange(items)[None, :]
    if arrangement == "blocked":
        return t * items + j
    if arrangement == "striped":
        return j * threads + t
    if arrangement == "warp_striped":
        return (t // lanes) * lanes * items + j * lanes + t % lanes
    if arrangement == "striped_vectors":
        v = max(v for v in (1, 2, 4) if items % v == 0)
        return ((j // v) * threads + t) * v + j % v
    raise ValueError(arrangement)


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


# --- adjacent difference, discontinuity -------------------------------------------------------------


def adjacent_result(x: np.ndarray, direction: str) -> dict[str, np.ndarray]:
    flat = x.reshape(-1).astype(np.int64)
    out = flat.copy()
    if direction == "left":
        out[1:] = flat[1:] - flat[:-1]
    else:
        out[:-1] = flat[:-1] - flat[1:]
    return {"out": out.reshape(x.shape)}


def adjacent_frames(threads: int, items: int, direction: str) -> list[Frame]:
    neighbour = "predecessor" if direction == "left" else "successor"
    x = _data(threads * items, 13).reshape(threads, items)
    keys = np.arange(threads * items).reshape(threads, items)
    out = adjacent_result(x, direction)["out"]
    edge = (0, 0) if direction == "left" else (threads - 1, items - 1)
    marks = np.full(x.shape, "new")
    marks[edge] = ""
    formula = "x[i] - x[i-1]" if direction == "left" else "x[i] - x[i+1]"
    kept = "first" if direction == "left" else "last"
    return [
        Frame(
            f"coop.block.adjacent_difference(items, direction='{direction}'): the tile in blocked order.",
            (threads_panel("items", x, keys),),
        ),
        Frame(
            f"out[i] = {formula} across thread boundaries too (each thread gets its neighbour's edge item); "
            f"the tile's {kept} item is copied (or paired with tile_{neighbour}).",
            (threads_panel("items", x, keys), threads_panel("result", out, None, marks)),
        ),
    ]


def discontinuity_result(x: np.ndarray, flags: str) -> dict[str, np.ndarray]:
    flat = x.reshape(-1)
    heads = np.ones(flat.size, np.int32)
    heads[1:] = flat[1:] != flat[:-1]
    tails = np.ones(flat.size, np.int32)
    tails[:-1] = flat[:-1] != flat[1:]
    out = {"heads": heads, "tails": tails, "heads_and_tails": heads + 2 * tails}[flags]
    return {"out": out.reshape(x.shape)}


def discontinuity_frames(threads: int, items: int, flags: str) -> list[Frame]:
    x = np.sort(_data(threads * items, 17, high=4)).reshape(threads, items)
    keys = np.arange(threads * items).reshape(threads, items)
    res = discontinuity_result(x, flags)["out"]
    frames = [
        Frame(
            "coop.block.discontinuity(items"
            + ("" if flags == "heads" else f", flags='{flags}'")
            + "): runs of equal keys, blocked.",
            (threads_panel("items", x, keys),),
        )
    ]
    if flags == "heads_and_tails":
        h, t_ = res % 2, res // 2
        frames.append(
            Frame(
                "head_flags[i] = x[i-1] != x[i] (the first item: 1); tail_flags[i] = x[i] != x[i+1] "
                "(the last: 1).",
                (
                    threads_panel("items", x, keys),
                    threads_panel("head_flags", h, None, np.full(x.shape, "new")),
                    threads_panel("tail_flags", t_, None, np.full(x.shape, "new")),
                ),
            )
        )
    else:
        formula = (
            "x[i-1] != x[i] (the tile's first item: 1)"
            if flags == "heads"
            else "x[i] != x[i+1] (the tile's last item: 1)"
        )
        frames.append(
            Frame(
                f"{flags[:-1]}_flags[i] = {formula}.",
                (
                    threads_panel("items", x, keys),
                    threads_panel(f"{flags[:-1]} flags", res, None, np.full(x.shape, "new")),
                ),
            )
        )
    return frames


# --- histogram, run-length decode --------------------------------------------------------------------


def histogram_result(x: np.ndarray, bins: int) -> dict[str, np.ndarray]:
    return {"counts": np.bincount(x.reshape(-1), minlength=bins)}


def histogram_frames(threads: int, items: int, bins: int, algorithm: str) -> list[Frame]:
    x = _data(threads * items, 19, high=bins).reshape(threads, items)
    keys = np.arange(threads * items).reshape(threads, items)
    counts = histogram_result(x, bins)["counts"]
    zero = memory_panel("bins (shared or global memory)", [0] * bins, [-1] * bins)
    frames = [
        Frame(
            f"coop.block.histogram(samples, bins_array, bins={bins}, algorithm='{algorithm}'): the bins "
            "start at zero (init=True).",
            (threads_panel("samples", x, keys), zero),
        )
    ]
    if algorithm == "sort":
        flat = np.sort(x.reshape(-1), kind="stable")
        order = np.argsort(x.reshape(-1), kind="stable")
        sorted_ = flat.reshape(threads, items)
        frames.append(
            Frame(
                "The samples are radix-sorted in place (blocked)...",
                (
                    threads_panel(
                        "samples, sorted", sorted_, order.reshape(threads, items), np.full(x.shape, "new")
                    ),
                    zero,
                ),
            )
        )
        frames.append(
            Frame(
                "...and one thread per run of equal samples adds the run's length to its bin.",
                (
                    threads_panel("samples, sorted", sorted_, order.reshape(threads, items)),
                    memory_panel("bins", list(counts), [-1] * bins, ["new"] * bins),
                ),
            )
        )
    else:
        frames.append(
            Frame(
                "Each sample adds one to its bin with a block-scope atomic (the samples stay as they are).",
                (
                    threads_panel("samples", x, keys),
                    memory_panel("bins", list(counts), [-1] * bins, ["new"] * bins),
                ),
            )
        )
    return frames


def rld_result(
    values: np.ndarray, lengths: np.ndarray, items: int, threads: int, begin: int
) -> dict[str, np.ndarray]:
    """Run ``r`` of ``values[r]`` repeated ``lengths[r]`` times; the window of ``threads*items``
    decoded items from ``begin`` (``defined`` False past the decoded size), and the total size."""
    decoded = np.repeat(values.reshape(-1), lengths.reshape(-1))
    pos = begin + np.arange(threads * items)
    inside = pos < decoded.size
    out = np.zeros(threads * items, dtype=values.dtype)
    out[inside] = decoded[pos[inside]]
    run = np.repeat(np.arange(values.size), lengths.reshape(-1))
    which = np.full(threads * items, -1)
    which[inside] = run[pos[inside]]
    return {
        "out": out.reshape(threads, items),
        "defined": inside.reshape(threads, items),
        "run": which.reshape(threads, items),
        "total": np.array(decoded.size),
    }


def rld_frames(threads: int, items: int, window: int) -> list[Frame]:
    runs_per_thread = max(1, items // 2)
    values = (np.arange(threads * runs_per_thread) * 3 % 10).reshape(threads, runs_per_thread)
    lengths = (1 + (np.arange(threads * runs_per_thread) * 7 % 3)).reshape(threads, runs_per_thread)
    keys = np.arange(values.size).reshape(values.shape)
    begin = window * threads * items
    res = rld_result(values, lengths, items, threads, begin)
    total = int(res["total"])
    texts = np.where(res["defined"], res["out"], None)
    marks = np.where(res["defined"], "new", "undef")
    frames = [
        Frame(
            f"coop.block.run_length_decode(values, decoded_items_per_thread={items}, run_lengths=lengths"
            + (f", from_decoded_offset={begin})" if window else ")")
            + f": {values.size} runs, {total} items decoded.",
            (threads_panel("run values", values, keys), threads_panel("run lengths", lengths, keys)),
        ),
        Frame(
            "A block-wide exclusive sum of the lengths gives each run's first decoded offset.",
            (
                threads_panel(
                    "run offsets",
                    (np.cumsum(lengths.reshape(-1)) - lengths.reshape(-1)).reshape(lengths.shape),
                    keys,
                    np.full(lengths.shape, "new"),
                ),
            ),
        ),
        Frame(
            f"Each thread decodes {items} consecutive items of the window starting at {begin} (blocked): "
            "a search for the run each one falls in; items past the decoded size are unspecified.",
            (threads_panel("decoded", texts, res["run"], marks),),
        ),
    ]
    return frames


# --- sorting ----------------------------------------------------------------------------------------


def radix_sort_result(x: np.ndarray, output: str, threads: int, items: int) -> dict[str, np.ndarray]:
    order = np.argsort(x.reshape(-1), kind="stable")
    sorted_ = x.reshape(-1)[order]
    pos = positions(output, threads, items)
    return {"out": sorted_[pos], "origin": order[pos]}


def radix_sort_frames(threads: int, items: int, radix_bits: int, output: str) -> list[Frame]:
    held = "t*n .. t*n+n-1" if output == "blocked" else "t, t+T, ..."
    end_bit = 4
    x = _data(threads * items, 23, high=16).reshape(threads, items)
    origin = np.arange(threads * items)
    cur = x.reshape(-1).copy()
    frames = [
        Frame(
            f"coop.block.radix_sort(keys, end_bit={end_bit}, radix_bits={radix_bits}"
            + (", output='striped'" if output == "striped" else "")
            + f"): {end_bit}-bit keys, {radix_bits} bit(s) ranked per pass; drawn in binary.",
            (
                threads_panel(
                    "keys", _binary(cur, end_bit).reshape(threads, items), origin.reshape(threads, items)
                ),
            ),
        )
    ]
    for lo in range(0, end_bit, radix_bits):
        digit = (cur >> lo) & ((1 << radix_bits) - 1)
        order = np.argsort(digit, kind="stable")
        cur, origin = cur[order], origin[order]
        frames.append(
            Frame(
                f"Pass over bits {lo}..{min(lo + radix_bits, end_bit) - 1}: each key's rank is the "
                "keys with a smaller digit plus the keys before it with the same digit (a block-wide "
                "scan of digit counts); the keys are exchanged to their ranks (stable).",
                (
                    threads_panel(
                        "keys",
                        _binary(cur, end_bit).reshape(threads, items),
                        origin.reshape(threads, items),
                        np.full((threads, items), "new"),
                    ),
                ),
            )
        )
    res = radix_sort_result(x, output, threads, items)
    frames.append(
        Frame(
            f"Sorted: thread t holds sorted positions {held} ({output}).",
            (threads_panel("keys", res["out"], res["origin"], np.full((threads, items), "new")),),
        )
    )
    return frames


def _binary(values: np.ndarray, bits: int) -> np.ndarray:
    return np.array([format(int(v), f"0{bits}b") for v in values.reshape(-1)], dtype=object).reshape(
        values.shape
    )


def merge_sort_result(x: np.ndarray) -> dict[str, np.ndarray]:
    order = np.argsort(x.reshape(-1), kind="stable")
    return {"out": x.reshape(-1)[order].reshape(x.shape), "origin": order.reshape(x.shape)}


def merge_sort_frames(threads: int, items: int) -> list[Frame]:
    x = _data(threads * items, 29, high=20).reshape(threads, items)
    n = threads * items
    vals = x.reshape(-1).copy()
    origin = np.arange(n)
    frames = [
        Frame(
            f"coop.block.merge_sort(keys, 'less'): {threads} threads (a power of two), {items} keys each, "
            "blocked.",
            (threads_panel("keys", x, origin.reshape(threads, items)),),
        )
    ]
    for t in range(threads):
        seg = slice(t * items, (t + 1) * items)
        o = np.argsort(vals[seg], kind="stable")
        vals[seg], origin[seg] = vals[seg][o], origin[seg][o]
    frames.append(
        Frame(
            "Each thread sorts its own keys (in registers).",
            (
                threads_panel(
                    "keys",
                    vals.reshape(threads, items),
                    origin.reshape(threads, items),
                    np.full((threads, items), "new"),
                ),
            ),
        )
    )
    size = 2
    while size <= threads:
        run = size * items
        for a in range(0, n, run):
            o = np.argsort(vals[a : a + run], kind="stable")
            vals[a : a + run], origin[a : a + run] = vals[a : a + run][o], origin[a : a + run][o]
        frames.append(
            Frame(
                f"Groups of {size} threads merge their two sorted runs of {run // 2} keys (through "
                "shared memory, each thread finding its share by a merge-path search).",
                (
                    threads_panel(
                        "keys",
                        vals.reshape(threads, items),
                        origin.reshape(threads, items),
                        np.full((threads, items), "new"),
                    ),
                ),
            )
        )
        size *= 2
    return frames


def top_k_result(x: np.ndarray, k: int, largest: bool) -> dict[str, np.ndarray]:
    """The selected keys (sorted: their order in the first ``k`` slots is unspecified)."""
    flat = np.sort(x.reshape(-1), kind="stable")
    chosen = flat[-k:] if largest else flat[:k]
    return {"selected": np.sort(chosen)}


def top_k_frames(threads: int, items: int, k: int, largest: bool) -> list[Frame]:
    which = "largest" if largest else "smallest"
    x = _data(threads * items, 31, high=50).reshape(threads, items)
    keys = np.arange(threads * items).reshape(threads, items)
    flat = x.reshape(-1)
    order = np.argsort(flat, kind="stable")
    chosen = order[-k:][::-1] if largest else order[:k]
    n = flat.size
    texts = np.full(n, None, dtype=object)
    kk = np.full(n, -1)
    marks = np.full(n, "undef", dtype=object)
    texts[: len(chosen)] = flat[chosen]
    kk[: len(chosen)] = chosen
    marks[: len(chosen)] = "new"
    sel = np.full(n, "off", dtype=object)
    sel[chosen] = ""
    return [
        Frame(
            f"coop.block.top_k(keys, {k}"
            + ("" if largest else ", largest=False")
            + "): the tile in blocked order.",
            (threads_panel("keys", x, keys),),
        ),
        Frame(
            f"Radix passes over the keys' bits (8 a pass) narrow down the {k} {which} "
            "keys without sorting the tile.",
            (threads_panel("keys", x, keys, sel.reshape(x.shape)),),
        ),
        Frame(
            f"The selected keys are gathered into the tile's first {k} slots, in no particular order; "
            "the other "
            "slots are unspecified.",
            (threads_panel("keys", texts.reshape(x.shape), kk.reshape(x.shape), marks.reshape(x.shape)),),
        ),
    ]


# --- structured items: argmax; clusters; grid scans -------------------------------------------------


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


def cluster_result(x: np.ndarray) -> dict[str, np.ndarray]:
    """``x[block, thread, item]``: the cluster's total, in every thread of every block."""
    return {"out": np.full(x.shape[:2], x.sum())}


def cluster_frames(blocks: int, items: int) -> list[Frame]:
    threads = 4
    x = _data(blocks * threads * items, 41).reshape(blocks, threads, items)
    keys = np.arange(x.size).reshape(x.shape)

    def block_rows(values: np.ndarray, k: np.ndarray | None, marks: np.ndarray | None, title: str) -> Panel:
        rows = []
        for b in range(blocks):
            for t in range(values.shape[1]):
                kk = k[b, t] if k is not None else None
                mm = marks[b, t] if marks is not None else None
                rows.append(Row(f"b{b} t{t}", _cells(list(values[b, t]), kk, mm)))
        return Panel(title, tuple(rows))

    aggregates = x.sum(axis=(1, 2))
    slots = np.tile(aggregates, (blocks, 1))
    total = int(x.sum())
    return [
        Frame(
            f"coop.cluster.sum(items): a row split over a cluster of {blocks} blocks of {threads} threads, "
            f"{items} items each.",
            (block_rows(x, keys, None, "items (block b, thread t)"),),
        ),
        Frame(
            "Each block reduces its own items (CUB's BlockReduce): its aggregate in its thread 0.",
            (
                threads_panel(
                    "block aggregates", aggregates[:, None], None, np.full((blocks, 1), "new"), label="b"
                ),
            ),
        ),
        Frame(
            "Warp 0 of each block writes its aggregate into slot b (its rank) of every block's shared memory "
            "(st.async, completing that block's mbarrier): no block reads another's memory.",
            (
                threads_panel(
                    "each block's slots",
                    slots,
                    np.full(slots.shape, -1),
                    np.full(slots.shape, "new"),
                    label="b",
                ),
            ),
        ),
        Frame(
            "Every thread waits on its own block's mbarrier and folds the slots in rank order: the cluster's "
            f"total, {total}, in every thread.",
            (
                block_rows(
                    np.full((blocks, threads, 1), total), None, np.full((blocks, threads, 1), "new"), "result"
                ),
            ),
        ),
    ]


_STATUS = {"X": "invalid", "A": "aggregate", "P": "inclusive prefix"}


def grid_scan_result(x: np.ndarray, kind: str = "exclusive_sum") -> dict[str, np.ndarray]:
    """``x[tile, thread, item]`` scanned over the whole grid in tile order."""
    flat = x.reshape(-1)
    inc = np.cumsum(flat)
    return {"out": (inc if kind == "inclusive_sum" else inc - flat).reshape(x.shape)}


def look_back(tile: int, status: Sequence[str], values: Sequence[int]) -> tuple[int, int]:
    """Decoupled look-back from ``tile``: (the sum of the predecessors' values up to and including
    the first inclusive prefix met, how many predecessors it read); a predecessor still invalid
    would be waited for (the model is called once every predecessor has published)."""
    prefix, read = 0, 0
    for p in range(tile - 1, -1, -1):
        assert status[p] != "X", "the look-back waits: call it once the predecessors have published"
        prefix += values[p]
        read += 1
        if status[p] == "P":
            break
    return prefix, read


def grid_scan_frames(tiles: int, kind: str) -> list[Frame]:
    threads, items = 4, 2
    x = _data(tiles * threads * items, 43).reshape(tiles, threads, items)
    order = np.random.default_rng(tiles).permutation(tiles)  # the order blocks reach tile_index
    aggregates = [int(a) for a in x.sum(axis=(1, 2))]

    def statuses(status: Sequence[str], values: Sequence[int | None], marks: Sequence[str]) -> Panel:
        text = [f"{s}:{v}" if v is not None else s for s, v in zip(status, values, strict=True)]
        return memory_panel(
            "tile statuses in the workspace (X invalid, A aggregate, P inclusive)", text, [-1] * tiles, marks
        )

    def tiles_panel(values: np.ndarray, title: str, marks: str = "") -> Panel:
        rows = [
            Row(
                f"tile {k}",
                _cells(
                    list(values[k].reshape(-1)),
                    list(np.arange(threads * items) + k * threads * items),
                    [marks] * (threads * items),
                ),
            )
            for k in range(tiles)
        ]
        return Panel(title, tuple(rows))

    frames = [
        Frame(
            f"coop.grid.{kind}: {tiles} blocks of {threads} threads x {items} items. Each block first "
            "takes a ticket (coop.grid.tile_index): its tile, in the order blocks arrive, whatever "
            "their blockIdx.",
            (
                memory_panel("blockIdx -> tile", [f"b{b}->{k}" for k, b in enumerate(order)], [-1] * tiles),
                tiles_panel(x, "items of each tile (blocked)"),
            ),
        ),
    ]
    status = ["P"] + ["A"] * (tiles - 1)
    frames.append(
        Frame(
            "Each tile reduces its items and publishes its aggregate (A); tile 0 publishes its "
            "inclusive prefix (P) at once.",
            (statuses(status, aggregates, ["new"] * tiles),),
        )
    )
    prefixes = [0] + [look_back(k, status, aggregates)[0] for k in range(1, tiles)]
    reads = [0] + [look_back(k, status, aggregates)[1] for k in range(1, tiles)]
    frames.append(
        Frame(
            "Decoupled look-back: the first warp of each tile reads its predecessors' statuses backwards, "
            f"adding aggregates until it meets an inclusive prefix (tiles 1 to {tiles - 1} read "
            + ", ".join(f"{r}" for r in reads[1:])
            + " statuses): its exclusive prefix.",
            (
                memory_panel("exclusive prefix of each tile", prefixes, [-1] * tiles, ["new"] * tiles),
                statuses(status, aggregates, [""] * tiles),
            ),
        )
    )
    inclusive = [p + a for p, a in zip(prefixes, aggregates, strict=True)]
    frames.append(
        Frame(
            "Each tile publishes its inclusive prefix (P): later tiles stop there.",
            (statuses(["P"] * tiles, inclusive, ["new"] * tiles),),
        )
    )
    out = grid_scan_result(x, kind)["out"]
    frames.append(
        Frame(
            f"Each thread scans its items from its tile's prefix: the {kind.replace('_', ' ')} of the "
            "whole array, in one pass.",
            (tiles_panel(out, "result", "new"),),
        )
    )
    return frames


# --- the explorers ------------------------------------------------------------------------------------


def _whole_warps(enum_name: str) -> Callable[..., bool]:
    def valid(threads: int, algorithm: str, **_: Any) -> bool:
        return not _choice(enum_name, algorithm).whole_warps or threads % LANES == 0

    return valid


def _shuffle_valid(mode: str, distance: int, **_: Any) -> bool:
    if mode in ("up", "down"):
        return distance == 1  # no distance: one position
    return mode == "offset" or distance > 0


def _choices(name: str, default: str) -> Param:
    """The control of the explorer's row's choice parameter ``name``: every option of its table."""
    return Param(name, name, (), default, from_row=True)


EXPLORERS: tuple[Explorer, ...] = (
    Explorer(
        "load",
        "block.load",
        "concepts",
        (_threads_param(), _items_param(), _choices("algorithm", "warp_transpose")),
        load_frames,
        "Where each item of a tile lands in the threads' registers, by load algorithm.",
        _whole_warps("BlockLoadAlgorithm"),
    ),
    Explorer(
        "store",
        "block.store",
        "concepts",
        (_threads_param(), _items_param(), _choices("algorithm", "striped")),
        store_frames,
        "Where each thread's items land in memory, by store algorithm.",
        _whole_warps("BlockStoreAlgorithm"),
    ),
    Explorer(
        "exchange",
        "block.exchange",
        "exchange",
        (
            _threads_param(),
            _items_param((2, 3, 4), 4),
            _choices("mode", "blocked_to_striped"),
        ),
        exchange_frames,
        "Items moved between arrangements, or scattered by rank, through shared memory.",
    ),
    Explorer(
        "shuffle",
        "block.shuffle",
        "sorting",
        (
            _threads_param(),
            _items_param((1, 2, 3), 2),
            _choices("mode", "up"),
            Param("distance", "distance", (1, 2, -1), 1),
        ),
        shuffle_frames,
        "Values passed between threads: by a distance, rotated, or the whole tile moved by one.",
        _shuffle_valid,
    ),
    Explorer(
        "reduce",
        "block.sum",
        "reductions",
        (_threads_param(), _items_param((1, 2, 4), 2), Param("broadcast", "broadcast", (False, True), False)),
        reduce_frames,
        "A block reduction: each thread's items, then a tree within each warp, then across warps.",
    ),
    Explorer(
        "warp_load",
        "warp.load",
        "warp",
        (
            _width_param(),
            _items_param((1, 2, 3, 4), 3),
            _choices("algorithm", "transpose"),
        ),
        lambda width, items, algorithm: load_frames(width, items, algorithm, "WarpLoadAlgorithm"),
        "A logical warp's load: where each item of the warp's tile lands in its lanes.",
    ),
    Explorer(
        "warp_store",
        "warp.store",
        "warp",
        (
            _width_param(),
            _items_param((1, 2, 3, 4), 3),
            _choices("algorithm", "transpose"),
        ),
        lambda width, items, algorithm: store_frames(width, items, algorithm, "WarpStoreAlgorithm"),
        "A logical warp's store: where each lane's items land in the warp's tile.",
    ),
    Explorer(
        "warp_exchange",
        "warp.exchange",
        "warp",
        (
            _width_param(),
            _items_param((2, 3, 4), 4),
            _choices("mode", "blocked_to_striped"),
        ),
        lambda width, items, mode: exchange_frames(width, items, mode),
        "A logical warp's items rearranged among its lanes (t: a lane of the logical warp).",
    ),
    Explorer(
        "batched_reduce",
        "warp.batched_sum",
        "warp",
        (
            Param("batches", "batches", (4, 6, 8), 6),
            _choices("arrangement", "striped"),
        ),
        batched_frames,
        "Several reductions at once: item b of every lane belongs to batch b.",
    ),
    Explorer(
        "scan",
        "block.exclusive_sum",
        "scans",
        (
            _threads_param(),
            _items_param((1, 2, 3, 4), 3),
            Param("kind", "scan", ("exclusive_sum", "inclusive_sum"), "exclusive_sum"),
            Param("tiles", "tiles (a prefix_op across them)", (1, 2), 2),
        ),
        scan_frames,
        "A block scan: thread totals, a scan across the threads, and what a prefix_op carries across tiles.",
        also=" / inclusive_sum",
    ),
    Explorer(
        "warp_scan",
        "warp.inclusive_sum",
        "warp",
        (
            _width_param((4, 8, 16)),
            Param("kind", "scan", ("inclusive_sum", "exclusive_sum"), "inclusive_sum"),
        ),
        lambda width, kind: warp_scan_frames(16, width, kind),
        "A warp scan on logical warps: each group of threads_in_warp lanes scans on its own.",
        also=" on logical warps",
    ),
    Explorer(
        "adjacent_difference",
        "block.adjacent_difference",
        "sorting",
        (
            _threads_param(),
            _items_param((1, 2, 3), 3),
            _choices("direction", "left"),
        ),
        adjacent_frames,
        "Each item combined with its neighbour in the tile, across thread boundaries.",
    ),
    Explorer(
        "discontinuity",
        "block.discontinuity",
        "sorting",
        (_threads_param(), _items_param((1, 2, 3), 3), _choices("flags", "heads")),
        discontinuity_frames,
        "Flags where a run of equal keys starts or ends.",
    ),
    Explorer(
        "histogram",
        "block.histogram",
        "sorting",
        (
            _threads_param(),
            _items_param((2, 3, 4), 4),
            Param("bins", "bins", (4, 8), 8),
            _choices("algorithm", "atomic"),
        ),
        histogram_frames,
        "Counts of the tile's samples per bin, by atomics or by sorting.",
    ),
    Explorer(
        "run_length_decode",
        "block.run_length_decode",
        "sorting",
        (_threads_param(), _items_param((2, 3, 4), 4), Param("window", "window", (0, 1), 0)),
        rld_frames,
        "Runs (value, length) decoded into a window of consecutive items per thread.",
    ),
    Explorer(
        "merge_sort",
        "block.merge_sort",
        "sorting",
        (_threads_param((2, 4, 8), 8), _items_param((1, 2, 3), 3)),
        merge_sort_frames,
        "A block merge sort: each thread's keys, then merges of runs twice as long.",
    ),
    Explorer(
        "radix_sort",
        "block.radix_sort",
        "sorting",
        (
            _threads_param(),
            _items_param((1, 2, 3), 2),
            Param("radix_bits", "radix_bits", (1, 2), 2),
            _choices("output", "blocked"),
        ),
        radix_sort_frames,
        "A block radix sort: a stable pass per group of bits, from the lowest.",
    ),
    Explorer(
        "top_k",
        "block.top_k",
        "sorting",
        (
            _threads_param(),
            _items_param((2, 3), 2),
            Param("k", "k", (1, 3, 5), 3),
            Param("largest", "largest", (True, False), True),
        ),
        top_k_frames,
        "The k largest (or smallest) keys gathered into the tile's first slots.",
    ),
    Explorer(
        "argmax",
        "block.argmax",
        "structured",
        (_threads_param(), _items_param((2, 3), 2), Param("broadcast", "broadcast", (False, True), False)),
        argmax_frames,
        "A structured item, (value, index), reduced: ties go to the smaller index.",
    ),
    Explorer(
        "cluster_sum",
        "cluster.sum",
        "clusters",
        (Param("blocks", "blocks in the cluster", (2, 4), 4), _items_param((1, 2, 3), 2)),
        cluster_frames,
        "A row over the blocks of a cluster: each block's aggregate pushed into every block's slots.",
    ),
    Explorer(
        "grid_scan",
        "grid.exclusive_sum",
        "grid_scans",
        (
            Param("tiles", "tiles", (3, 5, 6), 5),
            Param("kind", "scan", ("exclusive_sum", "inclusive_sum"), "exclusive_sum"),
        ),
        grid_scan_frames,
        "A scan over the whole grid in one pass: tickets, published aggregates, the decoupled look-back.",
    ),
)

#: The explorers by name.
BY_NAME = {e.name: e for e in EXPLORERS}
