# SPDX-License-Identifier: Apache-2.0
"""Block reductions: ``coop.block.sum``, ``reduce``, and the arg-reductions ``argmax``, ``argmin``
(the reductions and structured-items pages). The arg-reductions' parameters serve the warp and cluster
rows too."""

from __future__ import annotations

from .._choices import Choices
from .._kinds import Choice, Count, Flag, Index, IndexArrangement, IndexedPayload, Payload
from .._primitive import Call, Cub, Param, Primitive, Result
from ._common import (
    _BLOCK_DIMS,
    _OP,
    _TEMP,
    _TPB,
    _TUPLED_OR_SCALAR,
    BLOCK_REDUCE_ALGORITHMS,
    ITEM_ARRANGEMENTS,
)

_REDUCE_COMMON = (
    Param(
        "num_valid",
        Count("valid", scalar_payload_only=True),
        "int | None",
        "number of threads whose ``x`` takes part (threads ``0 .. num_valid-1``); needs a scalar ``x``.",
        None,
    ),
    Param(
        "algorithm",
        Choice(BLOCK_REDUCE_ALGORITHMS),
        "str | BlockReduceAlgorithm",
        "a ``BlockReduceAlgorithm`` or its name.",
        "warp_reductions",
    ),
    Param(
        "broadcast",
        Flag("bcast"),
        "bool",
        "give the result to every thread (CUB defines it in thread 0 only).",
        False,
    ),
    _TEMP,
    _TPB,
)
_REDUCE_CUB = Cub(
    "cub::BlockReduce", "cub/block/block_reduce.cuh", ("T", "BLOCK_DIM_X", "algorithm", *_BLOCK_DIMS[1:])
)
_REDUCE_RESULT = (Result("result", "the block's aggregate.", broadcast="broadcast"),)
_REDUCE_RETURNS = (
    "the aggregate, a scalar of the element type. It is defined in thread 0 only, as in CUB, unless "
    "``broadcast=True``."
)
_X_REDUCE = Param(
    "x",
    Payload(scalar=True, scalar_form=True, structured=True),
    _TUPLED_OR_SCALAR,
    "the thread's items (a ``coop.ThreadData``) or one typed scalar; or a tuple of either "
    "(structured items).",
    keyword_only=False,
)

SUM = Primitive(
    scope="block",
    name="sum",
    family="reduce",
    cub=_REDUCE_CUB,
    params=(_X_REDUCE, *_REDUCE_COMMON),
    call=Call("Sum", ("x", "num_valid"), returns="result"),
    results=_REDUCE_RESULT,
    summary="Sum the items of the whole block (CUB BlockReduce::Sum).",
    details="All threads of the block must call it.",
    returns_doc=_REDUCE_RETURNS,
    returns_annotation="Any",
)

REDUCE = Primitive(
    scope="block",
    name="reduce",
    family="reduce",
    cub=_REDUCE_CUB,
    params=(_X_REDUCE, _OP, *_REDUCE_COMMON),
    call=Call("Reduce", ("x", "op", "num_valid"), returns="result"),
    results=_REDUCE_RESULT,
    summary="Reduce the items of the whole block with an operator (CUB BlockReduce::Reduce).",
    details=(
        "All threads of the block must call it. The operator must be associative; "
        "``algorithm='raking_commutative_only'`` also needs it commutative."
    ),
    returns_doc=_REDUCE_RETURNS,
    returns_annotation="Any",
)


def _arg_details(where: str) -> str:
    who, all_ = ("lane", "lanes") if where == "logical warp" else ("thread", "threads")
    return (
        f"An item's index is its ``indices`` entry when given, else its position in the {where}'s tile "
        f"in the arrangement ``arrangement`` names: blocked (the {who}'s rank times the items per "
        f"thread, plus the item) or striped (the rank plus the item times the {all_}). Values compare "
        "as numbers (``-0.0`` equals ``+0.0``) and "
        "ties go to the smallest index; a NaN wins over every number, the first NaN (smallest index) over "
        "the others: as NumPy's ``np.argmax`` / ``np.argmin``. The operator is coop's own, a total order "
        "of the (value, index) pairs (CUB's ``cub::ArgMax`` depends on the items' order when there are "
        "NaNs). The items have one scalar type; the index is an int32."
    )


_ARG_RETURNS = (
    "a tuple ``(value, index)``: the value of the element type and its int32 index. It is defined in "
    "thread 0 only, as CUB's reductions, unless ``broadcast=True``."
)
_ARG_RESULTS = (Result("result", "the (value, index) pair.", indexed=True, broadcast="broadcast"),)


def _arg_call(best: str, count: str | None) -> Call:
    """CUB's Reduce of the (value, index) pairs with coop's arg operator (``best``: "largest" or
    "smallest"), over the first ``count`` threads or lanes when that parameter is given (a row
    without a count parameter passes None)."""
    op = f"coop_arg_best<{'true' if best == 'largest' else 'false'}>{{}}"
    args = ("x", op) if count is None else ("x", op, count)
    return Call("Reduce", args, returns="result")


_INDICES = Param(
    "indices",
    Index(),
    "ThreadData | int | None",
    "the items' indices: an int32 ``ThreadData`` like ``x``, or an integer for a scalar ``x``; by default "
    "each item's position in the tile (see ``arrangement``).",
    None,
)
_ARRANGEMENT = Param(
    "arrangement",
    IndexArrangement(ITEM_ARRANGEMENTS),
    "str | ItemArrangement",
    "how the items sit in the tile, for their default indices: ``'blocked'`` (lane ``l``'s item ``i`` "
    "is at ``l*N + i``) or ``'striped'`` (``l + i*W``, as a ``striped`` load leaves them); not with "
    "``indices``. Default indices cost no register per item: each lane keeps its first best item "
    "and its position.",
    "blocked",
)
_BLOCK_ARRANGEMENT = Param(
    "arrangement",
    IndexArrangement(ITEM_ARRANGEMENTS, runs=True),
    "str | ItemArrangement",
    "how the items sit in the tile, for their default indices: ``'blocked'`` (thread ``t``'s item ``i`` "
    "is at ``t*N + i``), ``'striped'`` (``t + i*T``, as a ``striped`` load leaves them) or "
    "``'striped_vectors'`` (in runs, as a ``striped_vectors`` load of the items' type leaves them; "
    "``'auto'``: as a load with ``algorithm='auto'``); not with ``indices``. Default indices cost no "
    "register per item: each thread keeps its first best item and its position.",
    "blocked",
)


def _arg_x(best: str, who: str, *, arranged: bool) -> Param:
    """The items of an arg-reduction (``best``: "largest" or "smallest") of ``who`` ("thread" or
    "lane"); ``arranged``: its row has the ``arrangement`` parameter."""
    return Param(
        "x",
        IndexedPayload(
            scalar=True,
            scalar_form=True,
            largest=best == "largest",
            arrangement="arrangement" if arranged else "",
        ),
        "ThreadData | Any",
        f"the {who}'s items (a ``coop.ThreadData``) or one typed scalar, of one scalar type.",
        keyword_only=False,
    )


def _block_arg(name: str, best: str) -> Primitive:
    return Primitive(
        scope="block",
        name=name,
        family="reduce",
        cub=Cub(
            "cub::BlockReduce",
            "cub/block/block_reduce.cuh",
            ("INDEXED_T", "BLOCK_DIM_X", "algorithm", *_BLOCK_DIMS[1:]),
        ),
        params=(
            _arg_x(best, "thread", arranged=True),
            _INDICES,
            _BLOCK_ARRANGEMENT,
            *_REDUCE_COMMON,
        ),
        call=_arg_call(best, "num_valid"),
        results=_ARG_RESULTS,
        summary=f"The block's {best} item and its index (a CUB BlockReduce of (value, index) pairs).",
        details="All threads of the block must call it. " + _arg_details("block"),
        returns_doc=_ARG_RETURNS,
        returns_annotation="tuple[Any, Any]",
    )


ARGMAX = _block_arg("argmax", "largest")
ARGMIN = _block_arg("argmin", "smallest")


#: The family's choice tables, their enums exported in this order (after ``_common.CHOICES``).
CHOICES: tuple[Choices, ...] = ()
#: The family's rows, in the order they are documented.
ROWS = (SUM, REDUCE, ARGMAX, ARGMIN)
