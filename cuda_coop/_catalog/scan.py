# SPDX-License-Identifier: Apache-2.0
"""Block scans: ``coop.block.inclusive_sum``, ``exclusive_sum``, ``inclusive_scan``, ``exclusive_scan``
(the scans page)."""

from __future__ import annotations

from .._choices import Choices
from .._kinds import Choice, Element, Flag, PrefixOp
from .._primitive import Call, Cub, Param, Primitive, Result
from ._common import _BLOCK_DIMS, _OP, _TEMP, _TPB, _VALUE, _X, BLOCK_SCAN_ALGORITHMS

_AGG = Param(
    "block_aggregate",
    Flag("agg"),
    "bool",
    "also return the aggregate of the whole tile, as ``(out, aggregate)``.",
    False,
    excludes=("prefix_op",),
)


def _prefix(op: str) -> Param:
    return Param(
        "prefix_op",
        PrefixOp(op),
        "ThreadData | tuple[ThreadData, ...] | None",
        "a running prefix carried across the tiles of a loop (CUB's block prefix callback): a "
        "``coop.ThreadData`` of one item (for a tuple of items, a tuple of them), read by the first "
        "warp as the prefix of this tile and updated there with the tile's aggregate. Only the first "
        "warp's copy is kept up to date.",
        None,
    )


def _scan_results() -> tuple[Result, ...]:
    return (
        Result("out", "the scanned items, shaped like ``x``.", like_payload=True),
        Result("aggregate", "the tile's aggregate, in every thread.", when="block_aggregate"),
    )


_SCAN_CUB = Cub(
    "cub::BlockScan", "cub/block/block_scan.cuh", ("T", "BLOCK_DIM_X", "algorithm", *_BLOCK_DIMS[1:])
)

_SCAN_ALG = Param(
    "algorithm",
    Choice(BLOCK_SCAN_ALGORITHMS),
    "str | BlockScanAlgorithm",
    "a ``BlockScanAlgorithm`` or its name.",
    "raking",
)

_SCAN_RETURNS = (
    "the scanned items: a ``ThreadData`` like ``x`` (a scalar for a scalar ``x``); with "
    "``block_aggregate=True``, the tuple ``(out, aggregate)``."
)

_SCAN_DETAILS = (
    "All threads of the block must call it. Items are scanned in the blocked order of ``x`` (thread "
    "``t``'s items follow those of thread ``t-1``). "
)


def _scan(name: str, method: str, summary: str, *, op: bool, initial: bool, note: str = "") -> Primitive:
    params = [_X]
    if op:
        params.append(_OP)
    if initial:
        params.append(
            Param(
                "initial_value",
                Element("init"),
                _VALUE,
                "a value of the element type that seeds the scan (it precedes the first item).",
                None,
                excludes=("prefix_op",),
            )
        )
    params += [_AGG, _prefix("op" if op else "sum"), _SCAN_ALG, _TEMP, _TPB]
    names = {p.name for p in params} | {"out", "aggregate"}
    args = tuple(n for n in ("x", "out", "initial_value", "op", "aggregate", "prefix_op") if n in names)
    return Primitive(
        scope="block",
        name=name,
        family="scan",
        cub=_SCAN_CUB,
        params=tuple(params),
        call=Call(method, args),
        results=_scan_results(),
        summary=summary,
        details=_SCAN_DETAILS + note,
        returns_doc=_SCAN_RETURNS,
        returns_annotation="Any",
    )


INCLUSIVE_SUM = _scan(
    "inclusive_sum",
    "InclusiveSum",
    "Inclusive prefix sum over the block (CUB BlockScan).",
    op=False,
    initial=False,
)
EXCLUSIVE_SUM = _scan(
    "exclusive_sum",
    "ExclusiveSum",
    "Exclusive prefix sum over the block (CUB BlockScan).",
    op=False,
    initial=False,
)
INCLUSIVE_SCAN = _scan(
    "inclusive_scan",
    "InclusiveScan",
    "Inclusive prefix scan with an operator over the block (CUB BlockScan).",
    op=True,
    initial=True,
)
EXCLUSIVE_SCAN = _scan(
    "exclusive_scan",
    "ExclusiveScan",
    "Exclusive prefix scan with an operator over the block (CUB BlockScan).",
    op=True,
    initial=True,
    note="Without ``initial_value`` (or ``prefix_op``) the first output of thread 0 is undefined, as in CUB.",
)


#: The family's choice tables, their enums exported in this order (after ``_common.CHOICES``).
CHOICES: tuple[Choices, ...] = ()
#: The family's rows, in the order they are documented.
ROWS = (INCLUSIVE_SUM, EXCLUSIVE_SUM, INCLUSIVE_SCAN, EXCLUSIVE_SCAN)
