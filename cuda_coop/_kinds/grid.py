# SPDX-License-Identifier: Apache-2.0
"""The kinds of a grid scan: its workspace (``coop.grid.ScanState``), the workspace as
``coop.grid.tile_index``'s payload, and the block's tile."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._dims import is_int
from .._errors import CoopTypeError, CoopValueError
from ._common import INT32_MAX, Arg, Form, Kind, Shape, Slot, _integer_scalar, _refuse_wide
from .items import Payload

if TYPE_CHECKING:
    from .._primitive import Resolver

from .._requests import Request

#: The element type of a grid scan's workspace as a kernel receives it (``coop.grid.ScanState``).
GRID_STATE_DTYPE = "uint64"


_GRID_STATE_FIX = "pass the coop.grid.ScanState (or its .array) as a kernel argument"


def _refuse_grid_state_memory(r: Resolver, name: str, memory: str, shown: str) -> None:
    """A workspace known to be in shared or thread-private memory."""
    if memory in ("shared", "local"):
        raise CoopTypeError(f"{r.q}: {name} must be in global memory ({_GRID_STATE_FIX}), got {shown}")


def _check_grid_state(r: Resolver, name: str, arg: Arg) -> None:
    """The workspace of a grid scan (``coop.grid.ScanState``): a writable 1-D contiguous uint64
    array in global memory."""
    fix = _GRID_STATE_FIX
    if arg.form is not Form.ARRAY:
        raise CoopTypeError(f"{r.q}: {name} must be a grid scan's workspace; {fix}, got {arg.shown}")
    if arg.problem:
        raise CoopTypeError(f"{r.q}: {name} {arg.problem}; {fix}")
    _refuse_grid_state_memory(r, name, arg.memory, arg.shown)
    if arg.dtype != GRID_STATE_DTYPE or arg.stride != 1:
        raise CoopTypeError(
            f"{r.q}: {name} must be a contiguous array of {GRID_STATE_DTYPE} (a coop.grid.ScanState), got "
            f"{arg.shown}; {fix}"
        )
    if not arg.writable:
        raise CoopTypeError(f"{r.q}: {name} is read-only ({arg.shown}); the scan writes its workspace")


@dataclass(frozen=True)
class GridState(Kind):
    """The workspace of a grid scan (``coop.grid.ScanState``): a 1-D contiguous uint64 array in
    global memory, passed to the wrapper as a pointer to its first word."""

    offset: str = ""  # no offset parameter: the wrapper gets the workspace's first word

    def check(self, r: Resolver, name: str, arg: Arg, default: object = None) -> None:
        _check_grid_state(r, name, arg)
        r.mark_present(name)

    def check_memory(self, r: Resolver, name: str, memory: str, shown: str = "") -> None:
        _refuse_grid_state_memory(r, name, memory, shown)

    def slot(self, req: Request, name: str) -> Slot:
        return Slot(name, Shape.ARRAY, GRID_STATE_DTYPE)


@dataclass(frozen=True)
class GridStatePayload(Payload):
    """The workspace as the payload of ``coop.grid.tile_index`` (which has no items): as
    :class:`GridState`; the request's element type is the workspace's word."""

    offset: str = ""

    def check(self, r: Resolver, name: str, arg: Arg, default: object = None) -> None:
        _check_grid_state(r, name, arg)
        r.set_payload(GRID_STATE_DTYPE, 1, scalar=False)

    def check_memory(self, r: Resolver, name: str, memory: str, shown: str = "") -> None:
        _refuse_grid_state_memory(r, name, memory, shown)

    def slot(self, req: Request, name: str) -> Slot:
        return Slot(name, Shape.ARRAY, GRID_STATE_DTYPE)


@dataclass(frozen=True)
class Tile(Kind):
    """The block's tile in a grid scan's order (``coop.grid.tile_index``'s result): a runtime
    integer, or a constant of 0 or more; passed as an int."""

    def check(self, r: Resolver, name: str, arg: Arg, default: object = None) -> None:
        if arg.form is Form.CONSTANT and is_int(arg.value):
            if not 0 <= int(arg.value) <= INT32_MAX:  # type: ignore[call-overload]
                raise CoopValueError(f"{r.q}: {name}={arg.value} is not a tile index (0 to {INT32_MAX})")
        elif not _integer_scalar(arg):
            raise CoopTypeError(
                f"{r.q}: {name} must be an integer: the tile that coop.grid.tile_index returned, got "
                f"{arg.shown}"
            )
        r.mark_present(name)

    def check_constant(self, r: Resolver, name: str, value: object) -> None:
        _refuse_wide(r, name, value)

    def slot(self, req: Request, name: str) -> Slot:
        return Slot(name, Shape.INT)
