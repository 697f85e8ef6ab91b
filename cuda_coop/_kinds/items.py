# SPDX-License-Identifier: Apache-2.0
"""The kinds of the primitive's items and of values of their type: the payload (a ThreadData, a
scalar, a shared-memory tile, items paired with their index), the indices, a (value, index) pair,
one value of the element type and further ThreadData."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from .._dims import is_int
from .._dtypes import DTYPES, REAL_DTYPES, dtype_named, fields_of, is_complex, run_items, tuple_name
from .._errors import CoopTypeError, CoopValueError
from ._common import (
    INT32_MAX,
    Arg,
    Form,
    Kind,
    Shape,
    Slot,
    _integer_scalar,
    _note_records,
    _refuse_wide,
    _supported_item,
    _wider_than_64_bits,
    records_tag,
)

if TYPE_CHECKING:
    from .._primitive import Resolver

from .._requests import Request


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
        # striped or in runs: item i of the thread of rank t among T at ((i / v) * T + t) * v + i % v;
        # in a cluster, of the block's part (coop_rank: block, thread), after the earlier blocks' parts
        if req.cluster_dims is None:
            rank, group, part = "coop_rank", "coop_group_threads", ""
        else:
            threads = math.prod(req.block_dims)
            rank, group, part = (
                f"coop_rank % {threads}",
                str(threads),
                f"coop_rank / {threads} * {threads * n} + ",
            )
        if v == n:
            index = f"coop_rank * {n} + {name}_at"
        elif v == 1:
            index = f"{part}{rank} + {group} * {name}_at"
        else:
            index = f"{part}({name}_at / {v} * {group} + {rank}) * {v} + {name}_at % {v}"
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
