# SPDX-License-Identifier: Apache-2.0
"""What the catalog's families share: the choice tables whose enums every package exports first (the
load and store algorithms of blocks and logical warps, the block reduce and scan algorithms that the
cluster and grid rows take too, the exchange modes, the warp's exchange and batched arrangements,
the arg-reductions' item arrangements), in that order, and the parameters several families take."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from .._choices import WIDEST_RUNS, Choices, Option
from .._dtypes import DTYPES
from .._kinds import BlockShape, Count, Element, GlobalArray, Offset, Operator, Payload, Scratch
from .._primitive import Call, Param, Primitive
from .._requests import Request


def method_when_given(name: str, method: str) -> Callable[[Primitive, Request], Call]:
    """A row's ``wrap`` hook: the call with ``method`` where optional parameter ``name`` is given (CUB
    spells some overloads as methods of their own: ``InclusiveScanPartial`` for a partial tile)."""

    def wrap(prim: Primitive, req: Request) -> Call:
        return replace(prim.call, method=method) if prim.given(req, name) else prim.call

    return wrap


# --- choice tables ----------------------------------------------------------------------------------


def _tile_algorithms(enum_name: str, prefix: str, verb: str, scope: str = "block") -> Choices:
    """The load or store algorithms of a block (``cub::Block{Load,Store}Algorithm``) or of a logical
    warp (``cub::Warp{Load,Store}Algorithm``): the same four, and the block's two warp-wise ones."""
    block = scope == "block"
    unit, count = ("thread", "T") if block else ("lane", "W")
    exchange = "a block-wide exchange" if block else "an exchange within the logical warp"
    options = [
        Option("direct", f"{prefix}DIRECT", f"each {unit} accesses its own consecutive items"),
        Option(
            "striped",
            f"{prefix}STRIPED",
            f"consecutive {unit}s access consecutive items",
            arrangement="striped",
            runs=1 if block else 0,
        ),
        Option(
            "vectorize",
            f"{prefix}VECTORIZE",
            "as direct, with vector accesses where CUB can",
            contiguous=True,
            words="direct",
        ),
    ]
    if block:
        options.append(
            Option(
                "striped_vectors",
                f"{prefix}STRIPED",
                "consecutive threads access consecutive runs of up to 4 items, one vector access each "
                "(a strided view: item by item, in the same arrangement)",
                arrangement="striped_vectors",
                runs=WIDEST_RUNS,
            )
        )
    options += [
        Option(
            "transpose",
            f"{prefix}TRANSPOSE",
            f"striped access, then {exchange} in shared memory",
            scratch=True,
            stages_tile=True,
            contiguous=True,
        ),
    ]
    if block:
        options += [
            Option(
                "warp_transpose",
                f"{prefix}WARP_TRANSPOSE",
                "warp-striped access, then an exchange within each warp",
                scratch=True,
                whole_warps=True,
                stages_tile=True,
                contiguous=True,
            ),
            Option(
                "warp_transpose_timesliced",
                f"{prefix}WARP_TRANSPOSE_TIMESLICED",
                "as warp_transpose, one warp's worth of shared memory time-sliced among the warps",
                scratch=True,
                whole_warps=True,
                contiguous=True,
            ),
        ]
    what = "a tile" if block else "a logical warp's tile"
    return Choices(
        enum_name,
        f"How ``coop.{scope}.{verb}`` moves {what} between memory and registers "
        f"(``cub::{scope.title()}{verb.title()}Algorithm``).\n\n"
        f"Every algorithm but ``STRIPED``{' and ``STRIPED_VECTORS``' if block else ''} has the items in a "
        f"*blocked* arrangement ({unit} ``{unit[0]}`` holds items ``{unit[0]}*n .. {unit[0]}*n+n-1``); "
        f"``STRIPED`` has them striped ({unit} ``{unit[0]}`` holds ``{unit[0]}, {unit[0]}+{count}, ...``)"
        + (
            "; ``STRIPED_VECTORS`` has them striped in runs of ``v`` consecutive items (item ``j`` of "
            "thread ``t`` is tile item ``((j // v) * T + t) * v + j % v``), where ``v`` is 4, 2 or 1: "
            "the largest that divides ``n`` and keeps a run within 16 bytes (4 for items of 1, 2 and 4 "
            "bytes, which therefore line up between arrays of those sizes; 2 for 8-byte items). Each "
            "run is one vector access where the array is aligned to it, a warp's 32 runs contiguous: "
            "the fastest way to move 2-byte items at 8 or more per thread. A tuple's fields move one "
            "after the other, and must make runs of one length (fields of 1, 2 and 4 bytes do)."
            if block
            else "."
        ),
        tuple(options),
        auto="striped_vectors" if block else "",
        auto_doc=_AUTO_TILE_DOC if block else "",
    )


#: Why ``algorithm="auto"`` of a block load or store is ``striped_vectors`` (measured, docs/performance.rst).
_AUTO_TILE_DOC = (
    "the algorithm measured fastest, resolved when the call is checked: ``striped_vectors``, at every "
    "item size, items per thread and block shape measured (H100 and H200, 2026-12: float32 and "
    "bfloat16 rows of 4096-262144 and copies, 1-64 items a thread). At 1, 2 or 4 items a thread of "
    "up to 4 bytes its run is the thread's whole tile, one vector access as ``vectorize`` makes; at 8 "
    "and more, runs of 4 items striped over the threads, as quack-kernels and Triton move rows "
    "(in those runs ``vectorize`` moved 0.55-1.00x and ``striped`` 0.84-1.00x of its bandwidth, "
    "docs/performance.rst). The items come in the "
    "``STRIPED_VECTORS`` arrangement: a load and a store with ``auto`` of the same items per thread "
    "match, arrays of 1-, 2- and 4-byte items line up, and an arg-reduction of such items takes "
    "``arrangement='auto'``. Name an algorithm where the order matters (a scan or sort wants "
    "``blocked``: ``transpose`` or ``vectorize``)."
)


BLOCK_LOAD_ALGORITHMS = _tile_algorithms("BlockLoadAlgorithm", "cub::BLOCK_LOAD_", "load")
BLOCK_STORE_ALGORITHMS = _tile_algorithms("BlockStoreAlgorithm", "cub::BLOCK_STORE_", "store")

BLOCK_REDUCE_ALGORITHMS = Choices(
    "BlockReduceAlgorithm",
    "How ``coop.block.reduce`` / ``coop.block.sum`` combine the block's items "
    "(``cub::BlockReduceAlgorithm``).",
    (
        Option("raking", "cub::BLOCK_REDUCE_RAKING", "a raking reduction; any operator, partial tiles"),
        Option(
            "raking_commutative_only",
            "cub::BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY",
            "raking, faster, for commutative operators only",
        ),
        Option(
            "warp_reductions",
            "cub::BLOCK_REDUCE_WARP_REDUCTIONS",
            "a reduction per warp, then one across warps (the fastest in most cases)",
        ),
    ),
)

BLOCK_SCAN_ALGORITHMS = Choices(
    "BlockScanAlgorithm",
    "How the ``coop.block`` scans combine the block's items (``cub::BlockScanAlgorithm``).",
    (
        Option("raking", "cub::BLOCK_SCAN_RAKING", "a raking scan (work-efficient)"),
        Option(
            "raking_memoize",
            "cub::BLOCK_SCAN_RAKING_MEMOIZE",
            "raking, keeping the raking segment in registers (more registers, less shared traffic)",
        ),
        Option(
            "warp_scans", "cub::BLOCK_SCAN_WARP_SCANS", "a scan per warp, then across warps (low latency)"
        ),
    ),
)

BLOCK_EXCHANGE_MODES = Choices(
    "BlockExchangeMode",
    "Which rearrangement ``coop.block.exchange`` performs (a ``cub::BlockExchange`` method).\n\n"
    "*Blocked*: thread ``t`` holds items ``t*n .. t*n+n-1`` of the tile; *striped*: items ``t, t+T, "
    "...``; *warp-striped*: striped within each warp's ``32*n`` items. The scatter modes move item "
    "``i`` of each thread to tile position ``ranks[i]``.",
    (
        Option("striped_to_blocked", "StripedToBlocked", "striped to blocked"),
        Option("blocked_to_striped", "BlockedToStriped", "blocked to striped"),
        Option(
            "warp_striped_to_blocked", "WarpStripedToBlocked", "warp-striped to blocked", whole_warps=True
        ),
        Option(
            "blocked_to_warp_striped", "BlockedToWarpStriped", "blocked to warp-striped", whole_warps=True
        ),
        Option("scatter_to_blocked", "ScatterToBlocked", "scatter by rank, read blocked", uses=("ranks",)),
        Option(
            "scatter_to_striped",
            "ScatterToStriped",
            "scatter by rank, read striped",
            uses=("ranks",),
            allows=("valid_items",),
        ),
        Option(
            "scatter_to_striped_guarded",
            "ScatterToStripedGuarded",
            "scatter items whose rank is >= 0, read striped",
            uses=("ranks",),
            allows=("valid_items",),
        ),
        Option(
            "scatter_to_striped_flagged",
            "ScatterToStripedFlagged",
            "scatter items whose flag is set, read striped",
            uses=("ranks", "valid_flags"),
            allows=("valid_items",),
        ),
    ),
)


WARP_LOAD_ALGORITHMS = _tile_algorithms("WarpLoadAlgorithm", "cub::WARP_LOAD_", "load", "warp")
WARP_STORE_ALGORITHMS = _tile_algorithms("WarpStoreAlgorithm", "cub::WARP_STORE_", "store", "warp")

WARP_EXCHANGE_ALGORITHMS = Choices(
    "WarpExchangeAlgorithm",
    "How ``coop.warp.exchange`` moves items among a logical warp's lanes (``cub::WarpExchangeAlgorithm``).",
    (
        Option(
            "smem",
            "cub::WARP_EXCHANGE_SMEM",
            "through a shared-memory slice per logical warp; every mode",
            scratch=True,
            stages_tile=True,
        ),
        Option(
            "shuffle",
            "cub::WARP_EXCHANGE_SHUFFLE",
            "register shuffles, no shared memory; needs items_per_thread == threads_in_warp and a "
            "blocked/striped mode",
        ),
    ),
)

WARP_EXCHANGE_MODES = Choices(
    "WarpExchangeMode",
    "Which rearrangement ``coop.warp.exchange`` performs (a ``cub::WarpExchange`` method).\n\n"
    "*Blocked*: lane ``l`` holds items ``l*n .. l*n+n-1`` of the logical warp's tile; *striped*: "
    "items ``l, l+W, ...``. ``scatter_to_striped`` moves item ``i`` of each lane to tile position "
    "``ranks[i]``, then reads striped.",
    (
        Option("striped_to_blocked", "StripedToBlocked", "striped to blocked"),
        Option("blocked_to_striped", "BlockedToStriped", "blocked to striped"),
        Option("scatter_to_striped", "ScatterToStriped", "scatter by rank, read striped", uses=("ranks",)),
    ),
)

WARP_BATCHED_ARRANGEMENTS = Choices(
    "WarpBatchedArrangement",
    "How ``coop.warp.batched_reduce`` / ``batched_sum`` spread the results of ``B`` batches over a logical "
    "warp of ``W`` lanes, ``ceil(B / W)`` per lane (``cub::WarpReduceBatched``'s ``...ToStriped`` / "
    "``...ToBlocked``).",
    (
        Option("striped", "ToStriped", "lane ``l``'s item ``j`` is batch ``l + j*W``"),
        Option("blocked", "ToBlocked", "lane ``l``'s item ``j`` is batch ``l*ceil(B/W) + j``"),
    ),
)

ITEM_ARRANGEMENTS = Choices(
    "ItemArrangement",
    "How a thread's items sit in its group's tile, for the indices an arg-reduction gives them by "
    "default (the arrangement of the load that gave the items).",
    (
        Option("blocked", "coop_item_arrangement::blocked", "thread ``t``'s item ``i`` is at ``t*N + i``"),
        Option(
            "striped",
            "coop_item_arrangement::striped",
            "thread ``t``'s item ``i`` is at ``t + i*T`` (``T`` threads)",
        ),
        Option(
            "striped_vectors",
            "coop_item_arrangement::striped_vectors",
            "thread ``t``'s item ``i`` is at ``((i // v)*T + t)*v + i % v``, runs of ``v`` items as a "
            "``striped_vectors`` load of the items' type leaves them (block scope)",
        ),
    ),
    auto="striped_vectors",
    auto_doc="the arrangement of a block load with ``algorithm='auto'`` of the items' type: "
    "``striped_vectors``",
)

#: The shared choice tables, in the order their enums are exported (before those of the families).
CHOICES = (
    BLOCK_LOAD_ALGORITHMS,
    BLOCK_STORE_ALGORITHMS,
    BLOCK_REDUCE_ALGORITHMS,
    BLOCK_SCAN_ALGORITHMS,
    BLOCK_EXCHANGE_MODES,
    WARP_LOAD_ALGORITHMS,
    WARP_STORE_ALGORITHMS,
    WARP_EXCHANGE_ALGORITHMS,
    WARP_EXCHANGE_MODES,
    WARP_BATCHED_ARRANGEMENTS,
    ITEM_ARRANGEMENTS,
)

# --- parameters several families take ------------------------------------------------------------

#: Every element type (the values that sorts and selections move with their keys).
_ALL_DTYPES = tuple(DTYPES)

_OFFSET = Param("offset", Offset(), "int", "element index of the block's tile in the array.", 0)
_TEMP = Param(
    "temp_storage",
    Scratch(),
    "TempStorage | None",
    "caller-owned shared scratch (``coop.TempStorage``); by default the call gets its own.",
    None,
)
_TPB = Param(
    "threads_per_block",
    BlockShape(),
    "int | tuple[int, ...] | None",
    "block dimensions, only for kernels compiled outside the backend; a compile-time constant.",
    None,
)
_SRC = Param(
    "src",
    GlobalArray(),
    "npt.NDArray[Any] | tuple[npt.NDArray[Any], ...]",
    "global-memory array to read (1-D, contiguous); for a tuple of items, a tuple of arrays, one per field.",
    keyword_only=False,
)
_SRC_ONE = Param(
    "src",
    GlobalArray(),
    "npt.NDArray[Any]",
    "global-memory array to read (1-D, contiguous).",
    keyword_only=False,
)
_DST = Param(
    "dst",
    GlobalArray(write=True),
    "npt.NDArray[Any] | tuple[npt.NDArray[Any], ...]",
    "global-memory array to write (1-D, contiguous); for a tuple of items, a tuple of arrays, one per field.",
    keyword_only=False,
)
#: The annotation of a value of the element type: a number (a complex one for complex items), or a
#: tuple of them for structured items
_VALUE = "int | float | complex | tuple[Any, ...] | None"
_OOB_DEFAULT = Param(
    "oob_default",
    Element("oob", one_for_all=True),
    _VALUE,
    "value given to items past ``valid_items``; without it they keep their values (for a tuple of "
    "items: a tuple of one value per field, or one value for every field).",
    None,
    requires=("valid_items",),
)
_STORE_VALID = Param(
    "valid_items",
    Count("partial", full_tile=True),
    "int | None",
    "number of valid items; only those are written.",
    None,
)
_SORT_OOB_DEFAULT = Param(
    "oob_default",
    Element("oob"),
    _VALUE,
    "a key ordered after every valid key, which CUB pads a partial tile with (optional).",
    None,
    requires=("valid_items",),
)
#: Annotations of payloads that take structured items (a tuple of ThreadData, or of scalars)
_TUPLED = "ThreadData | tuple[ThreadData, ...]"
_TUPLED_OR_SCALAR = "ThreadData | tuple[ThreadData, ...] | Any"
_RADIX_TUPLES = (
    "CUB's radix sorts and ranks take scalar keys: sort tuples with merge_sort and a comparator on "
    "tuples, and pass further fields as values="
)
_BLOCK_DIMS = ("BLOCK_DIM_X", "BLOCK_DIM_Y", "BLOCK_DIM_Z")
_X = Param(
    "x",
    Payload(scalar=True, structured=True),
    _TUPLED_OR_SCALAR,
    "the thread's items (a ``coop.ThreadData``) or one typed scalar; or a tuple of either "
    "(structured items).",
    keyword_only=False,
)
_OP = Param(
    "op",
    Operator(),
    "str | Callable[[Any, Any], Any]",
    "a built-in operator (``'sum'``, ``'mul'``, ``'min'``, ``'max'``, ``'bit_and'``, ``'bit_or'``, "
    "``'bit_xor'``, ``'complex_mul'``: the complex product, of complex items or ``(re, im)`` pairs) or a "
    "function of two values of the element type returning one.",
    keyword_only=False,
)
