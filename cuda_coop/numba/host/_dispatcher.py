# SPDX-License-Identifier: Apache-2.0
"""``cuda.coop.numba.jit``: a kernel that specialises on its launch's block dimensions."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from cuda.coop._backend_api import (
    DEFAULT_DYNAMIC_SHARED,
    BoundPlan,
    ConfiguredLaunch,
    CoopTypeError,
    CoopValueError,
    LaunchPlan,
    TraceSession,
    Unsupported,
    aligned,
    allow_dynamic_shared,
    check_workspaces,
    compiling,
    current_context,
    current_device,
    short_traceback,
)
from cuda.coop._numba_like._front_door import MISSING, CoopKernelBase

from .. import _numba_hooks
from .._numba_hooks import fast_path_blocker, kernel_function
from ..kernel._dsl import PRESCAN
from ._launch import numba_plan, resolve_kernel, try_plan
from ._marshal import MARSHAL, read_args
from ._options import check_jit_options, link_options, with_launch_bounds


class _Launch(ConfiguredLaunch):
    """``kernel[grid, block, stream, shared_bytes]``.

    A call reads its arguments' keys (dtype, rank, layout, ...) and launches the plan cached for
    them in this thread, skipping Numba's dispatcher; the first launch of each argument signature,
    and arguments only Numba handles (host arrays), go through Numba's dispatcher, which compiles
    inside ``kernel.compiling(dims)`` where the coop primitives read the block dims.
    """

    __slots__ = ("_numba_launch",)

    def __init__(self, kernel: CoopKernel, config: tuple[Any, ...], cluster: Any = None) -> None:
        super().__init__(kernel, config, cluster)
        self._numba_launch: Any = None

    def __call__(self, *args: Any) -> None:
        if self.take(args):
            return
        if self._cluster is not None:
            self._clustered(args)
            return
        try:
            keys, values = read_args(args)
        except Unsupported:
            self._numba(args, None)
            return
        key = (self._dims, current_context(), keys)
        plan = self._cache.plans().get(key, MISSING)
        if plan is MISSING or plan is None:
            self.refuse(args, keys)
        if plan is MISSING:
            if any(map(aligned, keys)) and self._specialised(args, keys, values):
                return
            self._numba(args, key)
        elif plan is None:
            self._numba(args, None)
        else:
            self.launch_plan(plan, args, values)  # type: ignore[arg-type]

    def _specialised(self, args: tuple[Any, ...], keys: tuple[Any, ...], values: list[Any]) -> bool:
        """The first launch of arguments among which some array's data is aligned: compiled for
        them with those arrays typed as aligned (``AlignedArrayType``: the primitives' alignment
        checks fold), planned and launched by coop, never by Numba's dispatcher (which types every
        array as plain). False where Numba's own launch must take them."""
        kernel = self._kernel
        with kernel.compiling(self._dims):
            plan = try_plan(kernel.for_block(self._dims), args, keys, kernel.__name__, compile=True)
        if plan is None:
            return False
        # keyed by the context current now: the compile may have created it
        self._cache.plans()[(self._dims, current_context(), keys)] = plan
        self.launch_plan(plan, args, values)
        return True

    def _clustered(self, args: tuple[Any, ...]) -> None:
        """A launch with a thread-block cluster: always through coop's own plan (``cuLaunchKernelEx``;
        numba-cuda 0.30 cannot launch clusters), compiled on its first launch."""
        kernel, what = self._kernel, self._kernel.__name__
        try:
            keys, values = read_args(args)
        except Unsupported as exc:
            raise CoopTypeError(
                f"{what}: a launch with a cluster cannot pass {exc}; pass GPU arrays (Numba device arrays, "
                "torch or CuPy tensors) and scalars"
            ) from None
        plans = self._cache.plans()
        plan = plans.get((self._dims, self._cluster, current_context(), keys))
        if plan is None:
            with kernel.compiling(self._dims, self._cluster):
                disp = kernel.for_block(self._dims, self._cluster)
                why = fast_path_blocker(disp)
                compiled = None if why else resolve_kernel(disp, args, compile=True, what=what, keys=keys)
            why = why or fast_path_blocker(disp, compiled)
            if why:
                raise CoopValueError(f"{what}: cannot be launched with a cluster: {why}")
            plan = BoundPlan(numba_plan(compiled, what, self._cluster), keys)
            problem = plan.plan.reject(keys)
            if problem:  # pragma: no cover - the kernel was just compiled for these arguments
                raise CoopTypeError(f"{what}: {problem}")
            # keyed by the context current now: the compile may have created it
            plans[(self._dims, self._cluster, current_context(), keys)] = plan
        self.launch_plan(plan, args, values)

    def _numba(self, args: tuple[Any, ...], key: tuple[Any, ...] | None) -> None:
        """Launch through Numba's dispatcher (compiling if needed); then cache a plan for ``key``."""
        kernel, cache = self._kernel, self._cache
        cache.slow_launches += 1
        check_workspaces(args, self._grid, kernel.__name__)
        with kernel.compiling(self._dims):
            disp = kernel.for_block(self._dims)
            if self._numba_launch is None:
                stream = _numba_hooks.numba_stream(self._stream_arg, int(self._stream))
                self._numba_launch = disp[self._grid, self._dims, stream, self._shmem]
            if self._shmem > DEFAULT_DYNAMIC_SHARED:  # opt the kernel in first: Numba's launch does not
                what = kernel.__name__
                compiled = resolve_kernel(disp, args, compile=True, what=what)
                allow_dynamic_shared(kernel_function(compiled), current_device(), self._shmem, what)
            self._numba_launch(*args)
        if key is not None and key[1]:  # a context was current before the launch
            cache.plans()[key] = try_plan(disp, args, key[2], kernel.__name__)


class CoopKernel(CoopKernelBase):
    """A Python kernel compiled per block shape, so that coop primitives see the exact dims.

    Launch it like a Numba kernel: ``kernel[grid, block](*args)`` (optionally ``[grid, block,
    stream, dynamic_shared_bytes]``), or with a thread-block cluster, ``kernel.configure(grid, block,
    cluster=(2, 1, 1))(*args)``. The first launch with a given block shape (and cluster) compiles it
    (for the signatures given to :func:`jit`, if any, else for the launch's argument types).

    Attributes:
        py_func: the Python function.
        options: the options given to :func:`jit` (``compile`` inherits those that shape code).
        signatures: the signatures given to :func:`jit`, or None.
    """

    _launch = _Launch
    _marshal = MARSHAL

    def __init__(
        self, py_func: Callable[..., None], options: dict[str, Any], signatures: tuple[Any, ...] | None = None
    ) -> None:
        check_jit_options(options, what="cuda.coop.numba.jit")
        super().__init__(py_func, options, what="cuda.coop.numba.jit")
        self.signatures = signatures
        self._link_options = link_options(options)

    def _prescan(self, py_func: Callable[..., None]) -> None:
        PRESCAN.prescan(py_func)

    @contextlib.contextmanager
    def compiling(
        self, dims: tuple[int, int, int], cluster: tuple[int, int, int] | None = None
    ) -> Iterator[None]:
        """The context in which Numba compiles this kernel's specialisation for ``dims`` and
        ``cluster`` (at most one kernel: its session collects the requests of the kernel and of its
        device helpers); a coop error from the compile comes without Numba's frames (its message
        names the kernel's line)."""
        session = TraceSession()
        with (
            short_traceback(),
            compiling(dims, session=session, link_options=self._link_options, cluster_dims=cluster),
        ):
            yield

    def _dispatcher(self, dims: tuple[int, int, int], clusters: tuple[int, int, int] | None) -> Any:
        from numba import cuda

        # The block shape is known exactly: tell the compiler, as a CUB kernel's
        # __launch_bounds__ would (unless the kernel caps its registers instead).
        options = {**with_launch_bounds(self.options, dims[0] * dims[1] * dims[2]), "lto": True}
        cache = options.pop("cache", False)
        # The function form: numba-cuda 0.30's decorator form, cuda.jit(**options)(f), drops
        # lto= and recomputes it as "not debug" (lto would be False under debug=True).
        disp = cuda.jit(self.py_func, **options)
        _numba_hooks.compile_in(disp, lambda: self.compiling(dims, clusters))
        if cache:
            _numba_hooks.cache_per_block(disp, dims, clusters)
        if self.signatures is not None:
            _numba_hooks.compile_only(disp, self.signatures, lambda: self.compiling(dims, clusters))
        return disp

    def _plan(
        self, dims: tuple[int, int, int], clusters: tuple[int, int, int] | None, keys: list[Any], args: Any
    ) -> LaunchPlan | str:
        with self.compiling(dims, clusters):
            disp = self.for_block(dims, clusters)
            blocked = fast_path_blocker(disp)
            kernel = (
                None if blocked else resolve_kernel(disp, args, compile=True, what=self.__name__, keys=keys)
            )
        return fast_path_blocker(disp, kernel) or numba_plan(kernel, self.__name__, clusters)


def jit(func_or_sig: Any = None, **options: Any) -> Any:
    """Compile a kernel that uses coop primitives; block dims come from each launch.

    Use it as ``numba.cuda.jit``: ``@cuda.coop.numba.jit``, ``@cuda.coop.numba.jit(fastmath=True)``,
    or with a signature (or a list of them), ``@cuda.coop.numba.jit("void(float32[::1])")``: the
    kernel is then compiled for exactly those signatures, at the first launch of each block shape
    (the block dims are part of the code). Options are numba-cuda's (``debug``, ``opt``,
    ``lineinfo``, ``fastmath``, ``max_registers``, ``cache``, ``link``, ...); ``lto`` is always on
    (it is how the primitives are inlined) and, unless given, ``launch_bounds`` is each
    specialisation's exact thread count.

    Raises:
        CoopTypeError: an unknown option, ``device=True``, or something that is neither a function
            nor a signature.
        CoopValueError: ``lto=False``.
    """
    check_jit_options(options, what="cuda.coop.numba.jit")
    signatures = _signatures(func_or_sig)
    if func_or_sig is None or signatures is not None:
        return lambda f: CoopKernel(f, options, signatures)
    return CoopKernel(func_or_sig, options)


def _signatures(value: Any) -> tuple[Any, ...] | None:
    """``value`` as a tuple of Numba signatures, or None if it is not one or a list of them."""
    from numba.cuda.core import sigutils

    if sigutils.is_signature(value):
        return (value,)
    if isinstance(value, (list, tuple)):
        if not value or not all(sigutils.is_signature(v) for v in value):
            raise CoopTypeError(
                f"cuda.coop.numba.jit: {value!r} is not a list of signatures such as "
                "['void(float32[::1])', 'void(float64[::1])']"
            )
        return tuple(value)
    return None
