# SPDX-License-Identifier: Apache-2.0
"""Plain Python functions as operators in Numba kernels.

Numba cannot type a plain Python function, so a kernel could not even name one as ``op=``. The
front doors (``cuda.coop.numba.jit`` and ``compile``) tag the plain functions a kernel refers to
that Numba cannot type, through Numba's ``_numba_type_`` protocol, with a type that only coop
operators accept. ``@cuda.jit(device=True)`` functions need no tag (Numba types them itself).
"""

from __future__ import annotations

import types as pytypes
from collections.abc import Iterator
from typing import Any


def _names(code: pytypes.CodeType) -> Iterator[str]:
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, pytypes.CodeType):
            yield from _names(const)


def _referenced(py_func: pytypes.FunctionType) -> Iterator[Any]:
    g = py_func.__globals__
    for name in set(_names(py_func.__code__)):
        if name in g:
            yield g[name]
    for cell in py_func.__closure__ or ():
        try:
            yield cell.cell_contents
        except ValueError:  # an empty cell
            continue


def _numba_types(value: Any) -> bool:
    from numba.cuda.descriptor import cuda_target

    ctx = cuda_target.typing_context
    ctx.refresh()
    try:
        ctx.resolve_value_type(value)
    except Exception:
        return False
    return True


def tag_operators(py_func: Any) -> None:
    """Give every plain Python function that ``py_func`` refers to, and that Numba cannot type, the
    type under which coop primitives accept it as an operator."""
    from ._types import PythonFunctionType

    if not isinstance(py_func, pytypes.FunctionType):
        return
    for value in _referenced(py_func):
        if isinstance(value, pytypes.FunctionType) and "_numba_type_" not in vars(value):
            if not _numba_types(value):
                value._numba_type_ = PythonFunctionType(value)
