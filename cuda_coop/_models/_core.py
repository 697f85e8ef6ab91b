# SPDX-License-Identifier: Apache-2.0
"""What every model draws with: the frames (:class:`Frame`: panels of :class:`Cell` rows), the
panel helpers, an explorer's controls (:class:`Param`) and the :class:`Explorer` itself, the values
a drawn tile holds, and the arrangements of a tile (:func:`positions`) that the load, store,
exchange and sort models share."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .._catalog import CATALOG, CHOICES

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


def _data(n: int, seed: int, high: int = 10) -> np.ndarray:
    """The values a drawn tile holds: small integers, the same for the same size and seed."""
    return np.random.default_rng(seed).integers(0, high, n)


def _choice(enum_name: str, value: str) -> Any:
    return next(c for c in CHOICES if c.enum_name == enum_name)[value]


# --- arrangements ---------------------------------------------------------------------------------


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
