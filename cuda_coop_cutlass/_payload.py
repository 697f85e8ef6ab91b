# SPDX-License-Identifier: Apache-2.0
"""ThreadData <-> CuTe values: in a CuTe kernel a ThreadData is a 1-D register tensor, so these
are thin, checked conversions for code that mixes coop primitives with ordinary CuTe code."""

from typing import Any

from ._backend import items_of


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
