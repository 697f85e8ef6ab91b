# SPDX-License-Identifier: Apache-2.0
"""Lowering of the kernel-side API under Numba: calls to the bundle's extern "C" wrappers.

Each kernel's code library gets one trace session; its bundle is attached as a lazily compiled
LTO-IR object, so all requests of the kernel are compiled by one NVRTC call when Numba links.
"""

from __future__ import annotations

import weakref
from typing import Any

from cuda.coop._primitives import TilePrimitive
from cuda.coop._session import TraceSession, current_context
from llvmlite import ir
from numba.cuda import cgutils, types
from numba.cuda.cudadrv.linkable_code import LTOIR

from . import _numba_hooks
from ._typing import _bind, tile_request

_I8P = ir.IntType(8).as_pointer()
_I32 = ir.IntType(32)


class LazyBundle(LTOIR):
    """The bundle of one kernel as a Numba linkable object, compiled when the linker reads it."""

    def __init__(self, session: TraceSession, arch: str | None) -> None:
        super().__init__(data=b"", name="cuda_coop_bundle")
        self.session = session
        self.arch = arch

    @property
    def data(self) -> bytes:  # type: ignore[override]
        arch = self.arch or _numba_hooks.current_device_arch()
        return self.session.finalize(arch).ltoir


_sessions: weakref.WeakKeyDictionary[Any, TraceSession] = weakref.WeakKeyDictionary()


def session_of(context: Any) -> TraceSession:
    """The trace session of the code library being lowered (created and attached on first use)."""
    library = context.active_code_library
    session = _sessions.get(library)
    if session is None:
        session = _sessions[library] = TraceSession()
        ctx = current_context()
        library.add_linking_file(LazyBundle(session, ctx.arch if ctx is not None else None))
    return session


def _declare(builder: ir.IRBuilder, symbol: str, ret: ir.Type, args: list[ir.Type]) -> ir.Function:
    return cgutils.get_or_insert_function(builder.module, ir.FunctionType(ret, args), symbol)


def _value(context: Any, builder: ir.IRBuilder, ty: types.Type, val: ir.Value, to: types.Type) -> ir.Value:
    """An argument as an LLVM value of type ``to`` (omitted ones take their declared default)."""
    if isinstance(ty, types.Omitted):
        return context.get_constant(to, ty.value)
    return context.cast(builder, val, ty, to)


def lower_tile(prim: TilePrimitive) -> Any:
    """Lowering of one tile primitive: a call to its wrapper with the uniform tile ABI."""

    def impl(context: Any, builder: ir.IRBuilder, sig: Any, args: list[ir.Value]) -> Any:
        names = [p.name for p in prim.parameters]
        tys = dict(zip(names, sig.args, strict=True))
        vals = dict(zip(names, args, strict=True))
        request = tile_request(prim, _bind(prim, (), tys))
        symbol = session_of(context).add(request)
        arg = "src" if prim.direction == "load" else "dst"
        aryty, array = tys[arg], context.make_array(tys[arg])(context, builder, vals[arg])
        offset = _value(context, builder, tys["offset"], vals["offset"], types.intp)
        gmem = builder.gep(array.data, [offset])
        items = context.make_array(tys["items"])(context, builder, vals["items"]).data
        valid = ir.Constant(_I32, 0)
        if request.partial:
            valid = _value(context, builder, tys["valid_items"], vals["valid_items"], types.int32)
        oob = ir.Constant(_I8P, None)
        if request.oob_default:
            slot = cgutils.alloca_once(builder, context.get_data_type(aryty.dtype))
            value = _value(context, builder, tys["oob_default"], vals["oob_default"], aryty.dtype)
            builder.store(value, slot)
            oob = builder.bitcast(slot, _I8P)
        temp = vals["temp_storage"] if request.caller_temp_storage else ir.Constant(_I8P, None)
        fn = _declare(builder, symbol, ir.VoidType(), [_I8P, _I8P, _I32, _I8P, _I8P])
        builder.call(fn, [builder.bitcast(gmem, _I8P), builder.bitcast(items, _I8P), valid, oob, temp])
        return context.get_dummy_value()

    return impl


def lower_thread_data(context: Any, builder: ir.IRBuilder, sig: Any, args: list[ir.Value]) -> Any:
    """``coop.ThreadData(n, dtype)``: an ``alloca [n x T]`` wrapped as a Numba array."""
    aryty = sig.return_type
    n = aryty.items_per_thread
    lltype = context.get_data_type(aryty.dtype)
    storage = cgutils.alloca_once(builder, ir.ArrayType(lltype, n), name="coop_thread_data")
    ary = context.make_array(aryty)(context, builder)
    itemsize = context.get_abi_sizeof(lltype)
    context.populate_array(
        ary,
        data=builder.bitcast(storage, lltype.as_pointer()),
        shape=[context.get_constant(types.intp, n)],
        strides=[context.get_constant(types.intp, itemsize)],
        itemsize=context.get_constant(types.intp, itemsize),
        meminfo=None,
    )
    return ary._getvalue()


def lower_temp_storage(context: Any, builder: ir.IRBuilder, sig: Any, args: list[ir.Value]) -> Any:
    """``coop.TempStorage()``: a pointer to one shared buffer defined by the bundle."""
    symbol = session_of(context).new_temp_storage()
    return builder.call(_declare(builder, symbol, _I8P, []), [])


def lower_algorithm_member(context: Any, builder: ir.IRBuilder, ty: Any, val: Any, attr: str) -> Any:
    """An algorithm enum member is its string value (only its type is read downstream)."""
    value = ty.cls[attr].value
    return context.get_constant_generic(builder, types.literal(value), value)
