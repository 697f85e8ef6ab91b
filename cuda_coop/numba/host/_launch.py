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

from cuda.coop._backend_api import BoundPlan, Key, LaunchPlan

from .._numba_hooks import (
    fast_path_blocker,
    is_cooperative,
    kernel_argument_types,
    kernel_function,
    launch_error,
    resolve_kernel,
)
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
