# SPDX-License-Identifier: Apache-2.0
"""The closed vocabulary of parameter kinds, and the backend-neutral description of an argument.

A backend describes each argument of a coop call as an :class:`Arg` (what it is, its element type,
its compile-time value); each parameter's kind checks its ``Arg`` and records what the request
needs. Kinds that take a runtime value name the *slot shape* through which it reaches the C++
wrapper; backends build slots by shape, the renderer unpacks them by shape. A new primitive is a
catalog row built from these kinds; only a new kind touches the backends and the renderer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, ClassVar

from ._choices import AUTO, Choices
from ._dims import is_int, normalize_block_dims
from ._dtypes import (
    DTYPES,
    REAL_DTYPES,
    complex_pair,
    dtype_named,
    fields_of,
    is_complex,
    run_items,
    supported_name,
    tuple_name,
)
from ._errors import CoopLaunchConfigError, CoopTypeError, CoopValueError
from ._operators import (
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

if TYPE_CHECKING:
    from ._primitive import Resolver

from ._requests import Request

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


def _cxx_functor(op: str, dtype: str) -> str:
    """The C++ functor object of an operator or comparator option (a built-in's libcu++ functor, or
    the user function's generated one)."""
    if op.startswith(USER_OPERATOR_PREFIX):
        return f"{op}_functor{{}}"
    builtin = BUILTIN_OPERATORS.get(op) or BUILTIN_COMPARATORS[op]
    return f"{builtin.functor}<{dtype_named(dtype).cxx}>{{}}"


# --- kinds of parameters --------------------------------------------------------------------------


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


@dataclass(frozen=True)
class Payload(Kind):
    """The primitive's own items: a ThreadData (or, with ``scalar``, a typed scalar taken as one
    item). It defines the element type and the items per thread of the request."""

    scalar: bool = False
    scalar_form: bool = False  # a scalar reaches C++ as one value (CUB's scalar overloads)
    thread_data: bool = True  # a ThreadData is accepted (False: CUB takes one value per thread only)
    keep_past: tuple[str, str] | None = None  # (count, value): items past the count keep their
    # previous values unless the value parameter is given (a partial load's contract)
    read_only: bool = False  # the call only reads the items, though CUB's method may rearrange them
    # in place (BlockStore / WarpStore transposing algorithms): CUB gets a copy, the kernel's
    # ThreadData keeps its values
    structured: bool = False  # a tuple of ThreadData (or of scalars) is taken as items of a struct,
    # and so are complex numbers
    instead: str = ""  # not structured: what a tuple's caller should do instead (the error says it)

    def check(self, r: Resolver, name: str, arg: Arg, default: object = None) -> None:
        if self.thread_data and arg.form is Form.THREAD_DATA and not arg.problem:
            items, scalar = arg.items, False
        elif self.scalar and arg.form is Form.SCALAR and not arg.problem:
            items, scalar = 1, True
        else:
            what = " or ".join(
                w
                for w, ok in (
                    ("a coop.ThreadData created in the kernel", self.thread_data),
                    ("a typed scalar", self.scalar),
                )
                if ok
            )
            if not self.thread_data and arg.form is Form.THREAD_DATA:
                what += " (CUB takes one value per thread here; pass an item, e.g. items[0])"
            if self.scalar and arg.form is Form.CONSTANT and (is_int(arg.value) or type(arg.value) is float):
                # Numba types an int literal as int64 before it gets here; the CuTe DSL leaves a Python
                # number untyped (its element type would be a guess: Int32 in CuTe's arithmetic)
                typed = f"cutlass.{'Int32' if is_int(arg.value) else 'Float32'}({arg.value!r})"
                raise CoopTypeError(
                    f"{r.q}: {name}={arg.value!r} is a Python number, which has no element type in the CuTe "
                    f"DSL; pass a typed value of the element type you want, e.g. {typed}"
                )
            detail = f" ({arg.problem})" if arg.problem else ""
            raise CoopTypeError(f"{r.q}: {name} must be {what}, got {arg.shown}{detail}")
        r.set_payload(_supported_item(r, name, arg, self.structured, self.instead), items, scalar=scalar)
        r.records = arg.records
        _note_records(r, name, arg)

    def slot(self, req: Request, name: str) -> Slot:
        shape = Shape.VALUE if req.has("scalar") and self.scalar_form else Shape.ITEMS
        copy = self.read_only and shape is Shape.ITEMS
        packed = req.has(records_tag(name))
        return Slot(name, shape, req.dtype, req.items_per_thread, copy=copy, packed=packed)


@dataclass(frozen=True)
class SharedTile(Payload):
    """The payload of a copy into shared memory: a 1-D contiguous array in shared memory (Numba: a
    ``cuda.shared.array``; CuTe: a tensor in smem) of one real scalar type, which defines the
    request's element type. It reaches the C++ wrapper as a generic pointer to its first element."""

    offset: str = ""  # no offset parameter: the copy starts at the array's first element

    def check(self, r: Resolver, name: str, arg: Arg, default: object = None) -> None:
        if arg.form is not Form.ARRAY:
            raise CoopTypeError(
                f"{r.q}: {name} must be an array in shared memory (Numba: cuda.shared.array; CuTe: a "
                f"tensor in smem), got {arg.shown}"
            )
        if arg.problem:
            raise CoopTypeError(f"{r.q}: {name} {arg.problem}")
        self.check_memory(r, name, arg.memory, arg.shown)
        if arg.stride != 1:
            raise CoopValueError(f"{r.q}: {name} must be contiguous (unit stride), got {arg.shown}")
        if arg.dtype not in REAL_DTYPES:
            raise CoopTypeError(
                f"{r.q}: {name} must hold items of one real scalar type ({', '.join(REAL_DTYPES)}), "
                f"got {arg.dtype or arg.dtype_shown or arg.shown}"
            )
        if not arg.writable:
            raise CoopTypeError(f"{r.q}: {name} is read-only ({arg.shown})")
        r.set_payload(arg.dtype, 1, scalar=False)

    def check_memory(self, r: Resolver, name: str, memory: str, shown: str = "") -> None:
        """Refuse an array known to be elsewhere than shared memory (``"global"``: a kernel argument;
        ``"local"``: thread-private)."""
        if memory in ("global", "local"):
            where = f"in global memory ({shown})" if shown else "in global memory (a kernel argument)"
            if memory == "local":
                where = "thread-private (cuda.local.array)"
            raise CoopTypeError(
                f"{r.q}: {name} is {where}; it must be an array in shared memory (Numba: "
                "cuda.shared.array, dynamic for more than 48 KB; CuTe: a tensor in smem)"
            )

    def slot(self, req: Request, name: str) -> Slot:
        return Slot(name, Shape.ARRAY, req.dtype)


#: The element type of an index paired with an item (``argmax``, ``argmin``).
INDEX_DTYPE = "int32"


def indexed_dtype(dtype: str) -> str:
    """The structured type of an item of ``dtype`` paired with its index: ``(value, index)``."""
    return str(tuple_name([dtype, INDEX_DTYPE]))


@dataclass(frozen=True)
class IndexedPayload(Payload):
    """The payload of an arg-reduction: items of one scalar type, each reaching CUB paired with its
    index as the struct ``(value, index)`` (CUB's ``T``: the row's template names ``INDEXED_T``).
    The index is the ``indices`` parameter's when given, else the item's position in the group's
    tile in the arrangement the ``arrangement`` parameter names (blocked: the thread's rank in the
    block, or its lane in its logical warp, times the items per thread, plus the item; striped: the
    rank plus the item times the group's threads). Default indices ascend with a thread's items, so
    the thread's first best item and its position are kept in a loop (``coop_arg_first``) and one
    pair reaches CUB; given indices may come in any order, so CUB reduces all the pairs."""

    indices: str = "indices"
    largest: bool = True  # argmax (else argmin)
    arrangement: str = ""  # the parameter that arranges the default indices (none: blocked)

    def uses_rank(self, req: Request) -> bool:
        return not req.has(Index.tag)  # the default index is the item's position

    def uses_group_threads(self, req: Request) -> bool:
        return self._runs(req) < req.items_per_thread and req.cluster_dims is None  # a cluster's: its blocks'

    def _runs(self, req: Request) -> int:
        """The items of a run of consecutive tile positions in a thread's default indices: all its
        items (blocked; also given indices and scalars, which have no striped runs), 1 (striped) or
        ``striped_vectors``' run."""
        n = req.items_per_thread
        arrangement = req.option(self.arrangement) if self.arrangement else "blocked"
        if req.has(Index.tag) or req.has("scalar") or arrangement == "blocked":
            return n
        return 1 if arrangement == "striped" else run_items(dtype_named(req.dtype).itemsize, n)

    def call_arg(self, req: Request, name: str) -> tuple[str, str]:
        pair, n = dtype_named(indexed_dtype(req.dtype)).cxx, req.items_per_thread
        given = req.has(Index.tag)
        if req.has("scalar"):
            index = f"{self.indices}" if given else "coop_rank"
            return f"  {pair} {name}_pair{{{name}, {index}}};\n", f"{name}_pair"
        if given:  # indices in any order: CUB reduces the pairs with the total order
            setup = (
                f"  {pair} {name}_pairs[{n}];\n"
                f"  for (int i = 0; i < {n}; ++i) {name}_pairs[i] = {pair}{{{name}[i], {self.indices}[i]}};\n"
            )
            return setup, f"{name}_pairs"
        # the default indices ascend with the items: the thread's first best item, then one pair
        at = f"coop_arg_first<{'true' if self.largest else 'false'}>({name}, {name}_best)"
        v = self._runs(req)
        threads = math.prod(req.block_dims)
        if v == n:
            index = f"coop_rank * {n} + {name}_at"
        elif v == 1 and req.cluster_dims is None:
            index = f"coop_rank + coop_group_threads * {name}_at"
        elif (
            v == 1
        ):  # each block's part of the cluster's tile striped over the block (coop_rank: block, thread)
            index = f"coop_rank / {threads} * {threads * n} + coop_rank % {threads} + {threads} * {name}_at"
        elif req.cluster_dims is None:  # item i of thread t at ((i / v) * T + t) * v + i % v
            index = f"({name}_at / {v} * coop_group_threads + coop_rank) * {v} + {name}_at % {v}"
        else:
            index = (
                f"coop_rank / {threads} * {threads * n} + ({name}_at / {v} * {threads} "
                f"+ coop_rank % {threads}) * {v} + {name}_at % {v}"
            )
        setup = (
            f"  {dtype_named(req.dtype).cxx} {name}_best;\n"
            f"  const int {name}_at = {at};\n"
            f"  {pair} {name}_pair{{{name}_best, {index}}};\n"
        )
        return setup, f"{name}_pair"


@dataclass(frozen=True)
class Index(Kind):
    """The indices of an arg-reduction's items: an int32 ThreadData with the payload's items per
    thread, or for a scalar payload an integer scalar (taken as int32)."""

    tag: ClassVar[str] = "indices"

    def check(self, r: Resolver, name: str, arg: Arg, default: object = None) -> None:
        if not arg.given:
            return
        if r.scalar:
            ok = _integer_scalar(arg) or (arg.form is Form.CONSTANT and is_int(arg.value))
            if not ok:
                raise CoopTypeError(
                    f"{r.q}: {name} must be an integer (the index of {r.payload_name}, a scalar), got "
                    f"{arg.shown}"
                )
            if arg.form is Form.CONSTANT and not -(2**31) <= arg.value < 2**31:  # type: ignore[operator]
                raise CoopValueError(f"{r.q}: {name}={arg.value} does not fit an int32 index")
        elif arg.form is not Form.THREAD_DATA or arg.dtype != INDEX_DTYPE or arg.items != r.n:
            raise CoopTypeError(
                f"{r.q}: {name} must be a coop.ThreadData of {r.n} int32 items (one index per item of "
                f"{r.payload_name}), got {arg.shown}"
            )
        r.mark_present(name, self.tag)

    def slot(self, req: Request, name: str) -> Slot | None:
        if not req.has(self.tag):
            return None
        if req.has("scalar"):
            return Slot(name, Shape.VALUE, INDEX_DTYPE)
        return Slot(name, Shape.ITEMS, INDEX_DTYPE, req.items_per_thread)


@dataclass(frozen=True)
class IndexedValue(Kind):
    """A (value, index) pair: a tuple of a scalar of the payload's element type and an int32 index, as
    an arg-reduction or ``coop.warp.top_k`` returns it (``coop.warp.top_k``'s ``running`` list);
    passed as the struct ``(value, index)``."""

    tag: str
    what: str = "the (value, index) tuple"

    def check(self, r: Resolver, name: str, arg: Arg, default: object = None) -> None:
        if not arg.given:
            return
        if arg.form is not Form.SCALAR or arg.dtype != indexed_dtype(r.dtype):
            raise CoopTypeError(
                f"{r.q}: {name} must be {self.what}: a tuple of a {r.dtype} value (the element type of "
                f"{r.payload_name}) and an {INDEX_DTYPE} index, got {arg.shown}; pass what the previous "
                f"call returned, or start from (-inf, {INT32_MAX}) of those types"
            )
        r.mark_present(name, self.tag)
        _note_records(r, name, arg)

    def slot(self, req: Request, name: str) -> Slot | None:
        if not req.has(self.tag):
            return None
        return Slot(name, Shape.VALUE, indexed_dtype(req.dtype), packed=req.has(records_tag(name)))


@dataclass(frozen=True)
class GlobalArray(Kind):
    """A 1-D contiguous array in global memory, of the payload's element type; the call reads (or
    writes) the tile that starts ``offset`` elements in (the ``offset`` parameter). For items of a
    structured type it is a tuple of such arrays, one per field (each field read or written by a
    CUB call of its own, at the same offset)."""

    write: bool = False
    offset: str = "offset"

    def check(self, r: Resolver, name: str, arg: Arg, default: object = None) -> None:
        if arg.form is not Form.ARRAY:
            raise CoopTypeError(f"{r.q}: {name} must be {r.array_noun}, got {arg.shown}")
        if arg.problem:
            raise CoopTypeError(f"{r.q}: {name} {arg.problem}")
        self.check_memory(r, name, arg.memory, arg.shown)
        fields = fields_of(arg.dtype) if arg.dtype else ()
        dtype = arg.dtype if arg.dtype in DTYPES or fields else None
        if dtype is None:
            _supported(r, name, arg)
        if dtype != r.dtype:
            have = f"element type {dtype}"
            if fields:
                have = f"{'records' if arg.records else 'a tuple of arrays'} of ({', '.join(fields)})"
            want = f"a ThreadData of {r.dtype}"
            fix = "make them the same type"
            if fields_of(r.dtype):
                held = "a ThreadData of records" if r.records else "a tuple of ThreadData"
                want = f"{held} of ({', '.join(fields_of(r.dtype))})"
                fix = "pass one array per field, of the field's type (Numba: or an array of such records)"
            raise CoopTypeError(f"{r.q}: {name} has {have} but {r.payload_name} is {want}; {fix}")
        if self.write and not arg.writable:
            raise CoopTypeError(f"{r.q}: {name} is read-only ({arg.shown})")
        if arg.stride != 1:
            r.strided[name] = "a runtime stride" if arg.stride is ... else f"stride {arg.stride}"
        r.mark_present(name, self._strided(name) if arg.stride != 1 else None)
        _note_records(r, name, arg)

    @staticmethod
    def _strided(name: str) -> str:
        return f"{name}_strided"

    def check_memory(self, r: Resolver, name: str, memory: str, shown: str = "") -> None:
        """Refuse an array in another memory space (``"shared"``, ``"local"``: thread-private)."""
        if memory == "local":
            raise CoopTypeError(
                f"{r.q}: {name} is a thread-private array (cuda.local.array); it must be {r.array_noun}"
            )
        if memory == "shared":
            raise CoopTypeError(f"{r.q}: {name} must be in global memory, got {shown}")

    def slot(self, req: Request, name: str) -> Slot:
        strided, packed = req.has(self._strided(name)), req.has(records_tag(name))
        return Slot(name, Shape.ARRAY, req.dtype, strided=strided, packed=packed)


@dataclass(frozen=True)
class Counters(Kind):
    """A 1-D contiguous array of counters that the call updates, in shared or global memory, of an
    integer type of ``dtypes`` (CUB's ``CounterT``, recorded), at its ``offset`` parameter."""

    dtypes: tuple[str, ...]
    offset: str = "offset"

    def check(self, r: Resolver, name: str, arg: Arg, default: object = None) -> None:
        allowed = " or ".join(self.dtypes)
        if arg.form is not Form.ARRAY:
            raise CoopTypeError(
                f"{r.q}: {name} must be an array of {allowed} counters in shared or global memory, got "
                f"{arg.shown}"
            )
        if arg.problem:
            raise CoopTypeError(f"{r.q}: {name} {arg.problem}")
        if arg.dtype not in self.dtypes:
            raise CoopTypeError(
                f"{r.q}: {name} must hold {allowed} counters, got {arg.dtype or arg.dtype_shown}"
            )
        if not arg.writable:
            raise CoopTypeError(f"{r.q}: {name} is read-only ({arg.shown})")
        r.record(name, arg.dtype)
        r.mark_present(name)

    def check_memory(self, r: Resolver, name: str, memory: str, shown: str = "") -> None:
        """Refuse thread-private counters: each thread would count only its own samples."""
        if memory == "local":
            raise CoopTypeError(
                f"{r.q}: {name} is a thread-private array (cuda.local.array), so each thread would count "
                "only its own samples; the counters must be in shared memory (cuda.shared.array, zeroed "
                "and followed by cuda.syncthreads()) or in a device array"
            )

    def slot(self, req: Request, name: str) -> Slot:
        return Slot(name, Shape.ARRAY, str(req.option(name)))


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
class Element(Kind):
    """An optional value of the payload's element type (a constant must be representable). For
    items of a structured type it is a tuple of one value per field, or with ``one_for_all`` also
    one number that every field takes (representable in each)."""

    tag: str
    one_for_all: bool = False

    def _one_for_all(self, r: Resolver, arg: Arg) -> bool:
        """A single number given for every field of a structured payload."""
        if not (self.one_for_all and fields_of(r.dtype)):
            return False
        if arg.form is Form.CONSTANT:
            return not isinstance(arg.value, tuple)
        return arg.form is Form.SCALAR and arg.dtype in DTYPES

    def check(self, r: Resolver, name: str, arg: Arg, default: object = None) -> None:
        if not arg.given:
            return
        if self._one_for_all(r, arg):
            if arg.form is Form.CONSTANT:  # exact in every field (a runtime number is converted)
                for field in fields_of(r.dtype):
                    DTYPES[field].check_representable(arg.value, primitive=r.q, argument=name)
        elif arg.form is Form.CONSTANT:
            dtype_named(r.dtype).check_representable(arg.value, primitive=r.q, argument=name)
        elif arg.form is not Form.SCALAR or arg.dtype is None:
            raise CoopTypeError(f"{r.q}: {name} must be {self._wanted(r)}, got {arg.shown}")
        elif fields_of(r.dtype) and len(fields_of(arg.dtype)) != len(fields_of(r.dtype)):
            raise CoopTypeError(f"{r.q}: {name} must be {self._wanted(r)}, got {arg.shown}")
        elif any(
            is_complex(f) and not is_complex(t)
            for f, t in zip(fields_of(arg.dtype), fields_of(r.dtype), strict=True)
        ):
            raise CoopTypeError(
                f"{r.q}: {name} has a complex value ({arg.shown}) for a real field of {r.dtype}; pass "
                "a real value per field"
            )
        elif is_complex(arg.dtype) and not is_complex(r.dtype):
            raise CoopTypeError(
                f"{r.q}: {name} is a complex value ({arg.shown}) but {r.payload_name} has {r.dtype} "
                "items; pass a real value (z.real) or complex items"
            )
        r.mark_present(name, self.tag)
        _note_records(r, name, arg)

    def _wanted(self, r: Resolver) -> str:
        """What a value must be, in words: a number, or for a structured payload one per field."""
        fields = fields_of(r.dtype)
        if not fields:
            return f"a number of type {r.dtype}"
        each = f"a tuple of {len(fields)} numbers ({', '.join(fields)}), converted field by field"
        return each + (", or one number for every field" if self.one_for_all else "")

    def check_constant(self, r: Resolver, name: str, value: object) -> None:
        if r.dtype and (isinstance(value, (float, complex)) or _wider_than_64_bits(value)):
            self.check(r, name, Arg(Form.CONSTANT, repr(value), value=value))
        _refuse_wide(r, name, value)

    def slot(self, req: Request, name: str) -> Slot | None:
        if not req.has(self.tag):
            return None
        return Slot(name, Shape.VALUE, req.dtype, packed=req.has(records_tag(name)))


@dataclass(frozen=True)
class Choice(Kind):
    """A compile-time choice among ``choices`` (a string or a member of its enum)."""

    choices: Choices

    def check(self, r: Resolver, name: str, arg: Arg, default: object = None) -> None:
        value = default if arg.form is Form.ABSENT else arg.value
        if arg.form not in (Form.ABSENT, Form.CONSTANT):
            raise CoopTypeError(
                f"{r.q}: {name} must be a compile-time constant (a string or "
                f"coop.{self.choices.enum_name}), got {arg.shown}"
            )
        option = self.choices.normalize(value)
        if option is None and isinstance(value, Enum):
            member = f"{r.q}: {name}={type(value).__name__}.{value.name}"
            if self.choices.normalize(value.value):
                raise CoopValueError(
                    f"{member} is another primitive's choice; pass coop.{self.choices.enum_name}."
                    f"{value.name} or {value.value!r}"
                )
            raise CoopValueError(f"{member} is not one of {self.choices.allowed()}")
        if option is None:
            raise CoopValueError(f"{r.q}: unknown {name}={value!r}; allowed: {self.choices.allowed()}")
        if str(getattr(value, "value", value)).lower() == AUTO:
            r.auto[name] = option  # for messages: the user wrote "auto"
        r.record(name, option)

    def template_arg(self, req: Request, name: str, given: bool) -> str | None:
        return self.choices[str(req.option(name))].cxx


@dataclass(frozen=True)
class IndexArrangement(Choice):
    """How an arg-reduction's default indices number the items (``blocked``, ``striped`` or, where
    ``runs``, ``striped_vectors``: the arrangement of the load that gave them); with ``indices``
    given it has nothing to arrange."""

    indices: str = "indices"
    runs: bool = False  # the row numbers items in striped runs (a block's striped_vectors load)

    def check(self, r: Resolver, name: str, arg: Arg, default: object = None) -> None:
        super().check(r, name, arg, default)
        if arg.given and self.indices in r.present:
            raise CoopValueError(
                f"{r.q}: {name}= arranges the default indices, and {self.indices}= gives them; pass "
                f"one of the two"
            )
        if not self.runs and self.choices[str(r.option(name))].value == "striped_vectors":
            others = ", ".join(repr(o.value) for o in self.choices.options if o.value != "striped_vectors")
            raise CoopValueError(
                f"{r.q}: {name}={arg.value!r} numbers the items as a block's striped_vectors load leaves "
                f"them (runs striped over a block's threads), which {r.q} has no loads of; use {others}"
            )


@dataclass(frozen=True)
class Flag(Kind):
    """A compile-time ``True``/``False``; when set, ``tag`` is part of the request, and ``method``
    is the text it puts into the call's method name (``"Sort{descending}"`` -> ``SortDescending``;
    CUB spells some options as methods of their own)."""

    tag: str
    method: str = ""
    whole_warps: bool = False  # set, it needs a block of whole hardware warps (it names every lane)

    def check(self, r: Resolver, name: str, arg: Arg, default: object = None) -> None:
        value = default if arg.form is Form.ABSENT else arg.value
        if not isinstance(value, bool) or arg.form not in (Form.ABSENT, Form.CONSTANT):
            raise CoopTypeError(
                f"{r.q}: {name} must be a compile-time constant True or False, got {arg.shown}"
            )
        if value:
            r.mark_present(name, self.tag)

    def template_arg(self, req: Request, name: str, given: bool) -> str | None:
        return "true" if req.has(self.tag) else "false"

    def method_text(self, req: Request) -> str | None:
        return self.method if req.has(self.tag) else ""

    def check_launch(self, r: Resolver, name: str) -> None:
        if self.whole_warps and name in r.present and r.threads % HARDWARE_WARP:
            raise CoopLaunchConfigError(
                f"{r.q}: {name}=True synchronises all {HARDWARE_WARP} lanes of the hardware warp, and the "
                f"block has {r.threads} {r.block_dims}{r.launch_where}, whose last hardware warp is "
                f"partial; pass {name}=False or launch {HARDWARE_WARP}*k threads"
            )


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
class Items(Kind):
    """A further ThreadData with the payload's items per thread: of ``dtypes`` (or of the payload's
    type when None). Absent and with ``fallback``, the fallback parameter's items are used."""

    tag: str | None = None  # given: the tag in the request (without a tag, see fallback)
    dtypes: tuple[str, ...] | None = None
    fallback: str | None = None
    structured: bool = False  # with ``dtypes``: a tuple of ThreadData of those types is taken too

    def check(self, r: Resolver, name: str, arg: Arg, default: object = None) -> None:
        if not arg.given:
            return
        if arg.form is not Form.THREAD_DATA or arg.problem:
            detail = f" ({arg.problem})" if arg.problem else ""
            raise CoopTypeError(
                f"{r.q}: {name} must be a coop.ThreadData created in the kernel, got {arg.shown}{detail}"
            )
        structured = self.structured or (self.dtypes is None and dtype_named(r.dtype).structured)
        dtype = _supported_item(r, name, arg, structured)
        if arg.items != r.n:
            raise CoopValueError(
                f"{r.q}: {name} has {arg.items} items per thread, {r.payload_name} has {r.n}; make them equal"
            )
        if self.dtypes is None and dtype != r.dtype:
            raise CoopTypeError(
                f"{r.q}: {name} has element type {dtype} but {r.payload_name} is a ThreadData of {r.dtype}; "
                "make them the same type"
            )
        if self.dtypes is not None and not set(fields_of(dtype) or (dtype,)) <= set(self.dtypes):
            raise CoopTypeError(
                f"{r.q}: {name} must be a ThreadData of {' or '.join(self.dtypes)}, got {dtype}"
            )
        if self.dtypes is not None and (len(self.dtypes) > 1 or fields_of(dtype)):
            r.record(name, dtype)
        if self.fallback is not None and bool(arg.records) != (records_tag(self.fallback) in r.tags):
            held = ("records", "a tuple") if arg.records else ("a tuple", "records")
            raise CoopTypeError(
                f"{r.q}: {name} is {held[0]} and {self.fallback} is {held[1]}; give both as NumPy records "
                "or both as tuples of ThreadData"
            )
        r.mark_present(name, self.tag)
        if self.fallback is None:
            _note_records(r, name, arg)

    def slot(self, req: Request, name: str) -> Slot | None:
        packed = req.has(records_tag(name))
        if self.tag is not None and req.has(self.tag):
            dtype = self.dtypes[0] if self.dtypes and len(self.dtypes) == 1 else req.option(name) or req.dtype
            return Slot(name, Shape.ITEMS, dtype, req.items_per_thread, packed=packed)
        if self.fallback is not None:  # given or not, the slot exists: the fallback stands in
            packed = req.has(records_tag(self.fallback))  # given, it is held as the fallback is
            return Slot(
                name, Shape.ITEMS, req.dtype, req.items_per_thread, fallback=self.fallback, packed=packed
            )
        return None

    def template_arg(self, req: Request, name: str, given: bool) -> str | None:
        # a further payload's element type (CUB's ValueT), or none
        return dtype_named(str(req.option(name) or req.dtype)).cxx if given else "cub::NullType"


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


#: The request tag of a call whose caller-owned scratch synchronises itself (auto_sync=True).
AUTO_SYNC = "autosync"
TEMP_STORAGE_SHARING = ("shared", "exclusive")


def temp_storage_options(sharing: object = "shared", auto_sync: object = False) -> tuple[str, bool]:
    """Check the compile-time arguments of ``coop.TempStorage(sharing=, auto_sync=)`` (both DSLs)."""
    if sharing not in TEMP_STORAGE_SHARING:
        raise CoopValueError(
            f"coop.TempStorage: sharing={sharing!r} is not one of 'shared' (one buffer the calls reuse, "
            "footprint = the largest) or 'exclusive' (a slice per call, footprint = the sum); it must "
            "be a compile-time constant"
        )
    if not isinstance(auto_sync, bool):
        raise CoopTypeError(
            f"coop.TempStorage: auto_sync must be a compile-time True or False, got {auto_sync!r}"
        )
    return str(sharing), auto_sync


@dataclass(frozen=True)
class TempStorageUse:
    """What a backend knows of one call's use of a ``coop.TempStorage`` (an Arg's value).

    Attributes:
        sharing, auto_sync: the TempStorage's options.
        separated: the backend proved that a block barrier (the user's, or the library's before an
            earlier call) already lies between this call and every earlier use of the buffer on
            every path, or that there is none: ``auto_sync`` adds no barrier here.
        divergent: the branch on the thread index that the call sits in, as a message names it
            (``"the branch at k.py:12"``), if the backend found one ("" if none or not known).
    """

    sharing: str = "shared"
    auto_sync: bool = False
    separated: bool = False
    divergent: str = ""


@dataclass(frozen=True)
class Scratch(Kind):
    """Caller-owned shared scratch (``coop.TempStorage``), or None for the call's own. The Arg's
    value is a :class:`TempStorageUse`; with ``auto_sync`` the call synchronises the block (or
    logical warp) before it uses the scratch, unless the backend proved a barrier is already there;
    a block-scope call that would synchronise inside a branch on the thread index is refused (the
    threads that skip the branch never reach the barrier)."""

    def check(self, r: Resolver, name: str, arg: Arg, default: object = None) -> None:
        if not arg.given:
            return
        if arg.form is not Form.TEMP_STORAGE:
            raise CoopTypeError(f"{r.q}: {name} must be a coop.TempStorage, got {arg.shown}")
        r.caller_temp_storage = True
        use = arg.value if isinstance(arg.value, TempStorageUse) else TempStorageUse()
        if use.auto_sync and use.divergent and r.prim.scope == "block":
            raise CoopValueError(
                f"{r.q}: {name} is a coop.TempStorage(auto_sync=True), whose block barrier this call "
                f"would run inside {use.divergent}, a branch on the thread index: threads that do not "
                "take it never reach the barrier (a deadlock, as a __syncthreads() there would be). "
                "Call the block primitive where every thread of the block reaches it, or use "
                "auto_sync=False and put the barrier where all threads meet"
            )
        if use.auto_sync and not use.separated:
            r.tags.append(AUTO_SYNC)

    def slot(self, req: Request, name: str) -> Slot | None:
        return Slot(name, Shape.SCRATCH) if req.caller_temp_storage else None


@dataclass(frozen=True)
class BlockShape(Kind):
    """Block dimensions given explicitly, a compile-time int or tuple (else from the launch)."""

    def check(self, r: Resolver, name: str, arg: Arg, default: object = None) -> None:
        if not arg.given:
            return
        value = arg.value
        ok = arg.form is Form.CONSTANT and (
            is_int(value) or (isinstance(value, tuple) and all(is_int(v) for v in value))
        )
        if not ok:
            raise CoopTypeError(
                f"{r.q}: {name} must be a compile-time constant int or tuple, got {arg.shown}"
            )
        dims = normalize_block_dims(value, what=f"{r.q}: {name}")
        if r.block_dims is not None and r.block_dims != dims:
            raise CoopLaunchConfigError(
                f"{r.q}: {name}={value!r} contradicts the launch's block {r.block_dims}{r.launch_where}"
            )
        r.block_dims = dims


#: The logical warp widths CUB's warp primitives take (powers of two up to the hardware warp).
WARP_WIDTHS = (1, 2, 4, 8, 16, 32)
HARDWARE_WARP = 32


@dataclass(frozen=True)
class LogicalWarp(Kind):
    """The width of the logical warps a warp primitive works on: a compile-time int of
    ``WARP_WIDTHS`` (no slot; a template argument). The block is split into consecutive logical
    warps of that many threads (in row-major thread order), so its thread count must be a multiple
    of it."""

    def check(self, r: Resolver, name: str, arg: Arg, default: object = None) -> None:
        value = default if arg.form is Form.ABSENT else arg.value
        if arg.form not in (Form.ABSENT, Form.CONSTANT) or not is_int(value):
            raise CoopTypeError(
                f"{r.q}: {name} must be a compile-time constant int "
                f"({', '.join(map(str, WARP_WIDTHS))}), got {arg.shown}"
            )
        if value not in WARP_WIDTHS:
            raise CoopValueError(
                f"{r.q}: {name}={value} is not a logical warp width; allowed: "
                f"{', '.join(map(str, WARP_WIDTHS))}"
            )
        r.record(name, str(value))

    def check_launch(self, r: Resolver, name: str) -> None:
        width = int(r.option(name))  # type: ignore[arg-type]
        if r.threads % width:
            raise CoopLaunchConfigError(
                f"{r.q}: {name}={width} needs a block of a multiple of {width} threads, the block has "
                f"{r.threads} {r.block_dims}{r.launch_where}; use a block of {width}*k threads or a "
                f"{name} that divides {r.threads}"
            )

    def template_arg(self, req: Request, name: str, given: bool) -> str | None:
        return str(req.option(name))


@dataclass(frozen=True)
class Constant(Kind):
    """A compile-time int among ``values`` (no slot; a template argument of the CUB class, such as
    BlockRadixSort's ``RADIX_BITS``)."""

    values: Sequence[int]

    def check(self, r: Resolver, name: str, arg: Arg, default: object = None) -> None:
        value = default if arg.form is Form.ABSENT else arg.value
        allowed = f"{self.values[0]}..{self.values[-1]}"
        if arg.form not in (Form.ABSENT, Form.CONSTANT) or not is_int(value):
            raise CoopTypeError(
                f"{r.q}: {name} must be a compile-time constant int ({allowed}), got {arg.shown}"
            )
        if value not in self.values:
            raise CoopValueError(f"{r.q}: {name}={value} is out of range; allowed: {allowed}")
        r.record(name, str(value))

    def template_arg(self, req: Request, name: str, given: bool) -> str | None:
        return str(req.option(name))


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
