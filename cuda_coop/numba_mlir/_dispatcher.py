# SPDX-License-Identifier: Apache-2.0
"""``cuda.coop.numba_mlir.jit``: a numba-cuda-mlir kernel that specialises on its launch's block
dimensions (one numba-cuda-mlir dispatcher per block shape)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from cuda.coop._backend_api import (
    CoopBackendError,
    CoopTypeError,
    TraceSession,
    compiling,
    normalize_block_dims,
    normalize_cluster_dims,
    short_traceback,
)

from . import _ncm_hooks
from .kernel._limits import check_limits
from .kernel._prescan import prescan


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


class CoopKernel:
    """A Python kernel compiled per block shape, so that coop primitives see the exact dims.

    Launch it like a numba-cuda-mlir kernel: ``kernel[grid, block](*args)`` (optionally ``[grid,
    block, stream, dynamic_shared_bytes]``). The first launch with a block shape and argument types
    compiles it, numba-cuda-mlir typing the arguments and launching as it does for its own kernels.
    """

    def __init__(self, py_func: Callable[..., None], options: dict[str, Any]) -> None:
        if not callable(py_func):
            raise CoopTypeError(f"cuda.coop.numba_mlir.jit: expected a Python function, got {py_func!r}")
        self.py_func = py_func
        prescan(py_func)
        check_limits(py_func)
        self.options = dict(options)
        self._by_block: dict[tuple[tuple[int, int, int], tuple[int, int, int] | None], Any] = {}
        self.__name__ = getattr(py_func, "__name__", "kernel")
        self.__doc__ = py_func.__doc__

    def for_block(self, block: int | tuple[int, ...], cluster: int | tuple[int, ...] | None = None) -> Any:
        """The numba-cuda-mlir dispatcher of this kernel for ``block`` and ``cluster`` (made on first
        use)."""
        dims = normalize_block_dims(block, what=f"{self.__name__}: block")
        clusters = normalize_cluster_dims(cluster, what=f"{self.__name__}: cluster")
        disp = self._by_block.get((dims, clusters))
        if disp is None:
            from numba_cuda_mlir import cuda

            arch = self._arch()
            disp = cuda.jit(self.py_func, **jit_options(self.options, dims, arch))
            # each compile (in the launcher, on new argument types) sees the block dims and gets a
            # session of its own: one bundle per compiled kernel; a launch that compiles nothing
            # pays nothing for it
            _ncm_hooks.compile_in(
                disp, lambda: compiling(dims, arch, session=TraceSession(), cluster_dims=clusters)
            )
            self._by_block[(dims, clusters)] = disp
        return disp

    def _arch(self) -> str:
        return str(self.options.get("chip") or _ncm_hooks.current_arch())

    def prepare(self, *args: Any, **kwargs: Any) -> Any:
        """Not yet: launches go through numba-cuda-mlir's own launcher."""
        raise CoopBackendError(
            "prepare() is not yet supported by the numba-cuda-mlir backend; launch with "
            "kernel[grid, block](...)"
        )

    def __getitem__(self, config: tuple[Any, ...]) -> Callable[..., None]:
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            raise CoopTypeError(
                f"{self.__name__}[config]: config takes (grid, block[, stream[, shared_bytes]]), "
                f"got {config!r}"
            )
        return self.configure(*config)

    def configure(
        self, grid: Any, block: Any, stream: Any = 0, sharedmem: int = 0, *, cluster: Any = None
    ) -> Callable[..., None]:
        """``kernel[grid, block, stream, sharedmem]``, with a thread-block ``cluster`` if given."""
        dims = normalize_block_dims(block, what=f"{self.__name__}: block")
        clusters = normalize_cluster_dims(cluster, what=f"{self.__name__}: cluster")
        disp = self.for_block(dims, clusters)
        launch = (
            disp[(grid, dims, stream, sharedmem)]
            if clusters is None
            else disp[grid, dims, stream, sharedmem, clusters]
        )

        def run(*args: Any) -> None:
            with short_traceback():
                launch(*map(_launchable, args))

        return run


class _ArrayInterface:
    """An array seen through its ``__cuda_array_interface__`` alone: what numba-cuda-mlir 0.6's
    launcher takes of a CUDA array whose ``dtype`` is not a NumPy dtype (a torch tensor: the launcher
    reads ``arg.dtype`` first, as a NumPy dtype, and fails on torch's; with no ``dtype`` it reads the
    interface's ``typestr``). Cheaper than ``cuda.as_cuda_array`` (a device array made per launch:
    48 us on the H200's host)."""

    __slots__ = ("__cuda_array_interface__",)

    def __init__(self, interface: dict[str, Any]) -> None:
        self.__cuda_array_interface__ = interface


def _launchable(arg: Any) -> Any:
    """``arg`` as numba-cuda-mlir 0.6's launcher takes it: a CUDA array whose ``dtype`` is not a
    NumPy dtype (a torch tensor) through its CUDA array interface alone (read once: torch builds it
    anew on each read)."""
    dtype = getattr(arg, "dtype", None)
    if dtype is None or isinstance(dtype, np.dtype):
        return arg
    interface = getattr(arg, "__cuda_array_interface__", None)
    return arg if interface is None else _ArrayInterface(interface)


def jit(func: Callable[..., None] | None = None, **options: Any) -> Any:
    """``@cuda.coop.numba_mlir.jit`` (or ``jit(**options)``): a kernel whose coop primitives are
    compiled for its launch's block dimensions. ``options`` are numba-cuda-mlir's ``cuda.jit``
    options (``lto`` is always on: the bundle is linked by LTO)."""
    if func is None:
        return lambda f: CoopKernel(f, options)
    return CoopKernel(func, options)
