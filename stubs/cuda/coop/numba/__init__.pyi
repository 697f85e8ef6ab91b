# SPDX-License-Identifier: Apache-2.0
"""Typing stubs of cuda.coop.numba (the Numba backend's qualified namespace)."""

from collections.abc import Callable, Sequence
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
# END generated: choices
from cuda.coop import TempStorage as TempStorage
from cuda.coop import ThreadData as ThreadData
from cuda.coop import block as block
from cuda.coop import warp as warp

class CoopKernel:
    py_func: Callable[..., None]
    __name__: str
    def for_block(self, block: int | tuple[int, ...]) -> Any: ...
    def __getitem__(self, config: tuple[Any, ...]) -> Callable[..., None]: ...
    def prepare(
        self, grid: Any, block: Any, *args: Any, stream: Any = None, shared_mem: int = 0
    ) -> PreparedLaunch: ...

class PreparedLaunch:
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_mem: int
    stream: int
    device: int
    def launch(self, *args: Any, stream: Any = None) -> None: ...
    def set_args(self, args: Sequence[Any]) -> None: ...
    def __call__(self, *args: Any) -> None: ...

class CubinReport:
    size: int
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

class CompiledKernel:
    code: bytes
    output: str
    arch: str
    block: tuple[int, int, int]
    bundle_ltoir: bytes
    temp_storage: dict[str, tuple[int, int]]
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
    output: str = ...,
    **options: Any,
) -> CompiledKernel: ...

# BEGIN generated: all
__all__ = [
    "jit",
    "compile",
    "CoopKernel",
    "CompiledKernel",
    "PreparedLaunch",
    "block",
    "warp",
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
]
# END generated: all
