# SPDX-License-Identifier: Apache-2.0
"""Launching ``cuda.coop.numba.jit`` kernels: numba-cuda's compiled kernels as the core's plans.

The launch machinery (configurations, :class:`LaunchPlan`, parameter buffers,
:class:`PreparedLaunch`) is the core's (``cuda.coop._launch``, through the backend face); this module
makes a plan of a numba-cuda ``_Kernel`` and finds the kernel Numba would launch for given
arguments.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cuda.coop._backend_api import ALIGN, BoundPlan, CoopTypeError, Key, LaunchPlan, aligned
from numba.cuda import types

from .._numba_hooks import (
    can_compile,
    fast_path_blocker,
    is_cooperative,
    kernel_argument_types,
    kernel_function,
    launch_error,
)
from ..kernel._types import AlignedArrayType
from ._marshal import MARSHAL, spec

__all__ = ["numba_plan", "try_plan"]


def numba_plan(kernel: Any, what: str, cluster: tuple[int, int, int] | None = None) -> LaunchPlan:
    """The plan of a compiled numba-cuda ``_Kernel`` in the current context (raises
    ``Unsupported`` for a parameter type only Numba's launch passes)."""
    specs = [spec(t) for t in kernel_argument_types(kernel)]
    return LaunchPlan(
        kernel_function(kernel),
        specs,
        what,
        marshal=MARSHAL,
        launch_error=launch_error,
        cooperative=is_cooperative(kernel),
        cluster=cluster,
    )


def try_plan(
    dispatcher: Any, args: Sequence[Any], keys: Sequence[Key], what: str, *, compile: bool = False
) -> BoundPlan | None:
    """A plan for arguments like ``args`` (whose keys are ``keys``), or None where Numba's own path
    must launch them. Without ``compile``: after Numba launched them once, for the overload it
    launched (plain array types). With ``compile`` (the first launch of arguments among which some
    array's data is aligned, inside the kernel's compile context): for the overload with those arrays
    typed :class:`AlignedArrayType`, compiled now if new (Numba's dispatch would type them plain); a
    compile error propagates."""
    if fast_path_blocker(dispatcher) is not None:
        return None
    kernel = resolve_kernel(dispatcher, args, compile=True, what=what, keys=keys) if compile else None
    try:
        if kernel is None:
            kernel = resolve_kernel(dispatcher, args, compile=False, what=what)
        if fast_path_blocker(dispatcher, kernel) is not None:
            return None
        plan = numba_plan(kernel, what)
    except Exception:  # whatever the plan cannot take, Numba's own launch does
        return None
    return None if plan.reject(keys) else BoundPlan(plan, keys)


def resolve_kernel(
    dispatcher: Any, args: Sequence[Any], *, compile: bool, what: str, keys: Sequence[Any] | None = None
) -> Any:
    """The compiled kernel Numba launches for ``args``: the exact overload, else (``compile``) a new
    one, else the only overload the argument types convert to. With the arguments' ``keys`` (coop's
    own launches, which never go through Numba's dispatch), an array whose data is aligned types as
    :class:`AlignedArrayType` (the kernel is specialised on it; Numba's own launches stay on the
    plain types, so no plain array reaches such a kernel). A dispatcher given explicit signatures
    compiles no others, so its arrays stay plain."""
    argtypes = []
    for i, a in enumerate(args):
        try:
            t = dispatcher.typeof_pyval(a)
        except Exception as exc:
            raise CoopTypeError(
                f"{what}: Numba cannot type argument {i} ({type(a).__name__}): {exc}"
            ) from exc
        if keys is not None and can_compile(dispatcher) and type(t) is types.Array and aligned(keys[i]):
            t = AlignedArrayType(t.dtype, t.ndim, t.layout, readonly=not t.mutable, align=ALIGN)
        argtypes.append(t)
    sig = tuple(argtypes)
    kernel = dispatcher.overloads.get(sig)
    if kernel is not None:
        return kernel
    if compile and can_compile(dispatcher):
        return dispatcher.compile(sig)
    can_convert = dispatcher.typingctx.can_convert
    fits = [
        k
        for formal, k in dispatcher.overloads.items()
        if len(formal) == len(sig)
        and all(can_convert(a, f) is not None for a, f in zip(sig, formal, strict=True))
    ]
    if len(fits) != 1:
        have = ", ".join(str(tuple(f)) for f in dispatcher.overloads) or "none"
        raise CoopTypeError(
            f"{what}: no compiled signature takes ({', '.join(map(str, sig))}); compiled: {have}"
        )
    return fits[0]
