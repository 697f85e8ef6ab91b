# SPDX-License-Identifier: Apache-2.0
"""The warp scope: every ``coop.warp`` row (the warp primitives page)."""

from __future__ import annotations

from .._choices import Choices
from .._dtypes import dtype_named, fields_of
from .._errors import CoopTypeError, CoopValueError
from .._kinds import Choice, Count, Element, Flag, Items, LogicalWarp, Offset, Payload, Predicate, Scratch
from .._primitive import Call, Cub, Param, Primitive, Resolver, Result
from ._common import (
    _ALL_DTYPES,
    _DST,
    _OOB_DEFAULT,
    _OP,
    _SORT_OOB_DEFAULT,
    _SRC,
    _STORE_VALID,
    _TPB,
    _TUPLED,
    _TUPLED_OR_SCALAR,
    _VALUE,
    WARP_BATCHED_ARRANGEMENTS,
    WARP_EXCHANGE_ALGORITHMS,
    WARP_EXCHANGE_MODES,
    WARP_LOAD_ALGORITHMS,
    WARP_STORE_ALGORITHMS,
    method_when_given,
)
from .reduce import _ARG_RESULTS, _ARG_RETURNS, _ARRANGEMENT, _INDICES, _arg_call, _arg_details, _arg_x
from .sort import _CMP, _check_sort_fits

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
    family="warp",
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
    family="warp",
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
        family="warp",
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
        family="warp",
        cub=_WSCAN_CUB,
        params=tuple(params),
        call=Call(method, tuple(n for n in order if n in names)),
        wrap=method_when_given("valid_items", f"{method}Partial") if op else None,
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
    family="warp",
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
        family="warp",
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
        family="warp",
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
    family="warp",
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
            Count("partial", full_tile=True),
            "int | None",
            "number of valid items in the logical warp's tile; items past it are not read.",
            None,
        ),
        _OOB_DEFAULT,
        _WIDTH,
        _WTEMP,
        _TPB,
    ),
    call=Call("Load", ("src", "items", "valid_items", "oob_default")),
    scratch="algorithm",
    summary="Load a tile of ``threads_in_warp * items_per_thread`` items per logical warp (CUB WarpLoad).",
    details=_WARP_DETAILS + "Each logical warp reads its own tile (give each its ``offset``). Lane ``l`` "
    "receives its items in the blocked arrangement (striped for ``algorithm='striped'``). "
    + _PARTIAL_WARP_NOTE,
)

WARP_STORE = Primitive(
    scope="warp",
    name="store",
    family="warp",
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
    call=Call("Store", ("dst", "items", "valid_items")),
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
    family="warp",
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
    family="warp",
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


#: The family's choice tables, their enums exported in this order (after ``_common.CHOICES``).
CHOICES: tuple[Choices, ...] = ()
#: The family's rows, in the order they are documented.
ROWS = (
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
)
