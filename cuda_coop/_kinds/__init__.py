# SPDX-License-Identifier: Apache-2.0
"""The closed vocabulary of parameter kinds, and the backend-neutral description of an argument.

A backend describes each argument of a coop call as an :class:`Arg` (what it is, its element type,
its compile-time value); each parameter's kind checks its ``Arg`` and records what the request
needs. Kinds that take a runtime value name the *slot shape* through which it reaches the C++
wrapper; backends build slots by shape, the renderer unpacks them by shape. A new primitive is a
catalog row built from these kinds; only a new kind touches the backends and the renderer.

One module per concern: ``_common`` (``Arg`` and ``Form``, ``Slot`` and ``Shape``, the base class
``Kind`` and the checks several kinds share), then the kinds by what they take: ``items`` (the
payload and values of its element type), ``memory`` (arrays, counters, caller-owned scratch),
``scalars`` (offsets, counts, flags), ``compile_time`` (choices, flags, constants, the block's
shape, a logical warp's width), ``functors`` (operators, comparators, the running prefix) and
``grid`` (a grid scan's workspace and tile). This package re-exports every public name of them.
"""

# ruff: noqa: F401  (every import here is re-exported)

from __future__ import annotations

from ._common import INT32_MAX, Arg, Form, Kind, Shape, Slot, records_tag
from .compile_time import (
    HARDWARE_WARP,
    WARP_WIDTHS,
    BlockShape,
    Choice,
    Constant,
    Flag,
    IndexArrangement,
    LogicalWarp,
)
from .functors import Comparator, Functor, Operator, PrefixOp
from .grid import GRID_STATE_DTYPE, GridState, GridStatePayload, Tile
from .items import (
    INDEX_DTYPE,
    Element,
    Index,
    IndexedPayload,
    IndexedValue,
    Items,
    Payload,
    SharedTile,
    indexed_dtype,
)
from .memory import (
    AUTO_SYNC,
    TEMP_STORAGE_SHARING,
    Counters,
    GlobalArray,
    Scratch,
    TempStorageUse,
    temp_storage_options,
)
from .scalars import Count, Offset, Predicate
