# SPDX-License-Identifier: Apache-2.0
"""The front door of both Numba-like backends: a kernel compiled per launch block shape, and the
loop of ``compile_many``. A backend adds how its DSL makes a dispatcher, plans a compiled kernel and
lowers and finishes an ahead-of-time compile."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar, TypeVar

from cuda.coop._backend_api import (
    ConfiguredLaunch,
    CoopTypeError,
    CoopValueError,
    LaunchCache,
    LaunchPlan,
    Marshal,
    PreparedLaunch,
    TraceSession,
    configured,
    kernel_jobs,
    normalize_block_dims,
    normalize_cluster_dims,
    prefetch_bundles,
    prepare_launch,
    short_traceback,
    side_by_side,
)

#: a plan not cached yet (a cached plan may be None: the DSL's own launch takes those arguments)
MISSING = object()

#: what ``compile(..., output=)`` takes
OUTPUTS = ("cubin", "ptx", "ltoir")


class CoopKernelBase:
    """A Python kernel compiled per block shape (and cluster), so that coop primitives see the
    exact dims; one DSL dispatcher per shape. A backend's ``CoopKernel`` says how it makes that
    dispatcher (``_dispatcher``), checks the kernel's Python (``_prescan``) and plans a compiled
    kernel for :meth:`prepare` (``_plan``); ``_launch`` is its ``kernel[grid, block]``."""

    #: ``kernel[grid, block, stream, shared_bytes]`` of the backend
    _launch: ClassVar[Callable[..., ConfiguredLaunch]]
    #: the backend's argument readers
    _marshal: ClassVar[Marshal]

    def __init__(self, py_func: Callable[..., None], options: dict[str, Any], *, what: str) -> None:
        if not callable(py_func):
            raise CoopTypeError(f"{what}: expected a Python function, got {py_func!r}")
        self.py_func = py_func
        self._prescan(py_func)
        self.options = dict(options)
        self._by_block: dict[tuple[tuple[int, int, int], tuple[int, int, int] | None], Any] = {}
        self.__name__ = getattr(py_func, "__name__", "kernel")
        self.__doc__ = py_func.__doc__

    def _prescan(self, py_func: Callable[..., None]) -> None:
        raise NotImplementedError

    def _dispatcher(self, dims: tuple[int, int, int], clusters: tuple[int, int, int] | None) -> Any:
        raise NotImplementedError

    def _plan(
        self, dims: tuple[int, int, int], clusters: tuple[int, int, int] | None, keys: list[Any], args: Any
    ) -> LaunchPlan | str:
        raise NotImplementedError

    def for_block(self, block: int | tuple[int, ...], cluster: int | tuple[int, ...] | None = None) -> Any:
        """The DSL's dispatcher of this kernel specialised for ``block`` and ``cluster`` (made on first
        use; with signatures given to ``jit``, compiled for them then). Launched directly
        (``for_block(block)[grid, block](...)``, the DSL's own launch), it compiles for ``block`` too."""
        dims = normalize_block_dims(block, what=f"{self.__name__}: block")
        clusters = normalize_cluster_dims(cluster, what=f"{self.__name__}: cluster")
        disp = self._by_block.get((dims, clusters))
        if disp is None:
            disp = self._by_block[(dims, clusters)] = self._dispatcher(dims, clusters)
        return disp

    def __getitem__(self, config: tuple[Any, ...]) -> ConfiguredLaunch:
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            raise CoopTypeError(
                f"{self.__name__}[config]: config takes (grid, block[, stream[, shared_bytes]]), "
                f"got {config!r}"
            )
        return self._configured(config, None)

    def configure(
        self, grid: Any, block: Any, stream: Any = 0, sharedmem: int = 0, *, cluster: Any = None
    ) -> ConfiguredLaunch:
        """The launch ``kernel[grid, block, stream, sharedmem]``, optionally with a thread-block
        cluster: ``kernel.configure(grid, block, cluster=(2, 1, 1))(*args)``.

        Args:
            grid: the grid, an int or a tuple of 1 to 3 ints (with a cluster, a multiple of it in each
                dimension).
            block: the block, an int or a tuple of 1 to 3 ints.
            stream: the stream (None or 0: the default stream; an int handle, the DSL's, a cuda.core,
                torch or CuPy stream).
            sharedmem: dynamic shared memory bytes.
            cluster: the thread-block cluster (sm_90+), an int or a tuple of 1 to 3 ints, at most 16
                blocks (more than 8 where the GPU allows non-portable sizes); None: no cluster. The
                kernel is specialised for it (``coop.cluster`` primitives read it) and launched through
                ``cuLaunchKernelEx``: its arguments must be GPU arrays (the DSL's device arrays, torch,
                CuPy, or objects with ``__cuda_array_interface__`` / DLPack) and scalars.

        Raises:
            CoopLaunchConfigError: a bad grid, block, cluster, or a grid that is not a multiple of the
                cluster.
        """
        return self._configured((grid, block, stream, sharedmem), cluster)

    def _configured(self, config: tuple[Any, ...], cluster: Any) -> ConfiguredLaunch:
        return configured(self, config, cluster, type(self)._launch)  # type: ignore[no-any-return]

    def prepare(
        self, grid: Any, block: Any, *args: Any, stream: Any = None, shared_mem: int = 0, cluster: Any = None
    ) -> PreparedLaunch:
        """Bind a launch once: validate the configuration, compile (if needed) and marshal ``args``.

        ``p.launch(*new_args)`` then rewrites only the argument slots and calls the driver; it
        takes arguments of the same kinds (dtype, rank, layout), raw device pointers (ints) for
        arrays, and nothing (the last arguments again). A handle belongs to one thread.

        Args:
            grid: the grid, an int or a tuple of 1 to 3 ints.
            block: the block, an int or a tuple of 1 to 3 ints.
            *args: the kernel's arguments: the DSL's device arrays, torch or CuPy GPU tensors, objects
                with ``__cuda_array_interface__`` or ``__dlpack__``, scalars, tuples of those.
            stream: the stream launches go to (None or 0: the default stream; an int handle, the
                DSL's, a cuda.core, torch or CuPy stream).
            shared_mem: dynamic shared memory bytes.
            cluster: the thread-block cluster (sm_90+), as :meth:`configure` takes it; None: none.

        Returns:
            A :class:`~cuda.coop.numba.PreparedLaunch`.

        Raises:
            CoopTypeError: an argument that is not a GPU array or a scalar (a host array), or a
                kernel parameter type only the DSL's own launch passes (records).
            CoopValueError: a kernel that the DSL must launch itself (``debug=True``, extensions,
                literal arguments).
            CoopLaunchConfigError: a bad grid, block, cluster or shared memory size.
        """
        return prepare_launch(
            self,
            grid,
            block,
            args,
            stream=stream,
            shared_mem=shared_mem,
            cluster=cluster,
            marshal=self._marshal,
            plan_of=lambda dims, clusters, keys: self._plan(dims, clusters, keys, args),
        )

    def _launch_cache(self) -> LaunchCache:
        return LaunchCache.of(self)


def check_output(output: str) -> None:
    """Raise a typed error for an ``output=`` that ``compile`` does not make."""
    if output not in OUTPUTS:
        raise CoopValueError(f"compile: output={output!r} is not one of {', '.join(OUTPUTS)}")


_Lowered = TypeVar("_Lowered")
_Compiled = TypeVar("_Compiled")


def compile_many(
    kernels: Iterable[Mapping[str, Any] | Sequence[Any]],
    lower: Callable[[Any, Any, Any, dict[str, Any]], _Lowered],
    sessions: Callable[[_Lowered], Iterable[TraceSession]],
    finish: Callable[[_Lowered], _Compiled],
    *,
    arch: Callable[[_Lowered], str],
    processes: int | None,
    threads: bool,
) -> list[_Compiled]:
    """A backend's ``compile_many``: every kernel lowered first (``lower(func, signature, block, the
    rest of compile's arguments)``), then the requests of their ``sessions`` that the cache lacks
    compiled by worker processes (for ``arch`` of the first), then each kernel finished: side by side
    in threads and link workers (``threads``), else one after the other."""
    with short_traceback():
        lowered = [
            lower(func, signature, block, given) for func, signature, block, given in kernel_jobs(kernels)
        ]
        requests = [s.requests for k in lowered for s in sessions(k)]
        if requests:
            prefetch_bundles(requests, arch(lowered[0]), processes)
        return side_by_side(finish, lowered, processes) if threads else [finish(k) for k in lowered]
