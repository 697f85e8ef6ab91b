# SPDX-License-Identifier: Apache-2.0
"""cuda.coop: CUB cooperative primitives called inside Python GPU kernels.

Importing this package is host-only: it imports no DSL, no CUDA binding and needs no GPU.
Backends are activated with :func:`register` (importing ``cuda.coop.numba`` does it too).
"""

from __future__ import annotations

from . import _errors
from ._errors import *  # noqa: F403  (the error classes: _errors.__all__)
from ._kernel_api import export_namespace
from ._registry import register, registered_backends
from ._sass import CubinReport
from ._stats import CompileStats, compile_stats

__version__ = "0.1.0"

# block, warp, cluster, ThreadData, TempStorage and the choice enums (BlockLoadAlgorithm,
# BlockReduceAlgorithm, ...), from the catalog; every backend package exports the same list.
__all__ = [
    *export_namespace(globals()),
    "register",
    "registered_backends",
    "compile_stats",
    "CompileStats",
    "CubinReport",
    *_errors.__all__,
]
