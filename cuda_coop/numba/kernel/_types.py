# SPDX-License-Identifier: Apache-2.0
"""coop's kernel types over numba-cuda's (their behaviour is ``cuda.coop._numba_like._types``)."""

from __future__ import annotations

from cuda.coop._numba_like import _types as coop
from numba.cuda import types


class ThreadDataType(coop.ThreadData, types.Array):
    __doc__ = coop.ThreadData.__doc__


class AlignedArrayType(coop.AlignedArray, types.Array):
    __doc__ = coop.AlignedArray.__doc__


class TempStorageType(coop.TempStorage, types.Opaque):
    __doc__ = coop.TempStorage.__doc__


class AlgorithmEnumType(coop.AlgorithmEnum, types.Dummy):
    __doc__ = coop.AlgorithmEnum.__doc__


class PythonFunctionType(coop.PythonFunction, types.Dummy):
    __doc__ = coop.PythonFunction.__doc__
