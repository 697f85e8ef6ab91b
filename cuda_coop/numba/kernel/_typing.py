# SPDX-License-Identifier: Apache-2.0
"""Typing of the kernel-side API under Numba: one template for every catalog row.

Numba types describe each argument as a backend-neutral ``Arg``; the row resolves the call into a
plan (its request) once, here; lowering reuses that plan through the implementation key.
"""

from __future__ import annotations

import inspect
from dataclasses import replace
from typing import Any

import numpy as np
from cuda.coop._backend_api import (
    DTYPES,
    Arg,
    CoopTypeError,
    Form,
    Launch,
    Plan,
    Primitive,
    Slot,
    TempStorageUse,
    builtin_alias,
    check_items_per_thread,
    current,
    current_call_site,
    field_offsets,
    fields_of,
    supported_name,
    temp_storage_options,
    tuple_dtype,
    tuple_name,
)

from ._barriers import call_argument, temp_storage_use
from ._dsl import (
    FRONT_DOOR,
    AbstractTemplate,
    AttributeTemplate,
    Signature,
    bfloat16,
    plan_carrying_template,
    signature,
    types,
)
from ._types import AlgorithmEnumType, PythonFunctionType, TempStorageType, ThreadDataType, dtype_name

_UNKNOWN_DIMS = (
    "the kernel's block dimensions are unknown. Compile the kernel through the backend "
    f"({FRONT_DOOR}.jit, or {FRONT_DOOR}.compile(..., block=...)) so they come from the "
    "launch, or pass threads_per_block= explicitly"
)
_NO_CLUSTER = (
    f"launch it through {FRONT_DOOR}.jit with kernel.configure(grid, block, cluster=(n, 1, 1)) or "
    "kernel.prepare(grid, block, *args, cluster=...), "
    f"or compile it with {FRONT_DOOR}.compile(..., cluster=...)"
)


#: The record types of the kernels compiled so far, by the name their Args carry (``Arg.records``):
#: results and operators of a call on records are typed with its record type.
RECORDS: dict[str, types.Record] = {}


def record_dtype(ty: types.Record) -> tuple[str | None, str]:
    """(our structured type of a NumPy record type, or None; why it cannot be used, or ""). Its
    fields must be two or more of our scalar types laid out as C lays out a struct of them."""
    fields = [dtype_name(t) for _name, t in ty.members]
    if len(fields) < 2:
        return None, f"is a record of one field ({ty}); use the field's type"
    if not all(fields):
        return None, f"is a record with a field that is not one of {', '.join(DTYPES)} ({ty})"
    offsets = tuple(ty.offset(name) for name, _t in ty.members)
    want, size = field_offsets(fields), tuple_dtype(fields).itemsize  # type: ignore[arg-type]
    if offsets != want or ty.size != size:
        return None, (
            f"is a record laid out as C does not lay out its fields (offsets {list(offsets)}, {ty.size} "
            f"bytes; C: {list(want)}, {size} bytes); make its dtype with np.dtype([...], align=True)"
        )
    RECORDS[str(ty)] = ty
    return tuple_name(fields), ""


def _records_arg(ty: types.Record, form: Form, shown: str, items: int = 0, writable: bool = True) -> Arg:
    dtype, problem = record_dtype(ty)
    return Arg(form, shown, dtype, str(ty), items, problem=problem, writable=writable, records=str(ty))


def numba_type(dtype: str) -> types.Type:
    """The Numba type of one of our element types (a field list: the tuple of its fields' types)."""
    fields = fields_of(dtype)
    if fields:
        return types.Tuple([numba_type(f) for f in fields])
    return bfloat16 if dtype == "bfloat16" else getattr(types, dtype)


def items_type(dtype: str, items: int) -> types.Type:
    """The Numba type of ``items`` items of ``dtype`` per thread: a ThreadData, or for a field list
    a tuple of ThreadData, one per field (structs of arrays, as the kernel holds them)."""
    fields = fields_of(dtype)
    if fields:
        return types.Tuple([ThreadDataType(numba_type(f), items) for f in fields])
    return ThreadDataType(numba_type(dtype), items)


def _array_arg(ty: types.Array) -> Arg:
    problem = ""
    if ty.ndim != 1 or ty.layout != "C":
        problem = f"must be a 1-D C-contiguous array, got {ty}; pass a contiguous view (e.g. a.ravel())"
    if isinstance(ty.dtype, types.Record):  # an array of structs
        arg = _records_arg(ty.dtype, Form.ARRAY, str(ty), writable=ty.mutable)
        return arg if arg.problem else replace(arg, problem=problem)
    return Arg(Form.ARRAY, str(ty), dtype_name(ty.dtype), str(ty.dtype), problem=problem, writable=ty.mutable)


_NESTED = "a tuple of tuples: structured items are one flat tuple, one ThreadData (or value) per field"


def _tuple_arg(ty: types.BaseTuple) -> Arg | None:
    """A tuple of ThreadData (equal items per thread), of scalars or of arrays (one per field) as
    items of a field list."""
    shown = str(ty)
    if any(isinstance(t, types.BaseTuple) for t in ty):
        return Arg(Form.OTHER, shown, problem=_NESTED)
    if len(ty) >= 2 and all(isinstance(t, types.Array) and not isinstance(t, ThreadDataType) for t in ty):
        arrays = [_array_arg(t) for t in ty]
        problem = next((f"[{k}] {a.problem}" for k, a in enumerate(arrays) if a.problem), "")
        writable = all(a.writable for a in arrays)
        dtype = tuple_name([a.dtype for a in arrays])
        return Arg(Form.ARRAY, shown, dtype, shown, problem=problem, writable=writable)
    if len(ty) >= 2 and all(isinstance(t, ThreadDataType) for t in ty):
        counts = {t.items_per_thread for t in ty}
        dtype = tuple_name([dtype_name(t.dtype) for t in ty])
        problem = (
            ""
            if len(counts) == 1
            else (f"its ThreadData have {sorted(counts)} items per thread; a tuple of items needs them equal")
        )
        return Arg(Form.THREAD_DATA, shown, dtype, shown, min(counts), problem=problem)
    if len(ty) >= 2 and all(isinstance(t, types.Number) for t in ty):  # an int literal is an int64
        return Arg(Form.SCALAR, shown, tuple_name([dtype_name(types.unliteral(t)) for t in ty]), shown)
    return None


def _constant(ty: types.Type) -> object:
    """The compile-time value of a literal type (tuples of literals too), or ``...``."""
    if isinstance(ty, types.Literal):
        return ty.literal_value
    if isinstance(ty, types.BaseTuple) and all(isinstance(t, types.IntegerLiteral) for t in ty):
        return tuple(t.literal_value for t in ty)
    return ...


def literal_as_value(ty: types.Type) -> types.Type:
    """An integer literal (or a tuple with some) as the value Numba makes of it outside a call: an
    int64, as ``x = 1`` types ``x``; a float constant is a float64 already. Anything else as it is."""
    if isinstance(ty, types.IntegerLiteral) or (
        isinstance(ty, types.BaseTuple)
        and any(isinstance(t, types.IntegerLiteral) for t in ty)
        and all(isinstance(t, types.Number) for t in ty)
    ):
        return types.unliteral(ty)
    return ty


def arg_of(ty: types.Type) -> Arg:
    """What a Numba type says about an argument, for the catalog's kinds."""
    shown = str(ty)
    if isinstance(ty, types.Omitted):
        return Arg(Form.ABSENT)
    if isinstance(ty, types.NoneType):
        return Arg(Form.NONE, "None")
    if isinstance(ty, ThreadDataType) and isinstance(ty.dtype, types.Record):
        return _records_arg(ty.dtype, Form.THREAD_DATA, shown, ty.items_per_thread)
    if isinstance(ty, ThreadDataType):
        return Arg(Form.THREAD_DATA, shown, dtype_name(ty.dtype), str(ty.dtype), ty.items_per_thread)
    if isinstance(ty, types.Record):  # one record (a struct value)
        return _records_arg(ty, Form.SCALAR, shown)
    if isinstance(ty, types.Array):
        return _array_arg(ty)
    value = _constant(ty)
    if value is not ...:
        return Arg(Form.CONSTANT, shown, value=value)
    if isinstance(ty, types.BaseTuple):
        arg = _tuple_arg(ty)
        if arg is not None:
            return arg
    if isinstance(ty, types.Number):
        return Arg(Form.SCALAR, shown, dtype_name(ty), shown)
    if isinstance(ty, types.Boolean):
        return Arg(Form.SCALAR, shown, None, shown, truth=True)
    if isinstance(ty, TempStorageType):
        return Arg(Form.TEMP_STORAGE, shown, value=TempStorageUse(ty.sharing, ty.auto_sync))
    if isinstance(ty, PythonFunctionType):
        return Arg(Form.FUNCTION, shown, function=ty.function)
    if isinstance(ty, types.Dispatcher):
        return Arg(Form.FUNCTION, shown, function=ty.dispatcher)
    if isinstance(ty, types.Function) and builtin_alias(ty.typing_key) is not None:
        # operator.add, np.maximum, min...: another spelling of a built-in operator (the kind says which)
        return Arg(Form.FUNCTION, shown, function=ty.typing_key)
    return Arg(Form.OTHER, shown)


def _launch() -> Launch:
    compile_ = current()
    if compile_ is None:
        return Launch(None, _UNKNOWN_DIMS, no_cluster=_NO_CLUSTER)
    return Launch(
        compile_.block_dims, _UNKNOWN_DIMS, cluster_dims=compile_.cluster_dims, no_cluster=_NO_CLUSTER
    )


def slot_type(slot: Slot, records: str = "") -> types.Type:
    """The Numba type of what a result slot holds: a value or a ThreadData (a tuple of them for
    fields; records of ``records``, the call's record type, for structs held as structs)."""
    if slot.packed:
        return RECORDS[records] if slot.scalar else ThreadDataType(RECORDS[records], slot.items)
    return numba_type(slot.dtype) if slot.scalar else items_type(slot.dtype, slot.items)


def return_type(plan: Plan) -> types.Type:
    """The Numba type of what a planned call returns (None, one value, or a tuple)."""
    values = [slot_type(s, plan.records) for s in plan.returns]
    if not values:
        return types.none
    return values[0] if len(values) == 1 else types.Tuple(values)


def primitive_template(prim: Primitive, impl_key: Any) -> type[AbstractTemplate]:
    """The typing template of one catalog row. ``impl_key(plan)`` gives the implementation key
    under which the plan is lowered (Numba stores it per signature for the lowering)."""
    sig = prim.signature()
    pysig = sig.replace(
        parameters=[p.replace(kind=inspect.Parameter.POSITIONAL_OR_KEYWORD) for p in sig.parameters.values()],
        return_annotation=inspect.Signature.empty,
    )

    names = [p.name for p in prim.params]

    def _arg_of(name: str, ty: types.Type) -> Arg:
        if isinstance(ty, TempStorageType):  # what the kernel's IR says of this call's use of it
            use = temp_storage_use(name, names, ty.sharing, ty.auto_sync)
            return Arg(Form.TEMP_STORAGE, str(ty), value=use)
        return arg_of(ty)

    def generic(args: tuple[types.Type, ...], kws: dict[str, types.Type]) -> tuple[Signature, Plan]:
        bound = prim.bind(args, kws)
        if prim.payload.name in bound:  # items given as a literal (``exclusive_sum(1)``): a value
            bound[prim.payload.name] = literal_as_value(bound[prim.payload.name])
        plan = prim.resolve({name: _arg_of(name, ty) for name, ty in bound.items()}, _launch())
        full = [bound.get(p.name, types.Omitted(p.default)) for p in prim.params]
        return signature(return_type(plan), *full).replace(pysig=pysig), plan

    name = f"Coop{prim.name.title().replace('_', '')}Template"
    return plan_carrying_template(name, prim.qualname, generic, impl_key)


def _thread_data_signature(items_per_thread: object, dtype: object) -> None:
    """The signature of ``coop.ThreadData`` (folded by Numba for keyword calls)."""


class ThreadDataTemplate(AbstractTemplate):
    """``coop.ThreadData(items_per_thread, dtype)``."""

    key = "coop.ThreadData"
    prefer_literal = True
    _pysig = inspect.signature(_thread_data_signature)

    def generic(self, args: tuple[types.Type, ...], kws: dict[str, types.Type]) -> Signature:
        try:
            bound = self._pysig.bind(*args, **kws)
        except TypeError as exc:
            raise CoopTypeError(f"coop.ThreadData: {exc}") from None
        n_ty, d_ty = bound.arguments["items_per_thread"], bound.arguments["dtype"]
        n = _constant(n_ty)
        if n is ...:  # an expression of constants, which Numba types as a runtime int: fold it
            n = call_argument(0, "items_per_thread")
        if n is ... or not isinstance(n, (int, np.integer)) or isinstance(n, bool):
            raise CoopTypeError(
                "coop.ThreadData: items_per_thread must be a compile-time constant int: an int literal "
                "(4), a module-level or closure int (ITEMS), or arithmetic of them (2 * ITEMS); got "
                f"{n_ty}, computed at run time"
            )
        n = int(n)
        n = check_items_per_thread(n, primitive="coop.ThreadData")
        if isinstance(d_ty, (types.NumberClass, types.DType)):
            dtype = d_ty.dtype
        elif isinstance(d_ty, types.StringLiteral) and d_ty.literal_value in DTYPES:
            dtype = numba_type(d_ty.literal_value)
        else:
            raise CoopTypeError(
                "coop.ThreadData: dtype must be a scalar type such as numba.int32 or 'int32', or a NumPy "
                f"record dtype, got {d_ty}"
            )
        if isinstance(dtype, types.Record):
            problem = record_dtype(dtype)[1]
            if problem:
                raise CoopTypeError(f"coop.ThreadData: dtype {problem}")
        else:
            supported_name(dtype_name(dtype), shown=dtype, primitive="coop.ThreadData", argument="dtype")
        return signature(ThreadDataType(dtype, n), n_ty, d_ty).replace(pysig=self._pysig)


class TempStorageTemplate(AbstractTemplate):
    """``coop.TempStorage(sharing="shared", auto_sync=False)``: one type per call site."""

    key = "coop.TempStorage"
    prefer_literal = True
    _pysig = inspect.signature(temp_storage_options)

    def generic(self, args: tuple[types.Type, ...], kws: dict[str, types.Type]) -> Signature:
        try:
            bound = self._pysig.bind(*args, **kws)
        except TypeError as exc:
            raise CoopTypeError(f"coop.TempStorage: {exc}") from None
        values = {name: _constant(ty) for name, ty in bound.arguments.items()}
        sharing, auto_sync = temp_storage_options(**values)
        result = TempStorageType(sharing, auto_sync, current_call_site())
        full = [
            bound.arguments.get(name, types.Omitted(p.default)) for name, p in self._pysig.parameters.items()
        ]
        return signature(result, *full).replace(pysig=self._pysig)


class AlgorithmMemberTemplate(AttributeTemplate):
    """``coop.BlockLoadAlgorithm.VECTORIZE`` in a kernel: a string literal whose value is the member
    itself (so that a member of another primitive's enum is told apart)."""

    key = AlgorithmEnumType

    def generic_resolve(self, ty: AlgorithmEnumType, attr: str) -> types.Type | None:
        if attr in ty.cls.__members__:
            return types.StringLiteral(ty.cls[attr])
        return None
