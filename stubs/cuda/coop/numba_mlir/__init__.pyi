# SPDX-License-Identifier: Apache-2.0
"""Typing stubs of cuda.coop.numba_mlir (the numba-cuda-mlir backend's qualified namespace)."""

from collections.abc import Callable
from typing import Any, overload

# BEGIN generated: choices
from cuda.coop import BlockLoadAlgorithm as BlockLoadAlgorithm
from cuda.coop import BlockStoreAlgorithm as BlockStoreAlgorithm
from cuda.coop import BlockReduceAlgorithm as BlockReduceAlgorithm
from cuda.coop import BlockScanAlgorithm as BlockScanAlgorithm
from cuda.coop import BlockExchangeMode as BlockExchangeMode
from cuda.coop import WarpLoadAlgorithm as WarpLoadAlgorithm
from cuda.coop import WarpStoreAlgorithm as WarpStoreAlgorithm
from cuda.coop import WarpExchangeAlgorithm as WarpExchangeAlgorithm
from cuda.coop import WarpExchangeMode as WarpExchangeMode
from cuda.coop import WarpBatchedArrangement as WarpBatchedArrangement
from cuda.coop import ItemArrangement as ItemArrangement
from cuda.coop import BlockRadixSortOutput as BlockRadixSortOutput
from cuda.coop import BlockAdjacentDirection as BlockAdjacentDirection
from cuda.coop import BlockDiscontinuityFlags as BlockDiscontinuityFlags
from cuda.coop import BlockShuffleMode as BlockShuffleMode
from cuda.coop import BlockHistogramAlgorithm as BlockHistogramAlgorithm
from cuda.coop import BlockRadixRankAlgorithm as BlockRadixRankAlgorithm
from cuda.coop import GridTileOrder as GridTileOrder
# END generated: choices
from cuda.coop import TempStorage as TempStorage
from cuda.coop import ThreadData as ThreadData
from cuda.coop import block as block
from cuda.coop import cluster as cluster
from cuda.coop import grid as grid
from cuda.coop import warp as warp
from cuda.coop import CubinReport as CubinReport
from cuda.coop.numba import PreparedLaunch as PreparedLaunch

class CoopKernel:
    py_func: Callable[..., None]
    options: dict[str, Any]
    __name__: str
    def for_block(self, block: int | tuple[int, ...], cluster: int | tuple[int, ...] | None = None) -> Any: ...
    def __getitem__(self, config: tuple[Any, ...]) -> Callable[..., None]: ...
    def configure(
        self, grid: Any, block: Any, stream: Any = 0, sharedmem: int = 0, *, cluster: Any = None
    ) -> Callable[..., None]: ...
    def prepare(
        self,
        grid: Any,
        block: Any,
        *args: Any,
        stream: Any = None,
        shared_mem: int = 0,
        cluster: Any = None,
    ) -> PreparedLaunch: ...

class CompiledKernel:
    code: bytes
    output: str
    arch: str
    block: tuple[int, int, int]
    bundle_ltoir: bytes
    temp_storage: dict[str, tuple[int, int]]
    cluster: tuple[int, int, int] | None
    def inspect(self) -> CubinReport: ...

@overload
def jit(func: Callable[..., None], **options: Any) -> CoopKernel: ...
@overload
def jit(func: None = None, **options: Any) -> Callable[[Callable[..., None]], CoopKernel]: ...
def compile(
    func: Callable[..., None] | CoopKernel,
    signature: Any,
    *,
    block: int | tuple[int, ...],
    arch: str = ...,
    cluster: int | tuple[int, ...] | None = ...,
    output: str = ...,
    **options: Any,
) -> CompiledKernel: ...

# BEGIN generated: all
__all__ = [
    "jit",
    "compile",
    "compile_many",
    "CoopKernel",
    "PreparedLaunch",
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
]
# END generated: all
