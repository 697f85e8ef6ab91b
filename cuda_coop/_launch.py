# SPDX-License-Identifier: Apache-2.0
"""Launching kernels through the driver: launch configurations, plans, parameter buffers and the
prepared launch, for the backends that launch kernels themselves.

A :class:`LaunchPlan` holds one compiled kernel's function handle and the ``struct`` format of its
parameters (see ``_args``), in 8-byte slots; a launch packs the values into a buffer whose
pointer array (one pointer per kernel parameter) was built once and calls ``cuLaunchKernel``
(``cuda.bindings``, imported on first use).
"""

from __future__ import annotations

import ctypes
import struct
import sys
import threading
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from ._args import (
    ALIGN,
    ArraySpec,
    Key,
    Marshal,
    ScalarSpec,
    Spec,
    arg_names,
    check_grid_fits,
    problem_of,
    workspace_tiles,
)
from ._dims import PORTABLE_CLUSTER_BLOCKS, normalize_block_dims, normalize_cluster_dims
from ._errors import CoopLaunchConfigError, CoopValueError
from ._streams import stream_handle
from ._writers import Arm, generate

# --- streams and the current context ---------------------------------------------------------------


def current_context() -> int:
    """The current CUDA context as an int (0: none)."""
    global _ctx_get_current
    if _ctx_get_current is None:
        from cuda.bindings import driver

        _ctx_get_current = driver.cuCtxGetCurrent
    err, ctx = _ctx_get_current()
    return 0 if err else int(ctx)


_ctx_get_current: Callable[[], Any] | None = None


def current_device() -> int:
    """The ordinal of the current context's device."""
    from cuda.bindings import driver

    err, dev = driver.cuCtxGetDevice()
    if err:
        raise CoopValueError(f"no CUDA context is current ({err.name})")
    return int(dev)


def dim3(value: Any, *, what: str) -> tuple[int, int, int]:
    """A grid as ``(x, y, z)``: an int or a tuple of 1 to 3 positive ints."""
    import operator

    dims = (value,) if not isinstance(value, (tuple, list)) else tuple(value)
    try:
        if not 1 <= len(dims) <= 3 or any(isinstance(d, bool) for d in dims):
            raise TypeError
        full = tuple(operator.index(d) for d in dims) + (1,) * (3 - len(dims))
    except TypeError:
        raise CoopLaunchConfigError(
            f"{what} must be an int or a tuple of 1 to 3 ints, got {value!r}"
        ) from None
    if min(full) < 1:
        raise CoopLaunchConfigError(f"{what} must be positive ints, got {value!r}")
    return (full[0], full[1], full[2])


def shared_bytes(value: Any, *, what: str) -> int:
    """Dynamic shared memory bytes: a non-negative int."""
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        raise CoopLaunchConfigError(f"{what}: dynamic shared memory must be an int of bytes, got {value!r}")
    n = int(value)
    if n < 0:
        raise CoopLaunchConfigError(f"{what}: dynamic shared memory must be >= 0 bytes, got {n}")
    return n


#: Dynamic shared memory any kernel may take without opting in (bytes).
DEFAULT_DYNAMIC_SHARED = 48 * 1024
#: What packing a scalar into its slot raises for a value its C type cannot hold: ``struct.error``
#: (an int out of range) or ``OverflowError`` (a float past float32's range, for ``"f"``).
PACK_ERRORS = (struct.error, OverflowError)


def set_function_attribute(function: Any, device: int, name: str, value: int) -> Any:
    """Set ``CU_FUNC_ATTRIBUTE_<name>`` of a kernel's driver handle (a ``CUfunction``, or a library
    ``CUkernel`` as numba-cuda loads them, for ``device``); returns the driver's error (0: none)."""
    from cuda.bindings import driver

    attr = getattr(driver.CUfunction_attribute, f"CU_FUNC_ATTRIBUTE_{name}")
    (err,) = driver.cuFuncSetAttribute(function, attr, value)
    if err == driver.CUresult.CUDA_ERROR_INVALID_HANDLE:  # the handle is a library CUkernel
        handle = driver.CUkernel(int(function))
        (err,) = driver.cuKernelSetAttribute(attr, value, handle, driver.CUdevice(device))
    return err


def allow_dynamic_shared(function: Any, device: int, shmem: int, what: str) -> None:
    """Opt a kernel in to ``shmem`` bytes of dynamic shared memory, above the 48 KB that any kernel
    may take (``CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES``; numba-cuda's launch does not);
    CoopLaunchConfigError when the GPU has less for a block (with the kernel's static shared memory)."""
    err = set_function_attribute(function, device, "MAX_DYNAMIC_SHARED_SIZE_BYTES", shmem)
    if err:
        raise CoopLaunchConfigError(
            f"{what}: {shmem} bytes of dynamic shared memory are more than this GPU gives a block of this "
            f"kernel ({getattr(err, 'name', err)}); ask for less (H100/H200: at most 227 KB, static and "
            "dynamic together)"
        )


def cluster_of(grid: tuple[int, int, int], cluster: Any, *, what: str) -> tuple[int, int, int] | None:
    """A launch's thread-block cluster, normalised (None: none); CoopLaunchConfigError unless the
    grid is a multiple of it in each dimension."""
    dims = normalize_cluster_dims(cluster, what=f"{what}: cluster")
    if dims is not None and any(g % c for g, c in zip(grid, dims, strict=True)):
        raise CoopLaunchConfigError(
            f"{what}: the grid {grid} is not a multiple of the cluster {dims} in each dimension; launch a "
            "grid of whole clusters"
        )
    return dims


def _cluster_launch(cluster: tuple[int, int, int]) -> Callable[..., Any]:
    """A function of ``cuLaunchKernel``'s arguments that launches with the thread-block cluster
    ``cluster`` (``cuLaunchKernelEx`` with the cluster-dimension attribute)."""
    from cuda.bindings import driver

    attribute = driver.CUlaunchAttribute()
    attribute.id = driver.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
    dim = attribute.value.clusterDim
    dim.x, dim.y, dim.z = cluster
    launch_ex = driver.cuLaunchKernelEx

    def launch(
        f: Any,
        gx: int,
        gy: int,
        gz: int,
        bx: int,
        by: int,
        bz: int,
        shmem: int,
        stream: Any,
        params: Any,
        extra: Any,
    ) -> Any:
        config = driver.CUlaunchConfig()
        config.gridDimX, config.gridDimY, config.gridDimZ = gx, gy, gz
        config.blockDimX, config.blockDimY, config.blockDimZ = bx, by, bz
        config.sharedMemBytes, config.hStream = shmem, stream
        config.attrs, config.numAttrs = [attribute], 1
        return launch_ex(config, f, params, extra)

    return launch


# --- plans and parameter buffers -------------------------------------------------------------------


class Params:
    """A parameter buffer of 8-byte slots and the pointer array ``cuLaunchKernel`` reads, one
    pointer per kernel parameter (one per thread or prepared launch: a launch writes into it).

    Args:
        slots: the number of 8-byte slots.
        starts: the slot where each kernel parameter starts (default: one parameter per slot).
    """

    __slots__ = ("address", "buffer", "pointers")

    def __init__(self, slots: int, starts: Sequence[int] | None = None) -> None:
        starts = range(slots) if starts is None else starts
        self.buffer = (ctypes.c_uint64 * max(slots, 1))()
        base = ctypes.addressof(self.buffer)
        self.pointers = (ctypes.c_void_p * max(len(starts), 1))(*(base + 8 * i for i in starts))
        self.address = ctypes.addressof(self.pointers) if len(starts) else 0


class Layout:
    """The parameter layout of one argument signature (no GPU needed).

    Args:
        specs: one :class:`~cuda.coop._args.Spec` per argument.

    Attributes:
        specs: the specs.
        offsets: each argument's first slot.
        slots: the number of slots.
        starts: the slot where each kernel parameter starts.
        pack_into: ``struct.Struct(...).pack_into`` of all the parameters.
    """

    def __init__(self, specs: Sequence[Spec]) -> None:
        self.specs = list(specs)
        self.offsets, self.starts, n = [], [], 0
        for s in self.specs:
            self.offsets.append(n)
            self.starts += [n + p for p in s.params]
            n += s.slots
        self.slots = n
        self.pack_into = struct.Struct("<" + "".join(s.fmt for s in self.specs)).pack_into


class LaunchPlan:
    """One compiled kernel bound to the current device: its handle and its :class:`Layout`.

    Args:
        function: the kernel's driver handle (a ``CUfunction``) in the current context.
        specs: one spec per kernel argument.
        what: the kernel's name, for messages.
        marshal: the DSL's argument readers.
        launch_error: ``launch_error(err, what)``: the exception for a failed launch.
        cooperative: whether the kernel synchronises its grid (a cooperative launch).
        cluster: the thread-block cluster its launches have (None: none).
    """

    def __init__(
        self,
        function: Any,
        specs: Sequence[Spec],
        what: str,
        *,
        marshal: Marshal,
        launch_error: Callable[[Any, str], Exception],
        cooperative: bool = False,
        cluster: tuple[int, int, int] | None = None,
    ) -> None:
        from cuda.bindings import driver

        self.what = what
        self.layout = Layout(specs)
        self.function = function
        self.marshal, self.launch_error = marshal, launch_error
        self.device = current_device()
        self.context = current_context()
        self.shared_allowed = DEFAULT_DYNAMIC_SHARED  # dynamic shared memory its launches may take
        if cluster is not None:
            if cooperative:
                raise CoopValueError(
                    f"{what}: a cooperative (grid-synchronising) kernel cannot be launched with a cluster"
                )
            if cluster[0] * cluster[1] * cluster[2] > PORTABLE_CLUSTER_BLOCKS:  # the GPU must allow it
                err = set_function_attribute(
                    self.function, self.device, "NON_PORTABLE_CLUSTER_SIZE_ALLOWED", 1
                )
                if err:
                    raise CoopLaunchConfigError(
                        f"{what}: this GPU does not allow a cluster of {cluster} "
                        f"({getattr(err, 'name', err)}); use at most {PORTABLE_CLUSTER_BLOCKS} blocks"
                    )
            self.driver_launch: Callable[..., Any] = _cluster_launch(cluster)
        elif cooperative:
            coop_launch = driver.cuLaunchCooperativeKernel

            def launch_coop(f: Any, gx: int, gy: int, gz: int, bx: int, by: int, bz: int, *rest: Any) -> Any:
                return coop_launch(f, gx, gy, gz, bx, by, bz, *rest[:-1])

            self.driver_launch = launch_coop
        else:
            self.driver_launch = driver.cuLaunchKernel

    def allow_shared(self, shmem: int) -> None:
        """Let the kernel's launches take ``shmem`` bytes of dynamic shared memory (see
        :func:`allow_dynamic_shared`)."""
        if shmem > self.shared_allowed:
            allow_dynamic_shared(self.function, self.device, shmem, self.what)
            self.shared_allowed = shmem

    def reject(self, keys: Sequence[Key]) -> str | None:
        """Why arguments with ``keys`` cannot take this plan (None: they can)."""
        if len(keys) != len(self.layout.specs):
            return f"{len(keys)} arguments, the kernel takes {len(self.layout.specs)}"
        for i, (s, k) in enumerate(zip(self.layout.specs, keys, strict=True)):
            why = s.reject(k, self.device)
            if why:
                return f"argument {i}: {why[1]}"
        return None


class BoundPlan:
    """A :class:`LaunchPlan` with a parameter buffer of its own (one thread's).

    After a launch, :meth:`remember` notes what its arguments were (a torch tensor's dtype, shape,
    strides, device and alignment; the DSL's own device array itself, weakly; a scalar's type), so
    that :meth:`take` can write the next arguments like them with a few attribute reads instead of
    a full read and a key look-up.
    """

    __slots__ = (
        "address",
        "buffer",
        "function",
        "launch_fn",
        "nargs",
        "ns",
        "pack_into",
        "params",
        "plan",
        "take",
        "tiles",
        "what",
    )

    def __init__(self, plan: LaunchPlan, keys: Sequence[Key] = ()) -> None:
        self.plan = plan
        self.tiles = workspace_tiles(keys)  # the most blocks a launch may have (0: no coop.grid.ScanState)
        self.params = Params(plan.layout.slots, plan.layout.starts)
        self.buffer, self.address = self.params.buffer, self.params.address
        self.pack_into, self.function = plan.layout.pack_into, plan.function
        self.launch_fn, self.what = plan.driver_launch, plan.what
        self.nargs = len(plan.layout.specs)
        self.ns: dict[str, Any] | None = None
        self.take: Callable[..., bool] = _take_nothing

    def remember(self, args: Sequence[Any]) -> None:
        """Note ``args``, just launched through this plan (their values are in the buffer), for
        :meth:`take`. A coop.grid.ScanState's plan takes nothing (its grid is checked per launch)."""
        if self.tiles or len(args) != self.nargs:
            return
        if self.ns is None:
            self.ns, self.take = _compile_take(self.plan, self.buffer)
        ns, own = self.ns, self.plan.marshal.is_own_array
        for i, a in enumerate(args):
            ns[f"kd{i}"] = None
            ns[f"own{i}"] = _dead
            if note_tensor(ns, i, a):
                ns[f"al{i}"] = a.data_ptr() % ALIGN == 0
            elif own(type(a)):
                ns[f"own{i}"] = weakref.ref(a)
            else:
                ns[f"kd{i}"] = type(a)

    def launch_written(
        self, grid: tuple[int, int, int], block: tuple[int, int, int], shmem: int, stream: Any
    ) -> None:
        """Launch with the arguments the buffer holds (written by :meth:`launch` or :meth:`take`)."""
        if shmem > DEFAULT_DYNAMIC_SHARED:
            self.plan.allow_shared(shmem)
        gx, gy, gz = grid
        bx, by, bz = block
        (err,) = self.launch_fn(self.function, gx, gy, gz, bx, by, bz, shmem, stream, self.address, 0)
        if err:
            raise self.plan.launch_error(err, self.what)

    def launch(
        self, grid: tuple[int, int, int], block: tuple[int, int, int], shmem: int, stream: Any, values: Any
    ) -> None:
        """Pack ``values`` (the flat parameters) and launch on ``stream`` (a ``CUstream``)."""
        if self.tiles:
            check_grid_fits(self.what, grid, self.tiles)
        self.pack_into(self.buffer, 0, *values)
        self.launch_written(grid, block, shmem, stream)


def tensor_like_noted(i: int) -> str:
    """The generated test that argument ``a<i>`` is a torch tensor like the one :func:`note_tensor`
    noted at its position (the namespace's ``Tensor``, ``dt<i>``, ``sh<i>``, ``st<i>``, ``dv<i>``):
    the same type, dtype, shape, strides and device, and not requiring grad, so only its data pointer
    can differ. The launch paths' fast paths (:meth:`BoundPlan.take`, the prepared launch) share it."""
    return (
        f"type(a{i}) is Tensor and a{i}.dtype is dt{i} and a{i}.shape == sh{i} and "
        f"a{i}.stride() == st{i} and a{i}.get_device() == dv{i} and not a{i}.requires_grad"
    )


def note_tensor(ns: dict[str, Any], i: int, a: Any) -> bool:
    """Note argument ``a`` at position ``i`` in ``ns`` for :func:`tensor_like_noted` if it is a real
    torch tensor (not a subclass; not complex: conjugation is per tensor); else note that none is
    (``dt<i>`` None, which no tensor's dtype is). Returns whether one was noted."""
    torch = sys.modules.get("torch")
    if torch is not None and type(a) is torch.Tensor and not a.dtype.is_complex:
        ns[f"dt{i}"], ns[f"sh{i}"], ns[f"st{i}"], ns[f"dv{i}"] = a.dtype, a.shape, a.stride(), a.get_device()
        return True
    ns[f"dt{i}"] = None
    return False


def _take_nothing(*args: Any) -> bool:
    return False


def _dead() -> None:  # a weak reference to nothing (an argument is never None)
    return None


def _compile_take(plan: LaunchPlan, buffer: Any) -> tuple[dict[str, Any], Callable[..., bool]]:
    """``take(*args)`` of a :class:`BoundPlan`: True once it wrote ``args`` into ``buffer``, each
    argument like the one :meth:`BoundPlan.remember` noted at its position (a torch tensor of the
    same dtype, shape, strides, device and alignment: only its data pointer is written; the same
    device array of the DSL's own: nothing is; a scalar of the same type: packed); False at the
    first that is not (the buffer may then hold some of the new values: a launch rewrites them all).
    The arguments that would key another plan (another type, dtype, rank, layout, device or
    alignment) are never like the noted ones, so a taken launch is the launch the key look-up makes."""
    torch = sys.modules.get("torch")
    ns: dict[str, Any] = {"buffer": buffer, "error": PACK_ERRORS, "Tensor": getattr(torch, "Tensor", None)}
    arms = []
    for i, s in enumerate(plan.layout.specs):
        ns[f"dt{i}"] = ns[f"kd{i}"] = None
        ns[f"own{i}"] = _dead
        if isinstance(s, ArraySpec):
            data = " = ".join(f"buffer[{plan.layout.offsets[i] + d}]" for d in s.data_slots)
            pointer = (
                f"p = a{i}.data_ptr()",
                f"if (p % {ALIGN} == 0) is not al{i}:",
                "    return False",
                f"{data} = p",
            )
            arms.append(
                Arm(
                    (
                        (tensor_like_noted(i), pointer),
                        (f"a{i} is None or a{i} is not own{i}()", ("return False",)),
                    )
                )
            )
        elif isinstance(s, ScalarSpec) and s.parts == 1 and s.enum is None:
            ns[f"p{i}"], ns[f"o{i}"] = struct.Struct("<" + s.fmt).pack_into, 8 * plan.layout.offsets[i]
            packed = ("try:", f"    p{i}(buffer, o{i}, a{i})", "except error:", "    return False")
            arms.append(Arm(((f"type(a{i}) is kd{i}", packed),), ("return False",)))
        else:
            arms.append(Arm(otherwise=("return False",)))
    return ns, generate("take", arms, ns, last=("return True",))


class LaunchCache:
    """What a kernel's launches reuse: per-thread plans by (block, context, argument keys), and the
    configured launches by launch configuration."""

    @staticmethod
    def of(owner: Any) -> LaunchCache:
        """The cache kept in ``owner``'s ``__dict__`` (made on first use)."""
        cache = owner.__dict__.get("_launches")
        if cache is None:
            cache = owner.__dict__.setdefault("_launches", LaunchCache())
        return cache  # type: ignore[no-any-return]

    MAX_CONFIGS = 256

    def __init__(self) -> None:
        self.local = threading.local()
        self.configs: dict[Any, Any] = {}
        self.slow_launches = 0  # launches that went through Numba's own path (for tests)

    def plans(self) -> dict[Any, BoundPlan | None]:
        """This thread's plans."""
        try:
            return self.local.plans  # type: ignore[no-any-return]
        except AttributeError:
            self.local.plans = {}
            return self.local.plans  # type: ignore[no-any-return]


class ConfiguredLaunch:
    """``kernel[grid, block, stream, shared_bytes]`` (or ``configure(..., cluster=)``) of a kernel
    that launches through coop's plans: the configuration, checked and converted once.

    Args:
        kernel: the front door's kernel (``__name__``, ``_launch_cache()``).
        config: ``(grid, block[, stream[, shared_bytes]])``.
        cluster: the thread-block cluster, or None.

    Raises:
        CoopLaunchConfigError: a bad grid, block, cluster or shared memory size.
    """

    __slots__ = (
        "_cache",
        "_cluster",
        "_dims",
        "_grid",
        "_kernel",
        "_local",
        "_shmem",
        "_stream",
        "_stream_arg",
    )

    #: How many plans a thread's launches of one configuration try before the key look-up.
    RECENT = 4

    def __init__(self, kernel: Any, config: tuple[Any, ...], cluster: Any = None) -> None:
        from cuda.bindings import driver

        what = kernel.__name__
        self._kernel = kernel
        self._grid = dim3(config[0], what=f"{what}: grid")
        self._dims = normalize_block_dims(config[1], what=f"{what}: block")
        self._cluster = cluster_of(self._grid, cluster, what=what)
        self._stream_arg = config[2] if len(config) > 2 else 0
        self._stream = driver.CUstream(stream_handle(self._stream_arg, what=f"{what}: stream"))
        self._shmem = shared_bytes(config[3], what=what) if len(config) > 3 else 0
        self._cache: LaunchCache = kernel._launch_cache()
        self._local = threading.local()

    def take(self, args: tuple[Any, ...]) -> bool:
        """Launch ``args`` through a plan this thread launched arguments like them with lately (see
        :meth:`BoundPlan.take`) in the current context; False: none (the caller reads and keys
        them)."""
        try:
            recent = self._local.recent
        except AttributeError:
            return False
        ctx = current_context()
        for plan in recent:
            if plan.plan.context == ctx and plan.nargs == len(args) and plan.take(*args):
                if plan is not recent[0]:
                    recent.remove(plan)
                    recent.insert(0, plan)
                plan.launch_written(self._grid, self._dims, self._shmem, self._stream)
                return True
        return False

    def refuse(self, args: tuple[Any, ...], keys: Sequence[Key]) -> None:
        """The typed error for an argument that no kernel takes (a tensor that requires grad, a lazily
        conjugated view, a masked array), named, before any launch: the DSL's own launch might take
        it (torch 2.11's array interface no longer refuses a tensor that requires grad). Arrays in
        host memory go on to the DSL's launch, which copies them."""
        for i, key in enumerate(keys):
            problem = problem_of(key, host=False)
            if problem:
                name = arg_names(self._kernel.py_func, len(args))[i]
                raise problem[0](f"{self._kernel.__name__}: argument {i} ({name}): {problem[1]}")

    def launch_plan(self, plan: BoundPlan, args: tuple[Any, ...], values: Sequence[Any]) -> None:
        """Launch ``args`` (whose flat values are ``values``) through ``plan``, found by their keys;
        then note them for :meth:`take`."""
        plan.launch(self._grid, self._dims, self._shmem, self._stream, values)
        plan.remember(args)
        try:
            recent = self._local.recent
        except AttributeError:
            recent = self._local.recent = []
        if plan in recent:
            recent.remove(plan)
        elif len(recent) >= self.RECENT:
            recent.pop()
        recent.insert(0, plan)


def configured(kernel: Any, config: tuple[Any, ...], cluster: Any, make: Callable[..., Any]) -> Any:
    """The launch ``make(kernel, config, cluster)``, cached on the kernel by configuration (an
    unhashable configuration, a list, is not cached)."""
    try:  # the common case first: a configuration launched before (one dict look-up)
        return kernel.__dict__["_launches"].configs[(config, cluster)]
    except (KeyError, TypeError):
        pass
    cache = kernel._launch_cache()
    try:
        launch = cache.configs.get((config, cluster))
    except TypeError:
        return make(kernel, config, cluster)
    if launch is None:
        launch = make(kernel, config, cluster)
        if len(cache.configs) >= cache.MAX_CONFIGS:
            cache.configs.clear()
        cache.configs[(config, cluster)] = launch
    return launch
