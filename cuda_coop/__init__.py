# SPDX-License-Identifier: Apache-2.0
"""cuda.coop: CUB cooperative primitives called inside Python GPU kernels.

Importing this package is host-only: it imports no DSL, no CUDA binding and needs no GPU.
Backends are activated with :func:`register` (importing ``cuda.coop.numba`` does it too).
"""

from __future__ import annotations

from . import block, cluster, warp
from ._catalog import CHOICES
from ._errors import (
    CoopBackendError,
    CoopCacheWarning,
    CoopCompileError,
    CoopError,
    CoopHostCallError,
    CoopLaunchConfigError,
    CoopTypeError,
    CoopValueError,
)
from ._kernel_api import TempStorage, ThreadData
from ._registry import register, registered_backends
from ._sass import CubinReport
from ._stats import CompileStats, compile_stats

__version__ = "0.1.0"

# The choice enums (BlockLoadAlgorithm, BlockReduceAlgorithm, BlockExchangeMode, ...) come from the
# catalog's option tables.
globals().update({c.enum_name: c.enum for c in CHOICES})

__all__ = [
    "block",
    "warp",
    "cluster",
    "ThreadData",
    "TempStorage",
    *(c.enum_name for c in CHOICES),
    "register",
    "registered_backends",
    "compile_stats",
    "CompileStats",
    "CubinReport",
    "CoopError",
    "CoopTypeError",
    "CoopValueError",
    "CoopBackendError",
    "CoopLaunchConfigError",
    "CoopCompileError",
    "CoopHostCallError",
    "CoopCacheWarning",
]
