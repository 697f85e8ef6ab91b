# SPDX-License-Identifier: Apache-2.0
"""Counting samples into bins: ``coop.block.histogram`` (the sorting and data-dependent page)."""

from __future__ import annotations

from .._choices import Choices, Option
from .._dtypes import DTYPES
from .._errors import CoopTypeError, CoopValueError
from .._kinds import Choice, Constant, Counters, Flag, Offset, Payload
from .._primitive import STATIC_SHARED_LIMIT, Call, Cub, Param, Primitive, Resolver
from ._common import _BLOCK_DIMS, _TEMP, _TPB, method_when_given
from .sort import _check_radix_counters

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
    family="histogram",
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
    call=Call("Composite", ("samples", "counters")),
    wrap=method_when_given("init", "Histogram"),
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


#: The family's choice tables, their enums exported in this order (after ``_common.CHOICES``).
CHOICES: tuple[Choices, ...] = (BLOCK_HISTOGRAM_ALGORITHMS,)
#: The family's rows, in the order they are documented.
ROWS = (HISTOGRAM,)
