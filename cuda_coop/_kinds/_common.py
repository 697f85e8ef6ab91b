# SPDX-License-Identifier: Apache-2.0
"""What every kind works with: the backend-neutral description of an argument (:class:`Arg`, its
:class:`Form`), the C ABI slot a runtime value reaches the wrapper through (:class:`Slot`, its
:class:`Shape`), the base class :class:`Kind`, and the checks several kinds share."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, ClassVar

from .._dims import is_int
from .._dtypes import DTYPES, REAL_DTYPES, fields_of, is_complex, supported_name
from .._errors import CoopTypeError, CoopValueError

if TYPE_CHECKING:
    from .._primitive import Resolver

from .._requests import Request

INT32_MAX = 2**31 - 1


class Form(Enum):
    """What an argument is, as far as coop cares."""

    ABSENT = "absent"  # not given: the parameter's default applies
    NONE = "none"  # given as None
    CONSTANT = "constant"  # a compile-time constant: int, float, str, bool, enum member, tuple
    SCALAR = "scalar"  # a typed runtime value
    THREAD_DATA = "thread_data"  # a coop.ThreadData (a register array/tensor)
    ARRAY = "array"  # a device array, tensor or pointer
    TEMP_STORAGE = "temp_storage"  # a coop.TempStorage
    FUNCTION = "function"  # Python code usable as an operator
    OTHER = "other"


@dataclass(frozen=True)
class Arg:
    """What a backend knows of one argument at compile time.

    Attributes:
        form: what it is.
        shown: how the DSL shows it, for messages.
        dtype: its element type (our name) when supported, else None.
        dtype_shown: its element type as the DSL shows it.
        items: items per thread of a ThreadData.
        value: a compile-time value (``...`` when only known at run time).
        problem: why an array or ThreadData cannot be used ("" when fine), e.g. "must be 1-D".
        writable: an array can be written.
        memory: where an array lives when the DSL says: ``"global"``, ``"shared"``, or ``""``
            (a generic pointer: Numba's arrays).
        function: the Python code of a FUNCTION.
        truth: a SCALAR that is a truth value (a DSL boolean; it has no element type).
        stride: elements between consecutive items of a 1-D ARRAY: 1 (contiguous), an int, or
            ``...`` (known only at run time).
        records: for items, a value or an array of a structured ``dtype`` held as C structs (NumPy
            records, in Numba; laid out as ``dtype``'s struct) rather than a tuple of fields: the
            record type as the backend names it (its operators are compiled for it); "" otherwise.
    """

    form: Form
    shown: str = ""
    dtype: str | None = None
    dtype_shown: str = ""
    items: int = 0
    value: object = ...
    problem: str = ""
    writable: bool = True
    memory: str = ""
    function: object = None
    truth: bool = False
    stride: object = 1
    records: str = ""

    @property
    def given(self) -> bool:
        """Not absent and not None."""
        return self.form not in (Form.ABSENT, Form.NONE)


class Shape(Enum):
    """How a runtime value reaches the C++ wrapper (its C ABI slot)."""

    ITEMS = "items"  # void*: the thread's n items of a type (a ThreadData's storage)
    VALUE = "value"  # void*: one value of a type, in thread-private memory
    ARRAY = "array"  # void*: global memory at the tile (the array plus its offset)
    INT = "int"  # int: a count
    SCRATCH = "scratch"  # void*: caller-owned shared scratch


@dataclass(frozen=True)
class Slot:
    """One argument of a wrapper's C ABI.

    Attributes:
        name: the parameter or result it carries.
        shape: how it is passed.
        dtype: element type of the memory it points at (ITEMS, VALUE, ARRAY).
        items: items it points at (ITEMS).
        result: fresh storage for a result, filled by the call.
        fallback: the parameter whose value is passed instead, the own one being absent.
        strided: an ARRAY passed with its stride in elements (a second argument, an int).
        scalar: a result that the kernel sees as a scalar (item 0), not as a ThreadData.
        copy: ITEMS the call only reads but CUB's method rearranges in place (a transposing store
            exchanges them through shared memory first): the wrapper hands CUB a copy.
        packed: items, a value or an array of a structured type held as C structs (NumPy records):
            one pointer to the structs, not one per field.
    """

    name: str
    shape: Shape
    dtype: str = ""
    items: int = 1
    result: bool = False
    fallback: str | None = None
    strided: bool = False
    scalar: bool = False
    copy: bool = False
    packed: bool = False

    @property
    def fields(self) -> tuple[str, ...]:
        """The field types of ITEMS, a VALUE or an ARRAY of a structured item type (one pointer each
        in the C ABI, as the kernel holds them: a struct of arrays, or a tuple of arrays); () for
        every other slot, and for structs held as structs (``packed``)."""
        if self.packed or self.shape not in (Shape.ITEMS, Shape.VALUE, Shape.ARRAY):
            return ()
        return fields_of(self.dtype)


def records_tag(name: str) -> str:
    """The request tag of a parameter given as NumPy records (its slot is ``packed``)."""
    return f"{name}_records"


def _note_records(r: Resolver, name: str, arg: Arg) -> None:
    """Record that ``name`` holds records (C structs), not a tuple of fields."""
    if arg.records:
        r.tags.append(records_tag(name))


def _integer_scalar(arg: Arg) -> bool:
    return arg.form is Form.SCALAR and arg.dtype in DTYPES and DTYPES[arg.dtype].kind in "iu"


def _supported(r: Resolver, name: str, arg: Arg) -> str:
    return supported_name(arg.dtype, shown=arg.dtype_shown or arg.shown, primitive=r.q, argument=name)


def _supported_item(r: Resolver, name: str, arg: Arg, structured: bool, instead: str = "") -> str:
    """The payload's element type: a real scalar one, or a structured one (a field list, a complex
    number) where the row takes those (``instead``: what to do with them where it does not)."""
    advice = f"; {instead}" if instead else ""
    fields = fields_of(arg.dtype) if arg.dtype is not None else ()
    if fields:
        if not structured:
            held = "records" if arg.records else "a tuple"
            raise CoopTypeError(
                f"{r.q}: {name} is {held} of ({', '.join(fields)}) items; {name} takes "
                f"items of one scalar type ({', '.join(DTYPES)}){advice}"
            )
        odd = [f for f in fields if f not in REAL_DTYPES]
        if odd and all(f in DTYPES for f in odd):  # unsupported fields: the type's own message
            raise CoopTypeError(
                f"{r.q}: {name} is a tuple with {', '.join(odd)} fields; a tuple's fields are real scalar "
                f"types ({', '.join(REAL_DTYPES)}): spell a complex field as two fields (re, im)"
            )
        return arg.dtype  # type: ignore[return-value]
    if is_complex(arg.dtype) and not structured:
        raise CoopTypeError(
            f"{r.q}: {name} has {arg.dtype} items; {name} takes items of one real scalar type "
            f"({', '.join(REAL_DTYPES)}), and complex numbers have no order and no single bits to select "
            f"by: pass a real value computed from each (abs(z), z.real){advice}"
        )
    return _supported(r, name, arg)


def _wider_than_64_bits(value: object) -> bool:
    return is_int(value) and not -(2**63) <= value < 2**64  # type: ignore[operator]


class Kind:
    """The base of every parameter kind: what a call may pass for a parameter (``check``), what the
    wrapper's C ABI carries for it (``slot``) and how the wrapper spells it in C++
    (``template_arg``, ``call_arg``). The resolver, the renderer and the backends' prescans call
    these and nothing else; each kind overrides what applies to it."""

    #: C++ headers a bundle needs when a request has a parameter of this kind
    headers: ClassVar[tuple[str, ...]] = ()

    def check(self, r: Resolver, name: str, arg: Arg, default: object = None) -> None:
        """Check the call's argument for parameter ``name`` (``default``: the parameter's) and record
        what the request needs in ``r``; raise a typed error naming ``name`` if it does not fit."""
        raise NotImplementedError

    def check_launch(self, r: Resolver, name: str) -> None:
        """Checks that need the block (run once it is known)."""

    def check_memory(self, r: Resolver, name: str, memory: str, shown: str = "") -> None:
        """An array passed for ``name`` lives in ``memory`` (a backend may know it before typing,
        e.g. ``"local"`` for ``cuda.local.array``); kinds that take arrays refuse the wrong ones."""

    def check_constant(self, r: Resolver, name: str, value: object) -> None:
        """A Python constant passed for ``name`` that the DSL's typing does not show as it is (a float
        for an integer, an integer wider than 64 bits); ``r.dtype`` is the payload's type if known."""

    def slot(self, req: Request, name: str) -> Slot | None:
        """The wrapper argument that carries the parameter at run time, or None (compile-time)."""
        return None

    def template_arg(self, req: Request, name: str, given: bool) -> str | None:
        """The C++ text of a CUB template parameter named after this parameter, or None."""
        return None

    def call_arg(self, req: Request, name: str) -> tuple[str, str]:
        """(C++ statements the wrapper runs first, the argument's C++ text) in CUB's call."""
        return "", name

    def uses_rank(self, req: Request) -> bool:
        """Its ``call_arg`` C++ reads ``coop_rank``, the calling thread's rank in its group (the
        block, or its logical warp), which the wrapper then defines."""
        return False

    def uses_group_threads(self, req: Request) -> bool:
        """Its ``call_arg`` C++ reads ``coop_group_threads``, the threads of its group (the block's,
        or its logical warp's lanes), which the wrapper then defines."""
        return False

    def absent_arg(self, req: Request) -> str | None:
        """C++ passed in the parameter's place when it is absent (later arguments keep their
        positions), or None to leave it out."""
        return None

    def method_text(self, req: Request) -> str | None:
        """The text ``{name}`` stands for in the call's method name, or None (not in the name)."""
        return None

    def user_functions(self, req: Request, name: str) -> dict[str, tuple[str, str]]:
        """User function symbol -> (argument element type, result) that the bundle must define."""
        return {}


def _refuse_wide(r: Resolver, name: str, value: object) -> None:
    if _wider_than_64_bits(value):
        raise CoopValueError(f"{r.q}: {name}={value} does not fit a 64-bit integer")
