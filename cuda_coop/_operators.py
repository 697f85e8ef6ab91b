# SPDX-License-Identifier: Apache-2.0
"""Binary functions of the computing primitives: operators (two values of the element type to one,
for reductions and scans) and comparators (two values to a ``bool``, for sorts), as built-in names or
user-defined functions.

A built-in name maps to a CUB/libcu++ functor (the renderer spells it). A user-defined function
becomes device code of the kernel's own DSL under an ``extern "C"`` name derived from its code and
what it returns, so that the name, and with it the bundle's cache key, changes when the function
does.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import types
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class BuiltinOperator:
    """A built-in operator: its name, the libcu++ functor and the element types it accepts."""

    name: str
    functor: str  # a class template (libcu++'s, or coop's own), instantiated with the element type
    integer_only: bool = False
    fieldwise: bool = False  # also defined on structured items, field by field (C++ operator of the
    # generated struct): ``sum`` of (a, b) tuples is (a1 + a2, b1 + b2)
    on_complex: bool = False  # defined on complex numbers (their C++ operator: libcu++'s complex)
    complex_only: bool = False  # defined only on complex numbers and on (re, im) pairs of one float
    # type, taken as complex numbers (``complex_mul``)


BUILTIN_OPERATORS: dict[str, BuiltinOperator] = {
    op.name: op
    for op in (
        BuiltinOperator("sum", "::cuda::std::plus", fieldwise=True, on_complex=True),
        BuiltinOperator("mul", "::cuda::std::multiplies", fieldwise=True, on_complex=True),
        BuiltinOperator("min", "::cuda::minimum"),
        BuiltinOperator("max", "::cuda::maximum"),
        BuiltinOperator("bit_and", "::cuda::std::bit_and", integer_only=True),
        BuiltinOperator("bit_or", "::cuda::std::bit_or", integer_only=True),
        BuiltinOperator("bit_xor", "::cuda::std::bit_xor", integer_only=True),
        BuiltinOperator("subtract", "::cuda::std::minus", fieldwise=True, on_complex=True),
        # (a + bi)(c + di) = (ac - bd) + (ad + bc)i, NumPy's formula, on complex numbers and on (re, im)
        # pairs alike (the renderer's coop_complex_multiplies), so that one kernel source spelling
        # complex numbers as pairs gives the same on both DSLs
        BuiltinOperator("complex_mul", "coop_complex_multiplies", on_complex=True, complex_only=True),
    )
}

#: The built-ins of the reducing and scanning primitives (associative operators).
ASSOCIATIVE = ("sum", "mul", "min", "max", "bit_and", "bit_or", "bit_xor", "complex_mul")

#: Built-in comparators: binary predicates (``"less"`` and ``"greater"`` are the strict weak
#: orderings sorts take; flag operators also take ``"equal"`` and ``"not_equal"``).
BUILTIN_COMPARATORS: dict[str, BuiltinOperator] = {
    op.name: op
    for op in (
        BuiltinOperator("less", "::cuda::std::less"),
        BuiltinOperator("greater", "::cuda::std::greater"),
        BuiltinOperator("equal", "::cuda::std::equal_to", fieldwise=True, on_complex=True),
        BuiltinOperator("not_equal", "::cuda::std::not_equal_to", fieldwise=True, on_complex=True),
    )
}

#: The built-in flag operators (``op(a, b)`` -> bool), e.g. for ``coop.block.discontinuity``.
PREDICATES = ("not_equal", "equal", "less", "greater")

#: Other spellings of the built-ins, as people coming from upstream cuda.coop, C++ (libcu++'s functor
#: names), Python's ``operator`` module and NumPy write them. Each is an alias: it is normalised to the
#: built-in's name before the request is built, so it gives the same functor and the same request as
#: the name. A quoted spelling is that string; ``operator.X`` and ``np.X`` name those objects, a bare
#: name a Python built-in function. (NumPy's ``np.minimum`` / ``np.maximum`` propagate a NaN; as
#: aliases they are ``"min"`` / ``"max"``, under which a NaN loses to a number, as ``np.fmin``.)
SPELLINGS: dict[str, tuple[str, ...]] = {
    "sum": ('"+"', '"add"', '"plus"', "operator.add", "np.add"),
    "mul": ('"*"', '"multiplies"', '"multiply"', "operator.mul", "np.multiply"),
    "min": ('"minimum"', "min", "np.minimum", "np.fmin"),
    "max": ('"maximum"', "max", "np.maximum", "np.fmax"),
    "bit_and": ('"&"', '"bitwise_and"', "operator.and_", "np.bitwise_and"),
    "bit_or": ('"|"', '"bitwise_or"', "operator.or_", "np.bitwise_or"),
    "bit_xor": ('"^"', '"bitwise_xor"', "operator.xor", "np.bitwise_xor"),
    "subtract": ('"-"', '"minus"', "operator.sub", "np.subtract"),
    "less": ('"<"', "operator.lt", "np.less"),
    "greater": ('">"', "operator.gt", "np.greater"),
    "equal": ('"=="', '"equal_to"', "operator.eq", "np.equal"),
    "not_equal": ('"!="', '"not_equal_to"', "operator.ne", "np.not_equal"),
}

_MODULES = {"operator": "operator", "np": "numpy", "": "builtins"}


def _spelled(text: str) -> object:
    """The string or object a spelling of :data:`SPELLINGS` stands for."""
    if text.startswith('"'):
        return text.strip('"')
    module, _, attr = text.rpartition(".")
    return getattr(importlib.import_module(_MODULES[module]), attr)


@functools.cache
def _aliases() -> dict[object, str]:
    return {_spelled(text): name for name, texts in SPELLINGS.items() for text in texts}


def builtin_alias(value: object) -> str | None:
    """The built-in's name if ``value`` is another spelling of one (a string such as ``"+"``, or an
    object such as ``operator.add`` or ``np.add``), else None."""
    try:
        return _aliases().get(value)
    except TypeError:  # unhashable: no spelling
        return None


def spellings_text(names: Iterable[str]) -> str:
    """The built-ins ``names`` with their other spellings, for messages: ``'sum' ("+", ...), ...``."""
    return ", ".join(
        f"{name!r} ({', '.join(SPELLINGS[name])})" if name in SPELLINGS else repr(name) for name in names
    )


USER_OPERATOR_PREFIX = "coop_op_"

#: What a comparator returns (not an element type: C++ ``bool``, passed as one byte, 0 or 1).
BOOL = "bool"


@dataclass(frozen=True)
class UserFunction:
    """A user function the backend defines in the kernel as ``void symbol(R* out, const T* a, const
    T* b)``, ``T`` being ``dtype`` and ``R`` being ``result`` (``dtype`` for an operator, :data:`BOOL`
    for a comparator, one byte 0 or 1)."""

    symbol: str
    function: object
    dtype: str
    result: str
    records: str = ""  # the record type the function takes, as the backend names it ("" for tuples)


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


def user_operator_symbol(
    function: Callable[..., object], dtype: str, result: str | None = None, records: str = ""
) -> str:
    """The extern "C" name under which the backend defines ``function`` for ``dtype`` (returning
    ``result``, by default ``dtype``; taking the record type ``records`` when given): a digest of its
    module, name, bytecode, constants and closure values, and of what it takes and returns."""
    fn = python_function(function)
    assert fn is not None
    h = hashlib.sha256(f"{fn.__module__}.{fn.__qualname__}".encode())
    if result not in (None, dtype):
        h.update(f"->{result}".encode())
    if records:
        h.update(f"records {records}".encode())
    _digest_code(h, fn.__code__)
    for cell in fn.__closure__ or ():
        try:
            h.update(_digest_value(cell.cell_contents).encode())
        except ValueError:  # an empty cell
            h.update(b"<empty>")
    return f"{USER_OPERATOR_PREFIX}{h.hexdigest()[:16]}_{dtype}"


class FunctionTypes:
    """The types one DSL gives plain Python functions used as operators, consulted by the
    ``typeof_impl`` of the DSL's public extension module (registered for functions on first use):
    each DSL has its own, so that one function can be an operator in kernels of two DSLs in one
    process (a ``_numba_type_`` attribute on the function, Numba's other protocol, holds one type:
    the last DSL's). Nothing is written to the user's function."""

    def __init__(self, extending: str) -> None:
        self._extending = extending  # the module whose typeof_impl is registered, e.g. numba.cuda.extending
        self._types: weakref.WeakKeyDictionary[Any, Any] | None = None

    def _register(self) -> weakref.WeakKeyDictionary[Any, Any]:
        typeof_impl = importlib.import_module(self._extending).typeof_impl
        previous = typeof_impl.dispatch(types.FunctionType)
        table: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()

        def typeof_function(value: Any, context: Any) -> Any:
            ty = table.get(value)
            return ty if ty is not None else previous(value, context)

        typeof_impl.register(types.FunctionType)(typeof_function)
        return table

    def tag(self, value: Any, ty: Any) -> bool:
        """Type ``value`` as ``ty`` from now on, unless it has a type already (here, or its own
        ``_numba_type_``); True if tagged."""
        if self._types is None:
            self._types = self._register()
        if value in self._types or "_numba_type_" in vars(value):
            return False
        self._types[value] = ty
        return True
