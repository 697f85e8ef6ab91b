# SPDX-License-Identifier: Apache-2.0
"""Kernel arguments as flat kernel parameters, for the backends that launch kernels themselves.

A *reader* turns an argument (a torch tensor, a CuPy array, any object with
``__cuda_array_interface__`` or ``__dlpack__``, the DSL's own device array, a scalar, a tuple of
those) into a *key*, what decides the kernel's type for it (dtype, rank, layout, device, ...), and
its parameter values. A *spec* is what one kernel parameter type takes: it rejects a key with a
typed reason, and gives the ``struct`` format of the parameter's 8-byte slots. Pointers are read
directly: like CuPy's ``RawKernel``, a launch does not order itself after the producer's stream.

How an array becomes parameters is the DSL's (an :class:`ArrayABI`): numba-cuda passes ``meminfo,
parent, nitems, itemsize, data, shape..., strides...`` (strides in bytes), numba-cuda-mlir a memref
descriptor ``allocated, aligned, offset, shape..., strides...`` (offset and strides in items). A
:class:`Marshal` is one DSL's readers; :func:`spec` builds specs from the DSL's own types module.
NumPy is imported on first use: importing this module (as the backend face does) loads nothing.
"""

from __future__ import annotations

import enum
import inspect
import sys
from collections.abc import Callable, Sequence
from typing import Any

from ._errors import CoopLaunchConfigError, CoopTypeError, CoopValueError

Key = tuple[Any, ...]
Rejection = tuple[type[Exception], str]
Reader = Callable[[Any], tuple[Key, tuple[Any, ...]]]

SCALAR, TUPLE = "scalar", "tuple"
UNKNOWN_DEVICE, HOST = -2, -1
#: The alignment, in bytes, that kernels specialise array arguments on: an array key's last field
#: says whether the array's data is a multiple of it.
ALIGN = 16


class Unsupported(Exception):
    """An argument (or a kernel parameter type) that only the DSL's own launch path handles."""


# --- how a DSL passes an array ---------------------------------------------------------------------


class ArrayABI:
    """How one DSL passes an array argument as kernel parameters (each one 8-byte slot).

    Attributes:
        head: the ``struct`` codes of the slots before the shape.
        data_slots: the slots holding the data pointer (relative to the array's first).
        values: ``values(ptr, nitems, itemsize, shape, byte_strides)``: the array's parameter
            values; raises :class:`Unsupported` for an array the ABI cannot describe.
        complex_params: the parameters a complex number takes: 1 (its two parts side by side) or 2
            (one part each).
    """

    __slots__ = ("complex_params", "data_slots", "head", "values")

    def __init__(
        self,
        head: str,
        data_slots: tuple[int, ...],
        values: Callable[[int, int, int, Sequence[int], Sequence[int]], tuple[Any, ...]],
        complex_params: int,
    ) -> None:
        self.head, self.data_slots, self.values = head, data_slots, values
        self.complex_params = complex_params

    def fmt(self, ndim: int) -> str:
        """The ``struct`` format of an array of ``ndim`` dimensions."""
        return self.head + "q" * (2 * ndim)


def _numba_values(
    ptr: int, size: int, isz: int, shape: Sequence[int], strides: Sequence[int]
) -> tuple[Any, ...]:
    return (0, 0, size, isz, ptr, *shape, *strides)


def _memref_values(
    ptr: int, size: int, isz: int, shape: Sequence[int], strides: Sequence[int]
) -> tuple[Any, ...]:
    items = []
    for s in strides:
        if s % isz:
            raise Unsupported(
                f"an array whose byte strides {tuple(strides)} are not multiples of its item size ({isz})"
            )
        items.append(s // isz)
    return (ptr, ptr, 0, *shape, *items)


#: numba-cuda's arrays: meminfo, parent, nitems, itemsize, data, shape, strides (bytes).
NUMBA_ABI = ArrayABI("qqqqQ", (4,), _numba_values, complex_params=2)
#: MLIR memref descriptors (numba-cuda-mlir): allocated and aligned pointer, offset, shape, strides
#: (items).
MEMREF_ABI = ArrayABI("QQq", (0, 1), _memref_values, complex_params=1)


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


def c_strides(shape: Sequence[int], itemsize: int) -> tuple[int, ...]:
    """The byte strides of a C-contiguous array."""
    out, step = [], itemsize
    for n in reversed(shape):
        out.append(step)
        step *= n
    return tuple(reversed(out))


def device_array_reader(source: str, type_of: Callable[[Any], Any], abi: ArrayABI) -> Reader:
    """The reader of a Numba-like DSL's device arrays (``DeviceNDArray``): rank and layout from the
    DSL's type of the array (``type_of(array)``: a broadcast array is "A"), data from its ctypes
    pointer; ``source`` names the kind in keys."""
    values = abi.values

    def read(a: Any) -> tuple[Key, tuple[Any, ...]]:
        t = type_of(a)
        dtype = a.dtype
        ptr = a.device_ctypes_pointer.value or 0
        return (
            (source, dtype, t.ndim, t.layout, UNKNOWN_DEVICE, False, None, ptr % ALIGN == 0),
            values(ptr, a.size, dtype.itemsize, a.shape, a.strides),
        )

    return read


_GRAD = "it requires grad; pass x.detach()"
_HOST = "it is in host memory; copy it to the GPU (cuda.to_device, tensor.cuda())"
_CONJ = "it is a lazily conjugated or negated view; pass x.resolve_conj().resolve_neg()"
_TYPESTR: dict[str, Any] = {}


class Marshal:
    """One DSL's argument readers: its :class:`ArrayABI`, its own device arrays, and whether a
    CUDA array interface's stream is synchronised before its data is used.

    Args:
        abi: how the DSL passes arrays.
        own_array: ``(is_own(kind), reader)`` for the DSL's device array class, or None.
        cai_sync: whether the DSL's configuration asks to synchronise a producer's stream
            (Numba's ``CUDA_ARRAY_INTERFACE_SYNC``), asked at each read that names a stream.
    """

    def __init__(
        self,
        abi: ArrayABI,
        *,
        own_array: tuple[Callable[[type], bool], Reader] | None = None,
        cai_sync: Callable[[], bool] = lambda: False,
    ) -> None:
        self.abi = abi
        self.own_array = own_array
        self.cai_sync = cai_sync
        self.readers: dict[type, Reader | None] = {
            int: _read_scalar,
            float: _read_scalar,
            bool: _read_scalar,
            complex: _read_complex,
            tuple: self._read_tuple,
        }

    def is_own_array(self, kind: type) -> bool:
        """Whether ``kind`` is the DSL's own device array class (whose metadata never changes)."""
        return self.own_array is not None and self.own_array[0](kind)

    # the readers of arrays known by a library or a protocol

    def read_torch(self, t: Any) -> tuple[Key, tuple[Any, ...]]:
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
            self.abi.values(ptr, t.numel(), isz, shape, strides),
        )

    def read_cupy(self, a: Any) -> tuple[Key, tuple[Any, ...]]:
        shape, strides, isz, mem = a.shape, a.strides, a.itemsize, a.data
        layout = "C" if a.flags.c_contiguous else layout_of(shape, strides, isz)
        return (
            ("cupy", a.dtype, len(shape), layout, mem.device_id, False, None, mem.ptr % ALIGN == 0),
            self.abi.values(mem.ptr, a.size, isz, shape, strides),
        )

    def read_cai(self, obj: Any) -> tuple[Key, tuple[Any, ...]]:
        cai = obj.__cuda_array_interface__
        ptr, readonly = cai["data"]
        shape = tuple(cai["shape"])
        typestr = cai["typestr"]
        dtype = _TYPESTR.get(typestr)
        if dtype is None:
            import numpy as np

            dtype = _TYPESTR[typestr] = np.dtype(typestr)
        isz = dtype.itemsize
        strides = cai.get("strides")
        if strides is None:
            strides, layout = c_strides(shape, isz), "C"
        else:
            strides = tuple(strides)
            layout = layout_of(shape, strides, isz)
        problem = "it has a mask; a kernel takes no masked arrays" if cai.get("mask") is not None else None
        stream = cai.get("stream")
        if stream is not None and self.cai_sync():
            # The interface's contract (as Numba keeps it): the producer's stream is synchronised.
            from cuda.bindings import driver

            driver.cuStreamSynchronize(driver.CUstream(stream))
        size = 1
        for n in shape:
            size *= n
        ptr = ptr or 0
        return (
            ("cai", dtype, len(shape), layout, UNKNOWN_DEVICE, bool(readonly), problem, ptr % ALIGN == 0),
            self.abi.values(ptr, size, isz, shape, strides),
        )

    def read_dlpack(self, obj: Any) -> tuple[Key, tuple[Any, ...]]:
        from cuda.core.utils import StridedMemoryView

        smv = StridedMemoryView.from_dlpack(obj, stream_ptr=-1)
        dtype, shape = smv.dtype, tuple(smv.shape)
        if dtype is None:
            raise Unsupported(f"{type(obj).__name__} has a dtype NumPy does not know")
        isz = dtype.itemsize
        strides = c_strides(shape, isz) if smv.strides is None else tuple(s * isz for s in smv.strides)
        device = smv.device_id if smv.is_device_accessible else HOST
        size = 1
        for n in shape:
            size *= n
        layout, ptr = layout_of(shape, strides, isz), smv.ptr
        return (
            ("dlpack", dtype, len(shape), layout, device, bool(smv.readonly), None, ptr % ALIGN == 0),
            self.abi.values(ptr, size, isz, shape, strides),
        )

    def _read_tuple(self, t: tuple[Any, ...]) -> tuple[Key, tuple[Any, ...]]:
        keys, values = self.read_args(t)
        return (TUPLE, keys), tuple(values)

    def _read_scan_state(self, state: Any) -> tuple[Key, tuple[Any, ...]]:
        """A ``coop.grid.ScanState``: its array, keyed with its tiles."""
        key, values = self.read_one(state.array)
        return ((SCAN_STATE, state.tiles), *key[1:]), values

    def _read_instance(self, a: Any) -> tuple[Key, tuple[Any, ...]]:
        """An object whose interface is an instance attribute (not its class's)."""
        if getattr(a, "__cuda_array_interface__", None) is not None:
            return self.read_cai(a)
        if getattr(a, "__dlpack__", None) is not None:
            return self.read_dlpack(a)
        raise Unsupported(not_passable(a))

    def reader_for(self, kind: type) -> Reader | None:
        """The reader of arguments of type ``kind`` (looked up once per type; None: only the DSL's
        own launch handles them, e.g. host arrays)."""
        if kind in self.readers:
            return self.readers[kind]
        import numpy as np

        reader: Reader | None = None
        if issubclass(kind, enum.Enum):
            reader = _read_enum
        elif issubclass(kind, (np.number, np.bool_)):
            reader = _read_complex if issubclass(kind, np.complexfloating) else _read_scalar
        elif issubclass(kind, (int, float)):  # subclasses of Python numbers
            reader = _read_scalar
        elif issubclass(kind, tuple):
            reader = self._read_tuple
        elif self.is_own_array(kind):
            reader = self.own_array[1]  # type: ignore[index]
        elif "torch" in sys.modules and issubclass(kind, sys.modules["torch"].Tensor):
            reader = self.read_torch
        elif "cupy" in sys.modules and issubclass(kind, sys.modules["cupy"].ndarray):
            reader = self.read_cupy
        elif issubclass(kind, np.ndarray):
            reader = None  # host memory: the DSL's launch copies it in and out
        elif getattr(kind, "__coop_scan_state__", False):
            reader = self._read_scan_state
        elif hasattr(kind, "__cuda_array_interface__"):
            reader = self.read_cai
        elif hasattr(kind, "__dlpack__"):
            reader = self.read_dlpack
        else:
            reader = self._read_instance
        self.readers[kind] = reader
        return reader

    def read_one(self, a: Any) -> tuple[Key, tuple[Any, ...]]:
        """The key and the flat parameter values of one argument; raises :class:`Unsupported`."""
        read = self.readers.get(type(a)) or self.reader_for(type(a))
        if read is None:
            raise Unsupported(not_passable(a))
        return read(a)

    def read_args(self, args: Sequence[Any]) -> tuple[tuple[Key, ...], list[Any]]:
        """The keys and the flat parameter values of ``args``; raises :class:`Unsupported`."""
        keys, values = [], []
        for a in args:
            k, v = self.read_one(a)
            keys.append(k)
            values.extend(v)
        return tuple(keys), values


def _read_scalar(a: Any) -> tuple[Key, tuple[Any, ...]]:
    return (SCALAR, type(a)), (a,)


def _read_complex(a: Any) -> tuple[Key, tuple[Any, ...]]:
    return (SCALAR, type(a)), (a.real, a.imag)


def _read_enum(a: Any) -> tuple[Key, tuple[Any, ...]]:
    return (SCALAR, type(a)), (a.value,)


def describe(key: Key) -> str:
    """What a key says of its argument, for messages."""
    if key[0] == SCALAR:
        return f"a {key[1].__name__}"
    if key[0] == TUPLE:
        return f"a tuple of ({', '.join(describe(k) for k in key[1])})"
    src, dtype, ndim, layout, device = key[:5]
    if isinstance(src, tuple):  # a coop.grid.ScanState: (SCAN_STATE, tiles)
        return f"a coop.grid.ScanState of {src[1]} tiles"
    where = {UNKNOWN_DEVICE: "", HOST: " in host memory"}.get(device, f" on device {device}")
    return f"a {src} {_dtype_name(dtype)} {ndim}-D {layout}-layout array{where}"


#: The first element of the key of a ``coop.grid.ScanState`` argument is ``(SCAN_STATE, tiles)``: its
#: array's key otherwise, so that a plan knows the most blocks its launches may have.
SCAN_STATE = "scan_state"


def workspace_tiles(keys: Sequence[Key]) -> int:
    """The fewest tiles of the ``coop.grid.ScanState`` arguments among ``keys`` (0: none)."""
    tiles = [k[0][1] for k in keys if isinstance(k[0], tuple) and k[0][0] == SCAN_STATE]
    return min(tiles, default=0)


def check_workspaces(args: Sequence[Any], grid: tuple[int, int, int], what: str) -> None:
    """CoopLaunchConfigError when a ``coop.grid.ScanState`` among ``args`` holds fewer tiles than the
    grid has blocks (a kernel would refuse it on the GPU, where the error says less)."""
    for i, a in enumerate(args):
        if getattr(type(a), "__coop_scan_state__", False):
            check_grid_fits(what, grid, a.tiles, f"argument {i}")


def check_grid_fits(
    what: str, grid: tuple[int, int, int], tiles: int, which: str = "a coop.grid.ScanState"
) -> None:
    """CoopLaunchConfigError when ``grid`` has more blocks than a workspace of ``tiles`` tiles holds
    (``tiles`` 0: no workspace, nothing to check)."""
    blocks = grid[0] * grid[1] * grid[2]
    if tiles and blocks > tiles:
        raise CoopLaunchConfigError(
            f"{what}: the grid has {blocks} blocks, but {which} holds {tiles} tiles (one per block); "
            f"create it with coop.grid.ScanState({blocks}, ...) or more, or launch fewer blocks"
        )


def aligned(key: Key) -> bool:
    """Whether ``key`` is an array's whose data is a multiple of :data:`ALIGN` bytes."""
    return key[0] not in (SCALAR, TUPLE) and bool(key[7])


def problem_of(key: Key, *, host: bool = True) -> Rejection | None:
    """What is wrong with an argument whatever the kernel (a tensor needing grad, a lazily conjugated
    view, a masked array; with ``host``, an array in host memory)."""
    if key[0] == SCALAR:
        return None
    if key[0] == TUPLE:
        return next((p for p in (problem_of(k, host=host) for k in key[1]) if p), None)
    if key[6]:
        return CoopTypeError, key[6]
    if host and key[4] == HOST:
        return CoopValueError, _HOST
    return None


def arg_names(py_func: Callable[..., Any], n: int) -> list[str]:
    """The kernel's parameter names (``arg<i>`` where it has none)."""
    try:
        names = list(inspect.signature(py_func).parameters)
    except (TypeError, ValueError):
        names = []
    return [names[i] if i < len(names) else f"arg{i}" for i in range(n)]


def _dtype_name(dtype: Any) -> str:
    return str(dtype).replace("torch.", "")


_TORCH_DTYPES: dict[Any, Any] = {}


def numpy_dtype(dtype: Any) -> Any:
    """``dtype`` (a NumPy or a torch dtype) as a NumPy dtype, or None."""
    import numpy as np

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


def not_passable(a: Any) -> str:
    """Why a prepared launch cannot pass ``a``."""
    import numpy as np

    if isinstance(a, np.ndarray):
        return "a NumPy array is in host memory; copy it to the GPU first (cuda.to_device)"
    return (
        f"{type(a).__name__} is not a GPU array nor a scalar; pass a device array of the DSL, a torch or "
        "CuPy GPU tensor, or an object with __cuda_array_interface__ or __dlpack__"
    )


# --- parameter specs: what a kernel argument type takes --------------------------------------------

_SIZE = {"?": 1, "b": 1, "B": 1, "h": 2, "H": 2, "e": 2, "i": 4, "I": 4, "f": 4, "q": 8, "Q": 8, "d": 8}


def _slot(code: str) -> str:
    """One 8-byte parameter slot holding a ``code`` value (little-endian, padded)."""
    pad = 8 - _SIZE[code]
    return code + (f"{pad}x" if pad else "")


class Spec:
    """How one kernel argument type fills parameter slots.

    Attributes:
        numba_type: the argument's type in the DSL's type system.
        fmt: its ``struct`` format (no byte-order prefix), 8 bytes per slot.
        slots: the number of parameter slots.
        params: the slot (relative to the first) where each of its kernel parameters starts.
    """

    numba_type: Any
    fmt: str
    slots: int
    params: tuple[int, ...]

    def reject(self, key: Key, device: int) -> Rejection | None:
        """Why an argument with ``key`` cannot fill this type on ``device``: the error class and
        the reason (None: it can)."""
        raise NotImplementedError

    def __str__(self) -> str:
        return str(self.numba_type)


class ArraySpec(Spec):
    """An array argument, as its DSL's :class:`ArrayABI` passes it.

    Args:
        ty: the DSL's array type (``dtype``, ``ndim``, ``layout``, ``mutable``; an aligned type's
            ``align``).
        dtype: its NumPy dtype.
        abi: how the DSL passes arrays.
    """

    def __init__(self, ty: Any, dtype: Any, abi: ArrayABI) -> None:
        import numpy as np

        self.numba_type = ty
        self.dtype = np.dtype(dtype)
        self.ndim, self.layout, self.mutable = ty.ndim, ty.layout, ty.mutable
        self.fmt = abi.fmt(ty.ndim)
        self.slots = len(self.fmt)
        self.params = tuple(range(self.slots))
        self.data_slots = abi.data_slots
        self.align = getattr(ty, "align", 0)  # an aligned array type's: its data must be a multiple

    def reject(self, key: Key, device: int) -> Rejection | None:
        T, V = CoopTypeError, CoopValueError
        if key[0] in (SCALAR, TUPLE):
            return T, f"got {describe(key)}, the kernel takes a {self.describe()}"
        _src, dtype, ndim, layout, where, readonly, problem, is_aligned = key
        if problem:
            return T, problem
        if where == HOST:
            return V, _HOST
        if where >= 0 and where != device:
            return V, f"it is on device {where}, the launch is on device {device}"
        if numpy_dtype(dtype) != self.dtype:
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
    """A number, a boolean, a pointer or an enum member: one slot (a complex number: its two parts
    (``parts``), in one or two parameters as the DSL passes it).

    Args:
        ty: the DSL's scalar type.
        types: the DSL's types module (``Boolean``, ``Integer``, ``Float``, ``Complex``,
            ``CPointer``, ``EnumMember``).
        abi: how the DSL passes arrays and complex numbers.
    """

    def __init__(self, ty: Any, types: Any, abi: ArrayABI) -> None:
        import numpy as np

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
            part = {64: "f", 128: "d"}[base.bitwidth]
            self.accepts = (complex, np.complexfloating, float, np.floating, int, np.integer)
            self.parts = 2
            if abi.complex_params == 2:  # each part a parameter of its own slot
                self.fmt, self.slots, self.params = _slot(part) * 2, 2, (0, 1)
            elif part == "f":  # one 8-byte parameter: both parts in one slot
                self.fmt, self.slots, self.params = "ff", 1, (0,)
            else:  # one 16-byte parameter over two slots
                self.fmt, self.slots, self.params = "dd", 2, (0,)
            return
        elif isinstance(base, types.CPointer):
            code, self.accepts = "Q", (int, np.integer)
        else:
            raise Unsupported(f"a kernel argument of type {ty}")
        self.fmt, self.slots, self.params, self.parts = _slot(code), 1, (0,), 1

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

    def __init__(self, ty: Any, members: list[Spec]) -> None:
        self.numba_type = ty
        self.members = members
        self.fmt = "".join(m.fmt for m in members)
        self.slots, params = 0, []
        for m in members:
            params += [self.slots + p for p in m.params]
            self.slots += m.slots
        self.params = tuple(params)

    def reject(self, key: Key, device: int) -> Rejection | None:
        if key[0] != TUPLE or len(key[1]) != len(self.members):
            return CoopTypeError, f"got {describe(key)}, the kernel takes {self.numba_type}"
        for i, (m, k) in enumerate(zip(self.members, key[1], strict=True)):
            why = m.reject(k, device)
            if why:
                return why[0], f"member {i}: {why[1]}"
        return None


def spec(ty: Any, types: Any, as_dtype: Callable[[Any], Any], abi: ArrayABI) -> Spec:
    """The :class:`Spec` of a kernel argument type of a Numba-like DSL (numba-cuda, numba-cuda-mlir).

    Args:
        ty: the argument's type.
        types: the DSL's types module.
        as_dtype: the DSL's type-to-NumPy-dtype function (of an array's element type).
        abi: how the DSL passes arrays.

    Raises:
        Unsupported: a type only the DSL's own launch handles (records, datetimes, ...).
    """
    if isinstance(ty, types.Array):
        try:
            dtype = as_dtype(ty.dtype)
        except Exception:
            raise Unsupported(f"an array of {ty.dtype}") from None
        return ArraySpec(ty, dtype, abi)
    if isinstance(ty, types.BaseTuple):
        return TupleSpec(ty, [spec(t, types, as_dtype, abi) for t in ty.types])
    return ScalarSpec(ty, types, abi)
