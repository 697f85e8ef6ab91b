# SPDX-License-Identifier: Apache-2.0
"""What the front doors (``jit`` and ``compile`` of both Numba-like backends) look at in a kernel's
Python before the DSL types it, over the DSL's IR (:class:`Prescan` of a ``Dsl``).

* **Plain Python functions as operators.** Numba cannot type a plain Python function, so a kernel
  could not even name one as ``op=``. The plain functions a kernel refers to that Numba cannot
  type are given a type that only coop operators accept, through the DSL's ``typeof_impl`` (one
  per DSL: the same function can be an operator under numba-cuda and numba-cuda-mlir; nothing is
  written to it). ``@cuda.jit(device=True)`` functions need no tag (Numba types them itself).
* **Memory spaces Numba's types do not carry.** A ``cuda.local.array`` has the same Numba type as
  a global array; where the kernel makes one and passes it as an array or counters argument, the
  parameter's kind refuses it (``check_memory``); likewise a kernel argument (global memory) passed
  where shared memory is needed. An array that reaches the call otherwise (through a device
  function's argument) is not seen.
* **Constants Numba does not show to typing.** Numba has no literal type for floats and cannot
  type integers beyond 64 bits, so ``oob_default=1.5`` into int32 items, ``initial_value=1e10``
  into float16 ones or ``valid_items=2**64`` would reach the typing template as a runtime
  ``float64`` or fail inside Numba. The coop calls of the kernel's own body are read from Numba's
  IR, and such constants are checked by their parameter's kind, as typing checks the others.
"""

from __future__ import annotations

import numbers
import operator
import types as pytypes
from collections.abc import Iterator
from typing import Any

import numpy as np
from cuda.coop._backend_api import tuple_name

from ._dsl import Dsl


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


#: the operators folded over constant numbers (what Python computes the same at compile time)
_FOLDED = {  # an in-place ``x += 1`` folds through its immutable operator
    operator.add, operator.sub, operator.mul, operator.floordiv, operator.truediv, operator.mod,
    operator.pow, operator.lshift, operator.rshift, operator.and_, operator.or_, operator.xor,
    operator.neg, operator.pos, operator.invert,
}  # fmt: skip  # an in-place ``x += 1`` folds through its immutable operator


def _is_number(value: Any) -> bool:
    return isinstance(value, (numbers.Number, np.number, np.bool_))


class Prescan:
    """The prescan of a kernel's Python over one DSL (its IR, its typing of plain functions)."""

    def __init__(self, dsl: Dsl) -> None:
        self.dsl = dsl

    def tag_operators(self, py_func: Any) -> None:
        """Give every plain Python function that ``py_func`` refers to, and that Numba cannot type, the
        type under which coop primitives accept it as an operator."""
        if not isinstance(py_func, pytypes.FunctionType):
            return
        for value in _referenced(py_func):
            if isinstance(value, pytypes.FunctionType) and not self.dsl.can_type(value):
                self.dsl.tag_python_function(value, self.dsl.PythonFunctionType(value))

    def python_value(self, func_ir: Any, var: Any) -> Any:
        """The Python object a variable of the IR stands for (globals, closure variables, constants,
        attributes of them, and arithmetic of numbers among them, as ``2 * ITEMS`` or ``-np.inf``),
        or ``...`` when it is computed at run time."""
        ir = self.dsl.ir
        try:
            node = func_ir.get_definition(var)
        except Exception:
            return ...
        if isinstance(node, (ir.Global, ir.FreeVar, ir.Const)):
            return node.value
        if isinstance(node, ir.Expr) and node.op == "getattr":
            base = self.python_value(func_ir, node.value)
            return ... if base is ... else getattr(base, node.attr, ...)
        if isinstance(node, ir.Expr) and node.op in ("binop", "inplace_binop", "unary"):
            fn = node.fn if node.op != "inplace_binop" else node.immutable_fn
            operands = [node.value] if node.op == "unary" else [node.lhs, node.rhs]
            values = [self.python_value(func_ir, v) for v in operands]
            if fn not in _FOLDED or not all(_is_number(v) for v in values):
                return ...
            try:
                return fn(*values)
            except Exception:  # a division by zero, an overflow: Numba's to report at run time
                return ...
        return ...

    def _thread_data_dtype(self, func_ir: Any, var: Any) -> str | None:
        """The element type of ``var`` when it is made by ``coop.ThreadData(n, dtype)`` in the body (for
        a tuple built there of such ThreadData, their field list)."""
        from cuda.coop import ThreadData

        ir = self.dsl.ir
        try:
            node = func_ir.get_definition(var)
        except Exception:
            return None
        if isinstance(node, ir.Expr) and node.op == "build_tuple":  # a tuple of ThreadData: a field list
            return tuple_name([self._thread_data_dtype(func_ir, item) for item in node.items])
        is_call = isinstance(node, ir.Expr) and node.op == "call"
        if not (is_call and self.python_value(func_ir, node.func) is ThreadData):
            return None
        args = list(node.args) + [v for k, v in node.kws if k == "dtype"]
        dtype = self.python_value(func_ir, args[1]) if len(args) > 1 else ...
        if isinstance(dtype, str):
            return dtype
        try:
            ty = dtype if isinstance(dtype, self.dsl.types.Type) else self.dsl.from_dtype(dtype)
        except Exception:
            return None
        return self.dsl.dtype_name(getattr(ty, "dtype", ty))

    def _is_local_array(self, func_ir: Any, var: Any) -> bool:
        """``var`` is made by ``cuda.local.array(...)`` in the body (thread-private memory), or is a
        tuple built there with such an array in it."""
        ir = self.dsl.ir
        try:
            node = func_ir.get_definition(var)
        except Exception:
            return False
        if isinstance(node, ir.Expr) and node.op == "build_tuple":  # a tuple of arrays, one per field
            return any(self._is_local_array(func_ir, item) for item in node.items)
        is_call = isinstance(node, ir.Expr) and node.op == "call"
        return is_call and self.python_value(func_ir, node.func) is self.dsl.local_array

    def _is_kernel_argument(self, func_ir: Any, var: Any) -> bool:
        """``var`` is one of the kernel's arguments (an array of them is in global memory)."""
        try:
            return isinstance(func_ir.get_definition(var), self.dsl.ir.Arg)
        except Exception:
            return False

    def coop_calls(self, py_func: Any) -> Iterator[tuple[Any, Any, Any]]:
        """(IR, call expression, catalog row) of each coop call in ``py_func``'s own body; none if the
        DSL's frontend cannot read it (it reports that itself, in its own words, when it compiles)."""
        try:
            func_ir = self.dsl.function_ir(py_func)
        except Exception:
            return
        for block in func_ir.blocks.values():
            for call in block.find_exprs(op="call"):
                prim = getattr(self.python_value(func_ir, call.func), "__coop_primitive__", None)
                if prim is not None:
                    yield func_ir, call, prim

    def check_constants(self, py_func: Any) -> None:
        """Check the constants of coop calls in ``py_func``'s body that typing cannot see (floats for
        values of the element type, integers beyond 64 bits), with their parameters' kinds."""
        from cuda.coop._backend_api import Launch, Resolver

        for func_ir, call, prim in self.coop_calls(py_func):
            names = [p.name for p in prim.params]
            bound = dict(zip(names, call.args, strict=False)) | dict(call.kws)
            payload = bound.get(prim.payload.name)
            dtype = self._thread_data_dtype(func_ir, payload) if payload is not None else None
            r = Resolver(prim, Launch(None, ""))
            if dtype is not None:
                r.set_payload(dtype, 1, scalar=False)
            for name, var in bound.items():
                if name not in names:
                    continue
                kind = prim.param(name).kind
                if self._is_local_array(func_ir, var):
                    kind.check_memory(r, name, "local")
                elif self._is_kernel_argument(func_ir, var):
                    kind.check_memory(r, name, "global")
                value = self.python_value(func_ir, var)
                if value is not ...:
                    kind.check_constant(r, name, value)

    def prescan(self, py_func: Any) -> None:
        """Everything the front doors do to a kernel's Python before the DSL compiles it."""
        if isinstance(py_func, pytypes.FunctionType):
            self.tag_operators(py_func)
            self.check_constants(py_func)
