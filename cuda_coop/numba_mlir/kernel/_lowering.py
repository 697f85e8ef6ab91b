# SPDX-License-Identifier: Apache-2.0
"""Lowering of the kernel-side API under numba-cuda-mlir: a coop call becomes an MLIR call of its
bundle wrapper, through the core's slot ladder (``emit_call``) and :class:`MlirCall`.

numba-cuda-mlir calls a lowering as ``(lower, target, args, kws)``: ``lower`` is the function's
``MLIRLower``, the others are Numba IR variables. The plan is resolved again from the argument
types (numba-cuda-mlir does not ask a template for an implementation key). Each kernel's requests
go to one trace session, whose bundle is one link item, compiled by one NVRTC call when
numba-cuda-mlir links the kernel by LTO.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from cuda.coop._backend_api import (
    CoopBackendError,
    KernelAdapter,
    Primitive,
    TraceSession,
    current,
    dtype_named,
    emit_call,
    temp_storage_symbol,
)
from numba_cuda_mlir._mlir import ir
from numba_cuda_mlir._mlir.dialects import arith, func, llvm, memref
from numba_cuda_mlir._mlir.extras import types as T
from numba_cuda_mlir.lowering_utilities import (
    convert,
    get_or_insert_function,
    get_type_size_bytes,
    llvm_ptr_add_bytes,
    memref_data_pointer,
)

from .. import _ncm_hooks
from ._dsl import DSL, TYPING, types
from ._operators import define_struct_entry, operator_ltoir
from ._types import ThreadDataType


class Val(NamedTuple):
    """An argument as numba-cuda-mlir lowers it: its Numba type and its IR variable (or, for a
    tuple's member, its value)."""

    ty: Any
    var: Any
    value: Any = None


def session_of(lower: Any) -> TraceSession:
    """The trace session the function being lowered adds its requests to: a front-door compile's
    (the kernel and its helpers make one bundle), or, for a plain numba-cuda-mlir kernel, one of its
    own."""

    def make() -> tuple[TraceSession, Any]:
        compile_ = current()
        if compile_ is not None and compile_.session is not None:
            session = compile_.session
            bundle = session.attached.get("numba_mlir")
            if bundle is None:
                bundle = session.attached["numba_mlir"] = _ncm_hooks.bundle_parts(session, compile_.arch)
            return session, bundle
        # a plain numba-cuda-mlir kernel (its calls name threads_per_block=): a session of its own,
        # for the architecture numba-cuda-mlir compiles it for
        session = TraceSession()
        return session, _ncm_hooks.bundle_parts(session, _ncm_hooks.lowering_arch(lower))

    return _ncm_hooks.lowering_session(lower, make)


def _ptr() -> ir.Type:
    return llvm.PointerType.get()


def _declare(symbol: str, fty: ir.FunctionType, module: Any) -> Any:
    """The declaration of the bundle's function ``symbol`` in ``module``, ``convergent`` (see
    ``cuda.coop._render.BUNDLE_SYMBOL_PREFIX``; func-to-llvm carries the attribute to the
    ``llvm.func``, and numba-cuda-mlir's LLVM 7 bridge below sm_100 drops it: docs/numba_mlir.rst)."""
    callee = get_or_insert_function(symbol, fty, module)
    callee.attributes["llvm.convergent"] = ir.UnitAttr.get()
    return callee


class MlirCall(KernelAdapter):
    """How numba-cuda-mlir spells one call's values for ``emit_call``: (Numba type, IR variable)
    pairs, loaded when a slot needs them; pointers as ``!llvm.ptr``; MLIR ops built at the
    lowering's insertion point."""

    name = "numba_mlir"

    def __init__(self, lower: Any, target: Any) -> None:
        self.lower, self.target = lower, target

    def _load(self, v: Val) -> Any:
        return v.value if v.var is None else self.lower.load_var(v.var)

    def function_key(self) -> Any:
        return self.lower.mlir_funcOp

    def absent(self, v: Val | None) -> bool:
        return v is None or isinstance(v.ty, (types.Omitted, types.NoneType))

    def members(self, v: Val) -> list[Any] | None:
        if not isinstance(v.ty, types.BaseTuple):
            return None
        values = self._load(v)  # numba-cuda-mlir holds a tuple as the Python tuple of its members
        return [Val(t, None, m) for t, m in zip(v.ty, values, strict=True)]

    def is_items(self, v: Val) -> bool:
        return isinstance(v.ty, ThreadDataType)

    def index(self, v: Val | None) -> Any:
        if v is None:  # the primitive has no offset parameter
            return arith.constant(T.i64(), 0)
        if isinstance(v.ty, types.IntegerLiteral):
            return arith.constant(T.i64(), v.ty.literal_value)
        return convert(self._load(v), T.i64())

    def array_tile(self, v: Val, offset: Any, strided: bool) -> tuple[Any, int]:
        assert not strided, "coop: numba-cuda-mlir arrays are passed contiguous"
        array = self._load(v)
        base = memref_data_pointer(array)
        itemsize = get_type_size_bytes(ir.MemRefType(array.type).element_type)
        return llvm_ptr_add_bytes(base, arith.muli(offset, arith.constant(T.i64(), itemsize))), 1

    def items_pointer(self, v: Val) -> Any:
        return memref_data_pointer(self._load(v))

    def value_pointer(self, v: Val, dtype: str) -> Any:
        target = TYPING.numba_type(dtype)
        lower = self.lower
        value = self._load(v)
        if v.ty != target:
            value = lower.lower_cast(v.ty, target, value)
        # a one-item memref, not an llvm.alloca: llvm.store takes no MLIR complex<...> value
        slot, pointer = self.new_items(dtype, 1)
        index = arith.constant(ir.IndexType.get(), 0)
        memref.store(lower.as_storage(target, value), slot, [index])  # float16: its i16 bits; bool: an i8
        return pointer

    def new_items(self, dtype: str, items: int) -> tuple[Any, Any]:
        storage = self.lower.get_storage_type(TYPING.numba_type(dtype))
        with self.lower.alloca_insertion_point():
            mr = memref.alloca(
                ir.MemRefType.get([items], storage), [], [], alignment=dtype_named(dtype).alignment
            )
        return mr, memref_data_pointer(mr)

    def int32(self, v: Val | int) -> Any:
        if isinstance(v, int):
            return arith.constant(T.i32(), v)
        if isinstance(v.ty, types.IntegerLiteral):
            return arith.constant(T.i32(), v.ty.literal_value)
        return convert(self._load(v), T.i32())

    def scratch(self, v: Val) -> tuple[int | None, Any]:
        # an exclusive TempStorage's slot, whose slices the session hands out; a shared one's base
        slot = session_of(self.lower).temp_storage_slot(v.ty) if v.ty.sharing == "exclusive" else None
        return slot, self._load(v)

    def call_pointer(self, symbol: str) -> Any:
        callee = _declare(symbol, ir.FunctionType.get([], [_ptr()]), self.lower.mlir_gpu_module)
        return func.call([_ptr()], callee.name.value, [])

    def call_at_entry(self, symbol: str) -> None:
        callee = _declare(symbol, ir.FunctionType.get([], []), self.lower.mlir_gpu_module)
        with ir.InsertionPoint.at_block_begin(self.lower.mlir_funcOp.entry_block):
            func.call([], callee.name.value, [])

    def define_operator(self, op: Any) -> None:
        if op.records:
            raise CoopBackendError("operators on NumPy records are not yet supported by numba-cuda-mlir")
        session = session_of(self.lower)
        if session.first(("numba_mlir.operator", op.symbol)):
            _ncm_hooks.link_item(self.lower, operator_ltoir(op))
            define_struct_entry(self.lower.mlir_gpu_module, op)

    def extern_call(self, symbol: str, args: list[Any], is_int: list[bool]) -> None:
        fty = ir.FunctionType.get([T.i32() if i else _ptr() for i in is_int], [])
        callee = _declare(symbol, fty, self.lower.mlir_gpu_module)
        func.call([], callee.name.value, args)

    def _item0(self, storage: Any, dtype: str) -> Any:
        """Item 0 of thread-private ``storage`` as a value of ``dtype``: numba-cuda-mlir stores some
        types as another (float16 and bfloat16 as i16, bool as i8) and converts on load."""
        raw = memref.load(storage, [arith.constant(ir.IndexType.get(), 0)])
        return self.lower.from_storage(TYPING.numba_type(dtype), raw)

    def result(self, slot: Any, storage: Any, records: str) -> Any:
        if slot.packed:
            raise CoopBackendError("NumPy record items are not yet supported by the numba-cuda-mlir backend")
        if isinstance(storage, list):  # a struct type: the tuple of its fields'
            if not slot.scalar:
                return tuple(storage)
            return tuple(self._item0(s, f) for s, f in zip(storage, slot.fields, strict=True))
        if slot.scalar:
            return self._item0(storage, slot.dtype)
        return storage

    def returns(self, results: list[Any]) -> Any:
        if results:
            self.lower.store_var(self.target, results[0] if len(results) == 1 else tuple(results))
        return None


def lower_call(prim: Primitive, stub: Any) -> Any:
    """The lowering of every call of ``prim`` (registered on its stub)."""
    names = [p.name for p in prim.params]

    def impl(lower: Any, target: Any, args: list[Any], kws: list[tuple[str, Any]]) -> None:
        given = dict(zip(names, args, strict=False)) | dict(kws)
        values = {name: Val(lower.get_numba_type(var.name), var) for name, var in given.items()}
        arg_types = tuple(values[n].ty for n in names[: len(args)])
        kw_types = {n: values[n].ty for n, _ in kws}
        _sig, plan = _ncm_hooks.GENERICS[stub](arg_types, kw_types)
        if plan.records:
            raise CoopBackendError(
                f"{prim.qualname}: NumPy record items are not yet supported by the numba-cuda-mlir backend; "
                "pass a tuple of items, one per field (coop.ThreadData per field), instead"
            )
        emit_call(plan, session_of(lower), values, MlirCall(lower, target))

    return impl


def lower_thread_data(lower: Any, target: Any, args: list[Any], kws: list[tuple[str, Any]]) -> None:
    """``coop.ThreadData(n, dtype)``: ``n`` items in thread-private memory (a static memref)."""
    ty = lower.get_numba_type(target.name)
    storage = lower.get_storage_type(ty.dtype)
    name = DSL.dtype_name(ty.dtype)
    if name is None:  # typing let it through: a NumPy record type
        raise CoopBackendError(
            f"coop.ThreadData of {ty.dtype}: NumPy record items are not yet supported by the numba-cuda-mlir "
            "backend; make one ThreadData per field and pass them as a tuple"
        )
    alignment = dtype_named(name).alignment
    with lower.alloca_insertion_point():
        mr = memref.alloca(ir.MemRefType.get([ty.items_per_thread], storage), [], [], alignment=alignment)
    lower.store_var(target, mr)


def lower_temp_storage(lower: Any, target: Any, args: list[Any], kws: list[tuple[str, Any]]) -> None:
    """``coop.TempStorage(...)``: a pointer to one shared buffer the bundle defines (one per call
    site of the kernel's session)."""
    ty = lower.get_numba_type(target.name)  # one type per TempStorage() call site: its slot's key
    slot = session_of(lower).new_temp_storage(0, ty.sharing, key=ty)
    callee = _declare(temp_storage_symbol(slot), ir.FunctionType.get([], [_ptr()]), lower.mlir_gpu_module)
    lower.store_var(target, func.call([_ptr()], callee.name.value, []))
