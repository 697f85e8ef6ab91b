# SPDX-License-Identifier: Apache-2.0
"""The ``CUstream`` handle of the stream objects users pass at launch, for both front doors, and the
range of the 64-bit values (stream handles, device addresses) a launch writes into 8-byte slots."""

from __future__ import annotations

from typing import Any

from ._errors import CoopTypeError, CoopValueError

#: Device addresses and stream handles: what an 8-byte slot holds (ctypes would keep the low bits of
#: more: -1 became 0xFFFF..., 2**64 became NULL).
ADDRESSES = 1 << 64


def device_address(value: int, *, what: str) -> int:
    """``value``, an int address; CoopValueError naming ``what`` outside 0 .. 2**64 - 1."""
    if not 0 <= value < ADDRESSES:
        raise CoopValueError(f"{what}: {value:#x} is not a device address (0 .. 2**64 - 1)")
    return value


def stream_handle(stream: Any, *, what: str = "stream") -> int:
    """The ``CUstream`` handle of ``stream`` as an int.

    Accepts None or 0 (the default stream), an int handle, any object with ``__cuda_stream__``
    (Numba, cuda.core), a torch ``cuda.Stream`` (``cuda_stream``), a CuPy stream (``ptr``), an
    object with an int ``handle``, or a ``cuda.bindings`` ``CUstream``.

    Raises:
        CoopValueError: an int outside 0 .. 2**64 - 1 (a handle is a 64-bit pointer: a C slot would
            keep the low bits, so -1 became 0xFFFF... and 2**64 the default stream).
        CoopTypeError: anything else; the message starts with ``what``.
    """
    if stream is None:
        return 0
    if isinstance(stream, int) and not isinstance(stream, bool):
        if stream < 0:
            raise CoopValueError(f"{what}: a stream handle is not negative, got {stream}")
        if stream >= ADDRESSES:
            raise CoopValueError(f"{what}: a stream handle is a 64-bit pointer, got {stream:#x}")
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
    if type(stream).__module__.startswith("cuda.bindings"):  # a driver CUstream
        return int(stream)
    raise CoopTypeError(
        f"{what}: expected a stream (None, an int handle, an object with __cuda_stream__, a torch or "
        f"CuPy stream, a cuda.bindings CUstream), got {type(stream).__name__}"
    )
