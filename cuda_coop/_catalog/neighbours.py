# SPDX-License-Identifier: Apache-2.0
"""Each item with its neighbours in the tile: ``coop.block.adjacent_difference``, ``discontinuity`` and
``shuffle`` (the sorting and data-dependent page)."""

from __future__ import annotations

from dataclasses import replace

from .._choices import Choices, Option
from .._errors import CoopTypeError, CoopValueError
from .._kinds import Choice, Comparator, Count, Element, Flag, Operator, Payload
from .._operators import ASSOCIATIVE, PREDICATES
from .._primitive import Call, Cub, Param, Primitive, Resolver, Result
from ._common import _BLOCK_DIMS, _TEMP, _TPB, _TUPLED, _TUPLED_OR_SCALAR, _VALUE, method_when_given

_BLOCKED_ITEMS = Param(
    "items",
    Payload(structured=True),
    _TUPLED,
    "the thread's items in a blocked arrangement (a ``coop.ThreadData``, or a tuple of them: "
    "structured items).",
    keyword_only=False,
)

BLOCK_ADJACENT_DIRECTIONS = Choices(
    "BlockAdjacentDirection",
    "Which neighbour ``coop.block.adjacent_difference`` pairs each item with "
    "(``cub::BlockAdjacentDifference``'s ``SubtractLeft`` or ``SubtractRight``).",
    (
        Option(
            "left",
            "Left",
            "``out[i] = op(x[i], x[i-1])``; the tile's first item is copied (or paired with "
            "``tile_predecessor``)",
        ),
        Option(
            "right",
            "Right",
            "``out[i] = op(x[i], x[i+1])``; the tile's last item is copied (or paired with "
            "``tile_successor``)",
        ),
    ),
)


def _check_neighbours(r: Resolver) -> None:
    """A tile predecessor pairs with the left neighbour only, a successor with the right one only
    (and CUB has no partial-tile variant with a successor)."""
    direction = r.option("direction")
    if direction == "left" and "tile_successor" in r.present:
        raise CoopValueError(f"{r.q}: tile_successor is only for direction='right'; pass tile_predecessor")
    if direction == "right" and "tile_predecessor" in r.present:
        raise CoopValueError(f"{r.q}: tile_predecessor is only for direction='left'; pass tile_successor")


ADJACENT_DIFFERENCE = Primitive(
    scope="block",
    name="adjacent_difference",
    family="neighbours",
    cub=Cub("cub::BlockAdjacentDifference", "cub/block/block_adjacent_difference.cuh", ("T", *_BLOCK_DIMS)),
    params=(
        _BLOCKED_ITEMS,
        Param(
            "op",
            Operator(builtins=("subtract", *ASSOCIATIVE)),
            "str | Callable[[Any, Any], Any]",
            "``op(item, neighbour)``: a built-in (``'subtract'``, ``'sum'``, ``'min'``, ...) or a function "
            "of two values of the element type returning one.",
            "subtract",
        ),
        Param(
            "direction",
            Choice(BLOCK_ADJACENT_DIRECTIONS),
            "str | BlockAdjacentDirection",
            "``'left'`` (pair each item with its predecessor) or ``'right'`` (with its successor).",
            "left",
        ),
        Param(
            "tile_predecessor",
            Element("pred"),
            _VALUE,
            "the item before the tile (thread 0's is used), for ``direction='left'``; without it the "
            "tile's first item is copied.",
            None,
        ),
        Param(
            "tile_successor",
            Element("succ"),
            _VALUE,
            "the item after the tile (the last thread's is used), for ``direction='right'``; without it "
            "the tile's last item is copied.",
            None,
            excludes=("valid_items",),
        ),
        Param(
            "valid_items",
            Count("partial"),
            "int | None",
            "number of valid items in the tile; items from it on are copied.",
            None,
        ),
        _TEMP,
        _TPB,
    ),
    call=Call(
        "Subtract{direction}", ("items", "out", "op", "valid_items", "tile_predecessor", "tile_successor")
    ),
    wrap=method_when_given("valid_items", "Subtract{direction}PartialTile"),
    results=(Result("out", "each item combined with its neighbour.", like_payload=True),),
    check=_check_neighbours,
    summary="Combine each item with its left or right neighbour in the tile (CUB BlockAdjacentDifference).",
    details=(
        "All threads of the block must call it. Items are in the blocked arrangement (thread ``t``'s "
        "items follow thread ``t-1``'s). With ``op='subtract'`` and ``direction='left'``, ``out[1:]`` "
        "is ``np.diff`` of the tile."
    ),
    returns_doc="a fresh ``ThreadData`` like ``items`` (a tuple of them for a tuple).",
    returns_annotation="ThreadData",  # a tuple for a tuple: no overloads in the stub
)

BLOCK_DISCONTINUITY_FLAGS = Choices(
    "BlockDiscontinuityFlags",
    "Which flags ``coop.block.discontinuity`` sets (``cub::BlockDiscontinuity``'s ``FlagHeads``, "
    "``FlagTails`` or ``FlagHeadsAndTails``).",
    (
        Option(
            "heads",
            "Heads",
            "``head_flags[i] = op(x[i-1], x[i])``; the tile's first item is flagged (or compared with "
            "``tile_predecessor``)",
            allows=("tile_predecessor",),
        ),
        Option(
            "tails",
            "Tails",
            "``tail_flags[i] = op(x[i], x[i+1])``; the tile's last item is flagged (or compared with "
            "``tile_successor``)",
            allows=("tile_successor",),
        ),
        Option(
            "heads_and_tails",
            "HeadsAndTails",
            "both, returned as ``(head_flags, tail_flags)``",
            allows=("tile_predecessor", "tile_successor"),
        ),
    ),
)

_HEADS = ("heads", "heads_and_tails")
#: The arguments of each ``flags`` option's method (CUB's ``FlagHeads``, ``FlagTails``,
#: ``FlagHeadsAndTails``), in its order.
_FLAG_ARGS = {
    "heads": ("head_flags", "items", "op", "tile_predecessor"),
    "tails": ("tail_flags", "items", "op", "tile_successor"),
    "heads_and_tails": ("head_flags", "tile_predecessor", "tail_flags", "tile_successor", "items", "op"),
}
_TAILS = ("tails", "heads_and_tails")

DISCONTINUITY = Primitive(
    scope="block",
    name="discontinuity",
    family="neighbours",
    cub=Cub("cub::BlockDiscontinuity", "cub/block/block_discontinuity.cuh", ("T", *_BLOCK_DIMS)),
    params=(
        _BLOCKED_ITEMS,
        Param(
            "flags",
            Choice(BLOCK_DISCONTINUITY_FLAGS),
            "str | BlockDiscontinuityFlags",
            "``'heads'`` (flag items that differ from their predecessor), ``'tails'`` (from their "
            "successor) or ``'heads_and_tails'``.",
            "heads",
        ),
        Param(
            "op",
            Comparator(builtins=PREDICATES),
            "str | Callable[[Any, Any], Any]",
            "``op(a, b)`` for two neighbouring items (``a`` first in the tile), true where they are "
            "discontinuous: a built-in (``'not_equal'``, ``'equal'``, ``'less'``, ``'greater'``) or a "
            "function of two values of the element type returning a truth value.",
            "not_equal",
        ),
        Param(
            "tile_predecessor",
            Element("pred"),
            _VALUE,
            "the item before the tile (thread 0's is used), for head flags; without it the tile's first "
            "item is flagged.",
            None,
        ),
        Param(
            "tile_successor",
            Element("succ"),
            _VALUE,
            "the item after the tile (the last thread's is used), for tail flags; without it the tile's "
            "last item is flagged.",
            None,
        ),
        _TEMP,
        _TPB,
    ),
    call=Call("Flag{flags}", _FLAG_ARGS["heads"]),
    wrap=lambda prim, req: replace(prim.call, args=_FLAG_ARGS[str(req.option("flags"))]),
    results=(
        Result(
            "head_flags",
            "1 where an item starts a run, else 0.",
            like_payload=True,
            when="flags",
            options=_HEADS,
            dtype="int32",
        ),
        Result(
            "tail_flags",
            "1 where an item ends a run, else 0.",
            like_payload=True,
            when="flags",
            options=_TAILS,
            dtype="int32",
        ),
    ),  # fmt: skip
    summary="Flag the items where the tile's runs start or end (CUB BlockDiscontinuity).",
    details=(
        "All threads of the block must call it. Items are in the blocked arrangement (thread ``t``'s "
        "items follow thread ``t-1``'s); an item is flagged where ``op`` of it and its neighbour is true "
        "(by default where they differ, so a NaN is always flagged and ``-0.0`` equals ``+0.0``)."
    ),
    returns_doc="an int32 ``ThreadData`` of flags (1 or 0) like ``items``; with "
    "``flags='heads_and_tails'``, the tuple ``(head_flags, tail_flags)``.",
    returns_annotation="Any",
)

BLOCK_SHUFFLE_MODES = Choices(
    "BlockShuffleMode",
    "How ``coop.block.shuffle`` moves values among the block's threads (a ``cub::BlockShuffle`` method).",
    (
        Option(
            "offset",
            "Offset",
            "thread ``t`` gets thread ``t+distance``'s value (``distance`` may be negative); threads "
            "whose source is outside the block keep their own",
            allows=("distance",),
        ),
        Option(
            "rotate",
            "Rotate",
            "thread ``t`` gets thread ``(t+distance) % threads``'s value (``distance`` >= 0)",
            allows=("distance",),
        ),
        Option(
            "up",
            "Up",
            "each item moves one tile position up: ``out[i] = x[i-1]``; the tile's first item keeps its "
            "value",
            allows=("block_suffix",),
        ),
        Option(
            "down",
            "Down",
            "each item moves one tile position down: ``out[i] = x[i+1]``; the tile's last item keeps its "
            "value",
            allows=("block_prefix",),
        ),
    ),
)


def _check_shuffle(r: Resolver) -> None:
    """CUB shuffles one value per thread by a distance, or a blocked tile by one position."""
    mode = r.option("mode")
    if mode in ("offset", "rotate") and not r.scalar:
        raise CoopTypeError(
            f"{r.q}: mode={mode!r} moves one value per thread; x must be a typed scalar (pass an item, "
            "e.g. items[0], or shuffle each item)"
        )
    if mode in ("up", "down") and r.scalar:
        raise CoopTypeError(
            f"{r.q}: mode={mode!r} moves the items of a blocked tile; x must be a coop.ThreadData (one of "
            "1 item holds a scalar)"
        )
    distance = r.constants.get("distance")
    if distance is not None and mode == "rotate" and not 0 <= distance < r.threads:
        raise CoopValueError(
            f"{r.q}: distance={distance} is outside 0..{r.threads - 1}; mode='rotate' takes a distance below "
            f"the block's {r.threads} threads"
        )


SHUFFLE = Primitive(
    scope="block",
    name="shuffle",
    family="neighbours",
    cub=Cub("cub::BlockShuffle", "cub/block/block_shuffle.cuh", ("T", *_BLOCK_DIMS)),
    params=(
        Param(
            "x",
            Payload(scalar=True, scalar_form=True, structured=True),
            _TUPLED_OR_SCALAR,
            "the thread's value (a typed scalar) for ``'offset'``/``'rotate'``; its items in a blocked "
            "arrangement (a ``coop.ThreadData``) for ``'up'``/``'down'``; or a tuple of either.",
            keyword_only=False,
        ),
        Param(
            "mode",
            Choice(BLOCK_SHUFFLE_MODES),
            "str | BlockShuffleMode",
            "``'offset'``, ``'rotate'``, ``'up'`` or ``'down'``.",
            "offset",
        ),
        Param(
            "distance",
            Count("dist", negative=True),
            "int",
            "how many threads away the value comes from (a runtime int or a constant), for "
            "``'offset'`` (may be negative) and ``'rotate'`` (0 or more, below the block's threads).",
            1,
        ),
        Param(
            "block_suffix",
            Flag("suffix"),
            "bool",
            "for ``'up'``: also return the tile's last item (the one shifted out), as ``(out, suffix)``.",
            False,
        ),
        Param(
            "block_prefix",
            Flag("prefix"),
            "bool",
            "for ``'down'``: also return the tile's first item (the one shifted out), as ``(out, prefix)``.",
            False,
        ),
        _TEMP,
        _TPB,
    ),
    call=Call("{mode}", ("x", "out", "distance")),
    # CUB's Up and Down take the item shifted out where Offset and Rotate take the distance
    wrap=lambda prim, req: replace(
        prim.call,
        args={"up": ("x", "out", "suffix"), "down": ("x", "out", "prefix")}.get(
            str(req.option("mode")), prim.call.args
        ),
    ),
    results=(
        Result("out", "the values moved in.", like_payload=True, init="x"),
        Result("suffix", "the tile's last item, in every thread.", when="block_suffix"),
        Result("prefix", "the tile's first item, in every thread.", when="block_prefix"),
    ),
    check=_check_shuffle,
    summary="Move values among the block's threads by an offset, a rotation or one tile position "
    "(CUB BlockShuffle).",
    details=(
        "All threads of the block must call it. Threads are numbered in row-major order. A thread that "
        "gets no value (``'offset'`` past the block's edge, the tile's first item for ``'up'``, its last "
        "for ``'down'``) keeps its own, where CUB leaves it undefined."
    ),
    returns_doc="a scalar (``'offset'``/``'rotate'``) or a fresh ``ThreadData`` like ``x``; with "
    "``block_suffix``/``block_prefix``, the tuple ``(out, item)``.",
    returns_annotation="Any",
)


#: The family's choice tables, their enums exported in this order (after ``_common.CHOICES``).
CHOICES: tuple[Choices, ...] = (
    BLOCK_ADJACENT_DIRECTIONS,
    BLOCK_DISCONTINUITY_FLAGS,
    BLOCK_SHUFFLE_MODES,
)
#: The family's rows, in the order they are documented.
ROWS = (ADJACENT_DIFFERENCE, DISCONTINUITY, SHUFFLE)
