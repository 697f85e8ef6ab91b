# SPDX-License-Identifier: Apache-2.0
"""coop's own launches of numba-cuda-mlir kernels: its compiled kernels as the core's plans.

numba-cuda-mlir passes an array as a memref descriptor (``allocated, aligned, offset, shape...,
strides...``, offset and strides in items), a complex number as one parameter, a tuple as its
members; the core's readers and launch path (``MEMREF_ABI``, :class:`LaunchPlan`,
:class:`PreparedLaunch`) do the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from cuda.coop._backend_api import (
    MEMREF_ABI,
    SCALAR,
    TUPLE,
    BoundPlan,
    CoopTypeError,
    Key,
    LaunchPlan,
    Marshal,
    Spec,
    device_array_reader,
    numpy_dtype,
    spec,
)

from . import _ncm_hooks


def is_device_array(kind: type) -> bool:
    """Whether ``kind`` is numba-cuda-mlir's device array class (the readers ask once per type; a
    prepared launch asks again only on its full path)."""
    return bool(getattr(kind, "__cuda_memory__", False)) and issubclass(kind, _ncm_hooks.device_array_class())


#: numba-cuda-mlir's device arrays.
_read_device_array = device_array_reader("numba_cuda_mlir", _ncm_hooks.device_array_type, MEMREF_ABI)


#: numba-cuda-mlir's readers (a CUDA array interface's stream is not synchronised, as its own
#: launcher does not).
MARSHAL = Marshal(MEMREF_ABI, own_array=(is_device_array, _read_device_array))


def kernel_spec(ty: Any) -> Spec:
    """The :class:`Spec` of a numba-cuda-mlir argument type (raises ``Unsupported`` for types only
    its launcher passes)."""
    from numba_cuda_mlir import types
    from numba_cuda_mlir.numba_cuda.np.numpy_support import as_dtype

    return spec(ty, types, as_dtype, MEMREF_ABI)


def mlir_plan(result: Any, what: str, cluster: tuple[int, int, int] | None = None) -> LaunchPlan:
    """The plan of a compiled numba-cuda-mlir kernel in the current context."""
    return LaunchPlan(
        _ncm_hooks.kernel_function(result),
        [kernel_spec(t) for t in _ncm_hooks.kernel_argument_types(result)],
        what,
        marshal=MARSHAL,
        launch_error=_ncm_hooks.launch_error,
        cooperative=_ncm_hooks.is_cooperative(result),
        cluster=cluster,
    )


def argument_types(dispatcher: Any, keys: Sequence[Key], args: Sequence[Any], what: str) -> tuple[Any, ...]:
    """The numba-cuda-mlir types of arguments read as ``keys``: an array's from its key (dtype, rank,
    layout, read-only), as numba-cuda-mlir types arrays; a scalar's as numba-cuda-mlir types it."""
    return tuple(
        _argument_type(dispatcher, k, a, f"{what}: argument {i}")
        for i, (k, a) in enumerate(zip(keys, args, strict=True))
    )


def _argument_type(dispatcher: Any, key: Key, arg: Any, what: str) -> Any:
    from numba_cuda_mlir import types
    from numba_cuda_mlir.numba_cuda.np.numpy_support import from_dtype

    if key[0] == TUPLE:
        return types.BaseTuple.from_types(
            [
                _argument_type(dispatcher, k, a, f"{what}[{i}]")
                for i, (k, a) in enumerate(zip(key[1], arg, strict=True))
            ]
        )
    dtype = None if key[0] == SCALAR else numpy_dtype(key[1])
    if dtype is not None:
        return types.Array(from_dtype(dtype), key[2], key[3], readonly=key[5])
    try:
        return dispatcher.typeof_pyval(launchable(arg))
    except Exception as exc:
        raise CoopTypeError(f"{what} ({type(arg).__name__}): numba-cuda-mlir cannot type it: {exc}") from exc


def try_plan(
    dispatcher: Any,
    args: Sequence[Any],
    keys: Sequence[Key],
    what: str,
    cluster: tuple[int, int, int] | None = None,
) -> BoundPlan | None:
    """A plan for arguments like ``args`` (whose keys are ``keys``), the kernel compiled now if new
    (inside the caller's compile context; a compile error propagates), or None where
    numba-cuda-mlir's own launcher must launch them."""
    if _ncm_hooks.fast_path_blocker(dispatcher) is not None:
        return None
    result = _ncm_hooks.resolve_kernel(dispatcher, argument_types(dispatcher, keys, args, what))
    if _ncm_hooks.fast_path_blocker(dispatcher, result) is not None:
        return None
    try:
        plan = mlir_plan(result, what, cluster)
    except Exception:  # whatever the plan cannot take, numba-cuda-mlir's launcher does
        return None
    return None if plan.reject(keys) else BoundPlan(plan, keys)


class _ArrayInterface:
    """An array seen through its ``__cuda_array_interface__`` alone: what numba-cuda-mlir 0.6's
    launcher takes of a CUDA array whose ``dtype`` is not a NumPy dtype (a torch tensor: the launcher
    reads ``arg.dtype`` first, as a NumPy dtype, and fails on torch's; with no ``dtype`` it reads the
    interface's ``typestr``). Cheaper than ``cuda.as_cuda_array`` (a device array made per launch:
    48 us on the H200's host)."""

    __slots__ = ("__cuda_array_interface__",)

    def __init__(self, interface: dict[str, Any]) -> None:
        self.__cuda_array_interface__ = interface


def launchable(arg: Any) -> Any:
    """``arg`` as numba-cuda-mlir 0.6's launcher takes it: a CUDA array whose ``dtype`` is not a
    NumPy dtype (a torch tensor) through its CUDA array interface alone (read once: torch builds it
    anew on each read)."""
    dtype = getattr(arg, "dtype", None)
    if dtype is None or isinstance(dtype, np.dtype):
        return arg
    interface = getattr(arg, "__cuda_array_interface__", None)
    return arg if interface is None else _ArrayInterface(interface)
