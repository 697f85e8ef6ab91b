# SPDX-License-Identifier: Apache-2.0
"""Kernel arguments as numba-cuda passes them: readers and parameter specs.

numba-cuda passes each kernel argument as flat parameters: an array is ``meminfo, parent, nitems,
itemsize, data, shape[0..n), strides[0..n)`` (64 bits each, strides in bytes), a complex number
its real and imaginary parts, a tuple its members in order, any other scalar itself.

A *reader* turns an argument (a Numba device array, a torch tensor, a CuPy array, any object with
``__cuda_array_interface__`` or ``__dlpack__``, a scalar, a tuple of those) into a *key*, what
decides the kernel's type for it (dtype, rank, layout, device, ...), and its parameter values. A
*spec* is what one kernel parameter type takes: it rejects a key with a typed reason, and gives
the ``struct`` format of the parameter's 8-byte slots. Pointers are read directly: like CuPy's
``RawKernel``, a launch does not order itself after the producer's stream.
"""

from __future__ import annotations

import enum
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from cuda.coop._backend_api import CoopTypeError, CoopValueError

from .. import _numba_hooks

Key = tuple[Any, ...]
Rejection = tuple[type[Exception], str]
Reader = Callable[[Any], tuple[Key, tuple[Any, ...]]]

SCALAR, TUPLE = "scalar", "tuple"
UNKNOWN_DEVICE, HOST = -2, -1
#: The alignment, in bytes, that kernels specialise array arguments on: an array key's last field
#: says whether the array's data is a multiple of it (see ``AlignedArrayType``).
ALIGN = 16


class Unsupported(Exception):
    """An argument (or a kernel parameter type) that only Numba's own launch path handles."""


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
    t = _numba_hooks.device_array_type(a)  # broadcast arrays are "A"
    dtype = a.dtype

    ptr = a.device_ctypes_pointer.value or 0
    return (
        ("numba", dtype, t.ndim, t.layout, UNKNOWN_DEVICE, False, None, ptr % ALIGN == 0),
        (0, 0, a.size, dtype.itemsize, ptr, *a.shape, *a.strides),
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
    ptr = t.data_ptr()
    return (
        ("torch", dt, len(shape), layout, t.get_device(), False, problem, ptr % ALIGN == 0),
        (0, 0, t.numel(), isz, ptr, *shape, *strides),
    )


def _read_cupy(a: Any) -> tuple[Key, tuple[Any, ...]]:
    shape, strides, isz, mem = a.shape, a.strides, a.itemsize, a.data
    layout = "C" if a.flags.c_contiguous else layout_of(shape, strides, isz)
    return (
        ("cupy", a.dtype, len(shape), layout, mem.device_id, False, None, mem.ptr % ALIGN == 0),
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
    ptr = ptr or 0
    return (
        ("cai", dtype, len(shape), layout, UNKNOWN_DEVICE, bool(readonly), problem, ptr % ALIGN == 0),
        (0, 0, size, isz, ptr, *shape, *strides),
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
    device = smv.device_id if smv.is_device_accessible else HOST
    size = 1
    for n in shape:
        size *= n
    layout, ptr = layout_of(shape, strides, isz), smv.ptr
    return (
        ("dlpack", dtype, len(shape), layout, device, bool(smv.readonly), None, ptr % ALIGN == 0),
        (0, 0, size, isz, ptr, *shape, *strides),
    )


def _read_scalar(a: Any) -> tuple[Key, tuple[Any, ...]]:
    return (SCALAR, type(a)), (a,)


def _read_complex(a: Any) -> tuple[Key, tuple[Any, ...]]:
    return (SCALAR, type(a)), (a.real, a.imag)


def _read_enum(a: Any) -> tuple[Key, tuple[Any, ...]]:
    return (SCALAR, type(a)), (a.value,)


def _read_tuple(t: tuple[Any, ...]) -> tuple[Key, tuple[Any, ...]]:
    keys, values = read_args(t)
    return (TUPLE, keys), tuple(values)


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
    elif is_numba_array(kind):
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


def is_numba_array(kind: type) -> bool:
    if not getattr(kind, "__cuda_memory__", False):
        return False
    from numba.cuda.cudadrv.devicearray import DeviceNDArray

    return issubclass(kind, DeviceNDArray)


def read_one(a: Any) -> tuple[Key, tuple[Any, ...]]:
    """The key and the flat parameter values of one argument; raises :class:`Unsupported`."""
    read = READERS.get(type(a)) or reader_for(type(a))
    if read is None:
        raise Unsupported(not_passable(a))
    return read(a)


def read_args(args: Sequence[Any]) -> tuple[tuple[Key, ...], list[Any]]:
    """The keys and the flat parameter values of ``args``; raises :class:`Unsupported`."""
    keys, values = [], []
    for a in args:
        k, v = read_one(a)
        keys.append(k)
        values.extend(v)
    return tuple(keys), values


def describe(key: Key) -> str:
    """What a key says of its argument, for messages."""
    if key[0] == SCALAR:
        return f"a {key[1].__name__}"
    if key[0] == TUPLE:
        return f"a tuple of ({', '.join(describe(k) for k in key[1])})"
    src, dtype, ndim, layout, device = key[:5]
    where = {UNKNOWN_DEVICE: "", HOST: " in host memory"}.get(device, f" on device {device}")
    return f"a {src} {_dtype_name(dtype)} {ndim}-D {layout}-layout array{where}"


def aligned(key: Key) -> bool:
    """Whether ``key`` is an array's whose data is a multiple of :data:`ALIGN` bytes."""
    return key[0] not in (SCALAR, TUPLE) and bool(key[7])


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
        self.align = getattr(ty, "align", 0)  # an AlignedArrayType's: its data must be a multiple

    def reject(self, key: Key, device: int) -> Rejection | None:
        T, V = CoopTypeError, CoopValueError
        if key[0] in (SCALAR, TUPLE):
            return T, f"got {describe(key)}, the kernel takes a {self.describe()}"
        _src, dtype, ndim, layout, where, readonly, problem, is_aligned = key
        if problem:
            return T, problem
        if where == HOST:
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
        if self.align and not is_aligned:
            return V, self.misaligned()
        return None

    def misaligned(self) -> str:
        """Why data that is not a multiple of this spec's alignment cannot fill it."""
        return (
            f"its data is not {self.align}-byte aligned, and the kernel was compiled for "
            f"{self.align}-byte-aligned data (prepare a launch with this array)"
        )

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
        kind = key[1] if key[0] == SCALAR else None
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
        if key[0] != TUPLE or len(key[1]) != len(self.members):
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


def not_passable(a: Any) -> str:
    """Why a prepared launch cannot pass ``a``."""
    if isinstance(a, np.ndarray):
        return "a NumPy array is in host memory; copy it to the GPU first (numba.cuda.to_device)"
    return (
        f"{type(a).__name__} is not a GPU array nor a scalar; pass a Numba device array, a torch or "
        "CuPy GPU tensor, or an object with __cuda_array_interface__ or __dlpack__"
    )
