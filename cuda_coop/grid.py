# SPDX-License-Identifier: Apache-2.0
"""Grid-wide single-pass scans (``coop.grid.exclusive_sum``, ...), called inside kernels: each block
scans its tile together with the aggregate of the tiles before it, in one launch, with CUB's
decoupled look-back (``cub::TilePrefixCallbackOp`` on a ``cub::ScanTileState``).

The tile states live in a caller-owned workspace, :class:`ScanState`, which the kernel takes as an
argument. Its layout: a header (a check word, the item layout, the capacity, the launch count; the
launch's tickets on a line of their own), then two tile-state areas that alternate between
launches. Launch ``e`` scans in area ``e % 2`` and, while it runs, resets the other area for launch
``e + 1``; the last tile, once its look-back is done, resets the tickets and advances the count.
So only the workspace's creation initialises it: no launch needs another kernel first, and CUDA
graphs replay it as they are.

Each kernel-side function here is generated from its catalog row; on the host it raises
``CoopHostCallError``, inside a kernel the active backend compiles it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

from ._catalog import in_scope
from ._dtypes import DType, dtype_named, tuple_name
from ._errors import CoopTypeError, CoopValueError
from ._kernel_api import make_stub

_ROWS = in_scope("grid")

__all__ = [*_ROWS, "ScanState"]

globals().update({name: make_stub(row) for name, row in _ROWS.items()})

#: Bytes before the first tile-state area (the header's words, padded to the areas' alignment).
HEADER_BYTES = 256
#: The header's first word, so that a kernel refuses memory that is not an initialised workspace.
MAGIC = 0x706F6F63  # "coop", little-endian
#: CUB's ``TILE_STATUS_PADDING``: entries before tile 0, read by the look-back of the first tiles.
PADDING = 32
#: CUB's ``SCAN_TILE_INVALID``: a tile whose block has published nothing yet (0 is out of bounds).
INVALID = 99
#: The most tiles a workspace holds (CUB's tile index is an int).
MAX_TILES = 2**31 - 1 - PADDING
_ALIGN = 256
_ARRAY_MODULES = ("cupy", "torch", "numba")


def _round(n: int) -> int:
    return -(-n // _ALIGN) * _ALIGN


def item_dtype(item_type: Any) -> DType:
    """The element type a scan's items have: a NumPy dtype or type, its name, or a tuple of those
    (structured items); CoopTypeError otherwise."""
    import numpy as np

    if isinstance(item_type, (tuple, list)):
        fields = [item_dtype(f).name for f in item_type]
        name = tuple_name(fields)
        assert name is not None
        return dtype_named(name)
    try:
        name = item_type if isinstance(item_type, str) else np.dtype(item_type).name
    except TypeError:
        raise CoopTypeError(
            f"coop.grid.ScanState: item_type must be a NumPy dtype, its name or a tuple of them, got "
            f"{item_type!r}"
        ) from None
    return dtype_named(name)


def single_word(d: DType) -> bool:
    """CUB keeps status and value of a tile in one word for items of 1, 2, 4 or 8 bytes
    (``ScanTileState<T, true>``), else in arrays apart (``<T, false>``); coop chooses it the same
    way in C++ (``coop_grid_area``)."""
    return d.itemsize in (1, 2, 4, 8)


def layout_tag(d: DType) -> int:
    """The header's layout word for items of ``d``: what a kernel checks the workspace against."""
    return (d.itemsize << 1) | int(single_word(d))


def _txn_bytes(d: DType) -> int:
    """CUB's ``TxnWord``: ``ulonglong2`` for 8-byte items, ``uint2`` for 4-byte, ``unsigned int``."""
    return {8: 16, 4: 8}.get(d.itemsize, 4)


def area_bytes(capacity: int, d: DType) -> int:
    """One tile-state area (as ``coop_grid_area<T>::bytes`` lays it out)."""
    entries = PADDING + capacity
    if single_word(d):
        return _round(entries * _txn_bytes(d))
    return _round(entries * 4) + 2 * _round(entries * d.itemsize)


def _check_tiles(tiles: Any) -> int:
    import operator

    try:
        n = operator.index(tiles)
    except TypeError:
        raise CoopTypeError(
            f"coop.grid.ScanState: tiles must be an int (the most blocks a launch has), got {tiles!r}"
        ) from None
    if not 1 <= n <= MAX_TILES:
        raise CoopValueError(f"coop.grid.ScanState: tiles={n} must be from 1 to {MAX_TILES}")
    return n


def image(tiles: int, item_type: Any) -> np.ndarray:
    """The initial bytes of a workspace (as uint64 words): the header, and both areas with every tile
    INVALID and the padding out of bounds."""
    import numpy as np

    d, tiles = item_dtype(item_type), _check_tiles(tiles)
    area = area_bytes(tiles, d)
    out = np.zeros(HEADER_BYTES + 2 * area, np.uint8)
    out[:16].view(np.uint32)[:] = (MAGIC, layout_tag(d), tiles, 0)
    for k in range(2):
        base = HEADER_BYTES + k * area
        if single_word(d):  # the status is the descriptor's first member: its low byte
            step = _txn_bytes(d)
            out[base + PADDING * step : base + (PADDING + tiles) * step : step] = INVALID
        else:
            out[base : base + (PADDING + tiles) * 4].view(np.uint32)[PADDING:] = INVALID
    return out.view(np.uint64)


def bytes_needed(tiles: int, item_type: Any) -> int:
    """Bytes of a workspace for grids of up to ``tiles`` blocks scanning items of ``item_type``."""
    d, tiles = item_dtype(item_type), _check_tiles(tiles)
    return HEADER_BYTES + 2 * area_bytes(tiles, d)


def _module_of(array_module: str | None) -> str:
    if array_module is not None:
        if array_module not in _ARRAY_MODULES:
            raise CoopValueError(
                f"coop.grid.ScanState: array_module={array_module!r}; pass one of {', '.join(_ARRAY_MODULES)}"
            )
        return array_module
    for name in _ARRAY_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            continue
        return name
    raise CoopValueError(
        "coop.grid.ScanState: no array library to allocate device memory with (cupy, torch or "
        "numba-cuda); install one, or allocate bytes_needed(...) bytes yourself and use ScanState.wrap"
    )


def _to_device(words: np.ndarray, module: str, device: int | None) -> Any:
    if module == "cupy":
        import cupy

        with cupy.cuda.Device(device if device is not None else cupy.cuda.runtime.getDevice()):
            return cupy.asarray(words)
    if module == "torch":
        import torch

        where = torch.device("cuda", device if device is not None else torch.cuda.current_device())
        return torch.from_numpy(words).to(where)
    from numba import cuda

    if device is None:
        return cuda.to_device(words)
    with cuda.gpus[device]:
        return cuda.to_device(words)


def _copy_in(array: Any, words: np.ndarray) -> None:
    """Write ``words`` over the device array ``array`` (of as many uint64), and wait for the copy:
    a launch on any stream may use the workspace once this returns."""
    kind = type(array).__module__.split(".")[0]
    if kind == "cupy":
        array.set(words)
    elif kind == "torch":
        import torch

        array.copy_(torch.from_numpy(words))
    elif hasattr(array, "copy_to_device"):
        array.copy_to_device(words)  # synchronous on Numba's default stream
    else:
        raise CoopTypeError(
            f"coop.grid.ScanState: cannot write into {type(array).__name__}; pass a CuPy array, a torch "
            "tensor or a Numba device array"
        )
    _synchronize(array)


def _synchronize(array: Any) -> None:
    """Wait until the copy that made ``array`` is done (it was queued on the library's current
    stream; a kernel on another stream, a non-blocking one, would not wait for it)."""
    kind = type(array).__module__.split(".")[0]
    if kind == "cupy":
        import cupy

        cupy.cuda.get_current_stream().synchronize()
    elif kind == "torch":
        import torch

        torch.cuda.current_stream(array.device).synchronize()


def _interface(array: Any) -> dict[str, Any]:
    try:
        return dict(array.__cuda_array_interface__)
    except AttributeError:
        raise CoopTypeError(
            f"coop.grid.ScanState: buffer must be a CUDA device array (with __cuda_array_interface__: a "
            f"CuPy array, a torch tensor, a Numba device array), got {type(array).__name__}"
        ) from None


class ScanState:
    """The workspace of the grid scans of one launch: sized for grids of up to ``tiles`` blocks and
    items of ``item_type``, initialised once when created; pass it to the kernel as an argument
    (Numba and numba-cuda-mlir: the object itself, or ``.array``; CuTe: trace with a CuTe tensor of
    ``.array``, e.g. ``from_dlpack(state.array, assumed_align=16)``; the compiled function then takes
    that tensor, ``.array``, or the object itself when CuPy or torch allocated it, through DLPack).

    One workspace serves every later launch of any grid up to ``tiles`` blocks, one launch at a
    time: launches that may run at the same time (other streams) need a workspace each, as CUB's
    temporary storage does. A kernel refuses (``__trap``) a workspace that is not initialised, that
    was made for items of another size, or that is smaller than its grid.

    Args:
        tiles: the most blocks of a launch that uses it.
        item_type: the scanned items' type: a NumPy dtype or its name, or a tuple of them for
            structured items. Items of the same size share a workspace (``int32``, ``float32``).
        device: the device ordinal (default: the current device).
        array_module: ``"cupy"``, ``"torch"`` or ``"numba"``: who allocates it (default: the first of
            them that imports).
    """

    #: the front doors' argument readers know it by this (and read its array)
    __coop_scan_state__ = True

    def __init__(
        self, tiles: int, item_type: Any, *, device: int | None = None, array_module: str | None = None
    ) -> None:
        self._dtype = item_dtype(item_type)
        self._tiles = _check_tiles(tiles)
        module = _module_of(array_module)
        self._array = _to_device(image(self._tiles, self._dtype.name), module, device)
        _synchronize(self._array)

    @classmethod
    def wrap(cls, buffer: Any, tiles: int, item_type: Any) -> ScanState:
        """A workspace in the caller's device memory: ``buffer`` is a 1-D contiguous uint64 CUDA array
        (CuPy, torch or Numba) of at least ``bytes_needed(tiles, item_type)`` bytes on a 256-byte
        boundary; it is initialised now (a copy of the initial image, waited for)."""
        state = cls.__new__(cls)
        state._dtype, state._tiles = item_dtype(item_type), _check_tiles(tiles)
        cai = _interface(buffer)
        shape, typestr, strides = tuple(cai["shape"]), cai["typestr"], cai.get("strides")
        if len(shape) != 1 or typestr not in ("<u8", "|u8") or strides not in (None, (8,)):
            raise CoopTypeError(
                f"coop.grid.ScanState.wrap: buffer must be a 1-D contiguous uint64 array, got shape {shape}, "
                f"type {typestr}, strides {strides}"
            )
        need = bytes_needed(state._tiles, state._dtype.name)
        if shape[0] * 8 < need:
            raise CoopValueError(
                f"coop.grid.ScanState.wrap: buffer has {shape[0] * 8} bytes; {state._tiles} tiles of "
                f"{state._dtype.name} need {need} (ScanState.bytes_needed)"
            )
        if cai["data"][0] % _ALIGN:
            raise CoopValueError(
                f"coop.grid.ScanState.wrap: buffer starts at {cai['data'][0]:#x}, not on a {_ALIGN}-byte "
                "boundary; pass an allocation's start"
            )
        state._array = buffer
        state.reset()
        return state

    bytes_needed = staticmethod(bytes_needed)

    def reset(self) -> None:
        """Initialise it again (e.g. after a launch that failed midway left its tile states behind):
        the copy is queued on the array library's current stream, after the work queued there, and
        waited for."""
        words = image(self._tiles, self._dtype.name)
        if self._array.shape[0] > words.shape[0]:  # a wrapped buffer larger than needed: its head
            _copy_in(self._array[: words.shape[0]], words)
        else:
            _copy_in(self._array, words)

    @property
    def array(self) -> Any:
        """The device array the kernel takes (uint64 words)."""
        return self._array

    @property
    def tiles(self) -> int:
        """The most blocks a launch that uses it may have."""
        return self._tiles

    @property
    def item_type(self) -> str:
        """The items' type, as coop names it (``"float32"``, ``"tuple_float32_int32"``)."""
        return self._dtype.name

    @property
    def nbytes(self) -> int:
        return bytes_needed(self._tiles, self._dtype.name)

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        return _interface(self._array)

    def __getattr__(self, name: str) -> Any:
        # DLPack where its array has it (CuPy, torch; not a Numba device array, which Numba's
        # typing would then try to read through DLPack)
        if name in ("__dlpack__", "__dlpack_device__") and "_array" in self.__dict__:
            return getattr(self._array, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __repr__(self) -> str:
        return (
            f"ScanState(tiles={self._tiles}, item_type={self._dtype.name!r}, {type(self._array).__module__})"
        )
