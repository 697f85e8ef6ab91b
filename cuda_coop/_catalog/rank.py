# SPDX-License-Identifier: Apache-2.0
"""Ranking and selecting keys: ``coop.block.radix_rank``, ``top_k`` and ``coop.warp.top_k`` (the
sorting and data-dependent page)."""

from __future__ import annotations

from dataclasses import replace

from .._choices import Choices, Option
from .._dtypes import DTYPES, dtype_named
from .._errors import CoopLaunchConfigError, CoopTypeError, CoopValueError
from .._kinds import (
    INT32_MAX,
    Choice,
    Constant,
    Count,
    Flag,
    Index,
    IndexArrangement,
    IndexedValue,
    Items,
    Payload,
)
from .._primitive import Call, Cub, Param, Primitive, Resolver, Result, When
from .._requests import Request
from ._common import _ALL_DTYPES, _BLOCK_DIMS, _RADIX_TUPLES, _TEMP, _TPB, _TUPLED, ITEM_ARRANGEMENTS
from .sort import _check_radix_counters, _check_staged_tile
from .warp import _WIDTH, _WTEMP

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


def _rank_call(prim: Primitive, req: Request) -> Call:
    """RankKeys with CUB's digit of the keys' bits ``begin_bit .. begin_bit+num_bits-1``."""
    digits = f"cub::BFEDigitExtractor<{dtype_named(req.dtype).cxx}>(begin_bit, {req.option('num_bits')})"
    return replace(prim.call, args=(*prim.call.args, digits))


RADIX_RANK = Primitive(
    scope="block",
    name="radix_rank",
    family="rank",
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
                When("algorithm", "match"),
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
    call=Call("RankKeys", ("keys", "ranks")),
    wrap=_rank_call,
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


def _top_k_call(prim: Primitive, req: Request) -> Call:
    """CUB names its four methods by what they select (``max``/``min``: largest or not), what they move
    (``pairs`` with values, else ``keys``) and whether the tile is full (no ``valid_items``):
    ``min_pairs<false>`` for the smallest pairs of a partial tile."""
    select = "max" if prim.given(req, "largest") else "min"
    what = "pairs" if prim.given(req, "values") else "keys"
    full = "false" if prim.given(req, "valid_items") else "true"
    return replace(prim.call, method=f"{select}_{what}<{full}>")


TOP_K = Primitive(
    scope="block",
    name="top_k",
    family="rank",
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
    call=Call("max_keys<true>", ("keys", "values", "k", "valid_items")),
    wrap=_top_k_call,
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


#: The element types of ``coop.warp.top_k``'s items (a shuffle, a compare and an order each).
WARP_TOP_K_DTYPES = ("float32", "float16", "bfloat16", "int32")
#: Items a lane of ``coop.warp.top_k`` marks in one word.
WARP_TOP_K_ITEMS = 64


def _check_warp_top_k(r: Resolver) -> None:
    """The item types the design takes; one list entry a lane; a lane's marks in one 64-bit word."""
    if r.dtype not in WARP_TOP_K_DTYPES:
        raise CoopTypeError(
            f"{r.q}: items must be a ThreadData of {', '.join(WARP_TOP_K_DTYPES)}, got {r.dtype}; convert "
            "the items to one of them (float32 keeps every float16 and bfloat16 value), or use "
            "coop.block.top_k (any integer or floating type)"
        )
    k, width = int(str(r.option("k"))), int(str(r.option("threads_in_warp")))
    if k > width:
        raise CoopValueError(
            f"{r.q}: k={k} is more than threads_in_warp={width}: the list holds one entry a lane; pass "
            f"k <= {width}, or a wider logical warp"
        )
    if r.n > WARP_TOP_K_ITEMS:
        raise CoopValueError(
            f"{r.q}: items has {r.n} items a lane, more than {WARP_TOP_K_ITEMS} (a lane marks its "
            f"candidates in one 64-bit word); pass tiles of at most {WARP_TOP_K_ITEMS} items a lane, one "
            "call each"
        )


WARP_TOP_K = Primitive(
    scope="warp",
    name="top_k",
    family="rank",
    cub=Cub(
        "coop_warp_top_k",
        "coop/top_k.cuh",
        ("T", "k", "ITEMS_PER_THREAD", "threads_in_warp", "arrangement"),
    ),
    params=(
        Param(
            "items",
            Payload(instead="select by one key: pass the key as items and carry the rest by its index"),
            "ThreadData",
            f"the lane's items of the logical warp's current tile (a ``coop.ThreadData`` of "
            f"{', '.join(WARP_TOP_K_DTYPES)}, 1..{WARP_TOP_K_ITEMS} items), left as they are.",
            keyword_only=False,
        ),
        Param(
            "k",
            Constant(tuple(range(1, 33))),
            "int",
            "how many to keep, 1..32 and at most ``threads_in_warp`` (a compile-time constant).",
            keyword_only=False,
        ),
        Param(
            "running",
            IndexedValue("running", what="the list that the previous call returned"),
            "tuple[Any, Any] | None",
            "the list so far: the ``(value, index)`` tuple the previous call returned (or ``(-inf, "
            f"{INT32_MAX})`` of the items' type and int32 in every lane: empty); by default empty.",
            None,
        ),
        Param(
            "first",
            Count("first", otherwise="0"),
            "int",
            "the index of the tile's first item (a runtime int or a constant >= 0): the default indices "
            "count from it; not with ``indices``.",
            0,
            excludes=("indices",),
        ),
        Param(
            "indices",
            Index(),
            "ThreadData | None",
            "each item's index (an int32 ``ThreadData`` like ``items``); by default ``first`` plus the "
            "item's position in the tile (see ``arrangement``).",
            None,
        ),
        Param(
            "arrangement",
            IndexArrangement(ITEM_ARRANGEMENTS),
            "str | ItemArrangement",
            "how the items sit in the tile, for their default indices: ``'striped'`` (lane ``l``'s item "
            "``i`` is at ``l + i*W``, as a ``striped`` warp load leaves them) or ``'blocked'`` (``l*N + "
            "i``); not with ``indices``.",
            "striped",
        ),
        _WIDTH,
        _WTEMP,
        _TPB,
    ),
    call=Call("TopK", ("items", "running", "indices", "first", "result")),
    results=(Result("result", "the list: lane l's entry.", indexed=True),),
    scratch=True,
    check=_check_warp_top_k,
    summary="The k largest items so far and their indices, a logical warp streaming its tiles "
    "(coop's threshold filter and shuffle networks).",
    details=(
        "Every lane of the logical warp must call it, once per tile, passing the list the previous call "
        "returned as ``running``. The list is one ``(value, index)`` entry a lane: lane ``l < k`` holds "
        "the ``l``-th best of all the items seen (the previous list's and this tile's), largest value "
        "first, of equal values the smaller index (``-0.0`` and ``+0.0`` are equal); lanes ``l >= k``, and "
        f"lanes past the items seen, hold ``(-inf, {INT32_MAX})`` (for int32 items the lowest int32). "
        "NaN items are never selected. An item's index is its ``indices`` entry when given, else "
        "``first`` plus its position in the tile in the arrangement ``arrangement`` names: a tile "
        "loaded with ``coop.warp.load(..., algorithm='striped')`` at offset ``first`` of a row gets the "
        "items' row indices. The indices should be distinct. The threshold is the list's ``k``-th value "
        "(while the list is not full, the ``P``-th largest of the lanes' maxima, ``P`` the power of two "
        "at or above ``k``); each lane marks the items that pass in a bit mask, one compare an item. A "
        "few candidates (the usual case after the first tiles) are inserted into the list one at a "
        "time (a ballot places each, a shuffle shifts the entries after it); more go to pending slots "
        "in shared memory (one ``(value, index)`` a lane, a slice per logical warp) at the offsets a "
        "warp sum of the marks gives, and are merged into the list by bitonic shuffle networks. The "
        "result is exact for any input (ascending rows, ties, -inf); a tile with more candidates than "
        "lanes takes more merges."
    ),
    returns_doc=(
        "the new list, a tuple ``(value, index)`` of the items' type and int32: lane ``l``'s entry (see "
        "above); pass it as ``running`` to the next call."
    ),
    returns_annotation="tuple[Any, Any]",
)

#: The family's choice tables, their enums exported in this order (after ``_common.CHOICES``).
CHOICES: tuple[Choices, ...] = (BLOCK_RADIX_RANK_ALGORITHMS,)
#: The family's rows, in the order they are documented.
ROWS = (RADIX_RANK, TOP_K, WARP_TOP_K)
