# SPDX-License-Identifier: Apache-2.0
"""A prepared launch of a CuTe compiled function: bind and marshal once, then each launch rewrites
the argument slots in place and calls CuTe's host entry (which computes the grid and calls the
driver) with the same ``void*[]``.

Each runtime argument owns one C slot: a tensor's descriptor (its data pointer rewritten), a
pointer, a scalar or a stream (a C value rewritten). A launch checks what changes cheaply: an array
of the same type, dtype, shape, strides and device as the last one only has its data pointer
written; anything else goes through the full conversion and check once, then is fast again.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any

from cuda.coop._backend_api import CoopBackendError, CoopTypeError, CoopValueError, stream_handle

from . import _args, _cute_hooks

_INT_TYPES = {
    (8, True): ctypes.c_int8,
    (16, True): ctypes.c_int16,
    (32, True): ctypes.c_int32,
    (64, True): ctypes.c_int64,
    (8, False): ctypes.c_uint8,
    (16, False): ctypes.c_uint16,
    (32, False): ctypes.c_uint32,
    (64, False): ctypes.c_uint64,
}


def _torch_key(value: Any) -> tuple[Any, ...]:
    return (value.dtype, value.shape, value.stride(), value.get_device())


def _cupy_key(value: Any) -> tuple[Any, ...]:
    return (value.dtype, value.shape, value.strides, value.data.device_id)


def _torch_address(value: Any) -> int:
    return int(value.data_ptr())


def _cupy_address(value: Any) -> int:
    return int(value.data.ptr)


#: Per array type: what must not change for a data-pointer-only rewrite, and the data pointer.
_FAST: dict[type, tuple[Callable[[Any], tuple[Any, ...]], Callable[[Any], int]] | None] = {}


def _fast(kind: type) -> tuple[Callable[[Any], tuple[Any, ...]], Callable[[Any], int]] | None:
    """The key and address readers of a torch or CuPy array type, or None for other types."""
    if kind not in _FAST:
        module = kind.__module__
        _FAST[kind] = (
            (_torch_key, _torch_address)
            if module.startswith("torch")
            else (_cupy_key, _cupy_address)
            if module.startswith("cupy")
            else None
        )
    return _FAST[kind]


def _array_key(value: Any) -> tuple[Any, ...] | None:
    """What must not change for a data-pointer-only rewrite (torch, CuPy), or None."""
    fast = _fast(type(value))
    return None if fast is None else (type(value), *fast[0](value))


class PreparedLaunch:
    """A CuTe compiled function bound to its arguments: :meth:`launch` rewrites them and launches.

    Made by :meth:`CompiledCuteFunction.prepare`. One handle per thread: launches from two threads
    at once would race on its argument slots (prepare one per thread).
    """

    def __init__(
        self, compiled: Any, specs: dict[str, _args.Spec], args: tuple[Any, ...], kwargs: dict[str, Any]
    ):
        call, self._result, extras, self._executor = _cute_hooks.executor(compiled)
        params = _cute_hooks.runtime_parameters(compiled)
        self._names = [n for n, _a in params]
        values = _cute_hooks.rectify(compiled, *_args.convert(specs, self._names, args, kwargs))
        leaves, self._keep = _cute_hooks.marshal(compiled, values)
        self._packed = (ctypes.c_void_p * (len(leaves) + len(extras)))(*leaves, *extras)
        self._call = call
        self._setters: list[Callable[[Any], None]] = []
        at = 0
        for (name, annotation), value in zip(params, values, strict=False):
            count = 1 if self._kind(name, annotation, value, specs) else _cute_hooks.leaf_count(value)
            setter = self._setter(at, name, annotation, value, specs)
            self._setters.append(setter)
            at += count
        if at != len(leaves):
            raise CoopBackendError(
                f"CuTe marshalled {len(leaves)} C arguments, expected {at} (the DSL changed?)"
            )

    @staticmethod
    def _kind(name: str, annotation: Any, value: Any, specs: dict[str, _args.Spec]) -> bool:
        return (
            name in specs
            or _cute_hooks.pointer_info(value) is not None
            or _cute_hooks.numeric_type(annotation) is not None
            or _cute_hooks.is_stream_parameter(annotation, value)
        )

    def _setter(self, at: int, name: str, annotation: Any, value: Any, specs: dict[str, _args.Spec]) -> Any:
        spec = specs.get(name)
        if isinstance(spec, _args.TensorSpec):
            return self._tensor_setter(at, spec, value)
        pointer = _cute_hooks.pointer_info(value)
        if pointer is not None:
            return self._pointer_setter(at, name, *pointer)
        numeric = _cute_hooks.numeric_type(annotation)
        if numeric is not None:
            return self._scalar_setter(at, name, numeric, value)
        if _cute_hooks.is_stream_parameter(annotation, value):
            slot = ctypes.c_void_p(stream_handle(value, what=f"argument {name!r}"))

            def set_stream(new: Any) -> None:
                slot.value = new if type(new) is int else stream_handle(new, what=f"argument {name!r}")

            return self._own(at, slot, set_stream)

        def fixed(new: Any) -> None:
            if new is not value:
                raise CoopTypeError(
                    f"argument {name!r} ({type(value).__name__}) cannot be rewritten by launch(): pass the "
                    "same object, or prepare again"
                )

        return fixed

    def _own(self, at: int, slot: Any, setter: Callable[[Any], None]) -> Callable[[Any], None]:
        """Point argument ``at`` at ``slot`` (a ctypes value kept alive here)."""
        self._keep = (self._keep, slot)
        self._packed[at] = ctypes.addressof(slot)
        return setter

    def _tensor_setter(self, at: int, spec: _args.TensorSpec, value: Any) -> Callable[[Any], None]:
        state: dict[str, Any] = {
            "view": _cute_hooks.descriptor_data_pointer(value),
            "key": None,
            "own": value,
        }
        mask = spec.align - 1
        packed = self._packed

        def slow(new: Any) -> None:
            tensor = new if not _args.is_foreign_array(new) else _args.to_cute(new, spec)
            if _args.is_foreign_array(new) or _cute_hooks.tensor_layout(new) is not None:
                if not _args.is_foreign_array(new):
                    _args.check(tensor, spec)
                state["view"], state["own"] = _cute_hooks.descriptor_data_pointer(tensor), tensor
                packed[at] = _cute_hooks.c_pointers(tensor)[0]
                if _args.is_foreign_array(new):
                    remember(new)
                else:
                    state["key"] = last_torch[0] = None
                return
            raise CoopTypeError(
                f"argument {spec.name!r} was compiled as a tensor ({spec.describe()}); "
                f"got {type(new).__name__}"
            )

        last_torch: list[Any] = [None]  # (type, dtype, shape, strides, device) of the last torch tensor

        def remember(array: Any) -> None:
            state["key"] = _array_key(array)
            if state["key"] is not None:
                state["read_key"], state["read_address"] = _fast(type(array))  # type: ignore[misc]
            is_torch = state["key"] is not None and state["read_key"] is _torch_key
            last_torch[0] = state["key"] if is_torch else None

        def set_tensor(new: Any) -> None:
            t = last_torch[0]
            if (
                t is not None
                and type(new) is t[0]
                and new.dtype is t[1]
                and new.shape == t[2]
                and new.stride() == t[3]
                and new.get_device() == t[4]
            ):
                address = new.data_ptr()  # a torch tensor like the last one: only its data moves
            else:
                key = state["key"]
                if key is None or type(new) is not key[0] or state["read_key"](new) != key[1:]:
                    slow(new)
                    return
                address = state["read_address"](new)
            if address & mask:
                raise CoopValueError(
                    f"argument {spec.name!r}: data at {address:#x} is not aligned to {spec.align} B "
                    "as compiled"
                )
            state["view"].value = address

        if _args.is_foreign_array(value):
            remember(value)
        return set_tensor

    def _pointer_setter(
        self, at: int, name: str, dtype: Any, address: int, align: int
    ) -> Callable[[Any], None]:
        slot = ctypes.c_void_p(address)
        mask = align - 1

        def set_pointer(new: Any) -> None:
            if type(new) is int:
                value = new
            else:
                info = _cute_hooks.pointer_info(new)
                if info is not None:
                    if info[0] is not dtype:
                        raise CoopTypeError(
                            f"argument {name!r} is a pointer to {dtype.__name__}, "
                            f"got one to {info[0].__name__}"
                        )
                    value = info[1]
                else:  # a GPU array (its data), as a call takes it
                    value = _args.address_of(new, name)
            if value & mask:
                raise CoopValueError(
                    f"argument {name!r}: address {value:#x} is not aligned to {align} B as compiled"
                )
            slot.value = value

        return self._own(at, slot, set_pointer)

    def _scalar_setter(self, at: int, name: str, numeric: Any, value: Any) -> Callable[[Any], None]:
        ctype = _scalar_ctype(numeric)
        if ctype is None:  # float16, bfloat16, ...: CuTe's own conversion each launch
            packed = self._packed
            owner: list[Any] = [None]

            def set_other(new: Any) -> None:
                pointer = _cute_hooks.owning_c_pointer(numeric(_number(new, name, numeric)))
                owner[0] = pointer
                packed[at] = pointer.value

            set_other(value)
            return set_other
        is_int = ctype not in (ctypes.c_float, ctypes.c_double)
        slot = ctype(_number(value, name, numeric))

        def set_scalar(new: Any) -> None:
            if type(new) is not int and not (type(new) is float and not is_int):
                new = _number(new, name, numeric)
            slot.value = new

        return self._own(at, slot, set_scalar)

    def launch(self, *args: Any, **kwargs: Any) -> None:
        """Launch with ``args`` in place of the prepared arguments (all of them, as for the call;
        none: the last ones again).

        Raises:
            CoopTypeError: an argument of another kind or element type, named.
            CoopValueError: another rank, a static shape or stride changed, or misaligned data.
            CoopBackendError: the launch failed (the CUDA error).
        """
        if args or kwargs:
            if kwargs or len(args) != len(self._setters):
                args = tuple(self._rectify(args, kwargs))
            for setter, value in zip(self._setters, args, strict=False):
                setter(value)
        self._call(self._packed)
        if self._result is not None and self._result.value:
            raise CoopBackendError(f"the launch failed: CUDA error {self._result.value}")

    def _rectify(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        if len(args) > len(self._names) or set(kwargs) - set(self._names[len(args) :]):
            raise CoopTypeError(f"launch() takes the arguments {', '.join(self._names)}")
        missing = [n for n in self._names[len(args) :] if n not in kwargs]
        if missing:
            raise CoopTypeError(f"launch() is missing {', '.join(missing)} (give all arguments, or none)")
        return [*args, *(kwargs[n] for n in self._names[len(args) :])]


def _scalar_ctype(numeric: Any) -> Any:
    from cutlass import Float32, Float64, Integer

    if numeric is Float32:
        return ctypes.c_float
    if numeric is Float64:
        return ctypes.c_double
    if issubclass(numeric, Integer) and numeric.width in (8, 16, 32, 64):
        return _INT_TYPES[(numeric.width, bool(numeric.signed))]
    return None


def _number(value: Any, name: str, numeric: Any) -> Any:
    """A Python number for a scalar parameter: ints for integer parameters, floats for float ones."""
    import numbers

    from cutlass import Float, Numeric

    if isinstance(value, Numeric):
        value = value.value
    if hasattr(value, "item") and not isinstance(value, (int, float)):
        value = value.item()  # numpy / torch scalars
    is_float = issubclass(numeric, Float)
    if numeric.width == 1 and isinstance(value, (bool, int)):
        return bool(value)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise CoopTypeError(f"argument {name!r} is a {numeric.__name__}, got {type(value).__name__}")
    if not is_float and not isinstance(value, numbers.Integral):
        raise CoopTypeError(f"argument {name!r} is a {numeric.__name__}, got the float {value!r}")
    return float(value) if is_float else int(value)
