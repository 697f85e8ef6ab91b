# SPDX-License-Identifier: Apache-2.0
"""The CUTLASS backend's kernel side: coop calls made while CuTe traces a kernel become typed
provider requests and calls to the bundle's extern "C" wrappers."""

from __future__ import annotations

import contextvars
from typing import Any

from cuda.coop._dtypes import supported_name
from cuda.coop._errors import CoopBackendError, CoopLaunchConfigError, CoopTypeError, CoopValueError
from cuda.coop._primitives import TILE_PRIMITIVES, TilePrimitive, check_items_per_thread, normalize_block_dims
from cuda.coop._session import TraceSession

from . import _cute_hooks

#: The session of the compile in progress (set by cuda.coop.cutlass.compile).
current_session: contextvars.ContextVar[TraceSession | None] = contextvars.ContextVar(
    "cuda_coop_cutlass_session", default=None
)

_installed = False


def activate() -> None:
    """Check that the DSL offers every hook the bridge needs (nothing is patched into it)."""
    global _installed
    if _installed:
        return
    import cutlass.cute  # noqa: F401  (the DSL must import)

    _cute_hooks.check()
    _installed = True


def intercept(qualname: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[bool, Any]:
    """Handle a kernel-side call made while CuTe traces a kernel; otherwise (False, None)."""
    traced = _cute_hooks.launch_block_dims()
    if traced is None:
        return False, None
    dims, kernel = traced
    if qualname == "coop.ThreadData":
        return True, thread_data(*args, **kwargs)
    if qualname == "coop.TempStorage":
        raise CoopValueError(
            "coop.TempStorage is not available in CuTe kernels in this release; the primitives use "
            "their own implicit shared scratch there"
        )
    session = current_session.get()
    if session is None:
        raise CoopBackendError(
            f"{qualname} in CuTe kernel {kernel!r}: compile the @cute.jit function that launches it "
            "with cuda.coop.cutlass.compile(host, *args), which links the CUB bundle into it"
        )
    prim = TILE_PRIMITIVES[qualname.rsplit(".", 1)[1]]
    tile(prim, session, dims, kernel, args, kwargs)
    return True, None


def dtype_name(dtype: Any, *, primitive: str, argument: str) -> str:
    """Our dtype name of a CuTe numeric type (``cutlass.Int32`` -> ``int32``), or CoopTypeError."""
    name = dtype if isinstance(dtype, str) else getattr(dtype, "__name__", str(dtype)).lower()
    return supported_name(name, shown=dtype, primitive=primitive, argument=argument)


def _cutlass_type(name: str) -> Any:
    import cutlass

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
    name = dtype_name(dtype, primitive="coop.ThreadData", argument="dtype")
    return cute.make_rmem_tensor(cute.make_layout(n), _cutlass_type(name))


def items_of(items: Any, *, primitive: str) -> tuple[str, int]:
    """(dtype name, items per thread) of a ThreadData (a 1-D compact register tensor)."""
    import cutlass.cute as cute
    from cutlass.base_dsl.enums import AddressSpace

    if not isinstance(items, cute.Tensor) or items.memspace != AddressSpace.rmem:
        raise CoopTypeError(
            f"{primitive}: items must be a coop.ThreadData (a register tensor), got {items!r}"
        )
    size = cute.size(items)
    compact = items.stride in (1, (1,)) or size == 1  # a 1-item layout is 1:0
    if not isinstance(size, int) or cute.rank(items) != 1 or not compact:
        raise CoopTypeError(
            f"{primitive}: items must be a compact 1-D register tensor of static size, "
            f"got layout {items.layout}"
        )
    return dtype_name(items.element_type, primitive=primitive, argument="items"), size


def _gmem_pointer(array: Any, *, primitive: str, argument: str) -> tuple[Any, str]:
    """(pointer to element 0, dtype name) of a global-memory tensor or pointer."""
    import cutlass.cute as cute
    from cutlass.base_dsl.enums import AddressSpace

    if isinstance(array, cute.Tensor):
        if array.memspace != AddressSpace.gmem:
            raise CoopTypeError(
                f"{primitive}: {argument} must be a global-memory tensor, got one in {array.memspace.name}"
            )
        if cute.rank(array) != 1 or array.stride not in (1, (1,)):
            raise CoopTypeError(
                f"{primitive}: {argument} must be 1-D with unit stride, got layout {array.layout}"
            )
        return array.iterator, dtype_name(array.element_type, primitive=primitive, argument=argument)
    if isinstance(array, cute.Pointer):
        if array.memspace != AddressSpace.gmem:
            raise CoopTypeError(
                f"{primitive}: {argument} must point to global memory, got {array.memspace.name}"
            )
        return array, dtype_name(array.dtype, primitive=primitive, argument=argument)
    raise CoopTypeError(
        f"{primitive}: {argument} must be a CuTe global-memory tensor or pointer, got {array!r}"
    )


def _static(value: Any) -> Any:
    """A Python constant as itself; ``...`` for a traced (runtime) value; None stays None."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return ...


def tile(
    prim: TilePrimitive,
    session: TraceSession,
    dims: tuple[int, int, int] | None,
    kernel: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> None:
    """Validate one load/store call, record its request and emit the call to its wrapper."""
    import cutlass
    import cutlass.cute as cute

    q = prim.qualname
    try:
        bound = prim.signature().bind(*args, **kwargs)
    except TypeError as exc:
        raise CoopTypeError(f"{q}: {exc}") from None
    bound.apply_defaults()
    a = bound.arguments
    arg = "src" if prim.direction == "load" else "dst"
    base, array_dtype = _gmem_pointer(a[arg], primitive=q, argument=arg)
    items_dtype, ipt = items_of(a["items"], primitive=q)
    if a["temp_storage"] is not None:
        raise CoopValueError(f"{q}: temp_storage is not available in CuTe kernels in this release")
    tpb = a["threads_per_block"]
    if tpb is not None:
        explicit = normalize_block_dims(tpb, what=f"{q}: threads_per_block")
        if dims is not None and dims != explicit:
            raise CoopLaunchConfigError(
                f"{q}: threads_per_block={tpb!r} contradicts the launch's block {dims} of kernel {kernel!r}"
            )
        dims = explicit
    if dims is None:
        raise CoopLaunchConfigError(
            f"{q}: CuTe kernel {kernel!r} is launched with dynamic block dimensions; launch it with "
            "constant block=(x, y, z) so that CUB can be specialised, or pass threads_per_block="
        )
    valid, oob = a["valid_items"], a.get("oob_default")
    request = prim.request(
        array_dtype=array_dtype,
        items_dtype=items_dtype,
        items_per_thread=ipt,
        algorithm=a["algorithm"],
        block_dims=dims,
        valid_items=_static(valid),
        oob_default=_static(oob),
        caller_temp_storage=False,
        scratch_group=session.scratch_group(kernel),
    )
    symbol = session.add(request)
    gmem = base + a["offset"] if not (isinstance(a["offset"], int) and a["offset"] == 0) else base
    oob_ptr = _cute_hooks.null_pointer()
    if request.oob_default:
        slot = cute.make_rmem_tensor(cute.make_layout(1), _cutlass_type(items_dtype))
        slot[0] = _cutlass_type(items_dtype)(oob)
        oob_ptr = _cute_hooks.llvm_pointer(slot.iterator)
    _cute_hooks.extern_call(
        symbol,
        [
            _cute_hooks.llvm_pointer(gmem),
            _cute_hooks.llvm_pointer(a["items"].iterator),
            cutlass.Int32(valid if request.partial else 0),
            oob_ptr,
            _cute_hooks.null_pointer(),
        ],
    )
