# SPDX-License-Identifier: Apache-2.0
"""The grid scope: ``coop.grid.tile_index`` and the single-pass scans over the blocks of the grid
(the grid scans page)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from .._choices import Choices, Option
from .._errors import CoopLaunchConfigError
from .._kinds import HARDWARE_WARP, Choice, Element, Flag, GridState, GridStatePayload, Tile
from .._primitive import Call, Cub, Param, Primitive, Resolver, Result
from .._requests import Request
from ._common import _BLOCK_DIMS, _OP, _TEMP, _TPB, _VALUE, _X, BLOCK_SCAN_ALGORITHMS

# coop's own class templates (the renderer writes them into the bundle): CUB's BlockScan with CUB's
# TilePrefixCallbackOp on a cub::ScanTileState that lives in the caller's workspace
# (coop.grid.ScanState: a header and two tile-state areas that alternate between launches, so only its
# creation initialises it; see the "Grid scans" docs page).

_GRID_HEADER = "cub/agent/single_pass_scan_operators.cuh"
_GRID_STATE_DOC = (
    "the scan's workspace, a ``coop.grid.ScanState`` passed to the kernel as an argument (one per launch "
    "in flight; its capacity at least the grid's blocks)."
)
_GRID_STATE = Param("state", GridState(), "Any", _GRID_STATE_DOC, keyword_only=False)
_GRID_TILE = Param(
    "tile",
    Tile(),
    "int",
    "the block's tile: what ``coop.grid.tile_index(state)`` returned in this block.",
    keyword_only=False,
)
_GRID_TOTAL = Param(
    "total",
    Flag("total"),
    "bool",
    "also return, in every thread, as ``(out, total)``, the inclusive prefix through this tile: "
    "``initial_value`` (when given) combined with every item of tiles ``0 .. tile``; in the last tile, "
    "the grid's total (``initial_value`` included).",
    False,
)
_GRID_TILE_PREFIX = Param(
    "tile_prefix",
    Flag("tpre"),
    "bool",
    "also return, in every thread, the tile's exclusive prefix: ``initial_value`` (when given) "
    "combined with every item of tiles ``0 .. tile-1`` (in tile 0: ``initial_value``, 0 for a sum, "
    "undefined for another operator without one). It comes last: ``(out, tile_prefix)``, or "
    "``(out, total, tile_prefix)`` with ``total=True``. A compaction's tile writes its kept items "
    "from there, without a barrier of its own to share thread 0's first output.",
    False,
)
_GRID_RULES = (
    "Every block of the grid must call it once, every thread of the block, after "
    "``coop.grid.tile_index(state)`` and with its tile: the tiles are scanned in tile order (the order "
    "in which blocks took their tickets), not in ``blockIdx`` order. The block's x dimension must be at "
    "least 32 (CUB's look-back runs in the block's first warp). One scan per workspace per launch; a "
    "kernel that scans twice passes two workspaces (and the tile of the first to both). "
)


_GRID_SCAN_ALG = Param(
    "algorithm",
    Choice(BLOCK_SCAN_ALGORITHMS),
    "str | BlockScanAlgorithm",
    "the ``BlockScanAlgorithm`` (or its name) of the scan within the tile; by default ``warp_scans``, "
    "as CUB's tuned ``DeviceScan`` (with ``raking`` ptxas spills registers around the look-back's "
    "shuffles for some structured items).",
    "warp_scans",
)


GRID_TILE_ORDERS = Choices(
    "GridTileOrder",
    "Which tile ``coop.grid.tile_index`` hands a block.",
    (
        Option(
            "ticket",
            "coop_grid_tile_order::ticket",
            "a ticket: tiles in the order the blocks reach the call, whatever order the hardware starts "
            "blocks in (thread 0 takes it with an atomic on the workspace, the block shares it through a "
            "barrier)",
        ),
        Option(
            "block",
            "coop_grid_tile_order::block",
            "the block's linear index, as CUB's ``DeviceScan`` and ``DeviceSelect`` take it: no atomic "
            "and no barrier. A block's look-back waits for the blocks of lower index, so this relies on "
            "the hardware starting no block before one of lower index (what CUB relies on)",
        ),
    ),
)


def _check_grid_block(r: Resolver) -> None:
    """CUB's TilePrefixCallbackOp runs in the block's first warp and counts its lanes by threadIdx.x."""
    assert r.block_dims is not None
    if r.block_dims[0] < HARDWARE_WARP:
        raise CoopLaunchConfigError(
            f"{r.q}: the block's x dimension is {r.block_dims[0]} {r.block_dims}{r.launch_where}; a grid "
            f"scan needs at least {HARDWARE_WARP} (CUB's look-back runs in the first warp, its lanes "
            f"counted by threadIdx.x); launch blocks of {HARDWARE_WARP} or more threads in x"
        )


GRID_TILE_INDEX = Primitive(
    scope="grid",
    name="tile_index",
    family="grid",
    cub=Cub("coop_grid_tile", _GRID_HEADER, (*_BLOCK_DIMS, "order")),
    params=(
        Param("state", GridStatePayload(), "Any", _GRID_STATE_DOC, keyword_only=False),
        Param(
            "order",
            Choice(GRID_TILE_ORDERS),
            "str | GridTileOrder",
            "``'ticket'`` (tiles in the order blocks reach the call: safe in any start order) or "
            "``'block'`` (the block's linear index, as CUB's own single-pass scans: no atomic and no "
            "barrier: a one-kernel compaction at CUB's tile ran at 0.95x ``DeviceSelect::If`` with it, 0.87x "
            "with a ticket, on an H100).",
            "ticket",
        ),
        _TEMP,
        _TPB,
    ),
    call=Call("Take", ("state",), returns="tile"),
    results=(Result("tile", "the block's tile.", dtype="int32"),),
    summary="The block's tile in the grid scan's order: a ticket taken from the workspace (0, 1, ... in "
    "the order the blocks reach this call), or with ``order='block'`` the block's linear index.",
    details="Every thread of the block must call it, once per launch, before the block's grid scan. "
    "By default thread 0 takes the ticket with an atomic on the workspace and the block shares it "
    "through shared memory (one block barrier). A block works on the tile it returns (e.g. the items "
    "``tile * T * n`` onwards), not on ``blockIdx``: a block that took a ticket is running, so the "
    "blocks whose tiles precede it are running or done, and the look-back always progresses whatever "
    "order the hardware starts blocks in. With ``order='block'`` the tile is "
    "``blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)``, taken without touching the "
    "workspace (the scan checks the workspace): the choice of CUB's ``DeviceScan`` and "
    "``DeviceSelect``, which rely on the hardware starting blocks in index order.",
    returns_doc="the tile, an int32 from 0 to the grid's blocks - 1, the same in every thread of the block.",
    returns_annotation="int",
)


def _grid_scan_call(method: str, op: bool) -> Callable[[Primitive, Request], Call]:
    """The grid scan's method: ``{method}Init`` where a seed is given, with a template argument that
    says whether the tile's prefix is read (``InclusiveScanInit<true>``)."""

    def wrap(prim: Primitive, req: Request) -> Call:
        init = "Init" if op and prim.given(req, "initial_value") else ""
        prefix = "true" if prim.given(req, "tile_prefix") else "false"
        return replace(prim.call, method=f"{method}{init}<{prefix}>")

    return wrap


def _grid_scan(name: str, method: str, summary: str, *, op: bool, note: str = "") -> Primitive:
    params = [_X, _GRID_STATE, _GRID_TILE]
    operator: tuple[str, ...] = ()  # the operator's arguments in the call, before the workspace
    if op:
        init = Param(
            "initial_value",
            Element("init"),
            _VALUE,
            "a value of the element type that seeds the scan (it precedes the first item of tile 0).",
            None,
        )
        params = [_X, _OP, _GRID_STATE, _GRID_TILE, init]
        operator = ("initial_value", "op")
    params += [_GRID_TOTAL, _GRID_TILE_PREFIX, _GRID_SCAN_ALG, _TEMP, _TPB]
    args = ("x", "out", *operator, "state", "tile", "total", "tile_prefix")
    cub = ("T", "BLOCK_DIM_X", "algorithm", *_BLOCK_DIMS[1:])
    return Primitive(
        scope="grid",
        name=name,
        family="grid",
        cub=Cub("coop_grid_scan", _GRID_HEADER, cub),
        params=tuple(params),
        call=Call(method, args),
        wrap=_grid_scan_call(method, op),
        results=(
            Result("out", "the scanned items, shaped like ``x``.", like_payload=True),
            Result("total", "the inclusive prefix through this tile (initial_value included).", when="total"),
            Result(
                "tile_prefix",
                "the exclusive prefix of the tile (initial_value included).",
                when="tile_prefix",
            ),
        ),
        check=_check_grid_block,
        summary=summary,
        details=_GRID_RULES
        + "Items are scanned in the blocked order of ``x`` within the tile, after the items of every "
        "earlier tile (CUB BlockScan with CUB's decoupled look-back, ``TilePrefixCallbackOp``, on tile "
        "states in the workspace). " + note,
        returns_doc="the scanned items: a ``ThreadData`` like ``x`` (a scalar for a scalar ``x``); with "
        "``total=True``, the tuple ``(out, total)``; with ``tile_prefix=True`` the tile's prefix follows: "
        "``(out, tile_prefix)`` or ``(out, total, tile_prefix)``.",
        returns_annotation="Any",
    )


GRID_INCLUSIVE_SUM = _grid_scan(
    "inclusive_sum", "InclusiveSum", "Inclusive prefix sum over the tiles of the grid, in one pass.", op=False
)
GRID_EXCLUSIVE_SUM = _grid_scan(
    "exclusive_sum", "ExclusiveSum", "Exclusive prefix sum over the tiles of the grid, in one pass.", op=False
)
GRID_INCLUSIVE_SCAN = _grid_scan(
    "inclusive_scan",
    "InclusiveScan",
    "Inclusive prefix scan with an operator over the tiles of the grid, in one pass.",
    op=True,
    note="The operator must be associative.",
)
GRID_EXCLUSIVE_SCAN = _grid_scan(
    "exclusive_scan",
    "ExclusiveScan",
    "Exclusive prefix scan with an operator over the tiles of the grid, in one pass.",
    op=True,
    note="The operator must be associative. Without ``initial_value`` the first output of thread 0 of "
    "tile 0 is undefined, as in CUB.",
)


#: The family's choice tables, their enums exported in this order (after ``_common.CHOICES``).
CHOICES: tuple[Choices, ...] = (GRID_TILE_ORDERS,)
#: The family's rows, in the order they are documented.
ROWS = (GRID_TILE_INDEX, GRID_INCLUSIVE_SUM, GRID_EXCLUSIVE_SUM, GRID_INCLUSIVE_SCAN, GRID_EXCLUSIVE_SCAN)
