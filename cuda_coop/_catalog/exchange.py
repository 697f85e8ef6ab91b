# SPDX-License-Identifier: Apache-2.0
"""Rearranging the block's items among its threads: ``coop.block.exchange`` (the exchange page)."""

from __future__ import annotations

from .._choices import Choices
from .._dtypes import DTYPES
from .._errors import CoopValueError
from .._kinds import Choice, Count, Flag, Items, Payload
from .._primitive import Call, Cub, Given, Param, Primitive, Resolver
from ._common import _BLOCK_DIMS, _TEMP, _TPB, _TUPLED, BLOCK_EXCHANGE_MODES


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
    family="exchange",
    cub=Cub(
        "cub::BlockExchange",
        "cub/block/block_exchange.cuh",
        ("T", "BLOCK_DIM_X", "ITEMS_PER_THREAD", "warp_time_slicing", *_BLOCK_DIMS[1:]),
        # with valid_items: coop's scatter, which reads back only the positions below it
        classes=(
            (
                Given("scattered"),
                Cub(
                    "coop_block_scatter",
                    "coop/exchange.cuh",
                    ("T", "BLOCK_DIM_X", "ITEMS_PER_THREAD", *_BLOCK_DIMS[1:]),
                ),
            ),
        ),
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
            "valid_items",
            Count("scattered"),
            "int | None",
            "the scatter modes to striped: how many tile positions the ranks reach (a compaction's "
            "count of kept items, at most the tile); only positions below it are read back, and a "
            "thread's items at the others are left as they were. The read stops at the first item no "
            "thread has (one uniform branch); without it every position is read.",
            None,
            excludes=("warp_time_slicing",),
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
    call=Call("{mode}", ("items", "out", "ranks", "valid_flags", "valid_items")),
    check=_check_exchange,
    summary="Rearrange the block's items among its threads (CUB BlockExchange).",
    details=(
        "All threads of the block must call it. In the scatter modes, ranks must address each tile "
        "position at most once; positions that no item reaches (guarded and flagged modes) are left "
        "undefined."
    ),
)


#: The family's choice tables, their enums exported in this order (after ``_common.CHOICES``).
CHOICES: tuple[Choices, ...] = ()
#: The family's rows, in the order they are documented.
ROWS = (EXCHANGE,)
