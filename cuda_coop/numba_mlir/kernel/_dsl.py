# SPDX-License-Identifier: Apache-2.0
"""The DSL that this kernel side types and lowers for: numba-cuda-mlir (its vendored typing)."""

from __future__ import annotations

from numba_cuda_mlir import cuda as _cuda
from numba_cuda_mlir import types as _ncm_types
from numba_cuda_mlir.numba_cuda import types
from numba_cuda_mlir.numba_cuda.core import ir
from numba_cuda_mlir.numba_cuda.core.analysis import compute_cfg_from_blocks
from numba_cuda_mlir.numba_cuda.np.numpy_support import from_dtype
from numba_cuda_mlir.numba_cuda.typing.templates import (
    AbstractTemplate,
    AttributeTemplate,
    Signature,
    signature,
)

from .._ncm_hooks import can_type, function_ir, plan_carrying_template, tag_python_function

cuda = _cuda
#: the backend's package, as its messages name its front doors
FRONT_DOOR = "cuda.coop.numba_mlir"
#: the DSL's bfloat16 type
bfloat16 = _ncm_types.bf16
local_array = _cuda.local.array

__all__ = [
    "FRONT_DOOR",
    "bfloat16",
    "cuda",
    "compute_cfg_from_blocks",
    "ir",
    "from_dtype",
    "local_array",
    "types",
    "AbstractTemplate",
    "AttributeTemplate",
    "Signature",
    "signature",
    "plan_carrying_template",
    "can_type",
    "function_ir",
    "tag_python_function",
]
