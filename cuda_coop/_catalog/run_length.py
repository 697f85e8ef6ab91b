# SPDX-License-Identifier: Apache-2.0
"""Run-length decoding: ``coop.block.run_length_decode`` (the sorting and data-dependent page)."""

from __future__ import annotations

from .._choices import Choices
from .._dtypes import dtype_named
from .._errors import CoopValueError
from .._kinds import Constant, Count, Flag, Items, Payload
from .._primitive import STATIC_SHARED_LIMIT, Call, Cub, Param, Primitive, Resolver, Result
from ._common import _BLOCK_DIMS, _TEMP, _TPB

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
    family="run_length",
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


#: The family's choice tables, their enums exported in this order (after ``_common.CHOICES``).
CHOICES: tuple[Choices, ...] = ()
#: The family's rows, in the order they are documented.
ROWS = (RUN_LENGTH_DECODE,)
