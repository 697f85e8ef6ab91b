# SPDX-License-Identifier: Apache-2.0
"""Arrays as CuTe tensors at launch: torch tensors, CuPy arrays and anything with ``__dlpack__``
become the CuTe tensor the function was compiled for (same element type, alignment and static or
dynamic layout), checked against it, so callers need not write ``from_dlpack`` each time."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cuda.coop._backend_api import CoopTypeError, CoopValueError, stream_handle

from . import _cute_hooks

_CUDA_DEVICES = (2, 13)  # kDLCUDA, kDLCUDAManaged


@dataclass(frozen=True)
class TensorSpec:
    """A tensor parameter as compiled.

    Attributes:
        name: the parameter's name.
        dtype: CuTe element type.
        shape, stride: static extents (``None`` where the compiled layout is dynamic).
        align: assumed alignment in bytes.
        dynamic: whether any extent is dynamic (then launches mark the layout dynamic).
    """

    name: str
    dtype: Any
    shape: tuple[int | None, ...]
    stride: tuple[int | None, ...]
    align: int
    dynamic: bool

    def describe(self) -> str:
        dims = ", ".join("?" if s is None else str(s) for s in self.shape)
        return f"{self.dtype.__name__}[{dims}] aligned to {self.align} B"


@dataclass(frozen=True)
class PointerSpec:
    """A pointer parameter as compiled (a ``make_ptr`` argument at compile time).

    Attributes:
        name: the parameter's name.
        dtype: CuTe element type.
        memspace: CuTe address space.
        align: assumed alignment in bytes.
    """

    name: str
    dtype: Any
    memspace: Any
    align: int


def pointer_spec_of(name: str, value: Any) -> PointerSpec | None:
    """The spec of a compile-time pointer argument, or None for other arguments."""
    info = _cute_hooks.pointer_info(value)
    if info is None:
        return None
    dtype, _address, align = info
    return PointerSpec(name, dtype, value.memspace, align)


def address_of(value: Any, name: str) -> int:
    """The device address a pointer parameter gets from ``value``: an int, or a GPU array (its data).

    Raises:
        CoopTypeError: anything else.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if hasattr(type(value), "data_ptr"):  # torch
        return int(value.data_ptr())
    interface = getattr(value, "__cuda_array_interface__", None)
    if interface is not None:
        return int(interface["data"][0])
    raise CoopTypeError(
        f"argument {name!r} is a pointer: pass an int address, a CuTe pointer or a GPU array, "
        f"got {type(value).__name__}"
    )


def to_pointer(value: Any, spec: PointerSpec) -> Any:
    """``value`` (an int address or a GPU array) as the CuTe pointer ``spec`` describes.

    Raises:
        CoopTypeError: not an address or an array.
        CoopValueError: not aligned as compiled.
    """
    from cutlass.cute.runtime import make_ptr

    address = address_of(value, spec.name)
    if address % spec.align:
        raise CoopValueError(
            f"argument {spec.name!r}: address {address:#x} is not aligned to {spec.align} B as compiled"
        )
    return make_ptr(spec.dtype, address, spec.memspace, assumed_align=spec.align)


def spec_of(name: str, value: Any) -> TensorSpec | None:
    """The spec of a compile-time tensor argument (fake or real), or None for other arguments."""
    layout = _cute_hooks.tensor_layout(value)
    if layout is None:
        return None
    dtype, shape, stride, align, dynamic_shape, dynamic_stride, wide = layout
    if wide:
        return None  # 32-bit strides: leave conversion to the caller
    shape_ = tuple(None if d else int(s) for s, d in zip(shape, dynamic_shape, strict=False))
    stride_ = tuple(None if d else int(s) for s, d in zip(stride, dynamic_stride, strict=False))
    return TensorSpec(name, dtype, shape_, stride_, align, any(dynamic_shape) or any(dynamic_stride))


@dataclass(frozen=True)
class StreamSpec:
    """A ``cuda.bindings.driver.CUstream`` parameter (a Python int there would be an Int32 to CuTe)."""

    name: str


def to_stream(value: Any, spec: StreamSpec) -> Any:
    """``value`` (see :func:`cuda.coop._streams.stream_handle`) as a ``CUstream``."""
    from cuda.bindings import driver

    if isinstance(value, driver.CUstream):
        return value
    return driver.CUstream(stream_handle(value, what=f"argument {spec.name!r}"))


Spec = TensorSpec | PointerSpec | StreamSpec


def is_stream_parameter(annotation: Any, value: Any) -> bool:
    """A CUDA stream parameter (``cuda.bindings.driver.CUstream``)."""
    from cuda.bindings import driver

    return annotation is driver.CUstream or isinstance(value, driver.CUstream)


def specs_for(compiled: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Spec]:
    """Tensor and pointer specs by runtime parameter name, from the arguments the function was
    compiled with; none for a TVM-FFI function (its entry takes torch and DLPack tensors itself)."""
    if _cute_hooks.is_tvm_ffi(compiled):
        return {}
    names, values = _cute_hooks.runtime_arguments(compiled, args, kwargs)
    annotations = dict(_cute_hooks.runtime_parameters(compiled)) if names else {}
    out: dict[str, Spec] = {}
    for name, value in zip(names, values, strict=False):
        spec: Spec | None = spec_of(name, value) or pointer_spec_of(name, value)
        if spec is None and is_stream_parameter(annotations.get(name), value):
            spec = StreamSpec(name)
        if spec is not None:
            out[name] = spec
    return out


def _convert_one(value: Any, spec: Spec) -> Any:
    if isinstance(spec, StreamSpec):
        return to_stream(value, spec)
    if isinstance(spec, PointerSpec):
        return value if _cute_hooks.pointer_info(value) is not None else to_pointer(value, spec)
    return to_cute(value, spec) if is_foreign_array(value) else value


def is_foreign_array(value: Any) -> bool:
    """True for a DLPack array that is not already a CuTe object."""
    return hasattr(value, "__dlpack__") and not _cute_hooks.is_cute_object(value)


def to_cute(value: Any, spec: TensorSpec) -> Any:
    """``value`` (anything with ``__dlpack__``) as the CuTe tensor ``spec`` describes.

    Raises:
        CoopTypeError: not in GPU memory, another element type, or an array DLPack cannot export
            (e.g. a torch tensor that requires grad; the exporter's message is included).
        CoopValueError: another rank, shape or stride where the compiled layout is static, or a
            data pointer not aligned as compiled.
    """
    return to_cute_checked(value, spec)[0]


def to_cute_checked(value: Any, spec: TensorSpec) -> tuple[Any, Any]:
    """:func:`to_cute`, and the tensor's layout (``_cute_hooks.tensor_layout``)."""
    device = value.__dlpack_device__()[0] if hasattr(value, "__dlpack_device__") else None
    if device is not None and device not in _CUDA_DEVICES:
        raise CoopTypeError(
            f"argument {spec.name!r}: the array is not in GPU memory (DLPack device {device})"
        )
    try:
        tensor = _cute_hooks.from_dlpack(value, spec.align, spec.dynamic)
        layout = _cute_hooks.tensor_layout(tensor)
    except (RuntimeError, BufferError, TypeError, ValueError) as exc:
        raise CoopTypeError(
            f"argument {spec.name!r}: the {type(value).__name__} cannot be passed as a tensor "
            f"({spec.describe()}) through DLPack: {exc}"
        ) from exc
    check(tensor, spec, layout)
    return tensor, layout


def check(tensor: Any, spec: TensorSpec, layout: Any = None) -> Any:
    """Raise a typed error naming the parameter unless ``tensor`` fits ``spec``; returns its layout
    (``_cute_hooks.tensor_layout``, or ``layout`` when given)."""
    layout = layout or _cute_hooks.tensor_layout(tensor)
    dtype, shape, stride, _align, dyn_shape, dyn_stride, _wide = layout
    got = f"got {dtype.__name__}{list(shape)} with strides {list(stride)}"
    if dtype is not spec.dtype:
        raise CoopTypeError(f"argument {spec.name!r} was compiled as {spec.describe()}, {got}")
    if len(shape) != len(spec.shape):
        raise CoopValueError(f"argument {spec.name!r} was compiled with rank {len(spec.shape)}, {got}")
    for want, have, dyn in ((spec.shape, shape, dyn_shape), (spec.stride, stride, dyn_stride)):
        for w, h, d in zip(want, have, dyn, strict=False):
            if (w is None) != bool(d) or (w is not None and w != h):
                raise CoopValueError(
                    f"argument {spec.name!r} was compiled as {spec.describe()} "
                    f"(strides {list(spec.stride)}), {got}"
                    + (
                        "; its layout was marked dynamic differently: pass a CuTe tensor"
                        if spec.dynamic
                        else ""
                    )
                )
    address = _cute_hooks.tensor_data_ptr(tensor)
    if address % spec.align:
        raise CoopValueError(
            f"argument {spec.name!r}: data at {address:#x} is not aligned to {spec.align} B as compiled"
        )
    return layout


def convert(specs: dict[str, Spec], names: list[str], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``(args, kwargs)`` with each DLPack array in a tensor parameter made a checked CuTe tensor,
    and each int address or GPU array in a pointer parameter a CuTe pointer as compiled (CuTe's own
    marshalling would take a Python int there for an Int32)."""
    if not specs:
        return args, kwargs
    out = list(args)
    for i, value in enumerate(args):
        if i < len(names) and names[i] in specs:
            out[i] = _convert_one(value, specs[names[i]])
    kw = {k: _convert_one(v, specs[k]) if k in specs else v for k, v in kwargs.items()}
    return tuple(out), kw
