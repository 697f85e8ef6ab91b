# SPDX-License-Identifier: Apache-2.0
"""Host-side objects of the kernel-side API: stubs that the backends compile, and that raise
``CoopHostCallError`` when called on the host outside a tracing DSL."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._primitive import Primitive
from ._registry import host_call

__all__ = ["ThreadData", "TempStorage"]


class ThreadData:
    """Per-thread register payload of ``items_per_thread`` items of ``dtype``.

    Created inside a kernel: ``items = coop.ThreadData(4, numba.int32)`` (or
    ``dtype=numba.int32``). It behaves as a 1-D array of the thread's items (``items[i]``,
    ``len(items)``), is private to the thread and lives in registers once the kernel is linked.

    Args:
        items_per_thread: number of items, a compile-time constant int.
        dtype: the element type (a Numba/NumPy scalar type or its name).
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:  # noqa: D102
        return host_call("coop.ThreadData", args, kwargs)


class TempStorage:
    """Caller-owned shared-memory scratch that several primitives of a kernel can reuse.

    Created inside a kernel: ``ts = coop.TempStorage()``, then passed as ``temp_storage=ts``
    (Numba and CuTe kernels). Its size is the largest scratch of the primitives of the kernel that
    take caller storage (footprint = max, not sum). As with CUB, put a block barrier
    (``cuda.syncthreads()``, ``cute.arch.barrier()``) between two primitives that reuse it.
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:  # noqa: D102
        return host_call("coop.TempStorage", args, kwargs)


def make_stub(prim: Primitive) -> Callable[..., Any]:
    """Build the host stub of a kernel-side primitive from its catalog row."""

    def stub(*args: Any, **kwargs: Any) -> Any:
        return host_call(prim.qualname, args, kwargs)

    stub.__name__ = stub.__qualname__ = prim.name
    stub.__module__ = f"cuda.coop.{prim.scope}"
    stub.__doc__ = prim.docstring()
    stub.__signature__ = prim.signature()  # type: ignore[attr-defined]
    stub.__coop_primitive__ = prim  # type: ignore[attr-defined]
    return stub
