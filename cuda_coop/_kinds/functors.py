# SPDX-License-Identifier: Apache-2.0
"""The kinds of functions: a binary operator or comparator (a built-in's libcu++ functor or a Python
function compiled into the kernel), and the running prefix that a scan's prefix callback updates."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from .._dtypes import complex_pair, dtype_named, fields_of, is_complex
from .._errors import CoopTypeError, CoopValueError
from .._operators import (
    ASSOCIATIVE,
    BOOL,
    BUILTIN_COMPARATORS,
    BUILTIN_OPERATORS,
    USER_OPERATOR_PREFIX,
    BuiltinOperator,
    UserFunction,
    builtin_alias,
    spellings_text,
    user_operator_symbol,
)
from ._common import Arg, Form, Kind, Shape, Slot, _note_records, records_tag

if TYPE_CHECKING:
    from .._primitive import Resolver

from .._requests import Request


def _cxx_functor(op: str, dtype: str) -> str:
    """The C++ functor object of an operator or comparator option (a built-in's libcu++ functor, or
    the user function's generated one)."""
    if op.startswith(USER_OPERATOR_PREFIX):
        return f"{op}_functor{{}}"
    builtin = BUILTIN_OPERATORS.get(op) or BUILTIN_COMPARATORS[op]
    return f"{builtin.functor}<{dtype_named(dtype).cxx}>{{}}"


def _check_on_complex(
    r: Resolver, name: str, op: BuiltinOperator, builtins: Sequence[str], noun: str
) -> None:
    """A built-in operator or comparator on complex items (or a complex-only one on other items):
    refused unless it is defined there."""
    table = {**BUILTIN_OPERATORS, **BUILTIN_COMPARATORS}
    if is_complex(r.dtype):
        if op.on_complex:
            return
        ok = ", ".join(repr(b) for b in builtins if table[b].on_complex) or "none"
        raise CoopTypeError(
            f"{r.q}: {name}={op.name!r} is not defined on complex numbers ({r.payload_name} has {r.dtype} "
            f"items): they have no order and no bits. Built-in {noun}s on complex numbers: {ok}; for an "
            f"order pass a function of two complex values (e.g. comparing abs(a) and abs(b))"
        )
    if complex_pair(r.dtype) is None:
        raise CoopTypeError(
            f"{r.q}: {name}={op.name!r} multiplies complex numbers: {r.payload_name} must have complex "
            f"items (complex64, complex128) or be a pair (re, im) of one float type, got {r.dtype}; use "
            f"'mul' for a product of real numbers"
        )


@dataclass(frozen=True)
class Functor(Kind):
    """A binary function of two values of the element type, which becomes a C++ functor: one of
    ``builtins`` by name (a libcu++ functor of ``table``) or a Python function, which the backend
    compiles into the kernel under an ``extern "C"`` name. Subclasses say which built-ins there are
    and what the function returns; the backends and the renderer handle every functor kind alike
    (``result``). A parameter with a default (a built-in's name) may be left out."""

    builtins: tuple[str, ...] = ()
    table: ClassVar[dict[str, BuiltinOperator]] = {}
    noun: ClassVar[str] = "function"
    headers = ("cuda/functional", "cuda/std/functional")

    def result(self, dtype: str) -> str:
        """What the function returns, for arguments of ``dtype``: an element type or ``BOOL``."""
        raise NotImplementedError

    def check(self, r: Resolver, name: str, arg: Arg, default: object = None) -> None:
        if arg.form is Form.ABSENT and isinstance(default, str):
            arg = Arg(Form.CONSTANT, repr(default), value=default)
        names = ", ".join(map(repr, self.builtins))
        spelled = {Form.CONSTANT: arg.value, Form.FUNCTION: arg.function}.get(arg.form)
        alias = builtin_alias(spelled)
        if alias is not None:  # another spelling of a built-in: its name, so one functor, one request
            if alias not in self.builtins:
                given = repr(spelled) if isinstance(spelled, str) else arg.shown
                raise CoopValueError(
                    f"{r.q}: {name}={given} spells the built-in {alias!r}, which is not one of "
                    f"{name}'s built-in {self.noun}s: {spellings_text(self.builtins)}; or pass a function"
                )
            arg = Arg(Form.CONSTANT, repr(alias), value=alias)
        op = self.table.get(arg.value) if arg.form is Form.CONSTANT and arg.value in self.builtins else None
        if op is not None and (is_complex(r.dtype) or op.complex_only):
            _check_on_complex(r, name, op, self.builtins, self.noun)
        elif arg.form is Form.CONSTANT and fields_of(r.dtype) and not (op is not None and op.fieldwise):
            fieldwise = ", ".join(repr(b) for b in self.builtins if self.table[b].fieldwise) or "none"
            returning = " returning a tuple" if self.noun == "operator" else ""
            raise CoopTypeError(
                f"{r.q}: {name}={arg.value!r}: {r.payload_name} is a tuple "
                f"({', '.join(fields_of(r.dtype))}), and only some built-in {self.noun}s apply to tuples, "
                f"field by field ({fieldwise}); for the others pass a function of two tuples{returning}"
            )
        if arg.form is Form.CONSTANT and isinstance(arg.value, str):
            if op is None:
                raise CoopValueError(
                    f"{r.q}: unknown {name}={arg.value!r}; built-in {self.noun}s (and their other "
                    f"spellings): {spellings_text(self.builtins)}; or pass a function"
                )
            if op.integer_only and dtype_named(r.dtype).kind == "f":
                raise CoopTypeError(
                    f"{r.q}: {name}={arg.value!r} needs an integer element type, {r.payload_name} is "
                    f"{r.dtype}; use an integer ThreadData or another {self.noun}"
                )
            r.record(name, op.name)
        elif arg.form is Form.FUNCTION:
            result = self.result(r.dtype)
            symbol = user_operator_symbol(arg.function, r.dtype, result, r.records)  # type: ignore[arg-type]
            r.operators[symbol] = UserFunction(symbol, arg.function, r.dtype, result, r.records)
            r.record(name, symbol)
        else:
            raise CoopTypeError(
                f"{r.q}: {name} must be a built-in {self.noun} name ({names}) or a function, got {arg.shown}"
            )

    def call_arg(self, req: Request, name: str) -> tuple[str, str]:
        return "", _cxx_functor(str(req.option(name)), req.dtype)

    def user_functions(self, req: Request, name: str) -> dict[str, tuple[str, str]]:
        op = str(req.option(name))
        return {op: (req.dtype, self.result(req.dtype))} if op.startswith(USER_OPERATOR_PREFIX) else {}


@dataclass(frozen=True)
class Operator(Functor):
    """A binary operator on the element type: one of ``builtins`` (default: the associative ones,
    for reductions and scans) by name, or a function of two values returning one of the same type."""

    builtins: tuple[str, ...] = ASSOCIATIVE
    table = BUILTIN_OPERATORS
    noun = "operator"

    def result(self, dtype: str) -> str:
        return dtype


@dataclass(frozen=True)
class Comparator(Functor):
    """A binary predicate of the element type: one of ``builtins`` by name (default ``"less"`` and
    ``"greater"``: strict weak orderings, for sorts; flag operators also take ``"equal"`` and
    ``"not_equal"``) or a function of two values returning a truth value (for a sort: True when the
    first is ordered before the second). Nothing in it is specific to a scope or a primitive."""

    builtins: tuple[str, ...] = ("less", "greater")
    table = BUILTIN_COMPARATORS
    noun = "comparator"

    def result(self, dtype: str) -> str:
        return BOOL


@dataclass(frozen=True)
class PrefixOp(Kind):
    """CUB's block prefix callback as a running prefix: a ThreadData of one item of the element
    type, which the first warp reads as the tile's prefix and updates with ``op`` (a parameter
    name or a built-in operator name) and the tile's aggregate."""

    op: str
    tag = "prefix"

    def check(self, r: Resolver, name: str, arg: Arg, default: object = None) -> None:
        if not arg.given:
            return
        if arg.form is not Form.THREAD_DATA or arg.items != 1 or arg.dtype != r.dtype:
            raise CoopTypeError(
                f"{r.q}: {name} must be a coop.ThreadData of one {r.dtype} item holding the running "
                f"prefix (coop.ThreadData(1, ...)), got {arg.shown}"
            )
        r.mark_present(name, self.tag)
        _note_records(r, name, arg)

    def slot(self, req: Request, name: str) -> Slot | None:
        packed = req.has(records_tag(name))
        return Slot(name, Shape.ITEMS, req.dtype, 1, packed=packed) if req.has(self.tag) else None

    def call_arg(self, req: Request, name: str) -> tuple[str, str]:
        functor = _cxx_functor(str(req.option(self.op) or self.op), req.dtype)
        t = dtype_named(req.dtype).cxx
        setup = f"  coop_running_prefix<{t}, decltype({functor})> {name}_callback{{{name}[0], {functor}}};\n"
        return setup, f"{name}_callback"
