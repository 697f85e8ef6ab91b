# SPDX-License-Identifier: Apache-2.0
"""Numba types of the kernel-side objects: ThreadData (an array type), TempStorage, the choice
enums, and plain Python functions used as operators."""

from __future__ import annotations

from typing import Any

from cuda.coop._backend_api import DTYPES

from ._dsl import bfloat16, types


class ThreadDataType(types.Array):
    """A thread's items: a 1-D C array of ``items_per_thread`` elements that lives in registers."""

    def __init__(self, dtype: types.Type, items_per_thread: int) -> None:
        self.items_per_thread = items_per_thread
        super().__init__(dtype, 1, "C", name=f"ThreadData({dtype}, {items_per_thread})")

    @property
    def key(self) -> tuple[object, ...]:  # type: ignore[override]
        return (*super().key, self.items_per_thread)

    @property
    def mangling_args(self) -> tuple[str, list[object]]:  # type: ignore[override]
        return type(self).__name__, [self.dtype, self.items_per_thread]


class AlignedArrayType(types.Array):
    """A kernel argument array whose data the front door found aligned to ``align`` bytes at launch
    (the kernel is specialised on it): coop's calls tell LLVM, so that the wrappers' runtime
    alignment checks fold where a tile's offset is provably aligned too."""

    def __init__(self, dtype: types.Type, ndim: int, layout: str, readonly: bool = False, align: int = 16):
        self.align = align
        name = f"array({dtype}, {ndim}d, {layout}{', readonly' if readonly else ''}, align {align})"
        super().__init__(dtype, ndim, layout, readonly=readonly, name=name)

    @property
    def key(self) -> tuple[object, ...]:  # type: ignore[override]
        return (*super().key, self.align)

    @property
    def mangling_args(self) -> tuple[str, list[object]]:  # type: ignore[override]
        return type(self).__name__, [self.dtype, self.ndim, self.layout, self.align]

    def __repr__(self) -> str:  # Array's repr would name a plain array (a signature's str shows it)
        args = f"{self.dtype!r}, {self.ndim}, {self.layout!r}, {not self.mutable}, align={self.align}"
        return f"AlignedArrayType({args})"


class TempStorageType(types.Opaque):
    """A pointer to caller-owned shared scratch: its options, and the ``coop.TempStorage()`` call that
    made it (its file:line; one session slot per call)."""

    def __init__(self, sharing: str = "shared", auto_sync: bool = False, site: str = "") -> None:
        self.sharing, self.auto_sync, self.site = sharing, auto_sync, site
        options = "" if (sharing, auto_sync) == ("shared", False) else f"({sharing}, auto_sync={auto_sync})"
        super().__init__(name=f"coop.TempStorage{options}@{site}")

    @property
    def key(self) -> tuple[object, ...]:  # type: ignore[override]
        return (self.sharing, self.auto_sync, self.site)


class AlgorithmEnumType(types.Dummy):
    """A choice enum class used in a kernel; its members type as string literals."""

    def __init__(self, cls: type) -> None:
        self.cls = cls
        super().__init__(name=f"coop.{cls.__name__}")


class PythonFunctionType(types.Dummy):
    """A plain Python function that a coop kernel passes as an operator (Numba cannot type plain
    functions; ``cuda.coop.numba.jit`` tags the ones a kernel refers to with this type)."""

    def __init__(self, function: Any) -> None:
        self.function = function
        super().__init__(name=f"coop.PythonFunction({function.__module__}.{function.__qualname__})")

    @property
    def key(self) -> object:
        return self.function


def dtype_name(ty: types.Type) -> str | None:
    """Our element-type name of a Numba scalar type, or None if it is not one we support."""
    if isinstance(ty, types.Boolean):
        return None
    name = "bfloat16" if ty == bfloat16 else str(ty)
    return name if name in DTYPES and isinstance(ty, types.Number) else None
