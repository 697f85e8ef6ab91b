# SPDX-License-Identifier: Apache-2.0
"""Lowering of the kernel-side API under Numba: a planned call becomes a call to its bundle wrapper.

The plan comes from typing (the template's implementation key carries it). Arguments are passed by
slot shape: the lowering knows shapes, not primitives. Each code library gets one trace session;
its bundle is attached as a lazily compiled LTO-IR object, so all requests of a kernel are compiled
by one NVRTC call when Numba links.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from cuda.coop._backend_api import (
    BOOL,
    DTYPES,
    CoopTypeError,
    KernelAdapter,
    Plan,
    Request,
    TraceSession,
    UserFunction,
    current,
    dtype_named,
    emit_call,
    field_offsets,
    fields_of,
    python_function,
    temp_storage_symbol,
)
from llvmlite import ir
from numba.cuda import cgutils, types
from numba.cuda.typing.templates import signature

from .. import _numba_hooks
from .._numba_hooks import bundle_parts
from ._dsl import DSL, TYPING
from ._types import AlignedArrayType, ThreadDataType

_I8P = ir.IntType(8).as_pointer()
_I32 = ir.IntType(32)


def session_of(context: Any) -> TraceSession:
    """The trace session that the code library being lowered adds its requests to.

    Under a front-door kernel compile it is that compile's session: the kernel and every device
    helper compiled for it (transitively) make one bundle, one NVRTC call. Otherwise (a plain
    ``@cuda.jit`` kernel) each library has a session of its own. The bundle is attached to the library
    that Numba links, as a linking file."""
    session = _numba_hooks.library_session(context)
    if session is not None:
        return session
    compile_ = current()
    if compile_ is not None and compile_.session is not None:
        session = compile_.session
        bundle = session.attached.get("numba")
        if bundle is None:
            bundle = session.attached["numba"] = bundle_parts(session, compile_.arch, shared=True)
    else:
        session = TraceSession()
        bundle = bundle_parts(session, compile_.arch if compile_ is not None else None)
    _numba_hooks.attach_session(context, session, bundle)
    return session


class PlanKey:
    """The implementation key of one request: Numba lowers every call of that request through one
    registered implementation, which takes the plan of the call being compiled."""

    def __init__(self, request: Request) -> None:
        self.request = request
        self.plan: Plan | None = None

    def __repr__(self) -> str:
        return f"PlanKey({self.request.symbol})"


_keys: dict[Request, PlanKey] = {}


def impl_key(plan: Plan) -> PlanKey:
    """The implementation key of ``plan`` (registered with Numba's lowering on first use). Typing
    and lowering of one kernel run under Numba's compiler lock, so the key holds the plan of the
    call being compiled."""
    from numba.cuda.extending import lower_builtin

    key = _keys.get(plan.request)
    if key is None:
        key = _keys[plan.request] = PlanKey(plan.request)
        lower_builtin(key, types.VarArg(types.Any))(_lower(key))
    key.plan = plan
    return key


def _declare(builder: ir.IRBuilder, symbol: str, ret: ir.Type, args: list[ir.Type]) -> ir.Function:
    """The declaration of the bundle's function ``symbol``, ``convergent`` (see
    ``cuda.coop._render.BUNDLE_SYMBOL_PREFIX``)."""
    fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ret, args), symbol)
    fn.attributes.add("convergent")
    return fn


def _call_at_entry(builder: ir.IRBuilder, symbol: str) -> None:
    """Call ``symbol()`` at the entry of the function being lowered (the kernel's body, or a device
    function's), before any of its code."""
    fn = builder.function
    # At the very start: emitted after the entry block's argument unpacking and allocas, the call kept
    # NVVM from promoting the kernel's ThreadData to registers (local memory in the SASS). A builder of
    # its own, so that the lowering's builder stays where it is (Numba lowers no code into the entry
    # block, which holds the allocas and the arguments).
    assert builder.block is not fn.entry_basic_block, "coop: a call lowered into the entry block"
    entry = ir.IRBuilder(fn.entry_basic_block)
    entry.position_at_start(fn.entry_basic_block)
    entry.call(_declare(builder, symbol, ir.VoidType(), []), [])


def _assume_aligned(builder: ir.IRBuilder, pointer: ir.Value, align: int) -> None:
    """Tell LLVM that ``pointer`` is a multiple of ``align`` bytes: ``llvm.assume`` of its low bits
    being zero (the form LLVM's known-bits analysis reads, in NVVM's LLVM as in nvJitLink's)."""
    low = builder.and_(builder.ptrtoint(pointer, ir.IntType(64)), ir.Constant(ir.IntType(64), align - 1))
    fn = builder.module.declare_intrinsic("llvm.assume", fnty=ir.FunctionType(ir.VoidType(), [ir.IntType(1)]))
    builder.call(fn, [builder.icmp_unsigned("==", low, ir.Constant(ir.IntType(64), 0))])


def _aligned(context: Any, alloca: ir.AllocaInstr, dtype: str | None) -> ir.AllocaInstr:
    """``alloca`` aligned as the C++ type that the bundle's wrapper takes it for (libcu++'s complex
    numbers are aligned to their size, Numba's {float, float} only to a float's; a struct as C
    aligns it, Numba's record bytes not at all), at least."""
    if dtype in DTYPES or (dtype and fields_of(dtype)):
        natural = context.get_abi_alignment(alloca.allocated_type)
        alloca.align = max(alloca.align or 0, natural, dtype_named(dtype).alignment)
    return alloca


def _spill(context: Any, builder: ir.IRBuilder, ty: types.Type, val: ir.Value, dtype: str) -> ir.Value:
    """A scalar argument (or a constant) as a pointer to one value of ``dtype``."""
    target = TYPING.numba_type(dtype)
    slot = _aligned(
        context, cgutils.alloca_once(builder, context.get_data_type(target), name="coop_value"), dtype
    )
    builder.store(context.cast(builder, val, ty, target), slot)
    return builder.bitcast(slot, _I8P)


def thread_data(context: Any, builder: ir.IRBuilder, aryty: ThreadDataType, storage: ir.Value) -> Any:
    """A Numba array value over ``storage`` (an ``alloca [n x T]``), typed as a ThreadData."""
    lltype = context.get_data_type(aryty.dtype)
    ary = context.make_array(aryty)(context, builder)
    itemsize = context.get_abi_sizeof(lltype)
    context.populate_array(
        ary,
        data=builder.bitcast(storage, lltype.as_pointer()),
        shape=[context.get_constant(types.intp, aryty.items_per_thread)],
        strides=[context.get_constant(types.intp, itemsize)],
        itemsize=context.get_constant(types.intp, itemsize),
        meminfo=None,
    )
    return ary._getvalue()


def _storage(context: Any, builder: ir.IRBuilder, dtype: str, items: int) -> ir.Value:
    """Fresh storage for ``items`` items of ``dtype`` (a struct's: C's layout and alignment)."""
    lltype = context.get_data_type(TYPING.numba_type(dtype))
    return _aligned(
        context, cgutils.alloca_once(builder, ir.ArrayType(lltype, items), name="coop_result"), dtype
    )


def _copy_fields(context: Any, builder: ir.IRBuilder, src: ir.Value, dst: ir.Value, dtype: str) -> None:
    """Copy a struct of ``dtype`` field by field, each a load and a store of its own type (a copy
    of its bytes as one ``[n x i8]`` would leave SROA slices of bytes, not registers of fields)."""
    src, dst = builder.bitcast(src, _I8P), builder.bitcast(dst, _I8P)
    for field, offset in zip(fields_of(dtype), field_offsets(fields_of(dtype)), strict=True):
        ptr = context.get_data_type(TYPING.numba_type(field)).as_pointer()
        at = [ir.Constant(_I32, offset)]
        value = builder.load(builder.bitcast(builder.gep(src, at), ptr))
        builder.store(value, builder.bitcast(builder.gep(dst, at), ptr))


def _record_copy(context: Any, builder: ir.IRBuilder, val: ir.Value, dtype: str) -> ir.Value:
    """A record (a pointer to its bytes) copied to storage aligned as its C struct (a record's bytes
    may lie at any address Numba chose; CUB reads the struct's fields at their alignment)."""
    storage = _storage(context, builder, dtype, 1)
    _copy_fields(context, builder, val, storage, dtype)
    return builder.bitcast(storage, _I8P)


def _field_results(context: Any, builder: ir.IRBuilder, slot: Any, storage: list[ir.Value]) -> ir.Value:
    """A result of a struct type as the kernel sees it: a tuple of scalars, or of ThreadData."""
    fields = slot.fields
    if slot.scalar:
        zero = [ir.Constant(_I32, 0), ir.Constant(_I32, 0)]
        members = [builder.load(builder.gep(p, zero)) for p in storage]
        return context.make_tuple(builder, TYPING.numba_type(slot.dtype), members)
    members = [
        thread_data(context, builder, ThreadDataType(TYPING.numba_type(f), slot.items), p)
        for f, p in zip(fields, storage, strict=True)
    ]
    return context.make_tuple(builder, TYPING.items_type(slot.dtype, slot.items), members)


def define_operator(context: Any, module: ir.Module, op: UserFunction) -> None:
    """Define ``void symbol(R* out, const T* a, const T* b)`` in the kernel's module: the user's
    function (an operator or a comparator) compiled by Numba for ``T``, called through the C ABI the
    bundle declares (a comparator's bool is stored as one byte, 0 or 1)."""
    if op.symbol in module.globals:
        return
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [_I8P, _I8P, _I8P]), op.symbol)
    builder = ir.IRBuilder(fn.append_basic_block("entry"))
    result_ty = types.boolean if op.result == BOOL else TYPING.numba_type(op.result)
    if op.records:  # a record is passed around as a pointer to its bytes (the C struct): the
        # function gets pointers to copies of its own, so that whichever it returns (or reads) only
        # these escape, and CUB's structs stay in registers
        ty = TYPING.records[op.records]
        a, b = (
            builder.bitcast(_record_copy(context, builder, arg, op.dtype), context.get_value_type(ty))
            for arg in fn.args[1:]
        )
    else:
        ty = TYPING.numba_type(op.dtype)
        ptr = context.get_data_type(ty).as_pointer()
        a = builder.load(builder.bitcast(fn.args[1], ptr))
        b = builder.load(builder.bitcast(fn.args[2], ptr))
    fields = fields_of(op.dtype)
    what = "two records" if op.records else "two such tuples"
    # an operator on records may also return one of them (a record: its fields are copied)
    returns = [result_ty, ty] if op.records and op.result != BOOL else [result_ty]
    failure = None
    for result_ty in returns:
        sig = signature(result_ty, ty, ty)
        try:
            # No caching: Numba's cache keys on the code object, and two operators may share one.
            cres = context.compile_subroutine(builder, python_function(op.function), sig, caching=False)
            break
        except Exception as exc:
            failure = exc
    else:
        if not fields:
            raise failure  # type: ignore[misc]
        name = getattr(op.function, "__qualname__", repr(op.function))
        also = " (or one of the records)" if op.records else ""
        raise CoopTypeError(
            f"the operator {name!r} must return a tuple of {len(fields)} values ({', '.join(fields)}){also} "
            f"for {what}; Numba could not compile it so: {' '.join(str(failure).split())[:300]}"
        ) from None
    _status, result = context.call_internal_no_propagate(builder, cres.fndesc, sig, [a, b])
    out = builder.bitcast(fn.args[0], context.get_data_type(result_ty).as_pointer())
    if isinstance(result_ty, types.Record):  # a record (one of the two, or any): its fields
        _copy_fields(context, builder, result, out, op.dtype)
    else:
        builder.store(context.get_value_as_data(builder, result_ty, result), out)
    builder.ret_void()


class Val(NamedTuple):
    """An argument as Numba lowers it: its Numba type and its LLVM value."""

    ty: Any
    val: Any


class NumbaCall(KernelAdapter):
    """How Numba spells one call's values for :func:`emit_call`: (type, LLVM value) pairs, ``i8*``
    pointers, LLVM IR emitted with the lowering's builder."""

    name = "numba"

    def __init__(self, context: Any, builder: ir.IRBuilder, sig: Any, session: TraceSession) -> None:
        self.context, self.builder, self.sig, self.session = context, builder, sig, session

    def function_key(self) -> Any:
        return self.builder.function

    def absent(self, v: Val | None) -> bool:
        return v is None or isinstance(v.ty, (types.Omitted, types.NoneType))

    def members(self, v: Val) -> list[Val] | None:
        if not isinstance(v.ty, types.BaseTuple):
            return None
        return [Val(t, self.builder.extract_value(v.val, k)) for k, t in enumerate(v.ty)]

    def is_items(self, v: Val) -> bool:
        return isinstance(v.ty, ThreadDataType)

    def index(self, v: Val | None) -> ir.Value:
        if v is None:  # the primitive has no offset parameter
            return self.context.get_constant(types.intp, 0)
        if isinstance(v.ty, types.Omitted):
            return self.context.get_constant(types.intp, v.ty.value)
        return self.context.cast(self.builder, v.val, v.ty, types.intp)

    def array_tile(self, v: Val, offset: ir.Value, strided: bool) -> tuple[ir.Value, int]:
        assert not strided, "coop: Numba arrays are passed contiguous"  # _typing's Args have stride 1
        array = self.context.make_array(v.ty)(self.context, self.builder, v.val)
        if isinstance(v.ty, AlignedArrayType):  # the launch checked it: let CUB's checks fold
            _assume_aligned(self.builder, array.data, v.ty.align)
        return self.builder.bitcast(self.builder.gep(array.data, [offset]), _I8P), 1

    def items_pointer(self, v: Val) -> ir.Value:
        return self.builder.bitcast(
            self.context.make_array(v.ty)(self.context, self.builder, v.val).data, _I8P
        )

    def value_pointer(self, v: Val, dtype: str) -> ir.Value:
        if isinstance(v.ty, types.Record):  # a record value: its fields, copied aligned
            return _record_copy(self.context, self.builder, v.val, dtype)
        return _spill(self.context, self.builder, v.ty, v.val, dtype)

    def new_items(self, dtype: str, items: int) -> tuple[ir.Value, ir.Value]:
        storage = _storage(self.context, self.builder, dtype, items)
        return storage, self.builder.bitcast(storage, _I8P)

    def int32(self, v: Val | int) -> ir.Value:
        if isinstance(v, int):
            return ir.Constant(_I32, v)
        return self.context.cast(self.builder, v.val, v.ty, types.int32)

    def scratch(self, v: Val) -> tuple[int | None, ir.Value]:
        # an exclusive TempStorage's slot, whose slices the session hands out; a shared one's base
        slot = self.session.temp_storage_slot(v.ty) if v.ty.sharing == "exclusive" else None
        return slot, v.val

    def call_pointer(self, symbol: str) -> ir.Value:
        return self.builder.call(_declare(self.builder, symbol, _I8P, []), [])

    def call_at_entry(self, symbol: str) -> None:
        _call_at_entry(self.builder, symbol)

    def define_operator(self, op: UserFunction) -> None:
        define_operator(self.context, self.builder.module, op)

    def extern_call(self, symbol: str, args: list[ir.Value], is_int: list[bool]) -> None:
        fn = _declare(self.builder, symbol, ir.VoidType(), [_I32 if i else _I8P for i in is_int])
        self.builder.call(fn, args)

    def result(self, slot: Any, storage: Any, records: str) -> Any:
        context, builder = self.context, self.builder
        if isinstance(storage, list):
            return _field_results(context, builder, slot, storage)
        if not slot.scalar:
            return thread_data(context, builder, TYPING.slot_type(slot, records), storage)
        first = builder.gep(storage, [ir.Constant(_I32, 0), ir.Constant(_I32, 0)])
        if slot.packed:  # a record: a pointer to its bytes
            return builder.bitcast(first, context.get_value_type(TYPING.slot_type(slot, records)))
        return builder.load(first)

    def returns(self, results: list[Any]) -> Any:
        if not results:
            return self.context.get_dummy_value()
        if len(results) == 1:
            return results[0]
        return self.context.make_tuple(self.builder, self.sig.return_type, results)


def _lower(key: PlanKey) -> Any:
    def impl(context: Any, builder: ir.IRBuilder, sig: Any, args: list[ir.Value]) -> Any:
        plan = key.plan
        assert plan is not None and plan.request == key.request
        names = [p.name for p in plan.primitive.params]
        values = {n: Val(t, v) for n, t, v in zip(names, sig.args, args, strict=True)}
        session = session_of(context)
        return emit_call(plan, session, values, NumbaCall(context, builder, sig, session))

    return impl


def lower_thread_data(context: Any, builder: ir.IRBuilder, sig: Any, args: list[ir.Value]) -> Any:
    """``coop.ThreadData(n, dtype)``: an ``alloca [n x T]`` wrapped as a Numba array."""
    aryty = sig.return_type
    lltype = context.get_data_type(aryty.dtype)
    storage = cgutils.alloca_once(
        builder, ir.ArrayType(lltype, aryty.items_per_thread), name="coop_thread_data"
    )
    # a record's bytes (as Numba holds records) aligned as C's struct
    record = isinstance(aryty.dtype, types.Record)
    _aligned(context, storage, TYPING.record_dtype(aryty.dtype)[0] if record else DSL.dtype_name(aryty.dtype))
    return thread_data(context, builder, aryty, storage)


def lower_temp_storage(context: Any, builder: ir.IRBuilder, sig: Any, args: list[ir.Value]) -> Any:
    """``coop.TempStorage(...)``: a pointer to one shared buffer defined by the bundle (one per call
    site of the kernel's session)."""
    ty = sig.return_type  # one type per TempStorage() call site: the key of its slot
    slot = session_of(context).new_temp_storage(0, ty.sharing, key=ty)
    return builder.call(_declare(builder, temp_storage_symbol(slot), _I8P, []), [])


def lower_algorithm_member(context: Any, builder: ir.IRBuilder, ty: Any, val: Any, attr: str) -> Any:
    """A choice enum member is a string constant (only its type is read downstream)."""
    member = ty.cls[attr]
    return context.get_constant_generic(builder, types.StringLiteral(member), member)
