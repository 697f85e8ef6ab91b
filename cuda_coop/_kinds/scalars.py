# SPDX-License-Identifier: Apache-2.0
"""The kinds of runtime integers: an element offset, a count, a per-thread flag."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._dims import is_int
from .._dtypes import dtype_named
from .._errors import CoopTypeError, CoopValueError
from ._common import (
    INT32_MAX,
    Arg,
    Form,
    Kind,
    Shape,
    Slot,
    _integer_scalar,
    _refuse_wide,
    _wider_than_64_bits,
)

if TYPE_CHECKING:
    from .._primitive import Resolver

from .._requests import Request


@dataclass(frozen=True)
class Offset(Kind):
    """An element index: a runtime integer or a constant of 0 or more (folded into its array's
    pointer by the backend; no slot of its own)."""

    def check(self, r: Resolver, name: str, arg: Arg, default: object = None) -> None:
        if not arg.given:
            return
        if arg.form is Form.CONSTANT and is_int(arg.value):
            if arg.value < 0:  # type: ignore[operator]
                raise CoopValueError(f"{r.q}: {name}={arg.value} is negative; pass an element index >= 0")
        elif not _integer_scalar(arg):
            raise CoopTypeError(f"{r.q}: {name} must be an integer, got {arg.shown}")
        r.mark_present(name)

    def check_constant(self, r: Resolver, name: str, value: object) -> None:
        _refuse_wide(r, name, value)


@dataclass(frozen=True)
class Count(Kind):
    """An optional count (``int``, passed as int32): a runtime integer or a constant >= 0."""

    tag: str
    scalar_payload_only: bool = False
    otherwise: str | None = None  # C++ passed in its place when absent, so that later arguments keep
    # their positions (``{T}`` is the element type): CUB's defaulted ``end_bit = sizeof(T) * 8``
    negative: bool = False  # a signed int (a distance), not a count
    full_tile: bool = False  # given, a call whose count covers the whole tile leaves it and the
    # arguments after it out (a full tile moves unguarded: no compare, no default per item, as CUB's
    # own agents move it); the renderer branches on the count

    def check(self, r: Resolver, name: str, arg: Arg, default: object = None) -> None:
        if not arg.given:
            return
        if arg.form is Form.CONSTANT and is_int(arg.value):
            value = int(arg.value)  # type: ignore[call-overload]
            if value < 0 and not self.negative:
                raise CoopValueError(f"{r.q}: {name}={value} is negative; pass a count of 0 or more")
            if abs(value) > INT32_MAX:
                raise CoopValueError(
                    f"{r.q}: {name}={value} does not fit CUB's int; pass at most {INT32_MAX}"
                )
            r.constants[name] = value
        elif not _integer_scalar(arg):
            raise CoopTypeError(f"{r.q}: {name} must be an integer, got {arg.shown}")
        if self.scalar_payload_only and not r.scalar:
            raise CoopValueError(
                f"{r.q}: {name} needs a scalar {r.payload_name} (CUB reduces a partial tile of one item "
                "per thread); reduce each thread's items first and pass the scalar"
            )
        r.mark_present(name, self.tag)

    def check_constant(self, r: Resolver, name: str, value: object) -> None:
        if _wider_than_64_bits(value):
            self.check(r, name, Arg(Form.CONSTANT, repr(value), value=value))  # CUB's int: its message
        _refuse_wide(r, name, value)

    def slot(self, req: Request, name: str) -> Slot | None:
        return Slot(name, Shape.INT) if req.has(self.tag) else None

    def absent_arg(self, req: Request) -> str | None:
        return None if self.otherwise is None else self.otherwise.format(T=dtype_named(req.dtype).cxx)


@dataclass(frozen=True)
class Predicate(Kind):
    """A per-thread truth value: a runtime boolean (a comparison) or integer (nonzero meaning true),
    or a constant bool/int; passed as an int (CUB's ``FlagT``). Head and tail flags of segmented
    reductions; nothing in it is specific to a scope."""

    tag: str

    def check(self, r: Resolver, name: str, arg: Arg, default: object = None) -> None:
        if not arg.given:
            return
        constant = arg.form is Form.CONSTANT and isinstance(arg.value, int)
        truth = arg.form is Form.SCALAR and arg.truth
        if not (constant or truth or _integer_scalar(arg)):
            raise CoopTypeError(
                f"{r.q}: {name} must be a flag, a boolean or an integer (nonzero means set), got {arg.shown}"
            )
        r.mark_present(name, self.tag)

    def slot(self, req: Request, name: str) -> Slot | None:
        return Slot(name, Shape.INT) if req.has(self.tag) else None
