# SPDX-License-Identifier: Apache-2.0
"""Host-side objects of the kernel-side API: stubs that the backends compile, and that raise
``CoopHostCallError`` when called on the host outside a tracing DSL."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from ._catalog import CATALOG, CHOICES, SCOPES
from ._errors import CoopValueError
from ._primitive import Primitive
from ._registry import host_call, primitive_added

__all__ = ["ThreadData", "TempStorage", "add", "export_namespace"]


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


def add(row: Primitive) -> Callable[..., Any]:
    """Add a row to the catalog at run time (for contributors trying out a primitive): its stub
    appears in ``cuda.coop.<scope>`` and the active backends learn it. Returns the stub.

    Raises:
        CoopValueError: a primitive of that name is in the catalog already.
    """
    if row.key in CATALOG:
        raise CoopValueError(f"{row.qualname} is in the catalog already")
    module = importlib.import_module(f"cuda.coop.{row.scope}")
    stub = make_stub(row)
    CATALOG[row.key] = row
    setattr(module, row.name, stub)
    module.__all__.append(row.name)
    try:
        primitive_added(row)
    except BaseException:  # a backend refused it: leave nothing of it behind
        del CATALOG[row.key]
        delattr(module, row.name)
        module.__all__.remove(row.name)
        raise
    return stub


def export_namespace(namespace: dict[str, Any]) -> list[str]:
    """Put the kernel-side names every coop package exports into ``namespace`` (a module's
    ``globals()``): the scopes (``block``, ``warp``, ``cluster``, ``grid``), ``ThreadData``,
    ``TempStorage`` and the choice enums of the catalog. Returns them in ``__all__`` order; a package
    adds its own entry points around them."""
    names = {scope: importlib.import_module(f"cuda.coop.{scope}") for scope in SCOPES}
    names.update(ThreadData=ThreadData, TempStorage=TempStorage)
    names.update({c.enum_name: c.enum for c in CHOICES})
    namespace.update(names)
    return list(names)
