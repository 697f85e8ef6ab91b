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
    """Caller-owned shared-memory scratch that several primitives of a kernel can use.

    Created inside a kernel: ``ts = coop.TempStorage()``, then passed as ``temp_storage=ts``
    (Numba and CuTe kernels).

    Args:
        sharing: ``"shared"`` (default): one buffer that the calls reuse, its size the largest
            scratch of the primitives of the kernel that take caller storage (footprint = max);
            as with CUB, two calls that reuse it need a block barrier between them (or
            ``auto_sync=True``). ``"exclusive"``: each call gets a slice of its own (footprint = the
            sum of theirs), so no barrier is needed between calls on different slices.
        auto_sync: ``True``: the library puts exactly one barrier (the block's, or the logical
            warp's for ``coop.warp`` calls) between two uses of the buffer, and none where the
            kernel already has one on every path from the previous use (the first use, after your
            own ``syncthreads``). Like any ``__syncthreads()``, it deadlocks if only some threads of
            the block reach the call: a block call in a branch on the thread index is refused.
            Default ``False``: barriers are yours.
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
