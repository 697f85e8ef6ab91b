# SPDX-License-Identifier: Apache-2.0
"""What a Numba-like DSL gives coop's kernel side: numba-cuda's names, or their copies vendored in
numba-cuda-mlir (``numba_cuda_mlir.numba_cuda``), and coop's kernel types declared over them. Each
backend makes one ``Dsl`` in its ``kernel/_dsl.py``; the prescan, the barrier analysis and the typing
(``_prescan``, ``_barriers``, ``_typing``) are written over it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cuda.coop._backend_api import DTYPES


@dataclass(frozen=True)
class Dsl:
    """One Numba-like DSL, as coop's kernel side uses it."""

    #: the backend's package, as its messages name its front doors
    front_door: str
    #: the DSL's ``cuda`` module (``cuda.threadIdx``, ``cuda.syncthreads``...: what kernels call)
    cuda: Any
    #: its types module
    types: Any
    #: its IR module (``Global``, ``Expr``, ``Assign``...)
    ir: Any
    #: its bfloat16 type
    bfloat16: Any
    #: ``cuda.local.array``
    local_array: Any
    #: ``numpy_support.from_dtype``
    from_dtype: Any
    #: ``core.analysis.compute_cfg_from_blocks``
    compute_cfg_from_blocks: Any
    #: its typing templates and ``signature``
    AbstractTemplate: Any
    AttributeTemplate: Any
    signature: Any
    #: the backend's hooks: ``plan_carrying_template(name, key, generic, impl_key)``,
    #: ``can_type(value)``, ``function_ir(py_func)``, ``tag_python_function(value, ty)``
    plan_carrying_template: Any
    can_type: Any
    function_ir: Any
    tag_python_function: Any
    #: coop's kernel types over the DSL's (``_types``: each a backend's class of the shared behaviour)
    ThreadDataType: Any
    AlignedArrayType: Any
    TempStorageType: Any
    AlgorithmEnumType: Any
    PythonFunctionType: Any

    def dtype_name(self, ty: Any) -> str | None:
        """Our element-type name of one of the DSL's scalar types, or None if it is not one we
        support."""
        types = self.types
        if isinstance(ty, types.Boolean):
            return None
        name = "bfloat16" if ty == self.bfloat16 else str(ty)
        return name if name in DTYPES and isinstance(ty, types.Number) else None
