# SPDX-License-Identifier: Apache-2.0
"""Launching ``cuda.coop.numba.jit`` kernels: argument marshalling and the prepared launch.

numba-cuda passes each kernel argument as flat parameters: an array is ``meminfo, parent, nitems,
itemsize, data, shape[0..n), strides[0..n)`` (64 bits each, strides in bytes), a complex number
its real and imaginary parts, a tuple its members in order, any other scalar itself. A
:class:`Plan` holds one compiled kernel's function handle and the ``struct`` format of its
parameters, one 8-byte slot each; a launch packs the values into a buffer whose pointer array was
built once and calls ``cuLaunchKernel`` (``cuda.bindings``).

A *reader* turns an argument (a Numba device array, a torch tensor, a CuPy array, any object with
``__cuda_array_interface__`` or ``__dlpack__``, a scalar, a tuple of those) into a *key*, what
decides the kernel's type for it (dtype, rank, layout, device, ...), and its parameter values.
Pointers are read directly: like CuPy's ``RawKernel``, a launch does not order itself after the
producer's stream (launch on the stream that wrote the data, or synchronise).
"""

from __future__ import annotations

import ctypes
import enum
import inspect
import struct
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from cuda.coop._errors import CoopLaunchConfigError, CoopTypeError, CoopValueError

Key = tuple[Any, ...]
Rejection = tuple[type[Exception], str]
Reader = Callable[[Any], tuple[Key, tuple[Any, ...]]]

_SCALAR, _TUPLE = "scalar", "tuple"
_UNKNOWN_DEVICE, _HOST = -2, -1


class Unsupported(Exception):
    """An argument (or a kernel parameter type) that only Numba's own launch path handles."""


# --- numba-cuda internals (tests/test_numba_launch.py checks each against the installed version) ----


def kernel_function(kernel: Any) -> Any:
    """The driver handle of a compiled ``_Kernel`` in the current context (its module loaded and
    initialised by ``_Kernel.bind``), as the ``CUfunction`` ``cuLaunchKernel`` takes (a library
    ``CUkernel`` is accepted there too; converting once spares the binding a conversion per call)."""
    from cuda.bindings import driver

    kernel.bind()
    return driver.CUfunction(int(kernel._codelibrary.get_cufunc().handle))


def fast_path_blocker(dispatcher: Any, kernel: Any | None = None) -> str | None:
    """Why Numba's own launch path must handle this dispatcher (or kernel), or None."""
    if dispatcher.targetoptions.get("extensions"):
        return "it has argument-handling extensions"
    if getattr(dispatcher, "_launch_config_sensitive", False):
        return "it is launch-configuration sensitive"
    if kernel is not None:
        if kernel.debug:
            return "it is compiled with debug=True (the launch checks an exception flag)"
        if getattr(kernel, "launch_config_sensitive", False):
            return "it is launch-configuration sensitive"
    return None


def resolve_kernel(dispatcher: Any, args: Sequence[Any], *, compile: bool, what: str) -> Any:
    """The compiled kernel Numba launches for ``args``: the exact overload, else (``compile``) a new
    one, else the only overload the argument types convert to."""
    argtypes = []
    for i, a in enumerate(args):
        try:
            argtypes.append(dispatcher.typeof_pyval(a))
        except Exception as exc:
            raise CoopTypeError(
                f"{what}: Numba cannot type argument {i} ({type(a).__name__}): {exc}"
            ) from exc
    sig = tuple(argtypes)
    kernel = dispatcher.overloads.get(sig)
    if kernel is not None:
        return kernel
    if compile and dispatcher._can_compile:
        return dispatcher.compile(sig)
    can_convert = dispatcher.typingctx.can_convert
    fits = [
        k
        for formal, k in dispatcher.overloads.items()
        if len(formal) == len(sig)
        and all(can_convert(a, f) is not None for a, f in zip(sig, formal, strict=True))
    ]
    if len(fits) != 1:
        have = ", ".join(str(tuple(f)) for f in dispatcher.overloads) or "none"
        raise CoopTypeError(
            f"{what}: no compiled signature takes ({', '.join(map(str, sig))}); compiled: {have}"
        )
    return fits[0]


def _launch_error(err: Any, what: str) -> Exception:
    from numba.cuda.cudadrv.driver import CudaAPIError

    return CudaAPIError(err, f"{what}: cuLaunchKernel failed with {getattr(err, 'name', err)}")


# --- streams and the current context ---------------------------------------------------------------


def stream_handle(stream: Any, *, what: str = "stream") -> int:
    """The ``CUstream`` handle of ``stream`` as an int.

    Accepts None or 0 (the default stream), an int handle, any object with ``__cuda_stream__``
    (Numba, cuda.core), a torch ``cuda.Stream`` (``cuda_stream``), a CuPy stream (``ptr``) or an
    object with an int ``handle``.
    """
    if stream is None:
        return 0
    if isinstance(stream, int) and not isinstance(stream, bool):
        if stream < 0:
            raise CoopValueError(f"{what}: a stream handle is not negative, got {stream}")
        return stream
    proto = getattr(stream, "__cuda_stream__", None)
    if proto is not None:
        value = proto() if callable(proto) else proto
        return int(value[1])
    for attr in ("cuda_stream", "ptr", "handle"):
        value = getattr(stream, attr, None)
        if value is not None and not isinstance(value, bool):
            try:
                return int(value)
            except TypeError:
                pass
    raise CoopTypeError(
        f"{what}: expected a stream (None, an int handle, an object with __cuda_stream__, a torch or "
        f"CuPy stream), got {type(stream).__name__}"
    )


def numba_stream(stream: Any, handle: int) -> Any:
    """``stream`` as Numba's launch takes it (0, a Numba stream or an external stream of ``handle``)."""
    from numba import cuda
    from numba.cuda.cudadrv.driver import Stream

    if handle == 0:
        return 0
    if isinstance(stream, Stream):
        return stream
    return cuda.external_stream(handle)


def current_context() -> int:
    """The current CUDA context as an int (0: none)."""
    from cuda.bindings import driver

    err, ctx = driver.cuCtxGetCurrent()
    return 0 if err else int(ctx)


def current_device() -> int:
    """The ordinal of the current context's device."""
    from cuda.bindings import driver

    err, dev = driver.cuCtxGetDevice()
    if err:
        raise CoopValueError(f"no CUDA context is current ({err.name})")
    return int(dev)


def dim3(value: Any, *, what: str) -> tuple[int, int, int]:
    """A grid as ``(x, y, z)``: an int or a tuple of 1 to 3 positive ints."""
    import operator

    dims = (value,) if not isinstance(value, (tuple, list)) else tuple(value)
    try:
        if not 1 <= len(dims) <= 3 or any(isinstance(d, bool) for d in dims):
            raise TypeError
        full = tuple(operator.index(d) for d in dims) + (1,) * (3 - len(dims))
    except TypeError:
        raise CoopLaunchConfigError(
            f"{what} must be an int or a tuple of 1 to 3 ints, got {value!r}"
        ) from None
    if min(full) < 1:
        raise CoopLaunchConfigError(f"{what} must be positive ints, got {value!r}")
    return (full[0], full[1], full[2])


def shared_bytes(value: Any, *, what: str) -> int:
    """Dynamic shared memory bytes: a non-negative int."""
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        raise CoopLaunchConfigError(f"{what}: dynamic shared memory must be an int of bytes, got {value!r}")
    n = int(value)
    if n < 0:
        raise CoopLaunchConfigError(f"{what}: dynamic shared memory must be >= 0 bytes, got {n}")
    return n


# --- readers ---------------------------------------------------------------------------------------


def layout_of(shape: Sequence[int], strides: Sequence[int], itemsize: int) -> str:
    """``"C"``, ``"F"`` or ``"A"`` for byte strides (extent-1 dims ignored, as NumPy does)."""
    if 0 in shape:
        return "C"
    for order in ("C", "F"):
        expected = itemsize
        dims = range(len(shape) - 1, -1, -1) if order == "C" else range(len(shape))
        for i in dims:
            if shape[i] != 1:
                if strides[i] != expected:
                    break
                expected *= shape[i]
        else:
            return order
    return "A"


def _c_strides(shape: Sequence[int], itemsize: int) -> tuple[int, ...]:
    out, step = [], itemsize
    for n in reversed(shape):
        out.append(step)
        step *= n
    return tuple(reversed(out))


def _read_numba(a: Any) -> tuple[Key, tuple[Any, ...]]:
    t = a._numba_type_  # cached on the array; broadcast arrays are "A"
    dtype = a.dtype
    return (
        ("numba", dtype, t.ndim, t.layout, _UNKNOWN_DEVICE, False, None),
        (0, 0, a.size, dtype.itemsize, a.device_ctypes_pointer.value or 0, *a.shape, *a.strides),
    )


_GRAD = "it requires grad; pass x.detach()"
_CONJ = "it is a lazily conjugated or negated view; pass x.resolve_conj().resolve_neg()"


def _read_torch(t: Any) -> tuple[Key, tuple[Any, ...]]:
    dt = t.dtype
    shape = t.shape
    isz = t.itemsize
    if len(shape) == 1 and t.is_contiguous():
        strides: Sequence[int] = (isz,)
        layout = "C"
    else:
        strides = [s * isz for s in t.stride()]
        layout = "C" if t.is_contiguous() else layout_of(shape, strides, isz)
    problem = _GRAD if t.requires_grad else None
    if dt.is_complex and (t.is_conj() or t.is_neg()):
        problem = _CONJ
    return (
        ("torch", dt, len(shape), layout, t.get_device(), False, problem),
        (0, 0, t.numel(), isz, t.data_ptr(), *shape, *strides),
    )


def _read_cupy(a: Any) -> tuple[Key, tuple[Any, ...]]:
    shape, strides, isz, mem = a.shape, a.strides, a.itemsize, a.data
    layout = "C" if a.flags.c_contiguous else layout_of(shape, strides, isz)
    return (
        ("cupy", a.dtype, len(shape), layout, mem.device_id, False, None),
        (0, 0, a.size, isz, mem.ptr, *shape, *strides),
    )


_TYPESTR: dict[str, np.dtype[Any]] = {}


def _read_cai(obj: Any) -> tuple[Key, tuple[Any, ...]]:
    cai = obj.__cuda_array_interface__
    ptr, readonly = cai["data"]
    shape = tuple(cai["shape"])
    typestr = cai["typestr"]
    dtype = _TYPESTR.get(typestr)
    if dtype is None:
        dtype = _TYPESTR[typestr] = np.dtype(typestr)
    isz = dtype.itemsize
    strides = cai.get("strides")
    if strides is None:
        strides, layout = _c_strides(shape, isz), "C"
    else:
        strides = tuple(strides)
        layout = layout_of(shape, strides, isz)
    problem = "it has a mask, which Numba does not support" if cai.get("mask") is not None else None
    stream = cai.get("stream")
    if stream is not None and _cai_sync():
        # The interface's contract (as Numba keeps it): the producer's stream is synchronised.
        from cuda.bindings import driver

        driver.cuStreamSynchronize(driver.CUstream(stream))
    size = 1
    for n in shape:
        size *= n
    return (
        ("cai", dtype, len(shape), layout, _UNKNOWN_DEVICE, bool(readonly), problem),
        (0, 0, size, isz, ptr or 0, *shape, *strides),
    )


def _cai_sync() -> bool:
    from numba.cuda.core import config

    return bool(config.CUDA_ARRAY_INTERFACE_SYNC)


def _read_dlpack(obj: Any) -> tuple[Key, tuple[Any, ...]]:
    from cuda.core.utils import StridedMemoryView

    smv = StridedMemoryView.from_dlpack(obj, stream_ptr=-1)
    dtype, shape = smv.dtype, tuple(smv.shape)
    if dtype is None:
        raise Unsupported(f"{type(obj).__name__} has a dtype NumPy does not know")
    isz = dtype.itemsize
    strides = _c_strides(shape, isz) if smv.strides is None else tuple(s * isz for s in smv.strides)
    device = smv.device_id if smv.is_device_accessible else _HOST
    size = 1
    for n in shape:
        size *= n
    return (
        ("dlpack", dtype, len(shape), layout_of(shape, strides, isz), device, bool(smv.readonly), None),
        (0, 0, size, isz, smv.ptr, *shape, *strides),
    )


def _read_scalar(a: Any) -> tuple[Key, tuple[Any, ...]]:
    return (_SCALAR, type(a)), (a,)


def _read_complex(a: Any) -> tuple[Key, tuple[Any, ...]]:
    return (_SCALAR, type(a)), (a.real, a.imag)


def _read_enum(a: Any) -> tuple[Key, tuple[Any, ...]]:
    return (_SCALAR, type(a)), (a.value,)


def _read_tuple(t: tuple[Any, ...]) -> tuple[Key, tuple[Any, ...]]:
    keys, values = [], []
    for x in t:
        read = READERS.get(type(x)) or reader_for(type(x))
        if read is None:
            raise Unsupported(not_passable(x))
        k, v = read(x)
        keys.append(k)
        values.extend(v)
    return (_TUPLE, tuple(keys)), tuple(values)


#: Reader by argument type (None: only Numba's own path handles it, e.g. host arrays).
READERS: dict[type, Reader | None] = {
    int: _read_scalar,
    float: _read_scalar,
    bool: _read_scalar,
    complex: _read_complex,
    tuple: _read_tuple,
}


def reader_for(kind: type) -> Reader | None:
    """The reader of arguments of type ``kind`` (looked up once per type)."""
    if kind in READERS:
        return READERS[kind]
    reader: Reader | None = None
    if issubclass(kind, enum.Enum):
        reader = _read_enum
    elif issubclass(kind, (np.number, np.bool_)):
        reader = _read_complex if issubclass(kind, np.complexfloating) else _read_scalar
    elif issubclass(kind, (int, float)):  # subclasses of Python numbers
        reader = _read_scalar
    elif issubclass(kind, tuple):
        reader = _read_tuple
    elif _is_numba_array(kind):
        reader = _read_numba
    elif "torch" in sys.modules and issubclass(kind, sys.modules["torch"].Tensor):
        reader = _read_torch
    elif "cupy" in sys.modules and issubclass(kind, sys.modules["cupy"].ndarray):
        reader = _read_cupy
    elif issubclass(kind, np.ndarray):
        reader = None  # host memory: Numba's launch copies it in and out
    elif hasattr(kind, "__cuda_array_interface__"):
        reader = _read_cai
    elif hasattr(kind, "__dlpack__"):
        reader = _read_dlpack
    else:
        reader = _read_instance
    READERS[kind] = reader
    return reader


def _read_instance(a: Any) -> tuple[Key, tuple[Any, ...]]:
    """An object whose interface is an instance attribute (not its class's)."""
    if getattr(a, "__cuda_array_interface__", None) is not None:
        return _read_cai(a)
    if getattr(a, "__dlpack__", None) is not None:
        return _read_dlpack(a)
    raise Unsupported(not_passable(a))


def _is_numba_array(kind: type) -> bool:
    if not getattr(kind, "__cuda_memory__", False):
        return False
    from numba.cuda.cudadrv.devicearray import DeviceNDArray

    return issubclass(kind, DeviceNDArray)


def read_args(args: Sequence[Any]) -> tuple[tuple[Key, ...], list[Any]]:
    """The keys and the flat parameter values of ``args``; raises :class:`Unsupported`."""
    keys, values = [], []
    for a in args:
        read = READERS.get(type(a)) or reader_for(type(a))
        if read is None:
            raise Unsupported(not_passable(a))
        k, v = read(a)
        keys.append(k)
        values.extend(v)
    return tuple(keys), values


def describe(key: Key) -> str:
    """What a key says of its argument, for messages."""
    if key[0] == _SCALAR:
        return f"a {key[1].__name__}"
    if key[0] == _TUPLE:
        return f"a tuple of ({', '.join(describe(k) for k in key[1])})"
    src, dtype, ndim, layout, device = key[:5]
    where = {_UNKNOWN_DEVICE: "", _HOST: " in host memory"}.get(device, f" on device {device}")
    return f"a {src} {_dtype_name(dtype)} {ndim}-D {layout}-layout array{where}"


def _dtype_name(dtype: Any) -> str:
    return str(dtype).replace("torch.", "")


_TORCH_DTYPES: dict[Any, np.dtype[Any]] = {}


def _numpy_dtype(dtype: Any) -> np.dtype[Any] | None:
    if isinstance(dtype, np.dtype):
        return dtype
    if not _TORCH_DTYPES and "torch" in sys.modules:
        torch = sys.modules["torch"]
        for name in (
            "bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64 complex64 "
            "complex128"
        ).split():
            if hasattr(torch, name):
                _TORCH_DTYPES[getattr(torch, name)] = np.dtype(name)
    return _TORCH_DTYPES.get(dtype)


# --- parameter specs: what a kernel argument type takes --------------------------------------------

_SIZE = {"?": 1, "b": 1, "B": 1, "h": 2, "H": 2, "e": 2, "i": 4, "I": 4, "f": 4, "q": 8, "Q": 8, "d": 8}


def _slot(code: str) -> str:
    """One 8-byte parameter slot holding a ``code`` value (little-endian, padded)."""
    pad = 8 - _SIZE[code]
    return code + (f"{pad}x" if pad else "")


class Spec:
    """How one kernel argument type fills parameter slots.

    Attributes:
        numba_type: the argument's Numba type.
        fmt: its ``struct`` format (no byte-order prefix), 8 bytes per slot.
        slots: the number of parameter slots.
    """

    numba_type: Any
    fmt: str
    slots: int

    def reject(self, key: Key, device: int) -> Rejection | None:
        """Why an argument with ``key`` cannot fill this type on ``device``: the error class and
        the reason (None: it can)."""
        raise NotImplementedError

    def __str__(self) -> str:
        return str(self.numba_type)


class ArraySpec(Spec):
    """An array argument: meminfo, parent, nitems, itemsize, data, shape..., strides...."""

    def __init__(self, ty: Any) -> None:
        from numba.cuda.np import numpy_support

        self.numba_type = ty
        self.dtype = np.dtype(numpy_support.as_dtype(ty.dtype))
        self.ndim, self.layout, self.mutable = ty.ndim, ty.layout, ty.mutable
        self.slots = 5 + 2 * ty.ndim
        self.fmt = "qqqqQ" + "q" * (2 * ty.ndim)
        self.data_slot = 4

    def reject(self, key: Key, device: int) -> Rejection | None:
        T, V = CoopTypeError, CoopValueError
        if key[0] in (_SCALAR, _TUPLE):
            return T, f"got {describe(key)}, the kernel takes a {self.describe()}"
        _src, dtype, ndim, layout, where, readonly, problem = key
        if problem:
            return T, problem
        if where == _HOST:
            return V, "it is in host memory; copy it to the GPU (cuda.to_device, tensor.cuda())"
        if where >= 0 and where != device:
            return V, f"it is on device {where}, the launch is on device {device}"
        if _numpy_dtype(dtype) != self.dtype:
            return T, f"dtype {_dtype_name(dtype)}, the kernel takes {self.dtype}"
        if ndim != self.ndim:
            return T, f"{ndim}-D, the kernel takes {self.ndim}-D"
        if self.layout != "A" and layout != self.layout:
            return T, (
                f"layout {layout}, the kernel was compiled for {self.layout}-contiguous arrays (pass a "
                "contiguous copy, or launch it with kernel[grid, block] to compile for this layout)"
            )
        if readonly and self.mutable:
            return V, "it is read-only, the kernel was compiled for writable arrays"
        return None

    def describe(self) -> str:
        return f"{self.dtype} {self.ndim}-D {self.layout}-layout array"


class ScalarSpec(Spec):
    """A number, a boolean, a pointer or an enum member: one slot (a complex number: two)."""

    def __init__(self, ty: Any) -> None:
        from numba.cuda import types

        self.numba_type = ty
        base = ty.dtype if isinstance(ty, types.EnumMember) else ty
        self.enum = ty.instance_class if isinstance(ty, types.EnumMember) else None
        if isinstance(base, types.Boolean):
            code, self.accepts = "?", (bool, np.bool_)
        elif isinstance(base, types.Integer):
            code = {8: "b", 16: "h", 32: "i", 64: "q"}[base.bitwidth]
            code = code.upper() if not base.signed else code
            self.accepts = (int, np.integer, bool, np.bool_)
        elif isinstance(base, types.Float):
            code = {16: "e", 32: "f", 64: "d"}[base.bitwidth]
            self.accepts = (float, np.floating, int, np.integer, bool, np.bool_)
        elif isinstance(base, types.Complex):
            code = {64: "f", 128: "d"}[base.bitwidth]
            self.accepts = (complex, np.complexfloating, float, np.floating, int, np.integer)
            self.fmt, self.slots = _slot(code) * 2, 2
            return
        elif isinstance(base, types.CPointer):
            code, self.accepts = "Q", (int, np.integer)
        else:
            raise Unsupported(f"a kernel argument of type {ty}")
        self.fmt, self.slots = _slot(code), 1

    def reject(self, key: Key, device: int) -> Rejection | None:
        kind = key[1] if key[0] == _SCALAR else None
        return (
            None
            if kind is not None and self.takes(kind)
            else (CoopTypeError, f"got {describe(key)}, the kernel takes {self.numba_type}")
        )

    def takes(self, kind: type) -> bool:
        """Whether values of Python type ``kind`` fill this type."""
        if self.enum is not None:
            return kind is self.enum
        return issubclass(kind, self.accepts) and not issubclass(kind, enum.Enum)


class TupleSpec(Spec):
    """A tuple: its members' slots in order."""

    def __init__(self, ty: Any) -> None:
        self.numba_type = ty
        self.members = [spec(t) for t in ty.types]
        self.fmt = "".join(m.fmt for m in self.members)
        self.slots = sum(m.slots for m in self.members)

    def reject(self, key: Key, device: int) -> Rejection | None:
        if key[0] != _TUPLE or len(key[1]) != len(self.members):
            return CoopTypeError, f"got {describe(key)}, the kernel takes {self.numba_type}"
        for i, (m, k) in enumerate(zip(self.members, key[1], strict=True)):
            why = m.reject(k, device)
            if why:
                return why[0], f"member {i}: {why[1]}"
        return None


def spec(ty: Any) -> Spec:
    """The :class:`Spec` of a Numba argument type; raises :class:`Unsupported` for types only
    Numba's launch handles (records, datetimes, ...)."""
    from numba.cuda import types

    if isinstance(ty, types.Array):
        return ArraySpec(ty)
    if isinstance(ty, types.BaseTuple):
        return TupleSpec(ty)
    return ScalarSpec(ty)


# --- plans and parameter buffers -------------------------------------------------------------------


class Params:
    """A parameter buffer of 8-byte slots and the pointer array ``cuLaunchKernel`` reads (one per
    thread or prepared launch: a launch writes into it)."""

    __slots__ = ("address", "buffer", "pointers")

    def __init__(self, slots: int) -> None:
        self.buffer = (ctypes.c_uint64 * max(slots, 1))()
        base = ctypes.addressof(self.buffer)
        self.pointers = (ctypes.c_void_p * max(slots, 1))(*(base + 8 * i for i in range(slots)))
        self.address = ctypes.addressof(self.pointers) if slots else 0


class Layout:
    """The parameter layout of one argument signature (no GPU needed).

    Attributes:
        specs: one :class:`Spec` per argument.
        offsets: each argument's first slot.
        slots: the number of slots.
        pack_into: ``struct.Struct(...).pack_into`` of all the parameters.
    """

    def __init__(self, argtypes: Sequence[Any]) -> None:
        self.specs = [spec(t) for t in argtypes]
        self.offsets, n = [], 0
        for s in self.specs:
            self.offsets.append(n)
            n += s.slots
        self.slots = n
        self.pack_into = struct.Struct("<" + "".join(s.fmt for s in self.specs)).pack_into


class Plan:
    """One compiled kernel bound to the current device: its handle and its :class:`Layout`.

    Args:
        kernel: the numba-cuda ``_Kernel``.
        what: the kernel's name, for messages.
    """

    def __init__(self, kernel: Any, what: str) -> None:
        from cuda.bindings import driver

        self.what = what
        self.layout = Layout(kernel.argument_types)
        self.function = kernel_function(kernel)
        self.device = current_device()
        self.context = current_context()
        if kernel.cooperative:
            coop_launch = driver.cuLaunchCooperativeKernel

            def launch_coop(f: Any, gx: int, gy: int, gz: int, bx: int, by: int, bz: int, *rest: Any) -> Any:
                return coop_launch(f, gx, gy, gz, bx, by, bz, *rest[:-1])

            self.driver_launch: Callable[..., Any] = launch_coop
        else:
            self.driver_launch = driver.cuLaunchKernel

    def reject(self, keys: Sequence[Key]) -> str | None:
        """Why arguments with ``keys`` cannot take this plan (None: they can)."""
        if len(keys) != len(self.layout.specs):
            return f"{len(keys)} arguments, the kernel takes {len(self.layout.specs)}"
        for i, (s, k) in enumerate(zip(self.layout.specs, keys, strict=True)):
            why = s.reject(k, self.device)
            if why:
                return f"argument {i}: {why[1]}"
        return None


class BoundPlan:
    """A :class:`Plan` with a parameter buffer of its own (one thread's)."""

    __slots__ = ("address", "buffer", "function", "launch_fn", "pack_into", "params", "plan", "what")

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.params = Params(plan.layout.slots)
        self.buffer, self.address = self.params.buffer, self.params.address
        self.pack_into, self.function = plan.layout.pack_into, plan.function
        self.launch_fn, self.what = plan.driver_launch, plan.what

    def launch(
        self, grid: tuple[int, int, int], block: tuple[int, int, int], shmem: int, stream: Any, values: Any
    ) -> None:
        """Pack ``values`` (the flat parameters) and launch on ``stream`` (a ``CUstream``)."""
        self.pack_into(self.buffer, 0, *values)
        (err,) = self.launch_fn(
            self.function,
            grid[0],
            grid[1],
            grid[2],
            block[0],
            block[1],
            block[2],
            shmem,
            stream,
            self.address,
            0,
        )
        if err:
            raise _launch_error(err, self.what)


def try_plan(dispatcher: Any, args: Sequence[Any], keys: Sequence[Key], what: str) -> BoundPlan | None:
    """A plan for arguments like ``args`` (whose keys are ``keys``) after Numba launched them once,
    or None where Numba's own path must keep launching them."""
    if fast_path_blocker(dispatcher) is not None:
        return None
    try:
        kernel = resolve_kernel(dispatcher, args, compile=False, what=what)
        if fast_path_blocker(dispatcher, kernel) is not None:
            return None
        plan = Plan(kernel, what)
    except Exception:  # whatever the plan cannot take, Numba's own launch (which just worked) does
        return None
    return None if plan.reject(keys) else BoundPlan(plan)


class LaunchCache:
    """What a kernel's launches reuse: per-thread plans by (block, context, argument keys), and the
    configured launches by launch configuration."""

    MAX_CONFIGS = 256

    def __init__(self) -> None:
        self.local = threading.local()
        self.configs: dict[Any, Any] = {}
        self.slow_launches = 0  # launches that went through Numba's own path (for tests)

    def plans(self) -> dict[Any, BoundPlan | None]:
        """This thread's plans."""
        try:
            return self.local.plans  # type: ignore[no-any-return]
        except AttributeError:
            self.local.plans = {}
            return self.local.plans  # type: ignore[no-any-return]


# --- the prepared launch ---------------------------------------------------------------------------


def not_passable(a: Any) -> str:
    """Why a prepared launch cannot pass ``a``."""
    if isinstance(a, np.ndarray):
        return "a NumPy array is in host memory; copy it to the GPU first (numba.cuda.to_device)"
    return (
        f"{type(a).__name__} is not a GPU array nor a scalar; pass a Numba device array, a torch or "
        "CuPy GPU tensor, or an object with __cuda_array_interface__ or __dlpack__"
    )


def _problem(key: Key) -> Rejection | None:
    """What is wrong with an argument whatever the kernel (a host array, a tensor needing grad)."""
    if key[0] == _SCALAR:
        return None
    if key[0] == _TUPLE:
        return next((p for p in map(_problem, key[1]) if p), None)
    if key[6]:
        return CoopTypeError, key[6]
    if key[4] == _HOST:
        return CoopValueError, "it is in host memory; copy it to the GPU (cuda.to_device, tensor.cuda())"
    return None


def check_prepare_args(
    py_func: Callable[..., Any], args: Sequence[Any], names: Sequence[str], what: str
) -> None:
    """Typed errors, before anything compiles, for a wrong number of arguments and for arguments a
    prepared launch cannot pass (host arrays, tensors that require grad)."""
    try:
        params = list(inspect.signature(py_func).parameters)
    except (TypeError, ValueError):
        params = None
    if params is not None and len(args) != len(params):
        raise CoopTypeError(
            f"{what}: prepare(grid, block, *args) takes the kernel's {len(params)} arguments "
            f"({', '.join(params)}), got {len(args)}"
        )
    for i, a in enumerate(args):
        read = reader_for(type(a))
        try:
            if read is None:
                raise Unsupported(not_passable(a))
            key, _ = read(a)
        except Unsupported as exc:
            raise CoopTypeError(f"{what}: argument {i} ({names[i]}): {exc}") from None
        problem = _problem(key)
        if problem:
            raise problem[0](f"{what}: argument {i} ({names[i]}): {problem[1]}")


def arg_names(py_func: Callable[..., Any], n: int) -> list[str]:
    """The kernel's parameter names (``arg<i>`` where it has none)."""
    try:
        names = list(inspect.signature(py_func).parameters)
    except (TypeError, ValueError):
        names = []
    return [names[i] if i < len(names) else f"arg{i}" for i in range(n)]


class PreparedLaunch:
    """A kernel launch bound once: configuration, stream, compiled kernel and parameter buffer.

    Made by :meth:`cuda.coop.numba.CoopKernel.prepare`. :meth:`launch` writes only the argument
    slots and calls ``cuLaunchKernel``; a launch that raises changes no slot. One handle per thread:
    a launch writes into the handle's buffer, so threads that launch concurrently each prepare
    their own.

    Attributes:
        grid: the grid, ``(x, y, z)``.
        block: the block, ``(x, y, z)``.
        shared_mem: dynamic shared memory bytes.
        stream: the stream handle launches go to (an int).
        device: the device the kernel was loaded on.
    """

    __slots__ = (
        "_args",
        "_call",
        "_launch_fn",
        "_names",
        "_nargs",
        "_ns",
        "_params",
        "_plan",
        "_set_all",
        "block",
        "device",
        "grid",
        "shared_mem",
        "stream",
    )

    def __init__(
        self,
        plan: Plan,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        shared_mem: int,
        stream: int,
        names: Sequence[str],
    ) -> None:
        from cuda.bindings import driver

        self._plan, self._names = plan, list(names)
        self.grid, self.block, self.shared_mem, self.stream = grid, block, shared_mem, stream
        self.device = plan.device
        self._params = Params(plan.layout.slots)
        self._nargs = len(plan.layout.specs)
        self._set_all = self._compile_setters()
        self._launch_fn = plan.driver_launch
        self._call = (
            plan.function,
            *grid,
            *block,
            shared_mem,
            driver.CUstream(stream),
            self._params.address,
            0,
        )
        self._args: tuple[Any, ...] = ()

    def _where(self, i: int) -> str:
        return f"{self._plan.what}: argument {i} ({self._names[i]})"

    def _compile_setters(self) -> Callable[..., None]:
        """One function that writes every argument into its slots: per argument, the common case
        inline (a raw pointer for an array, a scalar of a kind seen before), else its setter."""
        torch = sys.modules.get("torch")
        torch_tensor = getattr(torch, "Tensor", None)
        ns: dict[str, Any] = {"buffer": self._params.buffer, "error": struct.error, "Tensor": torch_tensor}
        params = ", ".join(f"a{i}" for i in range(self._nargs))
        lines = [f"def set_all({params}):"]
        for i, s in enumerate(self._plan.layout.specs):
            setter, kinds = self._setter(i)
            ns[f"s{i}"] = setter
            if isinstance(s, ArraySpec):
                ns[f"d{i}"] = self._plan.layout.offsets[i] + s.data_slot
                ns[f"r{i}"] = self._recorder(ns, i)
                ns[f"last{i}"] = ns[f"dt{i}"] = ns[f"sh{i}"] = ns[f"st{i}"] = ns[f"dv{i}"] = None
                lines += [
                    f"    global last{i}",
                    f"    if type(a{i}) is int:",
                    f"        buffer[d{i}] = a{i}",
                    f"        last{i} = None",
                ]
                if torch_tensor is not None:
                    # A tensor like the last one (dtype, shape, strides, device): only its data moves.
                    lines += [
                        f"    elif type(a{i}) is Tensor and a{i}.dtype is dt{i} and a{i}.shape == sh{i} and "
                        f"a{i}.stride() == st{i} and a{i}.get_device() == dv{i} and not a{i}.requires_grad:",
                        f"        buffer[d{i}] = a{i}.data_ptr()",
                        f"        last{i} = None",
                    ]
                lines += [
                    f"    elif a{i} is last{i}:",  # the Numba device array of the last launch: in place
                    "        pass",
                    "    else:",
                    f"        s{i}(a{i})",
                    f"        r{i}(a{i})",
                ]
            elif kinds is not None:
                ns[f"k{i}"], ns[f"o{i}"] = kinds, 8 * self._plan.layout.offsets[i]
                ns[f"p{i}"] = struct.Struct("<" + s.fmt).pack_into
                lines += [
                    f"    if type(a{i}) in k{i}:",
                    "        try:",
                    f"            p{i}(buffer, o{i}, a{i})",
                    "        except error:",
                    f"            s{i}(a{i})",
                    "    else:",
                    f"        s{i}(a{i})",
                ]
            else:
                lines.append(f"    s{i}(a{i})")
        if self._nargs == 0:
            lines.append("    pass")
        exec("\n".join(lines), ns)
        self._ns = ns
        return ns["set_all"]  # type: ignore[no-any-return]

    @staticmethod
    def _recorder(ns: dict[str, Any], i: int) -> Callable[[Any], None]:
        """What the fast paths of array argument ``i`` compare the next argument with, taken from
        the one just written: a Numba device array itself (its metadata never changes), or a real
        torch tensor's dtype, shape, strides and device (a complex one always takes the full path:
        conjugation is per tensor)."""

        def record(a: Any) -> None:
            ns[f"last{i}"] = a if _is_numba_array(type(a)) else None
            torch = sys.modules.get("torch")
            if torch is not None and type(a) is torch.Tensor and not a.dtype.is_complex:
                ns[f"dt{i}"], ns[f"sh{i}"], ns[f"st{i}"], ns[f"dv{i}"] = (
                    a.dtype,
                    a.shape,
                    a.stride(),
                    a.get_device(),
                )
            else:
                ns[f"dt{i}"] = None

        return record

    def _setter(self, i: int) -> tuple[Callable[[Any], None], set[type] | None]:
        """The function that validates and writes argument ``i`` into its slots, and (one-slot
        scalars) the set of Python types it accepted so far."""
        s = self._plan.layout.specs[i]
        buffer, offset = self._params.buffer, 8 * self._plan.layout.offsets[i]
        pack_into = struct.Struct("<" + s.fmt).pack_into
        ok: set[Key] = set()
        device = self._plan.device

        def check(key: Key) -> None:
            why = s.reject(key, device)
            if why:
                raise why[0](f"{self._where(i)}: {why[1]}")
            ok.add(key)

        if isinstance(s, ScalarSpec) and s.slots == 1 and s.enum is None:
            kinds: set[type] = set()

            def set_scalar(a: Any) -> None:
                kind = type(a)
                if kind not in kinds:
                    if not s.takes(kind):
                        raise CoopTypeError(f"{self._where(i)}: got {kind.__name__}, the kernel takes {s}")
                    kinds.add(kind)
                try:
                    pack_into(buffer, offset, a)
                except struct.error:
                    raise CoopValueError(f"{self._where(i)}: {a!r} does not fit the kernel's {s}") from None

            return set_scalar, kinds

        def set_value(a: Any) -> None:
            if type(a) is int and isinstance(s, ArraySpec):  # a raw device pointer: the data slot
                buffer[offset // 8 + s.data_slot] = a
                return
            read = READERS.get(type(a)) or reader_for(type(a))
            try:
                if read is None:
                    raise Unsupported(not_passable(a))
                key, values = read(a)
            except Unsupported as exc:
                raise CoopTypeError(f"{self._where(i)}: {exc}") from None
            if key not in ok:
                check(key)
            try:
                pack_into(buffer, offset, *values)
            except struct.error:
                raise CoopValueError(f"{self._where(i)}: {a!r} does not fit the kernel's {s}") from None

        return set_value, None

    def set_args(self, args: Sequence[Any]) -> None:
        """Write ``args`` into the argument slots (validating each), without launching."""
        if len(args) != self._nargs:
            raise CoopTypeError(
                f"{self._plan.what}: the prepared launch takes {self._nargs} arguments "
                f"({', '.join(self._names)}), got {len(args)}"
            )
        try:
            self._set_all(*args)
        except Exception:
            self._restore()
            raise
        self._args = tuple(args)

    def _restore(self) -> None:
        """Write the last accepted arguments back (a failed launch changes nothing)."""
        for i in range(self._nargs):  # the fast paths compare with nothing: every slot is rewritten
            if f"last{i}" in self._ns:
                self._ns[f"last{i}"] = self._ns[f"dt{i}"] = None
        if self._args:
            self._set_all(*self._args)

    def launch(self, *args: Any, stream: Any = None) -> None:
        """Launch, with ``args`` written into the argument slots (none: the last ones again).

        Args:
            *args: the kernel's arguments, each of the kind it was prepared with (same dtype, rank
                and layout); a Python int for an array argument replaces only its data pointer.
            stream: a stream for this launch only (default: the prepared one).

        Raises:
            CoopTypeError: an argument of another kind, dtype, rank or layout.
            CoopValueError: a scalar out of its type's range, or an array on another device.
        """
        if args:
            if len(args) != self._nargs:
                self.set_args(args)  # raises, naming the count
            try:
                self._set_all(*args)
            except Exception:
                self._restore()
                raise
            self._args = args  # keeps the arguments alive until the next launch
        call = self._call
        if stream is not None:
            from cuda.bindings import driver

            handle = stream_handle(stream, what=f"{self._plan.what}: stream")
            call = (*call[:8], driver.CUstream(handle), *call[9:])
        (err,) = self._launch_fn(*call)
        if err:
            raise _launch_error(err, self._plan.what)

    def __call__(self, *args: Any) -> None:
        """Same as :meth:`launch`."""
        self.launch(*args)

    def __repr__(self) -> str:
        specs = ", ".join(f"{n}: {s}" for n, s in zip(self._names, self._plan.layout.specs, strict=False))
        return f"<PreparedLaunch {self._plan.what}[{self.grid}, {self.block}] stream={self.stream} ({specs})>"
