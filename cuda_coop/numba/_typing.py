# SPDX-License-Identifier: Apache-2.0
"""Typing of the kernel-side API under Numba: Numba types -> validated provider requests."""

from __future__ import annotations

import inspect
from typing import Any

from cuda.coop._dtypes import DTYPES, supported_name
from cuda.coop._errors import CoopLaunchConfigError, CoopTypeError
from cuda.coop._primitives import TilePrimitive, check_items_per_thread, normalize_block_dims
from cuda.coop._requests import BlockTileRequest
from cuda.coop._session import current_context
from numba.cuda import types
from numba.cuda.typing.templates import AbstractTemplate, AttributeTemplate, Signature, signature

from ._types import AlgorithmEnumType, TempStorageType, ThreadDataType, temp_storage_type


def dtype_name(ty: types.Type, *, primitive: str, argument: str) -> str:
    """Our dtype name of a Numba scalar type, or CoopTypeError."""
    name = str(ty) if isinstance(ty, (types.Integer, types.Float)) else ""
    return supported_name(name, shown=ty, primitive=primitive, argument=argument)


def _literal(ty: types.Type) -> Any:
    """The compile-time value of a literal type, ``None`` for None/omitted, ``...`` otherwise."""
    if isinstance(ty, types.Omitted):
        return ty.value
    if isinstance(ty, types.NoneType):
        return None
    if isinstance(ty, types.Literal):
        return ty.literal_value
    return ...


def _positional_pysig(prim: TilePrimitive) -> inspect.Signature:
    """The declaration's signature with every parameter positional-or-keyword (Numba folds calls
    with it); keyword-only use is enforced by :func:`_bind`."""
    sig = prim.signature()
    return sig.replace(
        parameters=[p.replace(kind=inspect.Parameter.POSITIONAL_OR_KEYWORD) for p in sig.parameters.values()]
    )


def _bind(
    prim: TilePrimitive, args: tuple[types.Type, ...], kws: dict[str, types.Type]
) -> dict[str, types.Type]:
    try:
        bound = prim.signature().bind(*args, **kws)
    except TypeError as exc:
        raise CoopTypeError(f"{prim.qualname}: {exc}") from None
    return {p.name: bound.arguments.get(p.name, types.Omitted(p.default)) for p in prim.parameters}


def _block_dims(prim: TilePrimitive, tpb: types.Type) -> tuple[int, int, int] | None:
    ctx = current_context()
    from_launch = ctx.block_dims if ctx is not None else None
    value = _literal(tpb)
    if value is None:
        return from_launch
    if value is ... and isinstance(tpb, types.BaseTuple):
        value = tuple(_literal(t) for t in tpb)
    if value is ... or (isinstance(value, tuple) and ... in value):
        raise CoopTypeError(
            f"{prim.qualname}: threads_per_block must be a compile-time constant int or tuple, got {tpb}"
        )
    dims = normalize_block_dims(value, what=f"{prim.qualname}: threads_per_block")
    if from_launch is not None and from_launch != dims:
        raise CoopLaunchConfigError(
            f"{prim.qualname}: threads_per_block={value!r} contradicts the launch's block {from_launch}"
        )
    return dims


def tile_request(prim: TilePrimitive, bound: dict[str, types.Type]) -> BlockTileRequest:
    """Validate a typed call of a tile primitive and return its provider request."""
    q = prim.qualname
    arg = "src" if prim.direction == "load" else "dst"
    array, items = bound[arg], bound["items"]
    if not isinstance(items, ThreadDataType):
        raise CoopTypeError(f"{q}: items must be a coop.ThreadData created in the kernel, got {items}")
    if isinstance(array, ThreadDataType) or not isinstance(array, types.Array):
        raise CoopTypeError(f"{q}: {arg} must be a device array in global memory, got {array}")
    if array.ndim != 1 or array.layout != "C":
        raise CoopTypeError(
            f"{q}: {arg} must be a 1-D C-contiguous array, got {array}; pass a contiguous view "
            "(e.g. a.ravel())"
        )
    if prim.direction == "store" and not array.mutable:
        raise CoopTypeError(f"{q}: dst is read-only ({array})")
    offset = bound["offset"]
    if not isinstance(offset, (types.Integer, types.Omitted)):
        raise CoopTypeError(f"{q}: offset must be an integer, got {offset}")
    valid = bound["valid_items"]
    if not isinstance(valid, (types.Integer, types.Omitted, types.NoneType)):
        raise CoopTypeError(f"{q}: valid_items must be an integer, got {valid}")
    oob = bound.get("oob_default", types.Omitted(None))
    if not isinstance(oob, (types.Number, types.Omitted, types.NoneType)) or isinstance(oob, types.Boolean):
        raise CoopTypeError(f"{q}: oob_default must be a number, got {oob}")
    temp = bound["temp_storage"]
    if not isinstance(temp, (TempStorageType, types.Omitted, types.NoneType)):
        raise CoopTypeError(f"{q}: temp_storage must be a coop.TempStorage, got {temp}")
    algorithm = _literal(bound["algorithm"])
    if algorithm is ...:
        raise CoopTypeError(
            f"{q}: algorithm must be a compile-time constant (a string or BlockLoad/StoreAlgorithm), "
            f"got {bound['algorithm']}"
        )
    return prim.request(
        array_dtype=dtype_name(array.dtype, primitive=q, argument=arg),
        items_dtype=dtype_name(items.dtype, primitive=q, argument="items"),
        items_per_thread=items.items_per_thread,
        algorithm=algorithm,
        block_dims=_block_dims(prim, bound["threads_per_block"]),
        valid_items=_literal(valid),
        oob_default=_literal(oob),
        caller_temp_storage=isinstance(temp, TempStorageType),
    )


def tile_template(prim: TilePrimitive) -> type[AbstractTemplate]:
    """The typing template of one tile primitive's stub."""
    pysig = _positional_pysig(prim)
    n_positional = sum(1 for p in prim.parameters if not p.keyword_only)

    class TileTemplate(AbstractTemplate):
        key = prim.qualname
        prefer_literal = True

        def generic(self, args: tuple[types.Type, ...], kws: dict[str, types.Type]) -> Signature:
            if len(args) > n_positional:
                raise CoopTypeError(
                    f"{prim.qualname} takes {n_positional} positional arguments; pass the others by keyword"
                )
            bound = _bind(prim, args, dict(kws))
            tile_request(prim, bound)  # validates before any C++ is rendered
            return signature(types.none, *bound.values()).replace(pysig=pysig)

    TileTemplate.__name__ = f"Coop{prim.name.title()}Template"
    return TileTemplate


class ThreadDataTemplate(AbstractTemplate):
    """``coop.ThreadData(items_per_thread, dtype)``."""

    key = "coop.ThreadData"
    prefer_literal = True

    def generic(self, args: tuple[types.Type, ...], kws: dict[str, types.Type]) -> Signature:
        try:
            bound = inspect.signature(lambda items_per_thread, dtype: None).bind(*args, **kws)
        except TypeError as exc:
            raise CoopTypeError(f"coop.ThreadData: {exc}") from None
        n_ty, d_ty = bound.arguments["items_per_thread"], bound.arguments["dtype"]
        n = _literal(n_ty)
        if n is ... or n is None:
            raise CoopTypeError(
                f"coop.ThreadData: items_per_thread must be a compile-time constant int, got {n_ty}"
            )
        n = check_items_per_thread(n, primitive="coop.ThreadData")
        if isinstance(d_ty, (types.NumberClass, types.DType)):
            dtype = d_ty.dtype
        elif isinstance(d_ty, types.StringLiteral) and d_ty.literal_value in DTYPES:
            dtype = getattr(types, d_ty.literal_value)
        else:
            raise CoopTypeError(
                f"coop.ThreadData: dtype must be a scalar type such as numba.int32 or 'int32', got {d_ty}"
            )
        dtype_name(dtype, primitive="coop.ThreadData", argument="dtype")
        return signature(ThreadDataType(dtype, n), n_ty, d_ty)


class TempStorageTemplate(AbstractTemplate):
    """``coop.TempStorage()``."""

    key = "coop.TempStorage"

    def generic(self, args: tuple[types.Type, ...], kws: dict[str, types.Type]) -> Signature:
        if args or kws:
            raise CoopTypeError("coop.TempStorage() takes no arguments")
        return signature(temp_storage_type)


class AlgorithmMemberTemplate(AttributeTemplate):
    """``coop.BlockLoadAlgorithm.VECTORIZE`` in a kernel: the string literal ``'vectorize'``."""

    key = AlgorithmEnumType

    def generic_resolve(self, ty: AlgorithmEnumType, attr: str) -> types.Type | None:
        if attr in ty.cls.__members__:
            return types.literal(ty.cls[attr].value)
        return None
