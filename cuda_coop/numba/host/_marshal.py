# SPDX-License-Identifier: Apache-2.0
"""Kernel arguments as numba-cuda passes them: its readers and parameter specs.

numba-cuda passes each kernel argument as flat parameters: an array is ``meminfo, parent, nitems,
itemsize, data, shape[0..n), strides[0..n)`` (64 bits each, strides in bytes), a complex number
its real and imaginary parts, a tuple its members in order, any other scalar itself. The readers
and specs are the core's (``cuda.coop._args``, through the backend face); this module gives them
what is Numba's: its device arrays, ``CUDA_ARRAY_INTERFACE_SYNC`` and its types.
"""

from __future__ import annotations

from typing import Any

from cuda.coop._backend_api import NUMBA_ABI, Marshal, Spec, device_array_reader
from cuda.coop._backend_api import spec as _spec

from .. import _numba_hooks

__all__ = ["MARSHAL", "READERS", "is_numba_array", "read_args", "read_one", "reader_for", "spec"]


#: numba-cuda's device arrays (``DeviceNDArray``).
_read_numba = device_array_reader("numba", _numba_hooks.device_array_type, NUMBA_ABI)


def is_numba_array(kind: type) -> bool:
    if not getattr(kind, "__cuda_memory__", False):
        return False
    from numba.cuda.cudadrv.devicearray import DeviceNDArray

    return issubclass(kind, DeviceNDArray)


def _cai_sync() -> bool:
    from numba.cuda.core import config

    return bool(config.CUDA_ARRAY_INTERFACE_SYNC)


#: numba-cuda's readers.
MARSHAL = Marshal(NUMBA_ABI, own_array=(is_numba_array, _read_numba), cai_sync=_cai_sync)
READERS = MARSHAL.readers
read_one = MARSHAL.read_one
read_args = MARSHAL.read_args
reader_for = MARSHAL.reader_for


def spec(ty: Any) -> Spec:
    """The :class:`Spec` of a Numba argument type; raises :class:`Unsupported` for types only
    Numba's launch handles (records, datetimes, ...)."""
    from numba.cuda import types
    from numba.cuda.np import numpy_support

    return _spec(ty, types, numpy_support.as_dtype, NUMBA_ABI)
