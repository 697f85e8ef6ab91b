# SPDX-License-Identifier: Apache-2.0
"""The catalog: one row per primitive. Everything public about a primitive is derived from its row
(the host stub and its docs, ``coop.block.__all__``, the enums, ``stubs/``, the Numba typing and
lowering, the CuTe trace-time handler, the C++ wrapper); nothing else restates it.

To add a primitive, add a row here (and its tests). See ``docs/contributing.rst``.
"""

from __future__ import annotations

from ._choices import Choices, Option
from ._dtypes import DTYPES, dtype_named, fields_of
from ._errors import CoopLaunchConfigError, CoopTypeError, CoopValueError
from ._kinds import (
    HARDWARE_WARP,
    BlockShape,
    Choice,
    Comparator,
    Constant,
    Count,
    Counters,
    Element,
    Flag,
    GlobalArray,
    GridState,
    GridStatePayload,
    Index,
    IndexArrangement,
    IndexedPayload,
    Items,
    LogicalWarp,
    Offset,
    Operator,
    Payload,
    Predicate,
    PrefixOp,
    Scratch,
    SharedTile,
    Tile,
)
from ._operators import ASSOCIATIVE, PREDICATES
from ._primitive import STATIC_SHARED_LIMIT, Call, Cub, Param, Primitive, Resolver, Result

# --- choices ----------------------------------------------------------------------------------------


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
                "consecutive threads access consecutive runs of up to 4 items, one vector access each",
                arrangement="striped_vectors",
                contiguous=True,
                runs=True,
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
            "the fastest way to move 2-byte items at 8 or more per thread. Scalar items only."
            if block
            else "."
        ),
        tuple(options),
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
        Option("scatter_to_striped", "ScatterToStriped", "scatter by rank, read striped", uses=("ranks",)),
        Option(
            "scatter_to_striped_guarded",
            "ScatterToStripedGuarded",
            "scatter items whose rank is >= 0, read striped",
            uses=("ranks",),
        ),
        Option(
            "scatter_to_striped_flagged",
            "ScatterToStripedFlagged",
            "scatter items whose flag is set, read striped",
            uses=("ranks", "valid_flags"),
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
        Option("blocked", "blocked", "thread ``t``'s item ``i`` is at ``t*N + i``"),
        Option("striped", "striped", "thread ``t``'s item ``i`` is at ``t + i*T`` (``T`` threads)"),
    ),
)

#: Every choice table, in the order their enums are exported.
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

# --- parameters shared by several rows ------------------------------------------------------------

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
    "valid_items", Count("partial"), "int | None", "number of valid items; only those are written.", None
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
_BLOCKED_ITEMS = Param(
    "items",
    Payload(structured=True),
    _TUPLED,
    "the thread's items in a blocked arrangement (a ``coop.ThreadData``, or a tuple of them: "
    "structured items).",
    keyword_only=False,
)
_SORT_KEYS = Param(
    "keys",
    Payload(instead=_RADIX_TUPLES),
    "ThreadData",
    "the thread's keys in a blocked arrangement (a ``coop.ThreadData``), sorted in place.",
    keyword_only=False,
)
_MERGE_SORT_KEYS = Param(
    "keys",
    Payload(structured=True),
    _TUPLED,
    "the thread's keys in a blocked arrangement (a ``coop.ThreadData``, or a tuple of them ordered "
    "by a comparator on tuples), sorted in place.",
    keyword_only=False,
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

# --- rows ------------------------------------------------------------------------------------------

LOAD = Primitive(
    scope="block",
    name="load",
    cub=Cub(
        "cub::BlockLoad",
        "cub/block/block_load.cuh",
        ("T", "BLOCK_DIM_X", "ITEMS_PER_THREAD", "algorithm", *_BLOCK_DIMS[1:]),
    ),
    params=(
        _SRC,
        Param(
            "items",
            Payload(keep_past=("valid_items", "oob_default"), structured=True),
            _TUPLED,
            "the calling thread's items (a ``coop.ThreadData``).",
            keyword_only=False,
        ),
        _OFFSET,
        Param(
            "algorithm",
            Choice(BLOCK_LOAD_ALGORITHMS),
            "str | BlockLoadAlgorithm",
            "a ``BlockLoadAlgorithm`` or its name.",
            "direct",
        ),
        Param(
            "valid_items",
            Count("partial"),
            "int | None",
            "number of valid items in the tile; items past it are not read.",
            None,
        ),
        _OOB_DEFAULT,
        _TEMP,
        _TPB,
    ),
    call=Call(
        "Load", ("src", "items", "valid_items", "oob_default"), full_tile=("valid_items", "oob_default")
    ),
    scratch="algorithm",
    summary="Load a tile of ``threads * items_per_thread`` items cooperatively (CUB BlockLoad).",
    details=(
        "All threads of the block must call it. Thread ``t`` receives its items in the blocked "
        "arrangement (striped for ``algorithm='striped'``, striped in runs for ``'striped_vectors'``: "
        "see ``BlockLoadAlgorithm``)."
    ),
)

LOAD_TO_SHARED = Primitive(
    scope="block",
    name="load_to_shared",
    cub=Cub("coop_block_load_to_shared", "cuda/ptx", ("T", *_BLOCK_DIMS)),
    params=(
        _SRC_ONE,
        Param(
            "dst",
            SharedTile(),
            "Any",
            "the shared-memory array to fill (Numba: a ``cuda.shared.array``; CuTe: a tensor in smem), "
            "1-D and contiguous, of the element type of ``src``.",
            keyword_only=False,
        ),
        Param(
            "num_items",
            Count("num_items"),
            "int",
            "how many items to copy: ``src[offset : offset + num_items]`` into ``dst[0 : num_items]`` "
            "(a runtime integer or a constant; at most ``dst``'s length).",
            keyword_only=False,
        ),
        _OFFSET,
        _TPB,
    ),
    call=Call("Load", ("src", "dst", "num_items")),
    scratch=False,
    summary="Copy a contiguous run of items from global into shared memory, the whole block at once "
    "(one bulk copy on sm_90+).",
    details=(
        "All threads of the block must call it; when it returns, every thread of the block sees the "
        "items in ``dst``, in their order in ``src``. On sm_90 and later, with ``src + offset``, "
        "``dst`` and the run's bytes all multiples of 16 bytes, one thread issues one ``cp.async.bulk`` "
        "copy of the whole run, which completes on the kernel's mbarrier that every thread waits on: "
        "the run travels without registers, in one request to the memory system. Otherwise the "
        "block's threads copy it item by item (striped) and meet on the same mbarrier (before sm_90: "
        "at a block barrier). No block barrier runs per call: the copy may start as soon as one thread "
        "reaches the call, so when it overwrites a ``dst`` that threads read before, put a block "
        "barrier between those reads and the call (as before any shared-memory write that other "
        "threads read). The kernel arms its mbarrier once, at its start. Call it before the kernel's "
        "other loads where it can: the copy then enters the memory system first, and loads issued "
        "after the call, whose data is needed later, overlap the work on ``dst`` (a row staged "
        "first and its weights loaded after ran 8% faster than the other order, RMSNorm at 262144 on "
        "the H200). Loads issued before the call stay in flight while the copy runs. "
        "The items are then read from ``dst`` in any order, as often as needed: a row kernel reads "
        "a row of memory once and keeps it in shared memory, not registers, across its reduction. "
        "``dst`` must be in shared memory: CuTe refuses another tensor; Numba refuses a kernel "
        "argument, and a call whose ``dst`` it cannot trace to a ``cuda.shared.array`` is checked "
        "when it runs (a trap). More than 48 KB of shared memory needs a dynamic shared array "
        "(Numba: ``cuda.shared.array(0, dtype)`` and the launch's ``sharedmem``; CuTe: "
        "``cutlass.utils.SmemAllocator`` and the launch's ``smem``)."
    ),
)

STORE = Primitive(
    scope="block",
    name="store",
    cub=Cub(
        "cub::BlockStore",
        "cub/block/block_store.cuh",
        ("T", "BLOCK_DIM_X", "ITEMS_PER_THREAD", "algorithm", *_BLOCK_DIMS[1:]),
    ),
    params=(
        _DST,
        Param(
            "items",
            Payload(read_only=True, structured=True),
            _TUPLED,
            "the calling thread's items (a ``coop.ThreadData``; left as they are).",
            keyword_only=False,
        ),
        _OFFSET,
        Param(
            "algorithm",
            Choice(BLOCK_STORE_ALGORITHMS),
            "str | BlockStoreAlgorithm",
            "a ``BlockStoreAlgorithm`` or its name.",
            "direct",
        ),
        _STORE_VALID,
        _TEMP,
        _TPB,
    ),
    call=Call("Store", ("dst", "items", "valid_items"), full_tile=("valid_items",)),
    scratch="algorithm",
    summary="Store a tile of ``threads * items_per_thread`` items cooperatively (CUB BlockStore).",
    details=(
        "All threads of the block must call it. Items are expected in the blocked arrangement "
        "(striped for ``algorithm='striped'``, striped in runs for ``'striped_vectors'``: see "
        "``BlockStoreAlgorithm``)."
    ),
)


def _check_exchange(r: Resolver) -> None:
    """CUB stages the whole tile unless time-sliced; its guarded and flagged scatters have no
    time-sliced variant (they would write past the one-warp buffer)."""
    mode = str(r.option("mode"))
    if "warp_time_slicing" not in r.present:
        r.check_tile_fits("mode", mode)
    elif mode in ("scatter_to_striped_guarded", "scatter_to_striped_flagged"):
        raise CoopValueError(
            f"{r.q}: warp_time_slicing=True is not available for mode={mode!r} (CUB has no time-sliced "
            "variant of it); leave it False"
        )


EXCHANGE = Primitive(
    scope="block",
    name="exchange",
    cub=Cub(
        "cub::BlockExchange",
        "cub/block/block_exchange.cuh",
        ("T", "BLOCK_DIM_X", "ITEMS_PER_THREAD", "warp_time_slicing", *_BLOCK_DIMS[1:]),
    ),
    params=(
        Param(
            "items",
            Payload(structured=True),
            _TUPLED,
            "the thread's items (rearranged in place unless ``out`` is given); a tuple of ThreadData "
            "moves each field alike.",
            keyword_only=False,
        ),
        Param(
            "mode",
            Choice(BLOCK_EXCHANGE_MODES),
            "str | BlockExchangeMode",
            "a ``BlockExchangeMode`` or its name.",
            keyword_only=False,
        ),
        Param(
            "ranks",
            Items(tag="ranks", dtypes=("int32",)),
            "ThreadData | None",
            "the tile position of each item (an int32 ``ThreadData``), for the scatter modes.",
            None,
        ),
        Param(
            "valid_flags",
            Items(tag="flags", dtypes=tuple(n for n, d in DTYPES.items() if d.kind in "iu")),
            "ThreadData | None",
            "per item, nonzero if it is scattered (an integer ``ThreadData``), for "
            "``'scatter_to_striped_flagged'``.",
            None,
        ),
        Param(
            "out",
            Items(fallback="items"),
            f"{_TUPLED} | None",
            "where the rearranged items go (a ``ThreadData`` like ``items``, a tuple for a tuple); by "
            "default ``items``.",
            None,
        ),
        Param(
            "warp_time_slicing",
            Flag("wts"),
            "bool",
            "stage one warp at a time through shared memory (less of it, more barriers).",
            False,
        ),
        _TEMP,
        _TPB,
    ),
    call=Call("{mode}", ("items", "out", "ranks", "valid_flags")),
    check=_check_exchange,
    summary="Rearrange the block's items among its threads (CUB BlockExchange).",
    details=(
        "All threads of the block must call it. In the scatter modes, ranks must address each tile "
        "position at most once; positions that no item reaches (guarded and flagged modes) are left "
        "undefined."
    ),
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
    op = f"coop_arg_best<{'true' if best == 'largest' else 'false'}>{{{{}}}}"
    args = ("x", "best") if count is None else ("x", "best", count)
    return Call("Reduce", args, returns="result", exprs=(("best", op),))


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
    "how the items sit in the tile, for their default indices: ``'blocked'`` (thread ``t``'s item ``i`` "
    "is at ``t*N + i``) or ``'striped'`` (``t + i*T``, as a ``striped`` load leaves them); not with "
    "``indices``. Default indices cost no register per item: each thread keeps its first best item "
    "and its position.",
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
        cub=Cub(
            "cub::BlockReduce",
            "cub/block/block_reduce.cuh",
            ("INDEXED_T", "BLOCK_DIM_X", "algorithm", *_BLOCK_DIMS[1:]),
        ),
        params=(
            _arg_x(best, "thread", arranged=True),
            _INDICES,
            _ARRANGEMENT,
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

# --- sorting and data-dependent block primitives (issue 10) ---------------------------------------

BLOCK_RADIX_SORT_OUTPUTS = Choices(
    "BlockRadixSortOutput",
    "How ``coop.block.radix_sort`` leaves the sorted keys among the threads (``cub::BlockRadixSort``'s "
    "``Sort`` or ``SortBlockedToStriped``).",
    (
        Option("blocked", "", "thread ``t`` holds sorted positions ``t*n .. t*n+n-1``"),
        Option(
            "striped",
            "BlockedToStriped",
            "thread ``t`` holds sorted positions ``t, t+T, ...`` (ready for a striped store)",
            arrangement="striped",
        ),
    ),
)
CHOICES = (*CHOICES, BLOCK_RADIX_SORT_OUTPUTS)

_ALL_DTYPES = tuple(DTYPES)
_RADIX_FIXED = (
    ("MEMOIZE_OUTER_SCAN", "true"),
    ("INNER_SCAN_ALGORITHM", "cub::BLOCK_SCAN_WARP_SCANS"),
    ("SMEM_CONFIG", "cudaSharedMemBankSizeFourByte"),
)


def _check_bit_range(r: Resolver) -> None:
    """A constant bit range must lie within the key and not be empty (a runtime one is the caller's)."""
    bits = 8 * dtype_named(r.dtype).itemsize
    begin, end = r.constants.get("begin_bit"), r.constants.get("end_bit")
    if begin is not None and begin >= bits:
        raise CoopValueError(
            f"{r.q}: begin_bit={begin} is past the key's {bits} bits ({r.dtype}); pass 0..{bits - 1}"
        )
    if end is not None and not 1 <= end <= bits:
        raise CoopValueError(
            f"{r.q}: end_bit={end} is outside the key's {bits} bits ({r.dtype}); pass 1..{bits}"
        )
    if begin is not None and end is not None and begin >= end:
        raise CoopValueError(f"{r.q}: begin_bit={begin} is not below end_bit={end}; the bit range is empty")


def _check_radix_counters(r: Resolver, radix_bits: int, name: str = "radix_bits") -> None:
    """BlockRadixRank's digit counters (two bytes per digit and thread, plus a padding lane) live in
    shared memory, and a tile must fit its 16-bit counters; both checked before any C++ exists."""
    counters = ((1 << max(radix_bits - 1, 0)) + 1) * r.threads * 4
    if counters > STATIC_SHARED_LIMIT:
        raise CoopValueError(
            f"{r.q}: {name}={radix_bits} needs {counters} B of digit counters for {r.threads} threads, "
            f"above the {STATIC_SHARED_LIMIT} B static limit; use fewer {name} or a smaller block"
        )
    if r.threads * r.n > 65535:
        raise CoopValueError(
            f"{r.q}: a tile of {r.threads * r.n} keys overflows CUB's 16-bit digit counters (at most "
            "65535); use fewer items per thread"
        )


def _check_staged_tile(r: Resolver, what: str) -> None:
    """The block's tile of keys or of values, whichever is larger, that the call stages in shared
    memory (``what`` says how) fits the static limit."""
    values = r.option("values")
    size = max(dtype_named(r.dtype).itemsize, dtype_named(values).itemsize if values else 0)
    tile = r.threads * r.n * size
    if tile > STATIC_SHARED_LIMIT:
        raise CoopValueError(
            f"{r.q}: {what} ({r.threads} threads x {r.n} items x {size} B = {tile} B), above the "
            f"{STATIC_SHARED_LIMIT} B static limit; use fewer items per thread or a smaller block"
        )


def _check_radix_sort(r: Resolver) -> None:
    """The bit range, the digit counters, and the tile exchanged through shared memory."""
    _check_bit_range(r)
    _check_radix_counters(r, int(str(r.option("radix_bits"))))
    _check_staged_tile(r, "the tile is exchanged through shared memory")


_SORT_ORDER_NOTE = (
    "Floating-point keys are ordered as CUB orders them: ``-0.0`` and ``+0.0`` are equal (they keep "
    "their input order), a NaN with its sign bit clear sorts after ``+inf`` (before it when descending) "
    "and one with its sign bit set before ``-inf``, as NumPy places ``np.nan`` last in an ascending sort."
)

RADIX_SORT = Primitive(
    scope="block",
    name="radix_sort",
    cub=Cub(
        "cub::BlockRadixSort",
        "cub/block/block_radix_sort.cuh",
        (
            "T",
            "BLOCK_DIM_X",
            "ITEMS_PER_THREAD",
            "values",
            "radix_bits",
            "MEMOIZE_OUTER_SCAN",
            "INNER_SCAN_ALGORITHM",
            "SMEM_CONFIG",
            *_BLOCK_DIMS[1:],
        ),
        fixed=_RADIX_FIXED,
    ),
    params=(
        _SORT_KEYS,
        Param(
            "values",
            Items(tag="values", dtypes=_ALL_DTYPES, structured=True),
            f"{_TUPLED} | None",
            "values moved with their keys (a ``ThreadData`` of any element type, or a tuple of them, with "
            "the keys' items per "
            "thread), sorted in place.",
            None,
        ),
        Param(
            "descending",
            Flag("desc", method="Descending"),
            "bool",
            "sort from the largest key to the smallest.",
            False,
        ),
        Param(
            "begin_bit",
            Count("begin", otherwise="0"),
            "int",
            "the least significant key bit that takes part (a runtime int or a constant).",
            0,
        ),
        Param(
            "end_bit",
            Count("end", otherwise="int(sizeof({T}) * 8)"),
            "int | None",
            "one past the most significant key bit that takes part; by default all of the key's bits.",
            None,
        ),
        Param(
            "output",
            Choice(BLOCK_RADIX_SORT_OUTPUTS),
            "str | BlockRadixSortOutput",
            "``'blocked'`` or ``'striped'``: the arrangement of the sorted keys among the threads.",
            "blocked",
        ),
        Param(
            "radix_bits",
            Constant(tuple(range(1, 9))),
            "int",
            "the bits ranked per pass, 1..8 (a compile-time constant; CUB's ``RADIX_BITS``).",
            4,
        ),
        _TEMP,
        _TPB,
    ),
    call=Call("Sort{descending}{output}", ("keys", "values", "begin_bit", "end_bit")),
    check=_check_radix_sort,
    summary="Sort the block's keys (and values) by their bits, stably (CUB BlockRadixSort).",
    details=(
        "All threads of the block must call it. Keys are signed or unsigned integers or floats, ordered "
        "by value (CUB twiddles the bits); only bits ``begin_bit .. end_bit-1`` take part, and keys equal "
        "there keep their input order. " + _SORT_ORDER_NOTE
    ),
)

_CMP = Param(
    "op",
    Comparator(),
    "str | Callable[[Any, Any], bool]",
    "a built-in comparator (``'less'``: ascending, ``'greater'``: descending) or a function of two keys "
    "returning True when the first is ordered before the second (a strict weak ordering).",
    keyword_only=False,
)


def _check_sort_fits(r: Resolver) -> None:
    """CUB's merge sort stages the whole tile (keys, then values) in shared memory."""
    _check_staged_tile(r, "the sort stages the block's tiles through shared memory")


def _check_merge_sort(r: Resolver) -> None:
    """CUB's block merge sort pairs runs of threads: the block's thread count must be a power of two
    (a ``static_assert`` in CUB, checked here first); the tile is staged in shared memory."""
    if r.threads & (r.threads - 1):
        raise CoopLaunchConfigError(
            f"{r.q}: needs a block of a power-of-two number of threads, the block has {r.threads} "
            f"{r.block_dims}; use 32, 64, 128, 256, 512 or 1024 threads, or coop.block.radix_sort"
        )
    _check_sort_fits(r)


MERGE_SORT = Primitive(
    scope="block",
    name="merge_sort",
    cub=Cub(
        "cub::BlockMergeSort",
        "cub/block/block_merge_sort.cuh",
        ("T", "BLOCK_DIM_X", "ITEMS_PER_THREAD", "values", *_BLOCK_DIMS[1:]),
    ),
    params=(
        _MERGE_SORT_KEYS,
        _CMP,
        Param(
            "values",
            Items(tag="values", dtypes=_ALL_DTYPES, structured=True),
            f"{_TUPLED} | None",
            "values moved with their keys (a ``ThreadData`` of any element type, or a tuple of them, with "
            "the keys' items per "
            "thread), sorted in place; by default keys only.",
            None,
        ),
        Param(
            "valid_items",
            Count("partial"),
            "int | None",
            "number of valid keys in the tile (the first ones, blocked); only those are sorted, the others "
            "are unspecified afterwards.",
            None,
        ),
        _SORT_OOB_DEFAULT,
        Param(
            "stable",
            Flag("stable", method="Stable"),
            "bool",
            "keys that compare equal keep their input order (CUB's ``StableSort``).",
            False,
        ),
        _TEMP,
        _TPB,
    ),
    call=Call("{stable}Sort", ("keys", "values", "op", "valid_items", "oob_default")),
    check=_check_merge_sort,
    summary="Sort the block's keys (and values) with a comparator (CUB BlockMergeSort).",
    details=(
        "All threads of the block must call it; the block's thread count must be a power of two. Keys "
        "of any element type are in the blocked arrangement before and after (thread ``t`` holds tile "
        "positions ``t*n .. t*n+n-1``), ordered by ``op`` (which must be a strict weak ordering of the "
        "keys: with floats, ``'less'`` is one only without NaN). With ``stable=True`` keys that compare "
        "equal keep their input order. It goes through shared memory (the tile of keys, then values)."
    ),
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
CHOICES = (*CHOICES, BLOCK_ADJACENT_DIRECTIONS)


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
        "Subtract{direction}",
        ("items", "out", "op", "valid_items", "tile_predecessor", "tile_successor"),
        variants=(("valid_items", "Subtract{direction}PartialTile"),),
    ),
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
CHOICES = (*CHOICES, BLOCK_DISCONTINUITY_FLAGS)

_HEADS = ("heads", "heads_and_tails")
_TAILS = ("tails", "heads_and_tails")

DISCONTINUITY = Primitive(
    scope="block",
    name="discontinuity",
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
    call=Call(
        "Flag{flags}",
        ("head_flags", "items", "op", "tile_predecessor"),
        orders=(
            ("flags=tails", ("tail_flags", "items", "op", "tile_successor")),
            (
                "flags=heads_and_tails",
                ("head_flags", "tile_predecessor", "tail_flags", "tile_successor", "items", "op"),
            ),
        ),
    ),
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
CHOICES = (*CHOICES, BLOCK_SHUFFLE_MODES)


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
    call=Call(
        "{mode}",
        ("x", "out", "distance"),
        orders=(("mode=up", ("x", "out", "suffix")), ("mode=down", ("x", "out", "prefix"))),
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

BLOCK_HISTOGRAM_ALGORITHMS = Choices(
    "BlockHistogramAlgorithm",
    "How ``coop.block.histogram`` counts the block's samples (``cub::BlockHistogramAlgorithm``).",
    (
        Option(
            "atomic",
            "cub::BLOCK_HISTO_ATOMIC",
            "each sample adds one to its bin with a block-scope atomic; no shared scratch, the samples are "
            "left as they are",
        ),
        Option(
            "sort",
            "cub::BLOCK_HISTO_SORT",
            "the samples are radix-sorted (in place) and each bin's run length is added to it by one "
            "thread; shared scratch, no atomics",
            scratch=True,
            stages_tile=True,
        ),
    ),
)
CHOICES = (*CHOICES, BLOCK_HISTOGRAM_ALGORITHMS)

#: The most bins a histogram takes (CUB's ``BINS``, a template argument).
MAX_BINS = 65536
_INTEGER_DTYPES = tuple(n for n, d in DTYPES.items() if d.kind in "iu")


def _check_histogram(r: Resolver) -> None:
    """Samples are bin numbers; the sort algorithm ranks them with BlockRadixSort and keeps two
    run bounds per bin in shared memory."""
    if r.dtype not in _INTEGER_DTYPES:
        raise CoopTypeError(
            f"{r.q}: samples must be a ThreadData of an integer type (bin numbers), got {r.dtype}; convert "
            "each sample to its bin first"
        )
    if r.option("algorithm") == "sort":
        _check_radix_counters(r, 4)
        bins = int(str(r.option("bins")))
        if 8 * bins > STATIC_SHARED_LIMIT:
            raise CoopValueError(
                f"{r.q}: algorithm='sort' keeps {8 * bins} B of run bounds for bins={bins} in shared memory, "
                f"above the {STATIC_SHARED_LIMIT} B static limit; use algorithm='atomic'"
            )


HISTOGRAM = Primitive(
    scope="block",
    name="histogram",
    cub=Cub(
        "cub::BlockHistogram",
        "cub/block/block_histogram.cuh",
        ("T", "BLOCK_DIM_X", "ITEMS_PER_THREAD", "bins", "algorithm", *_BLOCK_DIMS[1:]),
    ),
    params=(
        Param(
            "samples",
            Payload(instead="samples are bin indices of one integer type"),
            "ThreadData",
            "the thread's samples (a ``coop.ThreadData`` of an integer type), each a bin number "
            "``0 .. bins-1``; sorted in place by ``algorithm='sort'``.",
            keyword_only=False,
        ),
        Param(
            "counters",
            Counters(("int32", "uint32", "uint64")),
            "Any",
            "the block's ``bins`` counters (int32, uint32 or uint64), in shared memory (Numba: "
            "``cuda.shared.array``; CuTe: a shared-memory tensor) or global memory, at ``offset``; each "
            "sample adds one to its bin.",
            keyword_only=False,
        ),
        Param(
            "bins",
            Constant(range(1, MAX_BINS + 1)),
            "int",
            f"the number of bins, 1..{MAX_BINS} (a compile-time constant; CUB's ``BINS``).",
        ),
        Param("offset", Offset(), "int", "element index of the block's first counter in ``counters``.", 0),
        Param(
            "algorithm",
            Choice(BLOCK_HISTOGRAM_ALGORITHMS),
            "str | BlockHistogramAlgorithm",
            "``'atomic'`` or ``'sort'``.",
            "atomic",
        ),
        Param(
            "init",
            Flag("init"),
            "bool",
            "set the counters to zero first (CUB's ``Histogram``); ``False`` adds to them (``Composite``).",
            True,
        ),
        _TEMP,
        _TPB,
    ),
    call=Call("Composite", ("samples", "counters"), variants=(("init", "Histogram"),)),
    scratch="algorithm",
    check=_check_histogram,
    summary="Count the block's samples into bins (CUB BlockHistogram).",
    details=(
        "All threads of the block must call it, with the same counters. The counters are the block's "
        "own: the updates are block-scope (atomic: block-scope atomics; sort: one thread per bin, not "
        "atomic), so blocks must not share counters. A sample outside ``0 .. bins-1`` writes outside "
        "them. The counts are complete once every thread is past the call: synchronize the block "
        "(``cuda.syncthreads()``, ``cute.arch.barrier()``) before reading them or updating them again."
    ),
)

#: Run lengths and offsets: unsigned or signed integers (CUB converts them to its uint32 offsets).
_RUN_DTYPES = ("int32", "uint32", "int16", "uint16", "int64", "uint64")


def _check_run_length_decode(r: Resolver) -> None:
    """The runs come as lengths or as offsets (one of them); the block's runs (values and uint32
    offsets) are kept in shared memory."""
    if not {"run_lengths", "run_offsets"} & r.present:
        raise CoopValueError(f"{r.q}: pass run_lengths (each run's length) or run_offsets (each run's start)")
    size = r.threads * r.n * (dtype_named(r.dtype).itemsize + 4)
    if size > STATIC_SHARED_LIMIT:
        raise CoopValueError(
            f"{r.q}: the block's {r.threads * r.n} runs take {size} B of shared memory (value and offset "
            f"each), above the {STATIC_SHARED_LIMIT} B static limit; use fewer runs per thread or a smaller "
            "block"
        )


RUN_LENGTH_DECODE = Primitive(
    scope="block",
    name="run_length_decode",
    cub=Cub(
        "cub::BlockRunLengthDecode",
        "cub/block/block_run_length_decode.cuh",
        (
            "T",
            "BLOCK_DIM_X",
            "ITEMS_PER_THREAD",
            "decoded_items_per_thread",
            "DECODED_OFFSET_T",
            *_BLOCK_DIMS[1:],
        ),
        fixed=(("DECODED_OFFSET_T", "uint32_t"),),
    ),
    params=(
        Param(
            "run_values",
            Payload(),
            "ThreadData",
            "the thread's runs' values (a ``coop.ThreadData``; thread ``t`` holds runs ``t*n .. t*n+n-1``).",
            keyword_only=False,
        ),
        Param(
            "decoded_items_per_thread",
            Constant(range(1, 257)),
            "int",
            "decoded items each thread gets: the window is ``threads * decoded_items_per_thread`` items "
            "(a compile-time constant).",
        ),
        Param(
            "run_lengths",
            Items(tag="lengths", dtypes=_RUN_DTYPES),
            "ThreadData | None",
            "each run's length (an integer ``ThreadData`` with the values' items per thread); zero-length "
            "runs only at the end. The call then also returns the decoded size.",
            None,
            excludes=("run_offsets",),
        ),
        Param(
            "run_offsets",
            Items(tag="runoffsets", dtypes=_RUN_DTYPES),
            "ThreadData | None",
            "instead of lengths, each run's first position in the decoded sequence (ascending, the first "
            "run's 0); the last run extends past the window.",
            None,
        ),
        Param(
            "from_decoded_offset",
            Count("from"),
            "int",
            "the window's first position in the decoded sequence (a runtime int or a constant), at most the "
            "decoded size.",
            0,
        ),
        Param(
            "relative_offsets",
            Flag("relative"),
            "bool",
            "also return each decoded item's position within its run (an int32 ``ThreadData``).",
            False,
        ),
        _TEMP,
        _TPB,
    ),
    call=Call(
        "RunLengthDecode",
        ("decoded_items", "item_offsets", "from_decoded_offset"),
        ctor=("run_values", "run_lengths", "run_offsets", "total_decoded_size"),
    ),
    results=(
        Result(
            "decoded_items",
            "the window's decoded items, blocked.",
            items="decoded_items_per_thread",
        ),
        Result(
            "item_offsets",
            "each decoded item's position within its run.",
            items="decoded_items_per_thread",
            when="relative_offsets",
            dtype="int32",
        ),
        Result("total_decoded_size", "the decoded sequence's length.", when="run_lengths", dtype="int32"),
    ),
    check=_check_run_length_decode,
    summary="Decode a window of the block's run-length encoded sequence (CUB BlockRunLengthDecode).",
    details=(
        "All threads of the block must call it, with the same runs and window. The block's runs (thread "
        "``t`` holds runs ``t*n .. t*n+n-1``) define a sequence in which each run's value repeats its "
        "length times; the call returns its window of ``threads * decoded_items_per_thread`` items from "
        "``from_decoded_offset`` on, in the blocked arrangement. Items past the end of the sequence are "
        "unspecified. Each call hands the runs to CUB anew (CUB's constructor), so decoding a long "
        "sequence is a loop of calls with a growing ``from_decoded_offset``."
    ),
    returns_doc="the decoded items (a fresh ``ThreadData`` of the values' type with "
    "``decoded_items_per_thread`` items); with ``relative_offsets``, ``(decoded_items, item_offsets)``; "
    "with ``run_lengths``, the decoded size (int32) last: ``(decoded_items, [item_offsets,] total)``.",
    returns_annotation="Any",
)

BLOCK_RADIX_RANK_ALGORITHMS = Choices(
    "BlockRadixRankAlgorithm",
    "How ``coop.block.radix_rank`` ranks the keys' digits (``cub::BlockRadixRank`` or "
    "``cub::BlockRadixRankMatch``, chosen by the option).",
    (
        Option(
            "basic",
            "false",
            "``cub::BlockRadixRank``: per-thread digit counters in shared memory, scanned block-wide",
        ),
        Option(
            "memoize",
            "true",
            "``cub::BlockRadixRank`` keeping the counters' outer scan in registers (``MEMOIZE_OUTER_SCAN``)",
        ),
        Option(
            "match",
            "",
            "``cub::BlockRadixRankMatch``: the lanes of a warp with the same digit found by a warp match, "
            "one counter per digit and warp; equal digits keep the warp-striped order; whole warps only "
            "(it synchronizes all 32 lanes of each warp: a block with a partial warp hung on the H200) "
            "and a 1-D block (CCCL 3.6 scans its counters with a BlockScan of BlockDimX = all the "
            "block's threads and BlockDimY/Z again: on a 2-D or 3-D block the ranks are wrong)",
            whole_warps=True,
            one_dimensional=True,
        ),
    ),
)
CHOICES = (*CHOICES, BLOCK_RADIX_RANK_ALGORITHMS)

_UNSIGNED_DTYPES = tuple(n for n, d in DTYPES.items() if d.kind == "u")
_RANK_FIXED = (
    ("INNER_SCAN_ALGORITHM", "cub::BLOCK_SCAN_WARP_SCANS"),
    ("SMEM_CONFIG", "cudaSharedMemBankSizeFourByte"),
)


def _check_radix_rank(r: Resolver) -> None:
    """Keys are unsigned bits; the digit lies within them; the basic algorithms' digit counters fit."""
    if r.dtype not in _UNSIGNED_DTYPES:
        raise CoopTypeError(
            f"{r.q}: keys must be a ThreadData of an unsigned integer type (the keys' bits), got {r.dtype}; "
            "rank the bits of other keys (coop.block.radix_sort orders signed and float keys by value)"
        )
    bits = 8 * dtype_named(r.dtype).itemsize
    num = int(str(r.option("num_bits")))
    begin = r.constants.get("begin_bit")
    if num > bits:
        raise CoopValueError(f"{r.q}: num_bits={num} is more than the key's {bits} bits ({r.dtype})")
    if begin is not None and begin + num > bits:
        raise CoopValueError(
            f"{r.q}: begin_bit={begin} with num_bits={num} reaches past the key's {bits} bits ({r.dtype}); "
            f"pass begin_bit <= {bits - num}"
        )
    if r.option("algorithm") != "match":
        _check_radix_counters(r, num, "num_bits")


RADIX_RANK = Primitive(
    scope="block",
    name="radix_rank",
    cub=Cub(
        "cub::BlockRadixRank",
        "cub/block/block_radix_rank.cuh",
        (
            "BLOCK_DIM_X",
            "num_bits",
            "descending",
            "algorithm",
            "INNER_SCAN_ALGORITHM",
            "SMEM_CONFIG",
            *_BLOCK_DIMS[1:],
        ),
        fixed=_RANK_FIXED,
        classes=(
            (
                "algorithm=match",
                Cub(
                    "cub::BlockRadixRankMatch",
                    "cub/block/block_radix_rank.cuh",
                    ("BLOCK_DIM_X", "num_bits", "descending", "INNER_SCAN_ALGORITHM", *_BLOCK_DIMS[1:]),
                    fixed=_RANK_FIXED,
                ),
            ),
        ),
    ),
    params=(
        Param(
            "keys",
            Payload(instead=_RADIX_TUPLES),
            "ThreadData",
            "the thread's keys in a blocked arrangement (a ``coop.ThreadData`` of an unsigned integer type: "
            "the keys' bits).",
            keyword_only=False,
        ),
        Param(
            "begin_bit",
            Count("begin"),
            "int",
            "the digit's least significant bit (a runtime int or a constant); ``begin_bit + num_bits`` must "
            "not pass the key's bits.",
        ),
        Param(
            "num_bits",
            Constant(tuple(range(1, 9))),
            "int",
            "the digit's bits, 1..8 (a compile-time constant; CUB's ``RADIX_BITS``).",
        ),
        Param(
            "descending",
            Flag("desc"),
            "bool",
            "rank from the largest digit to the smallest.",
            False,
        ),
        Param(
            "algorithm",
            Choice(BLOCK_RADIX_RANK_ALGORITHMS),
            "str | BlockRadixRankAlgorithm",
            "``'basic'``, ``'memoize'`` or ``'match'``.",
            "basic",
        ),
        _TEMP,
        _TPB,
    ),
    call=Call(
        "RankKeys",
        ("keys", "ranks", "digits"),
        exprs=(("digits", "cub::BFEDigitExtractor<{T}>({begin_bit}, {num_bits})"),),
    ),
    results=(Result("ranks", "each key's rank.", like_payload=True, dtype="int32"),),
    check=_check_radix_rank,
    summary="Rank the block's keys by one digit of their bits, stably (CUB BlockRadixRank).",
    details=(
        "All threads of the block must call it. The digit of a key is its bits ``begin_bit .. "
        "begin_bit+num_bits-1``; a key's rank is its position in the tile ordered by digit (ascending, or "
        "descending), keys of equal digits in their blocked order (thread, then item), or with "
        "``algorithm='match'`` in the warp-striped order (warp, then item, then lane): one pass of a radix "
        "sort (``coop.block.exchange(keys, 'scatter_to_blocked', ranks=ranks)`` moves the keys there)."
    ),
    returns_doc="an int32 ``ThreadData`` of ranks (``0 .. threads*n-1``) like ``keys``.",
    returns_annotation="ThreadData",
)


def _check_top_k(r: Resolver) -> None:
    """CUB's block top-k numbers its threads by x alone (a 1-D block), and stages the tile (keys or
    values, whichever is larger) in shared memory to gather the selected items."""
    if r.block_dims[1:] != (1, 1):
        raise CoopLaunchConfigError(
            f"{r.q}: needs a 1-D block (CUB's block top-k numbers its threads by x alone), the block is "
            f"{r.block_dims}; launch block=({r.threads}, 1, 1) and index the threads by x"
        )
    _check_staged_tile(r, "the selected items are gathered through a tile in shared memory")


TOP_K = Primitive(
    scope="block",
    name="top_k",
    cub=Cub(
        # CCCL 3.6 has the block top-k in cub::detail only (undocumented, "TODO: documentation"); the
        # row binds its four methods, and the AOT tests compile each of them, so a change fails loudly.
        "cub::detail::block_topk",
        "cub/block/block_topk.cuh",
        ("T", "BLOCK_DIM_X", "ITEMS_PER_THREAD", "values"),
    ),
    params=(
        Param(
            "keys",
            Payload(instead="CUB's top-k selects by scalar keys: pass further fields as values="),
            "ThreadData",
            "the thread's keys in a blocked arrangement (a ``coop.ThreadData`` of an integer or floating "
            "type); the selected keys replace the tile's first ``min(k, valid)`` items.",
            keyword_only=False,
        ),
        Param(
            "k",
            Count("k"),
            "int",
            "how many keys to select (a runtime int or a constant); ``k <= 0`` selects none and ``k`` at "
            "or above the valid items selects them all (the keys stay where they are).",
            keyword_only=False,
        ),
        Param(
            "values",
            Items(tag="values", dtypes=_ALL_DTYPES, structured=True),
            f"{_TUPLED} | None",
            "values that move with their keys (a ``ThreadData`` of any element type, or a tuple of them, "
            "with the keys' items "
            "per thread).",
            None,
        ),
        Param(
            "largest",
            Flag("largest"),
            "bool",
            "select the largest keys; False: the smallest.",
            True,
        ),
        Param(
            "valid_items",
            Count("partial", otherwise="0"),
            "int | None",
            "the tile's first ``valid_items`` items take part (1 .. threads*n); by default all.",
            None,
        ),
        _TEMP,
        _TPB,
    ),
    call=Call(
        "{select}_{what}<{full}>",
        ("keys", "values", "k", "valid_items"),
        texts=(
            ("select", "largest", "max", "min"),
            ("what", "values", "pairs", "keys"),
            ("full", "valid_items", "false", "true"),
        ),
    ),
    check=_check_top_k,
    summary="Select the block's k largest (or smallest) keys, and their values (CUB's block top-k).",
    details=(
        "All threads of the block must call it, in a 1-D block. CUB selects by radix passes over the "
        "keys' bits, without sorting: afterwards the tile's first ``min(k, valid)`` items (blocked: thread "
        "``t`` holds positions ``t*n .. t*n+n-1``) are the selected keys, **in no particular order**, and "
        "the items after them are unspecified. Exactly ``k`` keys are selected: among keys equal to the "
        "k-th, which ones is unspecified. Floating-point keys are compared as CUB orders their bits: "
        "``-0.0`` and ``+0.0`` are equal, a NaN with its sign bit clear is larger than ``+inf`` and one "
        "with its sign bit set smaller than ``-inf``."
    ),
)

#: The rows of this section, in the order they are documented.
SORTING_ROWS = (
    RADIX_SORT,
    MERGE_SORT,
    ADJACENT_DIFFERENCE,
    DISCONTINUITY,
    SHUFFLE,
    HISTOGRAM,
    RUN_LENGTH_DECODE,
    RADIX_RANK,
    TOP_K,
)


# --- warp rows ---------------------------------------------------------------------------------------
# Each works on the logical warps of ``threads_in_warp`` threads that the block is split into; every
# lane of a logical warp must call it (other logical warps need not).

_WIDTH = Param(
    "threads_in_warp",
    LogicalWarp(),
    "int",
    "the logical warp width, 1, 2, 4, 8, 16 or 32 (a compile-time constant): the block is split into "
    "logical warps of that many consecutive threads (row-major order).",
    32,
)
_WTEMP = Param(
    "temp_storage",
    Scratch(),
    "TempStorage | None",
    "caller-owned shared scratch (``coop.TempStorage``), one slice per logical warp of the block; by "
    "default the call gets its own.",
    None,
)
_WOFFSET = Param("offset", Offset(), "int", "element index of the logical warp's tile in the array.", 0)
_WARP_DETAILS = "Every lane of the logical warp must call it. "
_PARTIAL_WARP_NOTE = (
    "Through shared memory (``'smem'``, transposing algorithms, merge sort), a block whose last "
    "hardware warp is partial takes ``threads_in_warp=1`` only: wider logical warps there are a "
    "``CoopLaunchConfigError`` (see the warp primitives page)."
)
_WREDUCE_CUB = Cub("cub::WarpReduce", "cub/warp/warp_reduce.cuh", ("T", "threads_in_warp"))
_WSCAN_CUB = Cub("cub::WarpScan", "cub/warp/warp_scan.cuh", ("T", "threads_in_warp"))
_WX = Param(
    "x",
    Payload(scalar=True, scalar_form=True, structured=True),
    _TUPLED_OR_SCALAR,
    "the lane's items (a ``coop.ThreadData``) or one typed scalar; or a tuple of either (structured items).",
    keyword_only=False,
)
_WX_SCALAR = Param(
    "x",
    Payload(scalar=True, scalar_form=True, thread_data=False, structured=True),
    "Any",
    "the lane's value, a typed scalar (or a tuple of them: structured items).",
    keyword_only=False,
)
_WVALID_REDUCE = Param(
    "valid_items",
    Count("valid", scalar_payload_only=True),
    "int | None",
    "number of lanes whose ``x`` takes part (lanes ``0 .. valid_items-1``); needs a scalar ``x``.",
    None,
)
_WBCAST = Param(
    "broadcast",
    Flag("bcast"),
    "bool",
    "give the result to every lane (CUB defines it in lane 0 only); a shuffle, no shared memory.",
    False,
)
_WREDUCE_RESULT = (Result("result", "the logical warp's aggregate.", broadcast="broadcast"),)
_WREDUCE_RETURNS = (
    "the aggregate, a scalar of the element type. It is defined in lane 0 of the logical warp only, as "
    "in CUB, unless ``broadcast=True``."
)

WARP_SUM = Primitive(
    scope="warp",
    name="sum",
    cub=_WREDUCE_CUB,
    params=(_WX, _WVALID_REDUCE, _WBCAST, _WIDTH, _WTEMP, _TPB),
    call=Call("Sum", ("x", "valid_items"), returns="result"),
    results=_WREDUCE_RESULT,
    scratch=False,
    summary="Sum the items of each logical warp (CUB WarpReduce::Sum).",
    details=_WARP_DETAILS + "A ThreadData's items are summed in the lane first. Shuffles only.",
    returns_doc=_WREDUCE_RETURNS,
    returns_annotation="Any",
)

WARP_REDUCE = Primitive(
    scope="warp",
    name="reduce",
    cub=_WREDUCE_CUB,
    params=(_WX, _OP, _WVALID_REDUCE, _WBCAST, _WIDTH, _WTEMP, _TPB),
    call=Call("Reduce", ("x", "op", "valid_items"), returns="result"),
    results=_WREDUCE_RESULT,
    scratch=False,
    summary="Reduce the items of each logical warp with an operator (CUB WarpReduce::Reduce).",
    details=_WARP_DETAILS + "The operator must be associative and commutative. Shuffles only.",
    returns_doc=_WREDUCE_RETURNS,
    returns_annotation="Any",
)


def _warp_arg(name: str, best: str) -> Primitive:
    return Primitive(
        scope="warp",
        name=name,
        cub=Cub("cub::WarpReduce", "cub/warp/warp_reduce.cuh", ("INDEXED_T", "threads_in_warp")),
        params=(
            _arg_x(best, "lane", arranged=True),
            _INDICES,
            _ARRANGEMENT,
            _WVALID_REDUCE,
            _WBCAST,
            _WIDTH,
            _WTEMP,
            _TPB,
        ),
        call=_arg_call(best, "valid_items"),
        results=_ARG_RESULTS,
        scratch=False,
        summary=f"Each logical warp's {best} item and its index (a CUB WarpReduce of (value, index) pairs).",
        details=_WARP_DETAILS + _arg_details("logical warp") + " Shuffles only.",
        returns_doc=_ARG_RETURNS.replace("thread 0", "lane 0").replace("every thread", "every lane"),
        returns_annotation="tuple[Any, Any]",
    )


WARP_ARGMAX = _warp_arg("argmax", "largest")
WARP_ARGMIN = _warp_arg("argmin", "smallest")

_WAGG = Param(
    "warp_aggregate",
    Flag("agg"),
    "bool",
    "also return the aggregate of the logical warp, as ``(out, aggregate)``.",
    False,
)
_WSCAN_RESULTS = (
    Result("out", "the lane's scanned value.", like_payload=True),
    Result("aggregate", "the logical warp's aggregate, in every lane.", when="warp_aggregate"),
)
_WSCAN_RETURNS = (
    "the lane's scanned value, a scalar; with ``warp_aggregate=True``, the tuple ``(out, aggregate)``."
)


def _warp_scan(name: str, method: str, summary: str, *, op: bool, note: str = "") -> Primitive:
    params = [_WX_SCALAR]
    if op:
        params += [
            _OP,
            Param(
                "initial_value",
                Element("init"),
                _VALUE,
                "a value of the element type that seeds the scan (it precedes lane 0's value; not part "
                "of the aggregate).",
                None,
            ),
            Param(
                "valid_items",
                Count("partial"),
                "int | None",
                "number of lanes that take part (lanes ``0 .. valid_items-1``); the output of the "
                "others is undefined.",
                None,
            ),
        ]
    params += [_WAGG, _WIDTH, _WTEMP, _TPB]
    names = {p.name for p in params} | {"out", "aggregate"}
    order = ("x", "out", "initial_value", "op", "valid_items", "aggregate")
    return Primitive(
        scope="warp",
        name=name,
        cub=_WSCAN_CUB,
        params=tuple(params),
        call=Call(
            method,
            tuple(n for n in order if n in names),
            variants=(("valid_items", f"{method}Partial"),) if op else (),
        ),
        results=_WSCAN_RESULTS,
        scratch=False,
        summary=summary,
        details=_WARP_DETAILS + "Lanes are scanned in order (lane ``l``'s output covers lanes ``0 .. l``). "
        "Shuffles only. " + note,
        returns_doc=_WSCAN_RETURNS,
        returns_annotation="Any",
    )


WARP_INCLUSIVE_SUM = _warp_scan(
    "inclusive_sum", "InclusiveSum", "Inclusive prefix sum over each logical warp (CUB WarpScan).", op=False
)
WARP_EXCLUSIVE_SUM = _warp_scan(
    "exclusive_sum",
    "ExclusiveSum",
    "Exclusive prefix sum over each logical warp (CUB WarpScan).",
    op=False,
    note="Lane 0 gets 0.",
)
WARP_INCLUSIVE_SCAN = _warp_scan(
    "inclusive_scan",
    "InclusiveScan",
    "Inclusive prefix scan with an operator over each logical warp (CUB WarpScan).",
    op=True,
)
WARP_EXCLUSIVE_SCAN = _warp_scan(
    "exclusive_scan",
    "ExclusiveScan",
    "Exclusive prefix scan with an operator over each logical warp (CUB WarpScan).",
    op=True,
    note="Without ``initial_value`` lane 0's output is undefined, as in CUB.",
)

WARP_BROADCAST = Primitive(
    scope="warp",
    name="broadcast",
    cub=_WSCAN_CUB,
    params=(
        _WX_SCALAR,
        Param(
            "src_lane",
            Count("lane"),
            "int",
            "the lane (of the logical warp) whose ``x`` every lane gets; the same in every lane.",
            keyword_only=False,
        ),
        _WIDTH,
        _WTEMP,
        _TPB,
    ),
    call=Call("Broadcast", ("x", "src_lane"), returns="result"),
    results=(Result("result", "lane ``src_lane``'s value."),),
    scratch=False,
    summary="Give every lane of the logical warp one lane's value (CUB WarpScan::Broadcast).",
    details=_WARP_DETAILS + "A shuffle, no shared memory.",
    returns_doc="lane ``src_lane``'s ``x``, a scalar of the element type, in every lane.",
    returns_annotation="Any",
)


def _segmented(name: str, method: str, flag: str, summary: str, *, op: bool) -> Primitive:
    head = flag == "head_flag"
    flag_doc = (
        "the lane's flag: set (True or nonzero) where a segment starts; lane 0 always starts one."
        if head
        else "the lane's flag: set (True or nonzero) where a segment ends; the next lane starts one."
    )
    params = [_WX_SCALAR, Param(flag, Predicate("flag"), "bool | int | Any", flag_doc, keyword_only=False)]
    if op:
        params.append(_OP)
    params += [_WIDTH, _WTEMP, _TPB]
    return Primitive(
        scope="warp",
        name=name,
        cub=_WREDUCE_CUB,
        params=tuple(params),
        call=Call(method, ("x", flag, "op") if op else ("x", flag), returns="result"),
        results=(Result("result", "the segment's aggregate, in the segment's first lane."),),
        scratch=False,
        summary=summary,
        details=_WARP_DETAILS + "The logical warp's lanes are split into segments of consecutive lanes by "
        f"the {'head' if head else 'tail'} flags; each segment is reduced on its own. Shuffles only.",
        returns_doc="the aggregate of the lane's segment, a scalar of the element type. It is defined in "
        "the first lane of each segment only, as in CUB.",
        returns_annotation="Any",
    )


WARP_HEAD_SEGMENTED_SUM = _segmented(
    "head_segmented_sum",
    "HeadSegmentedSum",
    "head_flag",
    "Sum each segment of a logical warp, segments given by head flags (CUB WarpReduce).",
    op=False,
)
WARP_TAIL_SEGMENTED_SUM = _segmented(
    "tail_segmented_sum",
    "TailSegmentedSum",
    "tail_flag",
    "Sum each segment of a logical warp, segments given by tail flags (CUB WarpReduce).",
    op=False,
)
WARP_HEAD_SEGMENTED_REDUCE = _segmented(
    "head_segmented_reduce",
    "HeadSegmentedReduce",
    "head_flag",
    "Reduce each segment of a logical warp with an operator, segments given by head flags (CUB WarpReduce).",
    op=True,
)
WARP_TAIL_SEGMENTED_REDUCE = _segmented(
    "tail_segmented_reduce",
    "TailSegmentedReduce",
    "tail_flag",
    "Reduce each segment of a logical warp with an operator, segments given by tail flags (CUB WarpReduce).",
    op=True,
)


def _batched(name: str, method: str, summary: str, *, op: bool) -> Primitive:
    params = [
        Param(
            "x",
            Payload(structured=True),
            _TUPLED,
            "the lane's item of each batch (a ``coop.ThreadData`` of ``B`` items: item ``b`` belongs to "
            "batch ``b``).",
            keyword_only=False,
        )
    ]
    if op:
        params.append(_OP)
    params += [
        Param(
            "arrangement",
            Choice(WARP_BATCHED_ARRANGEMENTS),
            "str | WarpBatchedArrangement",
            "how the results are spread over the lanes, a ``WarpBatchedArrangement`` or its name.",
            "striped",
        ),
        Param(
            "sync_physical_warp",
            Flag("syncpw", whole_warps=True),
            "bool",
            "synchronise the whole hardware warp (faster for logical warps under 32 lanes, but every "
            "logical warp of the hardware warp must then make the call).",
            False,
        ),
        _WIDTH,
        _WTEMP,
        _TPB,
    ]
    return Primitive(
        scope="warp",
        name=name,
        cub=Cub(
            "cub::WarpReduceBatched",
            "cub/warp/warp_reduce_batched.cuh",
            ("T", "ITEMS_PER_THREAD", "threads_in_warp", "sync_physical_warp"),
        ),
        params=tuple(params),
        call=Call(method + "{arrangement}", ("x", "out", "op") if op else ("x", "out")),
        results=(Result("out", "the batches' aggregates, spread over the lanes.", spread="threads_in_warp"),),
        scratch=False,
        summary=summary,
        details=_WARP_DETAILS + "Each of the ``B`` items of ``x`` is one batch; batch ``b`` is reduced over "
        "the logical warp's lanes, all batches at once. Results past the last batch are undefined. "
        "Shuffles only.",
        returns_doc="a ``ThreadData`` of ``ceil(B / threads_in_warp)`` items: the lane's share of the "
        "batches' aggregates, in the order ``arrangement`` says (a tuple of them for a tuple).",
        returns_annotation="ThreadData",  # a tuple for a tuple: no overloads in the stub
    )


WARP_BATCHED_SUM = _batched(
    "batched_sum", "Sum", "Sum many batches over each logical warp at once (CUB WarpReduceBatched).", op=False
)
WARP_BATCHED_REDUCE = _batched(
    "batched_reduce",
    "Reduce",
    "Reduce many batches over each logical warp at once with an operator (CUB WarpReduceBatched).",
    op=True,
)


WARP_LOAD = Primitive(
    scope="warp",
    name="load",
    cub=Cub(
        "cub::WarpLoad", "cub/warp/warp_load.cuh", ("T", "ITEMS_PER_THREAD", "algorithm", "threads_in_warp")
    ),
    params=(
        _SRC,
        Param(
            "items",
            Payload(keep_past=("valid_items", "oob_default"), structured=True),
            _TUPLED,
            "the calling lane's items (a ``coop.ThreadData``).",
            keyword_only=False,
        ),
        _WOFFSET,
        Param(
            "algorithm",
            Choice(WARP_LOAD_ALGORITHMS),
            "str | WarpLoadAlgorithm",
            "a ``WarpLoadAlgorithm`` or its name.",
            "direct",
        ),
        Param(
            "valid_items",
            Count("partial"),
            "int | None",
            "number of valid items in the logical warp's tile; items past it are not read.",
            None,
        ),
        _OOB_DEFAULT,
        _WIDTH,
        _WTEMP,
        _TPB,
    ),
    call=Call(
        "Load", ("src", "items", "valid_items", "oob_default"), full_tile=("valid_items", "oob_default")
    ),
    scratch="algorithm",
    summary="Load a tile of ``threads_in_warp * items_per_thread`` items per logical warp (CUB WarpLoad).",
    details=_WARP_DETAILS + "Each logical warp reads its own tile (give each its ``offset``). Lane ``l`` "
    "receives its items in the blocked arrangement (striped for ``algorithm='striped'``). "
    + _PARTIAL_WARP_NOTE,
)

WARP_STORE = Primitive(
    scope="warp",
    name="store",
    cub=Cub(
        "cub::WarpStore", "cub/warp/warp_store.cuh", ("T", "ITEMS_PER_THREAD", "algorithm", "threads_in_warp")
    ),
    params=(
        _DST,
        Param(
            "items",
            Payload(read_only=True, structured=True),
            _TUPLED,
            "the calling lane's items (a ``coop.ThreadData``; left as they are).",
            keyword_only=False,
        ),
        _WOFFSET,
        Param(
            "algorithm",
            Choice(WARP_STORE_ALGORITHMS),
            "str | WarpStoreAlgorithm",
            "a ``WarpStoreAlgorithm`` or its name.",
            "direct",
        ),
        _STORE_VALID,
        _WIDTH,
        _WTEMP,
        _TPB,
    ),
    call=Call("Store", ("dst", "items", "valid_items"), full_tile=("valid_items",)),
    scratch="algorithm",
    summary="Store a tile of ``threads_in_warp * items_per_thread`` items per logical warp (CUB WarpStore).",
    details=_WARP_DETAILS + "Each logical warp writes its own tile (give each its ``offset``). Items are "
    "expected in the blocked arrangement (striped for ``algorithm='striped'``). " + _PARTIAL_WARP_NOTE,
)


def _check_warp_exchange(r: Resolver) -> None:
    """CUB's shuffle exchange transposes a square tile of scalars and has no scatter."""
    if r.option("algorithm") != "shuffle":
        return
    if dtype_named(r.dtype).structured:
        what = f"a tuple ({', '.join(fields_of(r.dtype))})" if fields_of(r.dtype) else f"of {r.dtype}"
        raise CoopTypeError(
            f"{r.q}: algorithm='shuffle' moves each item with one __shfl_xor_sync (CUB's "
            f"WarpExchangeShfl), which takes real scalars only, and items is {what}; use algorithm='smem'"
        )
    width = int(str(r.option("threads_in_warp")))
    if r.n != width:
        raise CoopValueError(
            f"{r.q}: algorithm='shuffle' needs items_per_thread == threads_in_warp, got {r.n} items and "
            f"threads_in_warp={width}; use algorithm='smem'"
        )
    if r.option("mode") == "scatter_to_striped":
        raise CoopValueError(
            f"{r.q}: algorithm='shuffle' has no mode='scatter_to_striped' (CUB has none); "
            "use algorithm='smem'"
        )


WARP_EXCHANGE = Primitive(
    scope="warp",
    name="exchange",
    cub=Cub(
        "cub::WarpExchange",
        "cub/warp/warp_exchange.cuh",
        ("T", "ITEMS_PER_THREAD", "threads_in_warp", "algorithm"),
    ),
    params=(
        Param(
            "items",
            Payload(structured=True),
            _TUPLED,
            "the lane's items (rearranged in place unless ``out`` is given).",
            keyword_only=False,
        ),
        Param(
            "mode",
            Choice(WARP_EXCHANGE_MODES),
            "str | WarpExchangeMode",
            "a ``WarpExchangeMode`` or its name.",
            keyword_only=False,
        ),
        Param(
            "ranks",
            Items(tag="ranks", dtypes=("int32",)),
            "ThreadData | None",
            "the tile position of each item (an int32 ``ThreadData``), for ``'scatter_to_striped'``.",
            None,
        ),
        Param(
            "out",
            Items(fallback="items"),
            f"{_TUPLED} | None",
            "where the rearranged items go (a ``ThreadData`` like ``items``, a tuple for a tuple); by "
            "default ``items``.",
            None,
        ),
        Param(
            "algorithm",
            Choice(WARP_EXCHANGE_ALGORITHMS),
            "str | WarpExchangeAlgorithm",
            "a ``WarpExchangeAlgorithm`` or its name.",
            "smem",
        ),
        _WIDTH,
        _WTEMP,
        _TPB,
    ),
    call=Call("{mode}", ("items", "out", "ranks")),
    scratch="algorithm",
    check=_check_warp_exchange,
    summary="Rearrange each logical warp's items among its lanes (CUB WarpExchange).",
    details=_WARP_DETAILS + "In ``'scatter_to_striped'``, ranks must address each tile position of the "
    "logical warp at most once. " + _PARTIAL_WARP_NOTE,
)

WARP_MERGE_SORT = Primitive(
    scope="warp",
    name="merge_sort",
    cub=Cub(
        "cub::WarpMergeSort",
        "cub/warp/warp_merge_sort.cuh",
        ("T", "ITEMS_PER_THREAD", "threads_in_warp", "values"),
    ),
    params=(
        Param(
            "keys",
            Payload(structured=True),
            _TUPLED,
            "the lane's keys (a ``coop.ThreadData``, blocked), sorted in place.",
            keyword_only=False,
        ),
        _CMP,
        Param(
            "values",
            Items(tag="values", dtypes=_ALL_DTYPES, structured=True),
            f"{_TUPLED} | None",
            "values that move with their keys (a ``ThreadData`` of any element type, or a tuple of them, "
            "with the keys' items "
            "per thread), sorted in place; by default keys only.",
            None,
        ),
        Param(
            "valid_items",
            Count("partial"),
            "int | None",
            "number of valid keys in the logical warp's tile (the first ones, blocked); only those are "
            "sorted, the others are unspecified afterwards.",
            None,
        ),
        _SORT_OOB_DEFAULT,
        _WIDTH,
        _WTEMP,
        _TPB,
    ),
    call=Call("StableSort", ("keys", "values", "op", "valid_items", "oob_default")),
    scratch=True,
    check=_check_sort_fits,
    summary="Sort each logical warp's keys (and values), stably, with a comparator (CUB WarpMergeSort).",
    details=_WARP_DETAILS + "Keys are in the blocked arrangement before and after (lane ``l`` holds "
    "tile positions ``l*n .. l*n+n-1``). The sort is stable (CUB's ``StableSort``): keys that compare "
    "equal keep their order. It goes through a shared-memory slice per logical warp. " + _PARTIAL_WARP_NOTE,
)

# --- the cluster scope (sm_90+) ---------------------------------------------------------------------
# Not one CUB class: coop's own class template (the renderer writes it into the bundle) runs CUB's
# BlockReduce in each block of the thread-block cluster, then each block pushes its aggregate into
# every block's shared memory (distributed shared memory) and every thread folds them in block-rank
# order; the kernel's prologue (``kernel_prologue`` in the renderer) arms the state they share.

_CLUSTER_TEMPLATE = ("BLOCK_DIM_X", "algorithm", *_BLOCK_DIMS[1:], "CLUSTER_BLOCKS", "CLUSTER_STATE")
_CLUSTER_CUB = Cub("coop_cluster_reduce", "cub/block/block_reduce.cuh", ("T", *_CLUSTER_TEMPLATE))
_CLUSTER_ALG = Param(
    "algorithm",
    Choice(BLOCK_REDUCE_ALGORITHMS),
    "str | BlockReduceAlgorithm",
    "the ``BlockReduceAlgorithm`` (or its name) of the reduction within each block.",
    "warp_reductions",
)
_CLUSTER_RESULT = (Result("result", "the cluster's aggregate."),)
_CLUSTER_DETAILS = (
    "All threads of every block of the cluster must call it, in the same order as the kernel's other "
    "cluster calls, in a kernel launched with a thread-block cluster (sm_90 or later; the cluster dims "
    "come from the launch, as the block dims do). Each block reduces its items with CUB's BlockReduce; "
    "then each block's aggregate is pushed into every block's shared memory (distributed shared memory, "
    "st.async completing the receiver's mbarrier) and every thread folds the blocks' aggregates in "
    "block-rank order, so every thread of every block gets the same value. No cluster barrier per call: "
    "the kernel's one cluster barrier is at its start (in a device helper, at the helper's)."
)
_CLUSTER_RETURNS = "the cluster's aggregate, in every thread of every block of the cluster."


def _cluster_reduce(name: str, call: Call, summary: str, details: str = "") -> Primitive:
    params = (_X_REDUCE, _OP) if "op" in call.args else (_X_REDUCE,)
    return Primitive(
        scope="cluster",
        name=name,
        cub=_CLUSTER_CUB,
        params=(*params, _CLUSTER_ALG, _TEMP, _TPB),
        call=call,
        results=_CLUSTER_RESULT,
        summary=summary,
        details=_CLUSTER_DETAILS + details,
        returns_doc=_CLUSTER_RETURNS,
        returns_annotation="Any",
    )


CLUSTER_SUM = _cluster_reduce(
    "sum",
    Call("Sum", ("x",), returns="result"),
    "Sum the items of every block of the thread-block cluster (CUB BlockReduce in each block, then the "
    "blocks' sums over distributed shared memory).",
)
CLUSTER_REDUCE = _cluster_reduce(
    "reduce",
    Call("Reduce", ("x", "op"), returns="result"),
    "Reduce the items of every block of the thread-block cluster with an operator.",
    " The operator must be associative; ``algorithm='raking_commutative_only'`` also needs it "
    "commutative within each block.",
)


def _cluster_arg(name: str, best: str) -> Primitive:
    return Primitive(
        scope="cluster",
        name=name,
        cub=Cub("coop_cluster_reduce", "cub/block/block_reduce.cuh", ("INDEXED_T", *_CLUSTER_TEMPLATE)),
        params=(
            _arg_x(best, "thread", arranged=False),
            _INDICES,
            _CLUSTER_ALG,
            _TEMP,
            _TPB,
        ),
        call=_arg_call(best, None),
        results=(Result("result", "the (value, index) pair.", indexed=True),),
        summary=f"The cluster's {best} item and its index (a reduction of (value, index) pairs over the "
        "blocks of the thread-block cluster).",
        details=_CLUSTER_DETAILS
        + " An item's index is its ``indices`` entry when given, else its position in the cluster's tile: "
        "the blocks' tiles one after the other in block-rank order, each in the blocked arrangement (the "
        "block's rank in the cluster times the block's items, plus the thread's rank times the items per "
        "thread, plus the item). Ties go to the smallest index and a NaN wins over every number, as for "
        "``coop.block." + name + "``. The items have one scalar type; the index is an int32.",
        returns_doc="a tuple ``(value, index)``: the value of the element type and its int32 index, in "
        "every thread of every block of the cluster.",
        returns_annotation="tuple[Any, Any]",
    )


CLUSTER_ARGMAX = _cluster_arg("argmax", "largest")
CLUSTER_ARGMIN = _cluster_arg("argmin", "smallest")

# --- the grid scope: single-pass scans over the blocks of the grid (decoupled look-back) -----------
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
    cub=Cub("coop_grid_tile", _GRID_HEADER, _BLOCK_DIMS),
    params=(
        Param("state", GridStatePayload(), "Any", _GRID_STATE_DOC, keyword_only=False),
        _TEMP,
        _TPB,
    ),
    call=Call("Take", ("state",), returns="tile"),
    results=(Result("tile", "the block's tile.", dtype="int32"),),
    summary="The block's tile in the grid scan's order: a ticket taken from the workspace (0, 1, ... in "
    "the order the blocks reach this call).",
    details="Every thread of the block must call it, once per launch, before the block's grid scan; "
    "thread 0 takes the ticket with an atomic on the workspace and the block shares it through shared "
    "memory (one block barrier). A block works on the tile it returns (e.g. the items ``tile * T * n`` "
    "onwards), not on ``blockIdx``: a block that took a ticket is running, so the blocks whose tiles "
    "precede it are running or done, and the look-back always progresses whatever order the hardware "
    "starts blocks in.",
    returns_doc="the tile, an int32 from 0 to the grid's blocks - 1, the same in every thread of the block.",
    returns_annotation="int",
)


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
        cub=Cub("coop_grid_scan", _GRID_HEADER, cub),
        params=tuple(params),
        call=Call(
            f"{method}<{{prefix}}>",
            args,
            variants=(("initial_value", f"{method}Init<{{prefix}}>"),) if op else (),
            texts=(("prefix", "tile_prefix", "true", "false"),),
        ),
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

#: Every primitive, by catalog key (``"block.load"``), in the order they are documented.
CATALOG: dict[str, Primitive] = {
    p.key: p
    for p in (
        LOAD,
        LOAD_TO_SHARED,
        STORE,
        EXCHANGE,
        SUM,
        REDUCE,
        ARGMAX,
        ARGMIN,
        INCLUSIVE_SUM,
        EXCLUSIVE_SUM,
        INCLUSIVE_SCAN,
        EXCLUSIVE_SCAN,
        *SORTING_ROWS,
        WARP_LOAD,
        WARP_STORE,
        WARP_EXCHANGE,
        WARP_SUM,
        WARP_REDUCE,
        WARP_ARGMAX,
        WARP_ARGMIN,
        WARP_INCLUSIVE_SUM,
        WARP_EXCLUSIVE_SUM,
        WARP_INCLUSIVE_SCAN,
        WARP_EXCLUSIVE_SCAN,
        WARP_BROADCAST,
        WARP_HEAD_SEGMENTED_SUM,
        WARP_TAIL_SEGMENTED_SUM,
        WARP_HEAD_SEGMENTED_REDUCE,
        WARP_TAIL_SEGMENTED_REDUCE,
        WARP_BATCHED_SUM,
        WARP_BATCHED_REDUCE,
        WARP_MERGE_SORT,
        CLUSTER_SUM,
        CLUSTER_REDUCE,
        CLUSTER_ARGMAX,
        CLUSTER_ARGMIN,
        GRID_TILE_INDEX,
        GRID_INCLUSIVE_SUM,
        GRID_EXCLUSIVE_SUM,
        GRID_INCLUSIVE_SCAN,
        GRID_EXCLUSIVE_SCAN,
    )
}


#: The kernel-side namespaces, in the order every package's ``__all__`` lists them.
SCOPES = ("block", "warp", "cluster", "grid")


def in_scope(scope: str) -> dict[str, Primitive]:
    """The primitives of ``scope`` (``"block"``, ``"warp"``, ``"cluster"`` or ``"grid"``), by name."""
    return {p.name: p for p in CATALOG.values() if p.scope == scope}
