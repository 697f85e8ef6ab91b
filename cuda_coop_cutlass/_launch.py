# SPDX-License-Identifier: Apache-2.0
"""A prepared launch of a CuTe compiled function: bind and marshal once, then each launch rewrites
the argument slots in place and calls CuTe's host entry (which computes the grid and calls the
driver) with the same ``void*[]``. The plain call of a compiled function launches through one of
these per thread (its call state).

Each runtime argument owns one C slot: a tensor's descriptor (a copy owned here: its data pointer
rewritten, and for a dynamic layout its extents and strides), a pointer, a scalar or a stream (a C
value rewritten). A launch checks what changes cheaply: an array of the same type, dtype, shape,
strides and device as one seen before only has its data pointer written (and, if it differs from
the last one, the descriptor it had); anything else goes through the full conversion and check
once, then is fast again. No slot refers to the caller's arrays: the caller's memory is freed when
the caller drops it.
"""

from __future__ import annotations

import ctypes
import inspect
import math
import struct
import weakref
from collections.abc import Callable
from typing import Any

from cuda.coop._backend_api import (
    ADDRESSES,
    Arm,
    CoopBackendError,
    CoopTypeError,
    CoopValueError,
    device_address,
    generate,
    stream_handle,
)

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

#: float32's largest finite value: a Python float within +-this fits a float32 slot as it is.
_FLOAT32_MAX = 3.4028234663852886e38

#: Array layouts (keys) whose descriptors a tensor slot remembers (a dynamic layout: one per shape).
RECENT_LAYOUTS = 16


Reader = Callable[[Any], tuple[Any, int]]


def _read_torch(value: Any) -> tuple[Any, int]:
    # requires_grad: such a tensor is refused (torch's DLPack export raises), so never matches a key seen
    key = (value.dtype, value.shape, value.stride(), value.get_device(), value.requires_grad)
    return key, value.data_ptr()


def _read_cupy(value: Any) -> tuple[Any, int]:
    memory = value.data
    return (value.dtype, value.shape, value.strides, memory.device_id), memory.ptr


def _read_dlpack(value: Any) -> tuple[Any, int]:
    """Any other DLPack array, read through cuda.core's ``StridedMemoryView`` (C-level, no stream
    synchronisation, as CuTe's ``from_dlpack``); no key (the full conversion) for an element type
    NumPy does not name, or an array that view cannot read."""
    from cuda.core.utils import StridedMemoryView

    try:
        view = StridedMemoryView.from_dlpack(value, stream_ptr=-1)
    except Exception:
        return None, 0
    if view.dtype is None:
        return None, 0
    return (view.dtype, view.shape, view.strides, view.device_id), int(view.ptr)


#: Per array type: the reader of what must not change for a data-pointer-only rewrite (a key) and
#: of the data pointer; None for types that take the full conversion each time (CuTe tensors: once).
_READERS: dict[type, Reader | None] = {}


def _reader(kind: type) -> Reader | None:
    """The key and address reader of an array type (torch, CuPy, other DLPack arrays), or None."""
    read = _READERS.get(kind, False)
    if read is False:
        module = kind.__module__
        read = (
            _read_torch
            if module.startswith("torch")
            else _read_cupy
            if module.startswith("cupy")
            else _read_dlpack
            if hasattr(kind, "__dlpack__") and not _cute_hooks.is_cute_object(kind)
            else None
        )
        _READERS[kind] = read
    return read  # type: ignore[return-value]


def binder(compiled: Any) -> Callable[[tuple[Any, ...], dict[str, Any]], list[Any]]:
    """A function binding ``(args, kwargs)`` to the runtime parameters in order (defaults,
    keywords), as CuTe's call does, without comparing values (``rectify`` compares each with a
    marker, which arrays refuse).

    The function raises CoopTypeError for arguments the signature does not bind.
    """
    signature = _cute_hooks.runtime_signature(compiled)
    params = list(signature.parameters.values())
    names = [p.name for p in params]
    takes = f"the compiled function takes ({', '.join(names)})"
    if any(p.kind is not inspect.Parameter.POSITIONAL_OR_KEYWORD for p in params):

        def bind_any(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError as exc:
                raise CoopTypeError(f"{takes}: {exc}") from None
            bound.apply_defaults()
            return list(bound.arguments.values())

        return bind_any
    index = {n: i for i, n in enumerate(names)}
    missing = object()
    defaults = [missing if p.default is inspect.Parameter.empty else p.default for p in params]

    def bind(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        if len(args) > len(names):
            raise CoopTypeError(f"{takes}: got {len(args)} positional arguments")
        out = [*args, *defaults[len(args) :]]
        for name, value in kwargs.items():
            at = index.get(name)
            if at is None or at < len(args):
                what = "an unexpected" if at is None else "a second value for the"
                raise CoopTypeError(f"{takes}: got {what} argument {name!r}")
            out[at] = value
        lacking = [n for n, v in zip(names, out, strict=True) if v is missing]
        if lacking:
            raise CoopTypeError(f"{takes}: missing {', '.join(lacking)}")
        return out

    return bind


class PreparedLaunch:
    """A CuTe compiled function bound to its arguments: :meth:`launch` rewrites them and launches.

    Made by :meth:`CompiledCuteFunction.prepare`. One handle per thread: launches from two threads
    at once would race on its argument slots (prepare one per thread). The handle keeps the
    arguments of its last launch alive (``launch()`` launches them again), and nothing older.
    """

    def __init__(
        self, compiled: Any, specs: dict[str, _args.Spec], args: tuple[Any, ...], kwargs: dict[str, Any]
    ):
        if not _cute_hooks.has_engine(compiled):
            _cute_hooks.executor(compiled)  # raises the typed error
        params = _cute_hooks.runtime_parameters(compiled)
        self._compiled = compiled
        self._names = [n for n, _a in params]
        values = _cute_hooks.rectify(compiled, *_args.convert(specs, self._names, args, kwargs))
        self._bind = binder(compiled)
        given = self._bind(args, kwargs)  # as given (a tensor slot learns their keys)
        call, self._result, extras, self._executor = _cute_hooks.executor(compiled)  # after the checks
        for (name, annotation), value in zip(params, values, strict=False):  # before CuTe's casts
            numeric = _cute_hooks.numeric_type(annotation)
            if numeric is not None and not isinstance(value, numeric):
                _number(value, name, numeric)
        leaves, keep = _cute_hooks.marshal(compiled, values)
        self._packed = (ctypes.c_void_p * (len(leaves) + len(extras)))(*leaves, *extras)
        self._call = call
        self._owned: list[Any] = []  # the C storage of the rewritable slots
        self._setters: list[Callable[[Any], None]] = []
        #: Every argument has a slot of its own (a tensor, pointer, scalar or stream parameter): none
        #: is passed as the object it was prepared with.
        self.rewritable = True
        at = 0
        for (name, annotation), value, original in zip(params, values, given, strict=False):
            own = self._kind(name, annotation, value, specs)
            count = 1 if own else _cute_hooks.leaf_count(value)
            setter = self._setter(at, name, annotation, value, specs)
            if isinstance(specs.get(name), _args.TensorSpec):
                setter(original)
            self._setters.append(setter)
            self.rewritable = self.rewritable and own
            at += count
        if at != len(leaves):
            raise CoopBackendError(
                f"CuTe marshalled {len(leaves)} C arguments, expected {at} (the DSL changed?)"
            )
        # What CuTe marshalled (the first arguments' CuTe tensors, holding their arrays' DLPack
        # capsules) is kept only where a slot still points into it: an argument passed as it is.
        self._keep = None if self.rewritable else keep
        self._last: Any = given  # launch() launches them again
        self._set_all = _writer(self._setters)

    @staticmethod
    def _kind(name: str, annotation: Any, value: Any, specs: dict[str, _args.Spec]) -> bool:
        return (
            name in specs
            or _cute_hooks.pointer_info(value) is not None
            or _cute_hooks.numeric_type(annotation) is not None
            or _args.is_stream_parameter(annotation, value)
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
        if _args.is_stream_parameter(annotation, value):
            slot = ctypes.c_void_p(stream_handle(value, what=f"argument {name!r}"))

            def set_stream(new: Any) -> None:
                slot.value = stream_handle(new, what=f"argument {name!r}")

            # an int handle in range (outside it, ctypes would keep the low bits: -1 became 0xFFFF...,
            # 2**64 the default stream); the setter checks and names the rest
            _inline(set_stream, "type({a}) is int and 0 <= {a} < ADDRESSES", "{slot}.value = {a}", slot=slot)
            return self._own(at, slot, set_stream)

        def fixed(new: Any) -> None:
            if new is not value:
                raise CoopTypeError(
                    f"argument {name!r} ({type(value).__name__}) cannot be rewritten by launch(): pass the "
                    "same object, or prepare again"
                )

        return fixed

    def _own(self, at: int, slot: Any, setter: Callable[[Any], None]) -> Callable[[Any], None]:
        """Point argument ``at`` at ``slot`` (C storage kept alive here)."""
        self._owned.append(slot)
        self._packed[at] = ctypes.addressof(slot)
        return setter

    def _tensor_setter(self, at: int, spec: _args.TensorSpec, value: Any) -> Callable[[Any], None]:
        """The setter of a tensor parameter. Its slot is a descriptor owned here, copied from the
        checked CuTe tensor of each new layout (the CuTe tensor and its DLPack capsule are then
        dropped); layouts seen before are remembered by array key (type, dtype, shape, strides,
        device), so a torch tensor or CuPy array like one seen before costs a few attribute reads."""
        desc = _cute_hooks.descriptor_buffer(len(spec.shape))
        mask = spec.align - 1
        recent: dict[tuple[Any, ...], bytes] = {}  # descriptor bytes by array key
        last_torch: list[Any] = [None]  # the last torch tensor's key, compared inline
        last_cute: list[Any] = [None, 0]  # (weakref to the last CuTe tensor checked, its descriptor size)

        def take(tensor: Any, layout: Any, key: tuple[Any, ...] | None) -> None:
            size = _cute_hooks.copy_descriptor(tensor, layout, desc)
            if key is not None:
                if len(recent) >= RECENT_LAYOUTS:
                    recent.clear()
                recent[key] = ctypes.string_at(desc, size)
            last_torch[0] = key if key is not None and _reader(key[0]) is _read_torch else None

        def slow(new: Any, key: tuple[Any, ...] | None) -> None:
            """Convert and check ``new`` (typed errors naming the argument), take its descriptor."""
            if _args.is_foreign_array(new):
                tensor, layout = _args.to_cute_checked(new, spec)
                take(tensor, layout, key)
                return
            if _cute_hooks.is_runtime_tensor(new):  # a CuTe tensor: its own descriptor
                ref = last_cute[0]
                if ref is not None and ref() is new and new.element_type is spec.dtype:
                    ctypes.memmove(desc, _cute_hooks.c_pointers(new)[0], last_cute[1])
                else:
                    size = _cute_hooks.copy_descriptor(new, _args.check(new, spec), desc)
                    last_cute[0], last_cute[1] = weakref.ref(new), size
                last_torch[0] = None
                return
            raise CoopTypeError(
                f"argument {spec.name!r} was compiled as a tensor ({spec.describe()}); "
                f"got {type(new).__name__}"
            )

        def set_tensor(new: Any) -> None:
            # the full path: a torch tensor like the last one is _writer's inline test
            read = _reader(type(new))
            found = None if read is None else read(new)
            if found is None or found[0] is None:
                slow(new, None)
                return
            key = (type(new), *found[0])
            seen = recent.get(key)
            if seen is None:
                slow(new, key)
                return
            address = found[1]
            if not address & mask:
                ctypes.memmove(desc, seen, len(seen))
                last_torch[0] = key if read is _read_torch else None
            if address & mask:
                raise CoopValueError(
                    f"argument {spec.name!r}: data at {address:#x} is not aligned to {spec.align} B "
                    "as compiled"
                )
            desc[0] = address

        _inline(
            set_tensor,
            "(t := {last}[0]) is not None and type({a}) is t[0] and {a}.dtype is t[1] and {a}.shape == t[2] "
            "and {a}.stride() == t[3] and {a}.get_device() == t[4] and not {a}.requires_grad "
            "and not (p := {a}.data_ptr()) & {mask}",
            "{desc}[0] = p",
            last=last_torch,
            mask=mask,
            desc=desc,
        )
        return self._own(at, desc, set_tensor)

    def _pointer_setter(
        self, at: int, name: str, dtype: Any, address: int, align: int
    ) -> Callable[[Any], None]:
        slot = ctypes.c_void_p(address)
        mask = align - 1

        def set_pointer(new: Any) -> None:
            if type(new) is int:
                value = device_address(new, what=f"argument {name!r}")
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

        _inline(
            set_pointer,
            "type({a}) is int and 0 <= {a} < ADDRESSES and not {a} & {mask}",
            "{slot}.value = {a}",
            slot=slot,
            mask=mask,
        )
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
        slot = ctype(_number(value, name, numeric))
        if ctype in (ctypes.c_float, ctypes.c_double):
            # inline: a float within float32's finite range fits either slot as it is; others go to
            # _number
            limit = _FLOAT32_MAX if ctype is ctypes.c_float else math.inf

            def set_float(new: Any) -> None:
                slot.value = _number(new, name, numeric)

            fits = "type({a}) is float and -{limit} <= {a} <= {limit}"
            _inline(set_float, fits, "{slot}.value = {a}", slot=slot, limit=limit)
            return self._own(at, slot, set_float)
        low, high = _int_range(numeric)

        def set_int(new: Any) -> None:
            # a C slot keeps the low bits of any int: _number refuses one out of range, naming it
            slot.value = _number(new, name, numeric)

        fits = "type({a}) is int and {low} <= {a} <= {high}"
        _inline(set_int, fits, "{slot}.value = {a}", slot=slot, low=low, high=high)
        return self._own(at, slot, set_int)

    def launch(self, *args: Any, **kwargs: Any) -> None:
        """Launch with ``args`` in place of the prepared arguments (all of them, as for the call;
        none: the last ones again). A launch that raises leaves the last arguments in place.

        Raises:
            CoopTypeError: an argument of another kind or element type, named.
            CoopValueError: another rank, a static shape or stride changed, or misaligned data.
            CoopBackendError: the launch failed (the CUDA error).
        """
        if args or kwargs:
            values = args if not kwargs and len(args) == len(self._setters) else self._rectify(args, kwargs)
            try:
                self._set_all(*values)
            except Exception:
                self._restore()
                raise
            self._last = values
        self._call(self._packed)
        if self._result is not None and self._result.value:
            raise CoopBackendError(f"the launch failed: CUDA error {self._result.value}")

    def call(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """The plain call's launch (``compiled(*args, **kwargs)``): CuTe's binding of the arguments
        (defaults, keywords), written into the slots, the host entry called; keeps nothing of the
        arguments. Returns what CuTe's call returns (0, or None for an entry without a result) and
        raises what it raises for a failed launch."""
        if kwargs or len(args) != len(self._setters):
            args = self._bind(args, kwargs)
        self._set_all(*args)
        self._call(self._packed)
        result = self._result
        if result is None:
            return None
        if result.value:
            raise _cute_hooks.cuda_error(result.value)
        return 0

    def forget(self) -> None:
        """Drop the arguments kept for ``launch()`` (the call state keeps none)."""
        self._last = None

    def _restore(self) -> None:
        """Write the last accepted arguments back (they were accepted: this does not raise)."""
        if self._last is not None:
            for setter, value in zip(self._setters, self._last, strict=False):
                setter(value)

    def _rectify(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        if len(args) > len(self._names) or set(kwargs) - set(self._names[len(args) :]):
            raise CoopTypeError(f"launch() takes the arguments {', '.join(self._names)}")
        missing = [n for n in self._names[len(args) :] if n not in kwargs]
        if missing:
            raise CoopTypeError(f"launch() is missing {', '.join(missing)} (give all arguments, or none)")
        return [*args, *(kwargs[n] for n in self._names[len(args) :])]


def _inline(setter: Callable[[Any], None], fits: str, write: str, **names: Any) -> None:
    """Give ``setter`` a fast path for :func:`_writer` to inline: the test that an argument ``{a}``
    takes it, and the statement that writes it (its ``{name}``s: ``names``' objects). The setter
    itself is the full path, taken where the test fails (it checks and names what the test
    refuses), so it does not repeat the test."""
    setter.inline = (fits, write, names)  # type: ignore[attr-defined]


def _writer(setters: list[Callable[[Any], None]]) -> Callable[..., None]:
    """One function writing every argument into its slot: each setter's fast path inline (a torch
    tensor like the last, an int address or scalar in range, a float in range, an int stream), the
    setter where the test fails or there is none; a call per argument less."""
    ns: dict[str, Any] = {"ADDRESSES": ADDRESSES}
    arms = []
    for i, setter in enumerate(setters):
        ns[f"s{i}"] = setter
        inline = getattr(setter, "inline", None)
        if inline is None:
            arms.append(Arm(otherwise=(f"s{i}(a{i})",)))
            continue
        fits, write, names = inline
        ns.update({f"{k}{i}": v for k, v in names.items()})
        spelled = {"a": f"a{i}", **{k: f"{k}{i}" for k in names}}
        arms.append(Arm(((fits.format(**spelled), (write.format(**spelled),)),), (f"s{i}(a{i})",)))
    return generate("set_all", arms, ns)


def _scalar_ctype(numeric: Any) -> Any:
    from cutlass import Float32, Float64, Integer

    if numeric is Float32:
        return ctypes.c_float
    if numeric is Float64:
        return ctypes.c_double
    if issubclass(numeric, Integer) and numeric.width in (8, 16, 32, 64):
        return _INT_TYPES[(numeric.width, bool(numeric.signed))]
    return None


def _int_range(numeric: Any) -> tuple[int, int]:
    """The values of CuTe's integer type ``numeric`` (``Int32``: -2**31 .. 2**31 - 1)."""
    width = numeric.width
    return (-(1 << (width - 1)), (1 << (width - 1)) - 1) if numeric.signed else (0, (1 << width) - 1)


def _number(value: Any, name: str, numeric: Any) -> Any:
    """A Python number for a scalar parameter: ints for integer parameters (in the type's range),
    floats for float ones."""
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
    if is_float:
        try:
            number = float(value)
            if numeric.width == 32 and math.isfinite(number):
                struct.pack("<f", number)  # OverflowError where it rounds past float32's range
        except OverflowError:
            raise CoopValueError(f"argument {name!r}: {value!r} does not fit {numeric.__name__}") from None
        return number
    low, high = _int_range(numeric)
    if not low <= value <= high:
        what = f"{numeric.__name__} ({low} .. {high})"
        raise CoopValueError(f"argument {name!r}: {value!r} does not fit {what}")
    return int(value)
