# SPDX-License-Identifier: Apache-2.0
"""``cuda.coop.numba.jit``: a kernel that specialises on its launch's block dimensions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cuda.coop._errors import CoopTypeError
from cuda.coop._primitive import normalize_block_dims
from cuda.coop._session import compiling

from ._prescan import prescan


class CoopKernel:
    """A Python kernel compiled per block shape, so that coop primitives see the exact dims.

    Launch it like a Numba kernel: ``kernel[grid, block](*args)`` (optionally ``[grid, block,
    stream, dynamic_shared_bytes]``). The first launch with a given block shape compiles it.
    """

    def __init__(self, py_func: Callable[..., None], options: dict[str, Any]) -> None:
        self.py_func = py_func
        prescan(py_func)
        self._options = {**options, "lto": True}
        self._by_block: dict[tuple[int, int, int], Any] = {}
        self.__name__ = getattr(py_func, "__name__", "kernel")
        self.__doc__ = py_func.__doc__

    def for_block(self, block: int | tuple[int, ...]) -> Any:
        """The Numba dispatcher specialised for ``block`` (created on first use)."""
        dims = normalize_block_dims(block, what=f"{self.__name__}: block")
        disp = self._by_block.get(dims)
        if disp is None:
            from numba import cuda

            # The block shape is known exactly: tell the compiler, as a CUB kernel's
            # __launch_bounds__ would.
            options = {"launch_bounds": dims[0] * dims[1] * dims[2], **self._options}
            disp = self._by_block[dims] = cuda.jit(**options)(self.py_func)
        return disp

    def __getitem__(self, config: tuple[Any, ...]) -> _Launch:
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            raise CoopTypeError(
                f"{self.__name__}[config]: config takes (grid, block[, stream[, shared_bytes]]), "
                f"got {config!r}"
            )
        return _Launch(self, config)


class _Launch:
    __slots__ = ("_dims", "_launcher")

    def __init__(self, kernel: CoopKernel, config: tuple[Any, ...]) -> None:
        self._dims = normalize_block_dims(config[1], what=f"{kernel.__name__}: block")
        self._launcher = kernel.for_block(self._dims)[config]

    def __call__(self, *args: Any) -> None:
        # The first launch of a signature compiles: the coop primitives read the dims from here.
        with compiling(self._dims):
            self._launcher(*args)


def jit(func: Callable[..., None] | None = None, **options: Any) -> Any:
    """Compile a kernel that uses coop primitives; block dims come from each launch.

    Use as ``@cuda.coop.numba.jit`` or ``@cuda.coop.numba.jit(fastmath=True, ...)``; options go
    to ``numba.cuda.jit`` (``lto`` is always on: it is how the primitives are inlined; unless
    given, ``launch_bounds`` is each specialisation's exact thread count).
    """
    if options.get("device"):
        raise CoopTypeError(
            "cuda.coop.numba.jit: device=True is not supported: it compiles kernels; write device "
            "functions with numba.cuda.jit(device=True) (a coop operator may be one)"
        )
    if func is None:
        return lambda f: CoopKernel(f, options)
    return CoopKernel(func, options)
