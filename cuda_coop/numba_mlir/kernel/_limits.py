# SPDX-License-Identifier: Apache-2.0
"""What numba-cuda-mlir 0.6 cannot compile in a coop kernel that numba-cuda can, refused up front
with a typed error naming the line (instead of numba-cuda-mlir's internal compiler error)."""

from __future__ import annotations

import types as pytypes
from typing import Any

from cuda.coop._backend_api import CoopTypeError

from ._dsl import PRESCAN, ir


def check_limits(py_func: Any) -> None:
    """Raise CoopTypeError for a function made inside the kernel (a lambda or a nested ``def``)
    passed to a coop call: numba-cuda-mlir 0.6 cannot lower ``make_function``."""
    if not isinstance(py_func, pytypes.FunctionType):
        return
    for func_ir, call, prim in PRESCAN.coop_calls(py_func):
        for arg in [*call.args, *(v for _k, v in call.kws)]:
            try:
                node = func_ir.get_definition(arg)
            except Exception:
                continue
            if isinstance(node, ir.Expr) and node.op == "make_function":
                raise CoopTypeError(
                    f"{call.loc.filename}:{call.loc.line}: {prim.qualname}: a function defined inside "
                    "the kernel (a lambda or a nested def) cannot be an operator under numba-cuda-mlir "
                    "0.6, which cannot compile one; define it at module level (a plain def or "
                    "@cuda.jit(device=True))"
                )
