# SPDX-License-Identifier: Apache-2.0
"""The CUTLASS backend's kernel side: a coop call made while CuTe traces a kernel is resolved by its
catalog row into a plan, recorded in the session of the compile in progress, and emitted as a call
to the bundle's ``extern "C"`` wrapper. Arguments are passed by slot shape; nothing here names a
primitive."""

from __future__ import annotations

import inspect
import numbers
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

from cuda.coop._backend_api import (
    BOOL,
    CATALOG,
    DTYPES,
    Arg,
    CoopBackendError,
    CoopTypeError,
    Form,
    KernelAdapter,
    Launch,
    Plan,
    Primitive,
    TempStorageUse,
    TraceSession,
    check_items_per_thread,
    current,
    emit_call,
    fields_of,
    is_complex,
    supported_name,
    temp_storage_options,
    temp_storage_symbol,
    tuple_name,
)

from . import _barriers, _cute_hooks

_installed = False
_ARRAY_NOUN = "a CuTe global-memory tensor or pointer"


def activate() -> None:
    """Check that the DSL offers every hook the bridge needs (nothing is patched into it)."""
    global _installed
    if _installed:
        return
    import cutlass.cute  # noqa: F401  (the DSL must import)

    _cute_hooks.check()
    _installed = True


def primitive_added(row: Primitive) -> None:
    """Nothing to do: calls are looked up in the catalog as CuTe traces them."""


def intercept(qualname: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[bool, Any]:
    """Handle a kernel-side call made while CuTe traces a kernel; otherwise (False, None)."""
    traced = _cute_hooks.launch_block_dims()
    if traced is None:
        return False, None
    dims, kernel = traced
    if qualname == "coop.ThreadData":
        try:
            bound = inspect.signature(thread_data).bind(*args, **kwargs)
        except TypeError as exc:
            raise CoopTypeError(f"coop.ThreadData: {exc}") from None
        return True, thread_data(**bound.arguments)
    compile_ = current()
    session = compile_.session if compile_ is not None else None
    if session is None:
        raise CoopBackendError(
            f"{qualname} in CuTe kernel {kernel!r}: compile the @cute.jit function that launches it "
            "with cuda.coop.cutlass.compile(host, *args), which links the CUB bundle into it"
        )
    if qualname == "coop.TempStorage":
        try:
            bound = inspect.signature(temp_storage_options).bind(*args, **kwargs)
        except TypeError as exc:
            raise CoopTypeError(f"coop.TempStorage: {exc}") from None
        sharing, auto_sync = temp_storage_options(**bound.arguments)
        slot = session.new_temp_storage(session.scratch_group(kernel), sharing)
        base = _cute_hooks.call_returning_pointer(temp_storage_symbol(slot))
        return True, TempStorage(base, slot, sharing, auto_sync)
    prim = CATALOG.get(qualname.removeprefix("coop."))
    if prim is None:
        return False, None
    return True, call(prim, session, dims, kernel, args, kwargs)


@dataclass(frozen=True)
class TempStorage:
    """``coop.TempStorage()`` in a CuTe kernel: a pointer to a shared buffer the bundle defines, its
    slot in the session and its options."""

    pointer: Any
    slot: int = 0
    sharing: str = "shared"
    auto_sync: bool = False


def dtype_name(dtype: Any) -> str | None:
    """Our element-type name of a CuTe numeric type (``cutlass.Int32`` -> ``int32``), or None."""
    name = dtype if isinstance(dtype, str) else getattr(dtype, "__name__", str(dtype)).lower()
    return name if name in DTYPES else None


#: Why a complex number cannot be an element type in CuTe, and how to spell one instead.
_NO_COMPLEX = (
    "CuTe DSL has no complex numeric type: spell a complex number as the 2-tuple (re, im) of one float "
    "type (two register tensors, e.g. (coop.ThreadData(n, cutlass.Float32), coop.ThreadData(n, "
    "cutlass.Float32)), or two numerics), and combine pairs with the built-in operators 'sum', "
    "'subtract' and 'complex_mul' (the complex product) or a function of two pairs"
)


def _refuse_complex(primitive: str, bound: dict[str, Any]) -> None:
    """A Python (or NumPy) complex number passed to a coop call in CuTe: a typed error naming the
    argument and the 2-tuple spelling."""
    for name, value in bound.items():
        values = value if isinstance(value, tuple) else (value,)
        if any(isinstance(v, numbers.Complex) and not isinstance(v, numbers.Real) for v in values):
            raise CoopTypeError(
                f"{primitive}: {name} must be a number or a tuple of numbers, got {value!r}, a complex "
                f"number; {_NO_COMPLEX}"
            )


def cutlass_type(name: str) -> Any:
    """The CuTe numeric type of one of our element types (CoopTypeError for a complex one)."""
    import cutlass

    if is_complex(name):
        raise CoopTypeError(f"{name}: {_NO_COMPLEX}")

    return {
        "uint8": cutlass.Uint8,
        "uint16": cutlass.Uint16,
        "uint32": cutlass.Uint32,
        "uint64": cutlass.Uint64,
        "bfloat16": cutlass.BFloat16,
    }.get(name) or getattr(cutlass, name.capitalize())


def thread_data(items_per_thread: Any, dtype: Any) -> Any:
    """``coop.ThreadData(n, dtype)`` in a CuTe kernel: a 1-D register tensor of ``n`` items."""
    import cutlass.cute as cute

    n = check_items_per_thread(items_per_thread, primitive="coop.ThreadData")
    name = supported_name(dtype_name(dtype), shown=dtype, primitive="coop.ThreadData", argument="dtype")
    if is_complex(name):
        raise CoopTypeError(f"coop.ThreadData: dtype={name}: {_NO_COMPLEX}")
    return cute.make_rmem_tensor(cute.make_layout(n), cutlass_type(name))


def _tensor_arg(value: Any) -> Arg:
    import cutlass.cute as cute
    from cutlass.cute import AddressSpace

    dtype, shown = dtype_name(value.element_type), str(value.element_type)
    memory = {AddressSpace.gmem: "global", AddressSpace.smem: "shared"}.get(value.memspace, "")
    if value.memspace == AddressSpace.rmem:
        size = cute.size(value)
        compact = value.stride in (1, (1,)) or size == 1  # a 1-item layout is 1:0
        problem = ""
        if not isinstance(size, int) or cute.rank(value) != 1 or not compact:
            problem = f"a compact 1-D register tensor of static size is needed, got layout {value.layout}"
        items = size if isinstance(size, int) else 0
        return Arg(
            Form.THREAD_DATA, f"a tensor in rmem ({value.layout})", dtype, shown, items, problem=problem
        )
    problem, stride = "", 1
    if not memory:
        problem = f"must be a tensor in global or shared memory, got one in {value.memspace.name}"
    else:
        # Size-1 modes dropped and contiguous modes merged: a tile of one row, tensor[row, None], a
        # contiguous tile of a 2-D tensor are 1-D with unit stride; a column is 1-D strided.
        flat = cute.coalesce(value.layout)
        inner = _view_stride(flat)
        if (cute.rank(flat) != 1 or isinstance(inner, tuple)) and not _compact(value.layout):
            problem = (
                f"must be 1-D once size-1 modes are dropped and contiguous modes merged, got layout "
                f"{value.layout} (coalesced: {flat}); pass one row or a contiguous tile, e.g. tensor[row, "
                "None] or cute.local_tile(tensor, (1, TILE), (row, 0)), or the whole tensor with offset="
            )
        elif cute.rank(flat) == 1 and not _is_one(cute.size(flat)) and not _is_one(inner):
            stride = inner if isinstance(inner, int) else ...
    return Arg(
        Form.ARRAY,
        f"a tensor in {value.memspace.name} ({value.layout})",
        dtype,
        shown,
        problem=problem,
        memory=memory,
        stride=stride,
    )


def _is_one(value: Any) -> bool:
    """Whether a layout's size or stride is statically 1 (a dynamic one, traced, is not known to be;
    comparing it would stage a runtime boolean)."""
    return isinstance(value, int) and value == 1


def _view_stride(flat: Any) -> Any:
    """The stride of a coalesced layout's one mode (an int or a traced value), or the stride tuple of
    a layout with more modes."""
    stride = flat.stride
    return stride[0] if isinstance(stride, tuple) and len(stride) == 1 else stride


def _leaves(shape: Any, stride: Any) -> list[tuple[Any, Any]]:
    if isinstance(shape, tuple):
        return [leaf for sh, st in zip(shape, stride, strict=True) for leaf in _leaves(sh, st)]
    return [(shape, stride)]


def _compact(layout: Any) -> bool:
    """Whether a static layout covers one contiguous range in some order of its modes (a whole
    row-major 2-D tensor): its items are then addressed in memory order from the tensor's start."""
    modes = [(sh, st) for sh, st in _leaves(layout.shape, layout.stride) if not _is_one(sh)]
    if not all(isinstance(sh, int) and isinstance(st, int) for sh, st in modes):
        return False
    expected = 1
    for sh, st in sorted(modes, key=lambda m: m[1]):
        if st != expected:
            return False
        expected *= sh
    return True


def arg_of(value: Any) -> Arg:
    """What a traced value says about an argument, for the catalog's kinds."""
    import cutlass.cute as cute
    from cutlass import Numeric
    from cutlass.cute import AddressSpace

    if value is None:
        return Arg(Form.NONE, "None")
    if isinstance(value, (bool, int, float, str, Enum)):
        return Arg(Form.CONSTANT, repr(value), value=value)
    if isinstance(value, tuple) and all(isinstance(v, (int, float)) for v in value):
        return Arg(Form.CONSTANT, repr(value), value=value)  # block dims, or a struct's constant
    if isinstance(value, tuple) and len(value) >= 2:
        arg = _tuple_arg(value)
        if arg is not None:
            return arg
    if isinstance(value, TempStorage):
        return Arg(
            Form.TEMP_STORAGE, "coop.TempStorage", value=TempStorageUse(value.sharing, value.auto_sync)
        )
    if isinstance(value, cute.Tensor):
        return _tensor_arg(value)
    if isinstance(value, cute.Pointer):
        memory = {AddressSpace.gmem: "global", AddressSpace.smem: "shared"}.get(value.memspace, "")
        problem = "" if memory else f"must point to global or shared memory, got {value.memspace.name}"
        return Arg(
            Form.ARRAY,
            f"a pointer to {value.memspace.name}",
            dtype_name(value.dtype),
            str(value.dtype),
            problem=problem,
            memory=memory,
        )
    if isinstance(value, Numeric):
        kind = type(value).__name__
        return Arg(Form.SCALAR, f"{kind} value", dtype_name(type(value)), kind, truth=kind == "Boolean")
    if callable(value):
        return Arg(Form.FUNCTION, getattr(value, "__qualname__", repr(value)), function=value)
    return Arg(Form.OTHER, repr(value))


def _tuple_arg(value: tuple[Any, ...]) -> Arg | None:
    """A tuple of register tensors (equal sizes) or of CuTe numerics as items of a field list."""
    from cutlass import Numeric

    if any(isinstance(v, tuple) for v in value):
        nested = (
            "a tuple of tuples: structured items are one flat tuple, one register tensor (or value) per field"
        )
        return Arg(Form.OTHER, repr(value), problem=nested)
    args = [arg_of(v) for v in value]
    shown = f"a tuple ({', '.join(a.shown for a in args)})"
    dtype = tuple_name([a.dtype for a in args])
    if all(a.form is Form.ARRAY for a in args):  # one array per field
        problem = next((f"[{k}] {a.problem}" for k, a in enumerate(args) if a.problem), "")
        memory = next((m for m in ("shared", "global") if any(a.memory == m for a in args)), "")
        stride = 1 if all(a.stride == 1 for a in args) else ...
        return Arg(Form.ARRAY, shown, dtype, shown, problem=problem, memory=memory, stride=stride)
    if all(a.form is Form.THREAD_DATA for a in args):
        counts = sorted({a.items for a in args})
        problem = next((a.problem for a in args if a.problem), "")
        if len(counts) > 1:
            problem = f"its register tensors have {counts} items; a tuple of items needs them equal"
        return Arg(Form.THREAD_DATA, shown, dtype, shown, counts[0], problem=problem)
    if all(isinstance(v, Numeric) for v in value):
        return Arg(Form.SCALAR, shown, dtype, shown)
    return None


def _spill(value: Any, dtype: str) -> Any:
    """A scalar or constant as a pointer to one value of ``dtype`` in registers."""
    import cutlass.cute as cute

    t = cutlass_type(dtype)
    slot = cute.make_rmem_tensor(cute.make_layout(1), t)
    slot[0] = t(value)
    return _cute_hooks.llvm_pointer(slot.iterator)


def _numeric_types(dtype: str) -> Any:
    """The CuTe numeric type of an element type, or for a field list the list of its fields'."""
    fields = fields_of(dtype)
    return [cutlass_type(f) for f in fields] if fields else cutlass_type(dtype)


def _array_pointer(value: Any, offset: Any, strided: bool) -> tuple[Any, Any]:
    """A tensor or pointer argument as the generic pointer to its tile (``offset`` items of the
    view in), and its stride in elements for a strided slot (1 for a contiguous field of one)."""
    import cutlass.cute as cute

    base = value.iterator if isinstance(value, cute.Tensor) else value
    stride: Any = 1
    if strided and isinstance(value, cute.Tensor) and _tensor_arg(value).stride != 1:
        stride = _view_stride(cute.coalesce(value.layout))  # the offset counts items of the view
        offset = offset * stride
    pointer = _cute_hooks.tile_pointer(base, offset)
    return pointer, stride


class CuteCall(KernelAdapter):
    """How CuTe spells one call's values for :func:`emit_call`: traced values as the kernel holds
    them (``None`` for a parameter not given), pointers as LLVM pointers."""

    name = "cutlass"

    def __init__(self, kernel: str) -> None:
        self.kernel = kernel

    def function_key(self) -> str:
        return self.kernel

    def absent(self, v: Any) -> bool:
        return v is None

    def members(self, v: Any) -> list[Any] | None:
        return list(v) if isinstance(v, tuple) else None

    def is_items(self, v: Any) -> bool:
        import cutlass.cute as cute

        return isinstance(v, cute.Tensor)

    def index(self, v: Any) -> Any:
        return 0 if v is None else v

    def array_tile(self, v: Any, offset: Any, strided: bool) -> tuple[Any, Any]:
        return _array_pointer(v, offset, strided)

    def items_pointer(self, v: Any) -> Any:
        return _cute_hooks.llvm_pointer(v.iterator)

    def value_pointer(self, v: Any, dtype: str) -> Any:
        return _spill(v, dtype)

    def new_items(self, dtype: str, items: int) -> tuple[Any, Any]:
        import cutlass.cute as cute

        tensor = cute.make_rmem_tensor(cute.make_layout(items), cutlass_type(dtype))
        return tensor, _cute_hooks.llvm_pointer(tensor.iterator)

    def int32(self, v: Any) -> Any:
        import cutlass

        return cutlass.Int32(v)

    def scratch(self, v: Any) -> tuple[int, Any]:
        return v.slot, v.pointer

    def call_pointer(self, symbol: str) -> Any:
        return _cute_hooks.call_returning_pointer(symbol)

    def call_at_entry(self, symbol: str) -> None:
        _cute_hooks.call_at_kernel_entry(symbol)

    def define_operator(self, op: Any) -> None:
        result = _numeric_types(op.result) if op.result != BOOL else None
        _cute_hooks.define_operator(op.symbol, _numeric_types(op.dtype), op.function, result)

    def extern_call(self, symbol: str, args: list[Any], is_int: list[bool]) -> None:
        _cute_hooks.extern_call(symbol, args, is_int)

    def result(self, slot: Any, storage: Any, records: str) -> Any:
        if isinstance(storage, list):  # a struct type: the tuple of its fields'
            return tuple(t[0] if slot.scalar else t for t in storage)
        return storage[0] if slot.scalar else storage

    def returns(self, results: list[Any]) -> Any:
        if not results:
            return None
        return results[0] if len(results) == 1 else tuple(results)


def _numeric(qualname: str, name: str, value: Any) -> Any:
    """A raw MLIR scalar (what ``cutlass.select_`` returns) as the CuTe Numeric of its type; a tuple's
    members alike. A raw integer is refused: its type (``i32``) does not say signed or unsigned."""
    if isinstance(value, tuple):
        return tuple(_numeric(qualname, name, v) for v in value)
    raw = _cute_hooks.raw_scalar(value)
    if raw is None:
        return value
    kind, text = raw
    if kind is None:
        raise CoopTypeError(
            f"{qualname}: {name} is a raw MLIR value of type {text} (as cutlass.select_ returns), whose "
            f"signedness its type does not say; wrap it in the type you mean, e.g. cutlass.Int{text[1:]}"
            f"(...) or cutlass.Uint{text[1:]}(...)"
        )
    return kind(value)


def call(
    prim: Primitive,
    session: TraceSession,
    dims: tuple[int, int, int] | None,
    kernel: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> Any:
    """Resolve one call, record its request and emit the call to its wrapper; returns what the
    primitive returns (a ThreadData, a scalar, a tuple, or None)."""
    bound = {name: _numeric(prim.qualname, name, v) for name, v in prim.bind(args, kwargs).items()}
    _refuse_complex(prim.qualname, bound)
    unknown = (
        f"CuTe kernel {kernel!r} is launched with dynamic block dimensions; launch it with constant "
        "block=(x, y, z) so that CUB can be specialised, or pass threads_per_block="
    )
    cluster, clustered = _cute_hooks.launch_cluster_dims() if prim.scope == "cluster" else (None, False)
    no_cluster = (
        "its cluster is not known exactly (dynamic, or a preferred cluster unlike the fallback one); launch "
        "it with a constant cluster=(x, y, z)"
        if clustered
        else "launch it with kernel(...).launch(grid=..., block=..., cluster=(n, 1, 1))"
    )
    launch = Launch(
        dims,
        unknown,
        f" of kernel {kernel!r}",
        _ARRAY_NOUN,
        session.scratch_group(kernel),
        cluster_dims=cluster,
        no_cluster=no_cluster,
    )
    block = _barriers.current_block()
    uses: dict[int, list[Any]] = session.attached.setdefault("cutlass.temp_storage_uses", {})  # type: ignore[assignment]
    args_of = {name: arg_of(v) for name, v in bound.items()}
    for name, v in bound.items():
        if isinstance(v, TempStorage):  # what the ops traced so far say of this call's use of it
            earlier = uses.setdefault(v.slot, []) if v.sharing == "shared" else []
            use = _barriers.temp_storage_use(args_of[name].value, earlier, block)
            args_of[name] = replace(args_of[name], value=use)
    plan: Plan = prim.resolve(args_of, launch)
    out = emit_call(plan, session, bound, CuteCall(kernel))
    for v in bound.values():
        if isinstance(v, TempStorage) and v.sharing == "shared":
            uses[v.slot].append(_barriers.last_op(block))
    return out
