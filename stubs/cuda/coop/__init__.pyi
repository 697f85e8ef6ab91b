# SPDX-License-Identifier: Apache-2.0
"""Typing stubs of cuda.coop for kernel code (mypy: mypy_path = "stubs")."""

from enum import Enum
from typing import Any

import numpy as np

from . import block as block
from . import cluster as cluster
from . import grid as grid
from . import warp as warp

__version__: str

# BEGIN generated: choices
class BlockLoadAlgorithm(str, Enum):
    AUTO = "auto"
    DIRECT = "direct"
    STRIPED = "striped"
    VECTORIZE = "vectorize"
    STRIPED_VECTORS = "striped_vectors"
    TRANSPOSE = "transpose"
    WARP_TRANSPOSE = "warp_transpose"
    WARP_TRANSPOSE_TIMESLICED = "warp_transpose_timesliced"

class BlockStoreAlgorithm(str, Enum):
    AUTO = "auto"
    DIRECT = "direct"
    STRIPED = "striped"
    VECTORIZE = "vectorize"
    STRIPED_VECTORS = "striped_vectors"
    TRANSPOSE = "transpose"
    WARP_TRANSPOSE = "warp_transpose"
    WARP_TRANSPOSE_TIMESLICED = "warp_transpose_timesliced"

class BlockReduceAlgorithm(str, Enum):
    RAKING = "raking"
    RAKING_COMMUTATIVE_ONLY = "raking_commutative_only"
    WARP_REDUCTIONS = "warp_reductions"

class BlockScanAlgorithm(str, Enum):
    RAKING = "raking"
    RAKING_MEMOIZE = "raking_memoize"
    WARP_SCANS = "warp_scans"

class BlockExchangeMode(str, Enum):
    STRIPED_TO_BLOCKED = "striped_to_blocked"
    BLOCKED_TO_STRIPED = "blocked_to_striped"
    WARP_STRIPED_TO_BLOCKED = "warp_striped_to_blocked"
    BLOCKED_TO_WARP_STRIPED = "blocked_to_warp_striped"
    SCATTER_TO_BLOCKED = "scatter_to_blocked"
    SCATTER_TO_STRIPED = "scatter_to_striped"
    SCATTER_TO_STRIPED_GUARDED = "scatter_to_striped_guarded"
    SCATTER_TO_STRIPED_FLAGGED = "scatter_to_striped_flagged"

class WarpLoadAlgorithm(str, Enum):
    DIRECT = "direct"
    STRIPED = "striped"
    VECTORIZE = "vectorize"
    TRANSPOSE = "transpose"

class WarpStoreAlgorithm(str, Enum):
    DIRECT = "direct"
    STRIPED = "striped"
    VECTORIZE = "vectorize"
    TRANSPOSE = "transpose"

class WarpExchangeAlgorithm(str, Enum):
    SMEM = "smem"
    SHUFFLE = "shuffle"

class WarpExchangeMode(str, Enum):
    STRIPED_TO_BLOCKED = "striped_to_blocked"
    BLOCKED_TO_STRIPED = "blocked_to_striped"
    SCATTER_TO_STRIPED = "scatter_to_striped"

class WarpBatchedArrangement(str, Enum):
    STRIPED = "striped"
    BLOCKED = "blocked"

class ItemArrangement(str, Enum):
    AUTO = "auto"
    BLOCKED = "blocked"
    STRIPED = "striped"
    STRIPED_VECTORS = "striped_vectors"

class BlockRadixSortOutput(str, Enum):
    BLOCKED = "blocked"
    STRIPED = "striped"

class BlockAdjacentDirection(str, Enum):
    LEFT = "left"
    RIGHT = "right"

class BlockDiscontinuityFlags(str, Enum):
    HEADS = "heads"
    TAILS = "tails"
    HEADS_AND_TAILS = "heads_and_tails"

class BlockShuffleMode(str, Enum):
    OFFSET = "offset"
    ROTATE = "rotate"
    UP = "up"
    DOWN = "down"

class BlockHistogramAlgorithm(str, Enum):
    ATOMIC = "atomic"
    SORT = "sort"

class BlockRadixRankAlgorithm(str, Enum):
    BASIC = "basic"
    MEMOIZE = "memoize"
    MATCH = "match"

class GridTileOrder(str, Enum):
    TICKET = "ticket"
    BLOCK = "block"
# END generated: choices

class ThreadData:
    """A thread's items: ``ThreadData(items_per_thread, dtype)`` inside a kernel (``dtype``: a
    scalar type or its name, or in Numba a NumPy record dtype)."""

    def __init__(self, items_per_thread: int, dtype: type[Any] | str | np.dtype[Any]) -> None: ...
    def __getitem__(self, index: int) -> Any: ...
    def __setitem__(self, index: int, value: Any) -> None: ...
    def __len__(self) -> int: ...

class TempStorage:
    """Caller-owned shared scratch: ``TempStorage(sharing="shared", auto_sync=False)`` inside a kernel."""

    def __init__(self, sharing: str = ..., auto_sync: bool = ...) -> None: ...

class CompileStats:
    nvrtc_compiles: int
    cache_hits: int
    cache_rebuilds: int
    nvrtc_seconds: float
    links: int
    link_cache_hits: int
    link_seconds: float

def compile_stats() -> CompileStats: ...
def register(name: str) -> None: ...
def registered_backends() -> tuple[str, ...]: ...

class CubinReport:
    size: int
    arch: str
    functions: tuple[str, ...]
    registers: dict[str, int]
    shared_bytes: dict[str, int]
    frame_bytes: dict[str, int]
    thread_bounds: dict[str, tuple[str, tuple[int, int, int]]]
    calls: int
    local_loads: int
    local_stores: int
    leftover_symbols: tuple[str, ...]
    sass: str
    def summary(self) -> str: ...

class CoopError(Exception): ...
class CoopTypeError(CoopError, TypeError): ...
class CoopValueError(CoopError, ValueError): ...
class CoopBackendError(CoopError, RuntimeError): ...
class CoopLaunchConfigError(CoopError, ValueError): ...
class CoopHostCallError(CoopError, RuntimeError): ...
class CoopCacheWarning(UserWarning): ...

class CoopCompileError(CoopError, RuntimeError):
    log: str
    source_path: str
    def __init__(self, message: str, *, log: str, source_path: str) -> None: ...

# BEGIN generated: all
__all__ = [
    "block",
    "warp",
    "cluster",
    "grid",
    "ThreadData",
    "TempStorage",
    "BlockLoadAlgorithm",
    "BlockStoreAlgorithm",
    "BlockReduceAlgorithm",
    "BlockScanAlgorithm",
    "BlockExchangeMode",
    "WarpLoadAlgorithm",
    "WarpStoreAlgorithm",
    "WarpExchangeAlgorithm",
    "WarpExchangeMode",
    "WarpBatchedArrangement",
    "ItemArrangement",
    "BlockRadixSortOutput",
    "BlockAdjacentDirection",
    "BlockDiscontinuityFlags",
    "BlockShuffleMode",
    "BlockHistogramAlgorithm",
    "BlockRadixRankAlgorithm",
    "GridTileOrder",
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
# END generated: all
