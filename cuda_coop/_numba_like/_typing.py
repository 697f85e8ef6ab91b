# SPDX-License-Identifier: Apache-2.0
"""Typing of the kernel-side API under a Numba-like DSL: one template for every catalog row
(:class:`Typing` of a ``Dsl``).

The DSL's types describe each argument as a backend-neutral ``Arg``; the row resolves the call into
a plan (its request) once, here; lowering reuses that plan (numba-cuda through the implementation
key, numba-cuda-mlir by resolving it again from the argument types).
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

from ._barriers import Barriers
from ._dsl import Dsl

_NESTED = "a tuple of tuples: structured items are one flat tuple, one ThreadData (or value) per field"


def _thread_data_signature(items_per_thread: object, dtype: object) -> None:
    """The signature of ``coop.ThreadData`` (folded by Numba for keyword calls)."""


class Typing:
    """The typing of coop calls over one DSL: its types as ``Arg`` s, the template of every catalog
    row, and those of ``coop.ThreadData``, ``coop.TempStorage`` and the choice enums' members."""

    def __init__(self, dsl: Dsl, barriers: Barriers) -> None:
        self.dsl = dsl
        self.barriers = barriers
        front_door = dsl.front_door
        self._unknown_dims = (
            "the kernel's block dimensions are unknown. Compile the kernel through the backend "
            f"({front_door}.jit, or {front_door}.compile(..., block=...)) so they come from the "
            "launch, or pass threads_per_block= explicitly"
        )
        self._no_cluster = (
            f"launch it through {front_door}.jit with kernel.configure(grid, block, cluster=(n, 1, 1)) "
            "or kernel.prepare(grid, block, *args, cluster=...), "
            f"or compile it with {front_door}.compile(..., cluster=...)"
        )
        #: The record types of the kernels compiled so far, by the name their Args carry
        #: (``Arg.records``): results and operators of a call on records are typed with its record type.
        self.records: dict[str, Any] = {}
        self.ThreadDataTemplate, self.TempStorageTemplate, self.AlgorithmMemberTemplate = _templates(self)

    def record_dtype(self, ty: Any) -> tuple[str | None, str]:
        """(our structured type of a NumPy record type, or None; why it cannot be used, or ""). Its
        fields must be two or more of our scalar types laid out as C lays out a struct of them."""
        fields = [self.dsl.dtype_name(t) for _name, t in ty.members]
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
        self.records[str(ty)] = ty
        return tuple_name(fields), ""

    def _records_arg(self, ty: Any, form: Form, shown: str, items: int = 0, writable: bool = True) -> Arg:
        dtype, problem = self.record_dtype(ty)
        return Arg(form, shown, dtype, str(ty), items, problem=problem, writable=writable, records=str(ty))

    def numba_type(self, dtype: str) -> Any:
        """The Numba type of one of our element types (a field list: the tuple of its fields' types)."""
        types = self.dsl.types
        fields = fields_of(dtype)
        if fields:
            return types.Tuple([self.numba_type(f) for f in fields])
        return self.dsl.bfloat16 if dtype == "bfloat16" else getattr(types, dtype)

    def items_type(self, dtype: str, items: int) -> Any:
        """The Numba type of ``items`` items of ``dtype`` per thread: a ThreadData, or for a field list
        a tuple of ThreadData, one per field (structs of arrays, as the kernel holds them)."""
        types = self.dsl.types
        fields = fields_of(dtype)
        if fields:
            return types.Tuple([self.dsl.ThreadDataType(self.numba_type(f), items) for f in fields])
        return self.dsl.ThreadDataType(self.numba_type(dtype), items)

    def _array_arg(self, ty: Any) -> Arg:
        types = self.dsl.types
        problem = ""
        if ty.ndim != 1 or ty.layout != "C":
            problem = f"must be a 1-D C-contiguous array, got {ty}; pass a contiguous view (e.g. a.ravel())"
        if isinstance(ty.dtype, types.Record):  # an array of structs
            arg = self._records_arg(ty.dtype, Form.ARRAY, str(ty), writable=ty.mutable)
            return arg if arg.problem else replace(arg, problem=problem)
        return Arg(
            Form.ARRAY,
            str(ty),
            self.dsl.dtype_name(ty.dtype),
            str(ty.dtype),
            problem=problem,
            writable=ty.mutable,
        )

    def _tuple_arg(self, ty: Any) -> Arg | None:
        """A tuple of ThreadData (equal items per thread), of scalars or of arrays (one per field) as
        items of a field list."""
        types = self.dsl.types
        shown = str(ty)
        if any(isinstance(t, types.BaseTuple) for t in ty):
            return Arg(Form.OTHER, shown, problem=_NESTED)
        if len(ty) >= 2 and all(
            isinstance(t, types.Array) and not isinstance(t, self.dsl.ThreadDataType) for t in ty
        ):
            arrays = [self._array_arg(t) for t in ty]
            problem = next((f"[{k}] {a.problem}" for k, a in enumerate(arrays) if a.problem), "")
            writable = all(a.writable for a in arrays)
            dtype = tuple_name([a.dtype for a in arrays])
            return Arg(Form.ARRAY, shown, dtype, shown, problem=problem, writable=writable)
        if len(ty) >= 2 and all(isinstance(t, self.dsl.ThreadDataType) for t in ty):
            counts = {t.items_per_thread for t in ty}
            dtype = tuple_name([self.dsl.dtype_name(t.dtype) for t in ty])
            unequal = (
                f"its ThreadData have {sorted(counts)} items per thread; a tuple of items needs them equal"
            )
            problem = "" if len(counts) == 1 else unequal
            return Arg(Form.THREAD_DATA, shown, dtype, shown, min(counts), problem=problem)
        if len(ty) >= 2 and all(isinstance(t, types.Number) for t in ty):  # an int literal is an int64
            return Arg(
                Form.SCALAR, shown, tuple_name([self.dsl.dtype_name(types.unliteral(t)) for t in ty]), shown
            )
        return None

    def _constant(self, ty: Any) -> object:
        """The compile-time value of a literal type (tuples of literals too), or ``...``."""
        types = self.dsl.types
        if isinstance(ty, types.Literal):
            return ty.literal_value
        if isinstance(ty, types.BaseTuple) and all(isinstance(t, types.IntegerLiteral) for t in ty):
            return tuple(t.literal_value for t in ty)
        return ...

    def literal_as_value(self, ty: Any) -> Any:
        """An integer literal (or a tuple with some) as the value Numba makes of it outside a call: an
        int64, as ``x = 1`` types ``x``; a float constant is a float64 already. Anything else as it is."""
        types = self.dsl.types
        if isinstance(ty, types.IntegerLiteral) or (
            isinstance(ty, types.BaseTuple)
            and any(isinstance(t, types.IntegerLiteral) for t in ty)
            and all(isinstance(t, types.Number) for t in ty)
        ):
            return types.unliteral(ty)
        return ty

    def arg_of(self, ty: Any) -> Arg:
        """What a Numba type says about an argument, for the catalog's kinds."""
        types = self.dsl.types
        shown = str(ty)
        if isinstance(ty, types.Omitted):
            return Arg(Form.ABSENT)
        if isinstance(ty, types.NoneType):
            return Arg(Form.NONE, "None")
        if isinstance(ty, self.dsl.ThreadDataType) and isinstance(ty.dtype, types.Record):
            return self._records_arg(ty.dtype, Form.THREAD_DATA, shown, ty.items_per_thread)
        if isinstance(ty, self.dsl.ThreadDataType):
            return Arg(
                Form.THREAD_DATA, shown, self.dsl.dtype_name(ty.dtype), str(ty.dtype), ty.items_per_thread
            )
        if isinstance(ty, types.Record):  # one record (a struct value)
            return self._records_arg(ty, Form.SCALAR, shown)
        if isinstance(ty, types.Array):
            return self._array_arg(ty)
        value = self._constant(ty)
        if value is not ...:
            return Arg(Form.CONSTANT, shown, value=value)
        if isinstance(ty, types.BaseTuple):
            arg = self._tuple_arg(ty)
            if arg is not None:
                return arg
        if isinstance(ty, types.Number):
            return Arg(Form.SCALAR, shown, self.dsl.dtype_name(ty), shown)
        if isinstance(ty, types.Boolean):
            return Arg(Form.SCALAR, shown, None, shown, truth=True)
        if isinstance(ty, self.dsl.TempStorageType):
            return Arg(Form.TEMP_STORAGE, shown, value=TempStorageUse(ty.sharing, ty.auto_sync))
        if isinstance(ty, self.dsl.PythonFunctionType):
            return Arg(Form.FUNCTION, shown, function=ty.function)
        if isinstance(ty, types.Dispatcher):
            return Arg(Form.FUNCTION, shown, function=ty.dispatcher)
        if isinstance(ty, types.Function) and builtin_alias(ty.typing_key) is not None:
            # operator.add, np.maximum, min...: another spelling of a built-in operator (the kind says which)
            return Arg(Form.FUNCTION, shown, function=ty.typing_key)
        return Arg(Form.OTHER, shown)

    def _launch(self) -> Launch:
        compile_ = current()
        if compile_ is None:
            return Launch(None, self._unknown_dims, no_cluster=self._no_cluster)
        return Launch(
            compile_.block_dims,
            self._unknown_dims,
            cluster_dims=compile_.cluster_dims,
            no_cluster=self._no_cluster,
        )

    def slot_type(self, slot: Slot, records: str = "") -> Any:
        """The Numba type of what a result slot holds: a value or a ThreadData (a tuple of them for
        fields; records of ``records``, the call's record type, for structs held as structs)."""
        if slot.packed:
            return (
                self.records[records]
                if slot.scalar
                else self.dsl.ThreadDataType(self.records[records], slot.items)
            )
        return self.numba_type(slot.dtype) if slot.scalar else self.items_type(slot.dtype, slot.items)

    def return_type(self, plan: Plan) -> Any:
        """The Numba type of what a planned call returns (None, one value, or a tuple)."""
        types = self.dsl.types
        values = [self.slot_type(s, plan.records) for s in plan.returns]
        if not values:
            return types.none
        return values[0] if len(values) == 1 else types.Tuple(values)

    def primitive_template(self, prim: Primitive, impl_key: Any) -> type:
        """The typing template of one catalog row. ``impl_key(plan)`` gives the implementation key
        under which the plan is lowered (Numba stores it per signature for the lowering)."""
        types = self.dsl.types
        sig = prim.signature()
        pysig = sig.replace(
            parameters=[
                p.replace(kind=inspect.Parameter.POSITIONAL_OR_KEYWORD) for p in sig.parameters.values()
            ],
            return_annotation=inspect.Signature.empty,
        )

        names = [p.name for p in prim.params]

        def _arg_of(name: str, ty: Any) -> Arg:
            if isinstance(ty, self.dsl.TempStorageType):  # what the kernel's IR says of this call's use of it
                use = self.barriers.temp_storage_use(name, names, ty.sharing, ty.auto_sync)
                return Arg(Form.TEMP_STORAGE, str(ty), value=use)
            return self.arg_of(ty)

        def generic(args: tuple[Any, ...], kws: dict[str, Any]) -> tuple[Any, Plan]:
            bound = prim.bind(args, kws)
            if prim.payload.name in bound:  # items given as a literal (``exclusive_sum(1)``): a value
                bound[prim.payload.name] = self.literal_as_value(bound[prim.payload.name])
            plan = prim.resolve({name: _arg_of(name, ty) for name, ty in bound.items()}, self._launch())
            full = [bound.get(p.name, types.Omitted(p.default)) for p in prim.params]
            return self.dsl.signature(self.return_type(plan), *full).replace(pysig=pysig), plan

        name = f"Coop{prim.name.title().replace('_', '')}Template"
        return self.dsl.plan_carrying_template(name, prim.qualname, generic, impl_key)


def _templates(typing: Typing) -> tuple[type, type, type]:
    """The templates of ``coop.ThreadData``, ``coop.TempStorage`` and the choice enums' members, over
    ``typing``'s DSL (the backend sets the first two's ``key`` to the objects they type)."""
    dsl = typing.dsl
    types = dsl.types

    class ThreadDataTemplate(dsl.AbstractTemplate):  # type: ignore[misc, name-defined]
        """``coop.ThreadData(items_per_thread, dtype)``."""

        key = "coop.ThreadData"
        prefer_literal = True
        _pysig = inspect.signature(_thread_data_signature)

        def generic(self, args: tuple[Any, ...], kws: dict[str, Any]) -> Any:
            try:
                bound = self._pysig.bind(*args, **kws)
            except TypeError as exc:
                raise CoopTypeError(f"coop.ThreadData: {exc}") from None
            n_ty, d_ty = bound.arguments["items_per_thread"], bound.arguments["dtype"]
            n = typing._constant(n_ty)
            if n is ...:  # an expression of constants, which Numba types as a runtime int: fold it
                n = typing.barriers.call_argument(0, "items_per_thread")
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
                dtype = typing.numba_type(d_ty.literal_value)
            else:
                raise CoopTypeError(
                    "coop.ThreadData: dtype must be a scalar type such as numba.int32 or 'int32', or a NumPy "
                    f"record dtype, got {d_ty}"
                )
            if isinstance(dtype, types.Record):
                problem = typing.record_dtype(dtype)[1]
                if problem:
                    raise CoopTypeError(f"coop.ThreadData: dtype {problem}")
            else:
                supported_name(
                    dsl.dtype_name(dtype), shown=dtype, primitive="coop.ThreadData", argument="dtype"
                )
            return dsl.signature(dsl.ThreadDataType(dtype, n), n_ty, d_ty).replace(pysig=self._pysig)

    class TempStorageTemplate(dsl.AbstractTemplate):  # type: ignore[misc, name-defined]
        """``coop.TempStorage(sharing="shared", auto_sync=False)``: one type per call site."""

        key = "coop.TempStorage"
        prefer_literal = True
        _pysig = inspect.signature(temp_storage_options)

        def generic(self, args: tuple[Any, ...], kws: dict[str, Any]) -> Any:
            try:
                bound = self._pysig.bind(*args, **kws)
            except TypeError as exc:
                raise CoopTypeError(f"coop.TempStorage: {exc}") from None
            values = {name: typing._constant(ty) for name, ty in bound.arguments.items()}
            sharing, auto_sync = temp_storage_options(**values)
            result = dsl.TempStorageType(sharing, auto_sync, current_call_site())
            full = [
                bound.arguments.get(name, types.Omitted(p.default))
                for name, p in self._pysig.parameters.items()
            ]
            return dsl.signature(result, *full).replace(pysig=self._pysig)

    class AlgorithmMemberTemplate(dsl.AttributeTemplate):  # type: ignore[misc, name-defined]
        """``coop.BlockLoadAlgorithm.VECTORIZE`` in a kernel: a string literal whose value is the member
        itself (so that a member of another primitive's enum is told apart)."""

        key = dsl.AlgorithmEnumType

        def generic_resolve(self, ty: Any, attr: str) -> Any:
            if attr in ty.cls.__members__:
                return types.StringLiteral(ty.cls[attr])
            return None

    for template in (ThreadDataTemplate, TempStorageTemplate, AlgorithmMemberTemplate):
        template.__qualname__ = template.__name__
    return ThreadDataTemplate, TempStorageTemplate, AlgorithmMemberTemplate
