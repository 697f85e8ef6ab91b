# SPDX-License-Identifier: Apache-2.0
"""User operators under numba-cuda-mlir: the user's function compiled by numba-cuda-mlir itself as a
C-ABI device function to LTO-IR, a link item of the kernel, which LTO inlines into CUB's code.

The bundle calls ``void symbol(R* out, const T* a, const T* b)``. For a scalar ``T`` that is the
compiled function. For a struct type (a tuple of fields) numba-cuda-mlir cannot index a pointer to a
tuple, so the compiled function takes one pointer per field (``symbol_fields(out0, ..., a0, ...,
b0, ...)``) and the kernel's module defines ``symbol`` to pass its structs' field addresses.
"""

from __future__ import annotations

from typing import Any

from cuda.coop._backend_api import BOOL, field_offsets, fields_of, python_function
from numba_cuda_mlir import cuda
from numba_cuda_mlir._mlir import ir
from numba_cuda_mlir._mlir.dialects import arith, func, llvm
from numba_cuda_mlir._mlir.extras import types as T
from numba_cuda_mlir.lowering_utilities import get_or_insert_function, llvm_ptr_add_bytes
from numba_cuda_mlir.numba_cuda import types
from numba_cuda_mlir.numba_cuda.cudadrv.linkable_code import LTOIR

from ._dsl import TYPING


def _wrapper(device: Any, outs: int, fields: int, truth: bool) -> Any:
    """``wrapper(out0.., a0.., b0..)``: the user's function of two values (tuples of ``fields``
    members), its result stored through the out pointers."""
    o = [f"o{k}" for k in range(outs)]
    a = [f"a{k}" for k in range(fields)]
    b = [f"b{k}" for k in range(fields)]
    if fields == 1:
        x, y = "a0[0]", "b0[0]"
    else:
        x, y = (f"({', '.join(f'{n}[0]' for n in side)},)" for side in (a, b))
    body = [f"    r = device({x}, {y})"]
    if truth:
        body.append("    o0[0] = 1 if r else 0")
    elif outs == 1:
        body.append("    o0[0] = r")
    else:
        body += [f"    o{k}[0] = r[{k}]" for k in range(outs)]
    namespace: dict[str, Any] = {"device": device}
    exec(f"def wrapper({', '.join(o + a + b)}):\n" + "\n".join(body), namespace)  # noqa: S102
    return namespace["wrapper"]


def operator_ltoir(op: Any) -> LTOIR:
    """The user function of ``op`` (a ``UserFunction``) in LTO-IR: ``op.symbol`` for a scalar type,
    ``op.symbol + "_fields"`` (one pointer per field) for a struct type."""
    fields = list(fields_of(op.dtype)) or [op.dtype]
    truth = op.result == BOOL
    outs = [] if truth else list(fields_of(op.result)) or [op.result]
    out_types = [types.uint8] if truth else [TYPING.numba_type(f) for f in outs]
    device = cuda.jit(device=True)(python_function(op.function))
    wrapper = _wrapper(device, len(out_types), len(fields), truth)
    pointers = [types.CPointer(t) for t in out_types + [TYPING.numba_type(f) for f in fields] * 2]
    name = op.symbol if len(fields) == 1 and len(out_types) == 1 else f"{op.symbol}_fields"
    code, _ = cuda.compile(
        wrapper, types.void(*pointers), device=True, abi="c", abi_info={"abi_name": name}, output="ltoir"
    )
    return LTOIR(bytes(code), name=name)


def define_struct_entry(module: Any, op: Any) -> None:
    """Define ``void op.symbol(ptr out, ptr a, ptr b)`` in the kernel's module: it calls
    ``op.symbol_fields`` with the address of each field of the three structs."""
    fields = list(fields_of(op.dtype)) or [op.dtype]
    outs = [BOOL] if op.result == BOOL else list(fields_of(op.result)) or [op.result]
    if len(fields) == 1 and len(outs) == 1:
        return
    ptr = llvm.PointerType.get()
    count = len(outs) + 2 * len(fields)
    inner = get_or_insert_function(f"{op.symbol}_fields", ir.FunctionType.get([ptr] * count, []), module)
    with ir.InsertionPoint(module.regions[0].blocks[0]):
        entry = func.FuncOp(op.symbol, ir.FunctionType.get([ptr] * 3, []))
    block = entry.add_entry_block()
    with ir.InsertionPoint(block):
        out, a, b = block.arguments
        args = []
        for base, names in ((out, outs), (a, fields), (b, fields)):
            offsets = field_offsets(names) if len(names) > 1 else (0,)
            args += [llvm_ptr_add_bytes(base, arith.constant(T.i64(), off)) for off in offsets]
        func.call([], inner.name.value, args)
        func.return_([])
