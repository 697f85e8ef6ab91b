# SPDX-License-Identifier: Apache-2.0
"""The behaviour of coop's kernel types under a Numba-like DSL: ThreadData (an array type), aligned
kernel arrays, TempStorage, the choice enums, and plain Python functions used as operators.

Each backend declares the types over its DSL's base types, the class of behaviour first
(``class ThreadDataType(ThreadData, types.Array)``, in its ``kernel/_types.py``): one class per DSL,
importable by name (Numba's cache pickles types by reference), named as here (the name is part of
a type's mangling)."""

from __future__ import annotations

from typing import Any


class ThreadData:
    """A thread's items: a 1-D C array of ``items_per_thread`` elements that lives in registers."""

    def __init__(self, dtype: Any, items_per_thread: int) -> None:
        self.items_per_thread = items_per_thread
        super().__init__(dtype, 1, "C", name=f"ThreadData({dtype}, {items_per_thread})")

    @property
    def key(self) -> tuple[object, ...]:  # type: ignore[override]
        return (*super().key, self.items_per_thread)

    @property
    def mangling_args(self) -> tuple[str, list[object]]:  # type: ignore[override]
        return type(self).__name__, [self.dtype, self.items_per_thread]


class AlignedArray:
    """A kernel argument array whose data the front door found aligned to ``align`` bytes at launch
    (the kernel is specialised on it): coop's calls tell LLVM, so that the wrappers' runtime
    alignment checks fold where a tile's offset is provably aligned too."""

    def __init__(self, dtype: Any, ndim: int, layout: str, readonly: bool = False, align: int = 16):
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


class TempStorage:
    """A pointer to caller-owned shared scratch: its options, and the ``coop.TempStorage()`` call that
    made it (its file:line; one session slot per call)."""

    def __init__(self, sharing: str = "shared", auto_sync: bool = False, site: str = "") -> None:
        self.sharing, self.auto_sync, self.site = sharing, auto_sync, site
        options = "" if (sharing, auto_sync) == ("shared", False) else f"({sharing}, auto_sync={auto_sync})"
        super().__init__(name=f"coop.TempStorage{options}@{site}")

    @property
    def key(self) -> tuple[object, ...]:  # type: ignore[override]
        return (self.sharing, self.auto_sync, self.site)


class AlgorithmEnum:
    """A choice enum class used in a kernel; its members type as string literals."""

    def __init__(self, cls: type) -> None:
        self.cls = cls
        super().__init__(name=f"coop.{cls.__name__}")


class PythonFunction:
    """A plain Python function that a coop kernel passes as an operator (Numba cannot type plain
    functions; ``cuda.coop.numba.jit`` tags the ones a kernel refers to with this type)."""

    def __init__(self, function: Any) -> None:
        self.function = function
        super().__init__(name=f"coop.PythonFunction({function.__module__}.{function.__qualname__})")

    @property
    def key(self) -> object:
        return self.function
