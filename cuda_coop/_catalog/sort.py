# SPDX-License-Identifier: Apache-2.0
"""Block sorts: ``coop.block.radix_sort`` and ``merge_sort`` (the sorting page), and the checks of the
shared memory a sort or rank takes, which the other rows that rank or stage keys share."""

from __future__ import annotations

from .._choices import Choices, Option
from .._dtypes import dtype_named
from .._errors import CoopLaunchConfigError, CoopValueError
from .._kinds import Choice, Comparator, Constant, Count, Flag, Items, Payload
from .._primitive import STATIC_SHARED_LIMIT, Call, Cub, Param, Primitive, Resolver
from ._common import _ALL_DTYPES, _BLOCK_DIMS, _RADIX_TUPLES, _SORT_OOB_DEFAULT, _TEMP, _TPB, _TUPLED

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
    family="sort",
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
    family="sort",
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


#: The family's choice tables, their enums exported in this order (after ``_common.CHOICES``).
CHOICES: tuple[Choices, ...] = (BLOCK_RADIX_SORT_OUTPUTS,)
#: The family's rows, in the order they are documented.
ROWS = (RADIX_SORT, MERGE_SORT)
