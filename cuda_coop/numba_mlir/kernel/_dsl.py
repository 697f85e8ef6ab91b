# SPDX-License-Identifier: Apache-2.0
"""The DSL that this kernel side types and lowers for: numba-cuda-mlir (its vendored numba-cuda
typing), as a ``Dsl`` of the shared kernel side (``cuda.coop._numba_like``), and that kernel side
over it: the prescan, the barrier analysis and the typing."""

from __future__ import annotations

from cuda.coop._numba_like._barriers import Barriers
from cuda.coop._numba_like._dsl import Dsl
from cuda.coop._numba_like._prescan import Prescan
from cuda.coop._numba_like._typing import Typing
from numba_cuda_mlir import cuda
from numba_cuda_mlir import types as ncm_types
from numba_cuda_mlir.numba_cuda import types
from numba_cuda_mlir.numba_cuda.core import ir
from numba_cuda_mlir.numba_cuda.core.analysis import compute_cfg_from_blocks
from numba_cuda_mlir.numba_cuda.np.numpy_support import from_dtype
from numba_cuda_mlir.numba_cuda.typing.templates import AbstractTemplate, AttributeTemplate, signature

from .._ncm_hooks import can_type, function_ir, plan_carrying_template, tag_python_function
from ._types import AlgorithmEnumType, AlignedArrayType, PythonFunctionType, TempStorageType, ThreadDataType

DSL = Dsl(
    front_door="cuda.coop.numba_mlir",
    cuda=cuda,
    types=types,
    ir=ir,
    bfloat16=ncm_types.bf16,
    local_array=cuda.local.array,
    from_dtype=from_dtype,
    compute_cfg_from_blocks=compute_cfg_from_blocks,
    AbstractTemplate=AbstractTemplate,
    AttributeTemplate=AttributeTemplate,
    signature=signature,
    plan_carrying_template=plan_carrying_template,
    can_type=can_type,
    function_ir=function_ir,
    tag_python_function=tag_python_function,
    ThreadDataType=ThreadDataType,
    AlignedArrayType=AlignedArrayType,
    TempStorageType=TempStorageType,
    AlgorithmEnumType=AlgorithmEnumType,
    PythonFunctionType=PythonFunctionType,
)
PRESCAN = Prescan(DSL)
TYPING = Typing(DSL, Barriers(DSL, PRESCAN))
