# SPDX-License-Identifier: Apache-2.0
"""Binary operators of the computing primitives: built-in names and user-defined functions.

A built-in name maps to a CUB/libcu++ functor (the renderer spells it). A user-defined function
becomes device code of the kernel's own DSL under an ``extern "C"`` name derived from its code,
so that the name, and with it the bundle's cache key, changes when the function does.
"""

from __future__ import annotations

import hashlib
import types
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class BuiltinOperator:
    """A built-in operator: its name, the libcu++ functor and the element types it accepts."""

    name: str
    functor: str  # a libcu++ class template, instantiated with the element type
    integer_only: bool = False
    predicate: bool = False  # returns bool (a flag operator), not the element type


BUILTIN_OPERATORS: dict[str, BuiltinOperator] = {
    op.name: op
    for op in (
        BuiltinOperator("sum", "::cuda::std::plus"),
        BuiltinOperator("mul", "::cuda::std::multiplies"),
        BuiltinOperator("min", "::cuda::minimum"),
        BuiltinOperator("max", "::cuda::maximum"),
        BuiltinOperator("bit_and", "::cuda::std::bit_and", integer_only=True),
        BuiltinOperator("bit_or", "::cuda::std::bit_or", integer_only=True),
        BuiltinOperator("bit_xor", "::cuda::std::bit_xor", integer_only=True),
        BuiltinOperator("subtract", "::cuda::std::minus"),
        BuiltinOperator("not_equal", "::cuda::std::not_equal_to", predicate=True),
        BuiltinOperator("equal", "::cuda::std::equal_to", predicate=True),
        BuiltinOperator("less", "::cuda::std::less", predicate=True),
        BuiltinOperator("greater", "::cuda::std::greater", predicate=True),
    )
}

#: The built-ins of the reducing and scanning primitives (associative operators).
ASSOCIATIVE = ("sum", "mul", "min", "max", "bit_and", "bit_or", "bit_xor")

#: The built-in flag operators (``op(a, b)`` -> bool).
PREDICATES = ("not_equal", "equal", "less", "greater")

#: The type through which a user flag operator's truth value reaches C++ (nonzero means true).
PREDICATE_RESULT = "int32"


@dataclass(frozen=True)
class UserOperator:
    """A user function to define in the kernel under its ``extern "C"`` symbol, as
    ``void symbol(R* out, const T* a, const T* b)``.

    Attributes:
        function: the Python code.
        dtype: ``T``, the operands' element type.
        result: ``R``, the element type for an operator, ``PREDICATE_RESULT`` for a flag operator.
    """

    function: object
    dtype: str
    result: str


USER_OPERATOR_PREFIX = "coop_op_"


def python_function(obj: object) -> Callable[..., object] | None:
    """The plain Python function behind ``obj`` (a function, a Numba dispatcher, a decorated
    function exposing ``__wrapped__``), or None if ``obj`` is not callable Python code."""
    seen = 0
    while not isinstance(obj, types.FunctionType) and seen < 8:
        inner = getattr(obj, "py_func", None) or getattr(obj, "__wrapped__", None)
        if inner is None:
            return None
        obj, seen = inner, seen + 1
    return obj if isinstance(obj, types.FunctionType) else None


def _digest_code(h: hashlib._Hash, code: types.CodeType) -> None:
    h.update(code.co_code)
    h.update(repr(code.co_names).encode())
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _digest_code(h, const)
        else:
            h.update(repr(const).encode())


def _digest_value(value: object) -> str:
    """A deterministic text for simple constants, an identity for anything else (such a function
    gets a new name per process: correct, only cached less)."""
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        return repr(value)
    if isinstance(value, tuple) and all(v is None or isinstance(v, (bool, int, float, str)) for v in value):
        return repr(value)
    if isinstance(value, types.FunctionType):
        return f"fn:{value.__module__}.{value.__qualname__}"
    return f"{type(value).__qualname__}@{id(value):x}"


def user_operator_symbol(function: Callable[..., object], dtype: str, *, predicate: bool = False) -> str:
    """The extern "C" name under which the backend defines ``function`` for ``dtype`` (as a flag
    operator with ``predicate``): a digest of its module, name, bytecode, constants and closure
    values."""
    fn = python_function(function)
    assert fn is not None
    h = hashlib.sha256(f"{fn.__module__}.{fn.__qualname__}".encode())
    _digest_code(h, fn.__code__)
    for cell in fn.__closure__ or ():
        try:
            h.update(_digest_value(cell.cell_contents).encode())
        except ValueError:  # an empty cell
            h.update(b"<empty>")
    return f"{USER_OPERATOR_PREFIX}{h.hexdigest()[:16]}_{dtype}{'_pred' if predicate else ''}"
