# SPDX-License-Identifier: Apache-2.0
"""ThreadData <-> CuTe values: in a CuTe kernel a ThreadData is a 1-D register tensor, so these
are thin, checked conversions for code that mixes coop primitives with ordinary CuTe code."""

from typing import Any

from cuda.coop._backend_api import CoopTypeError, Form

from ._backend import arg_of


def items_of(items: Any, *, primitive: str) -> None:
    """CoopTypeError unless ``items`` can be a ThreadData (a compact 1-D register tensor of static
    size and a supported element type)."""
    arg = arg_of(items)
    if arg.form is not Form.THREAD_DATA or arg.problem or arg.dtype is None:
        detail = arg.problem or (
            f"element type {arg.dtype_shown} is not supported" if arg.dtype is None else ""
        )
        raise CoopTypeError(
            f"{primitive}: items must be a coop.ThreadData (a register tensor), got {arg.shown}"
            + (f"; {detail}" if detail else "")
        )


def as_thread_data(fragment: Any) -> Any:
    """Use a CuTe register fragment as a ThreadData (checked: 1-D, compact, static size, a
    supported element type); returns it unchanged."""
    items_of(fragment, primitive="cuda.coop.cutlass.as_thread_data")
    return fragment


def to_ssa(items: Any) -> Any:
    """The items as a ``cute.TensorSSA`` value, for CuTe arithmetic."""
    items_of(items, primitive="cuda.coop.cutlass.to_ssa")
    return items.load()


def from_ssa(items: Any, value: Any) -> None:
    """Store a ``cute.TensorSSA`` of the same shape and type into the items."""
    items_of(items, primitive="cuda.coop.cutlass.from_ssa")
    items.store(value)
