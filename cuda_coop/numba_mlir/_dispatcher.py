# SPDX-License-Identifier: Apache-2.0
"""``cuda.coop.numba_mlir.jit``: a numba-cuda-mlir kernel that specialises on its launch's block
dimensions (one numba-cuda-mlir dispatcher per block shape), launched by coop's own launch path
(``_launch``) where it can, else by numba-cuda-mlir's launcher."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from cuda.coop._backend_api import (
    ConfiguredLaunch,
    LaunchPlan,
    TraceSession,
    Unsupported,
    check_workspaces,
    compiling,
    current_context,
    short_traceback,
)
from cuda.coop._numba_like._front_door import MISSING, CoopKernelBase

from . import _ncm_hooks
from ._launch import MARSHAL, argument_types, launchable, mlir_plan, try_plan
from .kernel._dsl import PRESCAN
from .kernel._limits import check_limits


def register_cap(block: tuple[int, int, int]) -> int | None:
    """The most registers a thread may take for a block of these dims to fit the 64K registers a
    block may use (allocated 256 to a warp), or None where 255, the most a thread takes, fit."""
    warps = -(-block[0] * block[1] * block[2] // 32)
    cap = 65536 // (warps * 32) // 8 * 8
    return cap if cap < 255 else None


def jit_options(options: dict[str, Any], block: tuple[int, int, int], arch: str) -> dict[str, Any]:
    """numba-cuda-mlir ``cuda.jit`` options for a kernel of ``block`` compiled for ``arch``: LTO
    always (the bundle is linked by LTO); the registers capped so that the block can launch
    (``max_registers``, unless ``launch_bounds`` or ``max_registers`` is given: numba-cuda-mlir 0.6
    sets no bound, and a 1024-thread kernel of 80 registers failed to launch). Not ``launch_bounds``
    by default: its .maxntid made ptxas cap a 96-thread kernel at 32 registers and spill (the
    compute grid's float32 kernel: 40 registers, no spill, without it)."""
    out = {"chip": arch, **options, "lto": True}
    cap = register_cap(block)
    if cap is not None and "launch_bounds" not in options and "max_registers" not in options:
        out["max_registers"] = cap
    return out


class _Launch(ConfiguredLaunch):
    """``kernel[grid, block, stream, shared_bytes]`` (or ``configure(..., cluster=)``).

    A call reads its arguments' keys (dtype, rank, layout, ...) and launches the plan cached for
    them in this thread through the driver; the first launch of each argument signature compiles
    (inside the kernel's compile context) and plans it. Arguments coop's readers do not take (host
    arrays) and kernels numba-cuda-mlir must launch itself go through numba-cuda-mlir's launcher.
    """

    __slots__ = ("_own",)

    def __init__(self, kernel: CoopKernel, config: tuple[Any, ...], cluster: Any = None) -> None:
        super().__init__(kernel, config, cluster)
        self._own: Any = None

    def __call__(self, *args: Any) -> None:
        if self.take(args):
            return
        try:
            keys, values = MARSHAL.read_args(args)
        except Unsupported:
            self._launcher(args)
            return
        plans = self._cache.plans()
        plan = plans.get((self._dims, self._cluster, current_context(), keys), MISSING)
        if plan is MISSING or plan is None:
            self.refuse(args, keys)
        if plan is MISSING:
            kernel = self._kernel
            with short_traceback(), kernel.compiling(self._dims, self._cluster):
                disp = kernel.for_block(self._dims, self._cluster)
                plan = try_plan(disp, args, keys, kernel.__name__, self._cluster)
            # keyed by the context current now: the compile may have made it current
            plans[(self._dims, self._cluster, current_context(), keys)] = plan
        if plan is None:
            self._launcher(args)
        else:
            self.launch_plan(plan, args, values)  # type: ignore[arg-type]

    def _launcher(self, args: tuple[Any, ...]) -> None:
        """Launch through numba-cuda-mlir's own launcher (compiling if needed)."""
        self._cache.slow_launches += 1
        check_workspaces(args, self._grid, self._kernel.__name__)
        if self._own is None:
            disp = self._kernel.for_block(self._dims, self._cluster)
            config = (self._grid, self._dims, self._stream_arg, self._shmem)
            self._own = disp[config] if self._cluster is None else disp[(*config, self._cluster)]
        with short_traceback():
            self._own(*map(launchable, args))


class CoopKernel(CoopKernelBase):
    """A Python kernel compiled per block shape, so that coop primitives see the exact dims.

    Launch it like a numba-cuda-mlir kernel: ``kernel[grid, block](*args)`` (optionally ``[grid,
    block, stream, dynamic_shared_bytes]``). The first launch with a block shape and argument types
    compiles it, numba-cuda-mlir typing the arguments and launching as it does for its own kernels.
    """

    _launch = _Launch
    _marshal = MARSHAL

    def __init__(self, py_func: Callable[..., None], options: dict[str, Any]) -> None:
        super().__init__(py_func, options, what="cuda.coop.numba_mlir.jit")

    def _prescan(self, py_func: Callable[..., None]) -> None:
        PRESCAN.prescan(py_func)
        check_limits(py_func)

    def _dispatcher(self, dims: tuple[int, int, int], clusters: tuple[int, int, int] | None) -> Any:
        from numba_cuda_mlir import cuda

        arch = self._arch()
        disp = cuda.jit(self.py_func, **jit_options(self.options, dims, arch))
        # each compile (in the launcher, on new argument types) sees the block dims and gets a
        # session of its own: one bundle per compiled kernel; a launch that compiles nothing
        # pays nothing for it
        _ncm_hooks.compile_in(disp, lambda: self.compiling(dims, clusters))
        return disp

    def _arch(self) -> str:
        return str(self.options.get("chip") or _ncm_hooks.current_arch())

    def compiling(
        self, dims: tuple[int, int, int], clusters: tuple[int, int, int] | None = None
    ) -> contextlib.AbstractContextManager[None]:
        """The context in which numba-cuda-mlir compiles this kernel for ``dims`` and ``clusters``:
        a trace session of its own (one bundle per compiled kernel)."""
        return compiling(dims, self._arch(), session=TraceSession(), cluster_dims=clusters)

    def _plan(
        self, dims: tuple[int, int, int], clusters: tuple[int, int, int] | None, keys: list[Any], args: Any
    ) -> LaunchPlan | str:
        what = self.__name__
        disp = self.for_block(dims, clusters)
        blocked = _ncm_hooks.fast_path_blocker(disp)
        if blocked:
            return blocked
        with self.compiling(dims, clusters):
            result = _ncm_hooks.resolve_kernel(disp, argument_types(disp, keys, args, what))
        return _ncm_hooks.fast_path_blocker(disp, result) or mlir_plan(result, what, clusters)


def jit(func: Callable[..., None] | None = None, **options: Any) -> Any:
    """``@cuda.coop.numba_mlir.jit`` (or ``jit(**options)``): a kernel whose coop primitives are
    compiled for its launch's block dimensions. ``options`` are numba-cuda-mlir's ``cuda.jit``
    options (``lto`` is always on: the bundle is linked by LTO)."""
    if func is None:
        return lambda f: CoopKernel(f, options)
    return CoopKernel(func, options)
