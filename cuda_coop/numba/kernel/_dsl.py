# SPDX-License-Identifier: Apache-2.0
"""The DSL that this kernel side types and lowers for: numba-cuda.

``_types`` and ``_typing`` are written against the names here, so that the numba-cuda-mlir backend
(whose typing is numba-cuda's, vendored) runs the same typing source over its own ``_dsl``: its
kernel package lists this folder after its own (``cuda.coop.numba_mlir.kernel.__path__``).
"""

from __future__ import annotations

from numba import cuda as _cuda
from numba.cuda import types
from numba.cuda.core import ir
from numba.cuda.core.analysis import compute_cfg_from_blocks
from numba.cuda.np.numpy_support import from_dtype
from numba.cuda.typing.templates import AbstractTemplate, AttributeTemplate, Signature, signature

from .._numba_hooks import can_type, function_ir, plan_carrying_template, tag_python_function

cuda = _cuda
#: the backend's package, as its messages name its front doors
FRONT_DOOR = "cuda.coop.numba"
#: the DSL's bfloat16 type
bfloat16 = types.bfloat16
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
