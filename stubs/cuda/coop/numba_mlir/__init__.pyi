# SPDX-License-Identifier: Apache-2.0
"""Typing stubs of cuda.coop.numba_mlir (the numba-cuda-mlir backend's qualified namespace)."""

from collections.abc import Callable
from typing import Any, overload

# BEGIN generated: choices
# END generated: choices
from cuda.coop import TempStorage as TempStorage
from cuda.coop import ThreadData as ThreadData
from cuda.coop import block as block
from cuda.coop import cluster as cluster
from cuda.coop import warp as warp
from cuda.coop import CubinReport as CubinReport

class CoopKernel:
    py_func: Callable[..., None]
    options: dict[str, Any]
    __name__: str
    def for_block(self, block: int | tuple[int, ...]) -> Any: ...
    def __getitem__(self, config: tuple[Any, ...]) -> Callable[..., None]: ...

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
    **options: Any,
) -> CompiledKernel: ...

# BEGIN generated: all
# END generated: all
