# SPDX-License-Identifier: Apache-2.0
"""Ranking and selecting keys: ``coop.block.radix_rank`` and ``top_k`` (the sorting and
data-dependent page)."""

from __future__ import annotations

from .._choices import Choices, Option
from .._dtypes import DTYPES, dtype_named
from .._errors import CoopLaunchConfigError, CoopTypeError, CoopValueError
from .._kinds import Choice, Constant, Count, Flag, Items, Payload
from .._primitive import Call, Cub, Param, Primitive, Resolver, Result
from ._common import _ALL_DTYPES, _BLOCK_DIMS, _RADIX_TUPLES, _TEMP, _TPB, _TUPLED
from .sort import _check_radix_counters, _check_staged_tile

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


#: The family's choice tables, their enums exported in this order (after ``_common.CHOICES``).
CHOICES: tuple[Choices, ...] = (BLOCK_RADIX_RANK_ALGORITHMS,)
#: The family's rows, in the order they are documented.
ROWS = (RADIX_RANK, TOP_K)
