# SPDX-License-Identifier: Apache-2.0
"""Typing stubs of cuda.coop.cutlass (the CUTLASS CuTe DSL backend's qualified namespace)."""

from collections.abc import Callable
from typing import Any

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

class PreparedLaunch:
    def launch(self, *args: Any, **kwargs: Any) -> None: ...

class CompiledCuteFunction:
    compiled: Any
    cubin: bytes
    arch: str
    symbols: tuple[str, ...]
    timings: dict[str, float]
    temp_storage: dict[str, tuple[int, int]]
    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...
    def prepare(self, *args: Any, **kwargs: Any) -> PreparedLaunch: ...
    def inspect(self) -> CubinReport: ...

class _Compile:
    def __getitem__(self, options: Any) -> _Compile: ...
    def __call__(
        self,
        host: Callable[..., Any],
        *args: Any,
        arch: str | None = None,
        options: str | None = None,
        **kwargs: Any,
    ) -> CompiledCuteFunction: ...

compile: _Compile

def as_thread_data(fragment: Any) -> ThreadData: ...
def to_ssa(items: ThreadData) -> Any: ...
def from_ssa(items: ThreadData, value: Any) -> None: ...

# BEGIN generated: all
__all__ = [
    "compile",
    "compile_many",
    "CompiledCuteFunction",
    "PreparedLaunch",
    "as_thread_data",
    "to_ssa",
    "from_ssa",
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
