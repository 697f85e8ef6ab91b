# SPDX-License-Identifier: Apache-2.0
"""Every numba-cuda-mlir internal the numba-cuda-mlir backend touches, in one place.

numba-cuda-mlir 0.6 offers no public API for these; :func:`check` fails loudly, naming the hook, if
an upgrade moves one (``tests/test_numba_mlir.py`` runs it).
"""

from __future__ import annotations

import contextlib
import contextvars
import importlib
import inspect
import weakref
from collections.abc import Iterator
from typing import Any

from cuda.coop._backend_api import BUNDLE_PARTS, CoopBackendError, FunctionTypes, TraceSession, causes
from numba_cuda_mlir import tools
from numba_cuda_mlir.numba_cuda.cudadrv import linkable_code
from numba_cuda_mlir.numba_cuda.typing import templates

#: the ``generic`` of each primitive's template, by its typing key: the lowering resolves the call's
#: plan again from its argument types (numba-cuda-mlir looks a lowering up by the typing key and the
#: signature; it does not ask a template for an implementation key)
GENERICS: dict[Any, Any] = {}


def plan_carrying_template(name: str, key: Any, generic: Any, impl_key: Any) -> type:
    """A typing template for the calls of ``key``: ``generic(args, kws)`` gives (signature, plan);
    the lowering calls it again (:data:`GENERICS`) for the plan of the call it lowers."""

    class PlanTemplate(templates.AbstractTemplate):
        prefer_literal = True

        def generic(self, args: tuple[Any, ...], kws: dict[str, Any]) -> Any:
            return generic(args, kws)[0]

    PlanTemplate.key = key
    PlanTemplate.__name__ = PlanTemplate.__qualname__ = name
    GENERICS[key] = generic
    return PlanTemplate


#: ``tag_python_function(value, ty)``: give a plain Python function the type ``ty`` in numba-cuda-mlir's
#: typing, unless it has one of its own (True if tagged); through its public ``typeof_impl``
tag_python_function = FunctionTypes("numba_cuda_mlir.extending").tag


def can_type(value: Any) -> bool:
    """Whether numba-cuda-mlir's typing context types ``value`` (a global a kernel refers to)."""
    from numba_cuda_mlir.descriptor import mlir_target

    ctx = mlir_target.typing_context
    ctx.refresh()
    try:
        ctx.resolve_value_type(value)
    except Exception:
        return False
    return True


def function_ir(py_func: Any) -> Any:
    """numba-cuda-mlir's Numba IR of ``py_func`` (its frontend only: no typing)."""
    from numba_cuda_mlir.numba_cuda.compiler import run_frontend

    return run_frontend(py_func)


class LTOIR(linkable_code.LTOIR):
    """Object ``part`` of the bundle of one trace session as a link item, compiled when the linker
    reads ``data`` (after the whole kernel is lowered). Named ``LTOIR``: numba-cuda-mlir treats a link
    item as LTO-IR, and links the kernel by LTO, only for a class of that name."""

    def __init__(self, session: TraceSession, arch: str, part: int) -> None:
        super().__init__(data=b"", name=f"cuda_coop_bundle_{part}")
        self.session = session
        self.arch = arch
        self.part = part

    @property
    def data(self) -> bytes:  # type: ignore[override]
        if _stop_at_link.get():
            raise LinkReached()
        return self.session.finalize(self.arch).part(self.part)

    @data.setter
    def data(self, value: bytes) -> None:  # LinkableCode.__init__ sets it; the bundle is the data
        pass


class LinkReached(Exception):
    """Raised, under :func:`stop_at_link`, where numba-cuda-mlir reads a bundle part: the kernel is
    lowered and its requests are all known."""


_stop_at_link: contextvars.ContextVar[bool] = contextvars.ContextVar("coop_ncm_stop_at_link", default=False)


@contextlib.contextmanager
def stop_at_link() -> Iterator[None]:
    """Compiles inside stop with :class:`LinkReached` where the linker first reads a bundle part (the
    end of ``MLIRLower.lower_to_mlir``, which makes the linker), before MLIR's optimisation; a kernel
    without coop calls compiles to the end."""
    token = _stop_at_link.set(True)
    try:
        yield
    finally:
        _stop_at_link.reset(token)


def link_reached(exc: BaseException) -> bool:
    """Whether ``exc`` is, or was raised from or while handling, a :class:`LinkReached`
    (numba-cuda-mlir may wrap an error raised in its lowering)."""
    return any(isinstance(e, LinkReached) for e in causes(exc))


_sessions: weakref.WeakKeyDictionary[Any, TraceSession] = weakref.WeakKeyDictionary()


def link_item(lower: Any, item: Any) -> None:
    """Add a link input (a ``LinkableCode``) to the kernel that ``lower`` (an ``MLIRLower``) lowers:
    numba-cuda-mlir's lowerer collects them (deduplicated) and links them with the kernel."""
    lower.link_external_item(item)


def bundle_parts(session: TraceSession, arch: str) -> tuple[LTOIR, ...]:
    """The link items of ``session``'s bundle: one per object it may have."""
    return tuple(LTOIR(session, arch, k) for k in range(BUNDLE_PARTS))


def lowering_session(lower: Any, make: Any) -> TraceSession:
    """The trace session of the function ``lower`` (an ``MLIRLower``) lowers: made by ``make()``
    (session, bundle parts) on first use, its bundle's parts added to the kernel's link items."""
    session = _sessions.get(lower)
    if session is None:
        session, bundle = make()
        _sessions[lower] = session
        for part in bundle:
            link_item(lower, part)
    return session


def lowering_arch(lower: Any) -> str:
    """The architecture numba-cuda-mlir compiles the function ``lower`` lowers for (its resolved
    ``chip`` target option)."""
    return str(lower.targetoptions["chip"])


def lto_ptx(result: Any) -> str:
    """The PTX of a compiled kernel after its LTO link (numba-cuda-mlir links a cubin; this links
    again for PTX, as its own inspection helper does)."""
    from numba_cuda_mlir.mlir_optimization import get_lto_ptx

    return str(get_lto_ptx(result))


def current_arch() -> str:
    """The architecture to compile for on this machine: its GPU's, arch-specific from sm_90 on
    (``sm_90a``), as ``compile``'s default and the CuTe DSL (ptxas refuses a kernel's static shared
    memory above 48 KB for ``sm_90`` but not for ``sm_90a``: the sort grid's histogram kernels)."""
    major, minor = tools.get_gpu_compute_capability(tuple)
    return f"sm_{major}{minor}{'a' if major >= 9 else ''}"


@contextlib.contextmanager
def compute_capability(cc: tuple[int, int]) -> Iterator[None]:
    """Compile for ``cc`` without a GPU: numba-cuda-mlir's target resolution reads the host GPU's
    compute capability (a driver call) even when a target is named; its cached value stands in."""
    saved = tools._cached_cc
    tools._cached_cc = cc
    try:
        yield
    finally:
        tools._cached_cc = saved


def drop_unused_variables_in_coop_links() -> None:
    """Make numba-cuda-mlir's linker pass nvJitLink ``-optimize-unused-variables`` when it links a
    kernel compiled through cuda.coop's front door (a ``Compile`` is current): without it the cubin
    keeps CCCL's unused constants and their symbols (a 166 KB cubin for a 1-call kernel). Its
    linker (numba-cuda's ``_Linker``, vendored) builds ``LinkerOptions`` in
    ``_get_linker_options``, which takes no extra option. Other kernels link as before.

    Such a link also takes ``opt_level=1`` or ``2``: numba-cuda-mlir 0.6 hands the kernel's level to
    nvJitLink as ``-O1`` / ``-O2``, which nvJitLink refuses (``ERROR_UNRECOGNIZED_OPTION``: it takes
    ``-O0`` and ``-O3``), so the LTO link runs at ``-O3``; the kernel's own compile keeps its level.
    The variables NVSHMEM's module initialisation writes are named as used (``variables_used``):
    only the host writes them, so the option would delete them (nvshmem4py 0.4.1 means to name them
    itself, through a ``linker`` attribute of the lowerer that numba-cuda-mlir 0.6 does not have)."""
    import dataclasses

    from cuda.coop._backend_api import current, nvshmem_variables_used
    from numba_cuda_mlir.numba_cuda.cudadrv import driver

    original = driver._Linker.__dict__["_get_linker_options"]
    if getattr(original, "cuda_coop", False):
        return

    def _get_linker_options(self: Any, ptx: bool) -> Any:
        options = original(self, ptx)
        if self._has_ltoir and current() is not None:
            level = options.optimization_level
            level = 3 if level in (1, 2) else level  # nvJitLink takes -O0 and -O3 only
            used = nvshmem_variables_used(options.variables_used)
            options = dataclasses.replace(
                options, optimize_unused_variables=True, optimization_level=level, variables_used=used
            )
        return options

    _get_linker_options.cuda_coop = True  # type: ignore[attr-defined]
    driver._Linker._get_linker_options = _get_linker_options


def nan_aware_not_equal() -> None:
    """Make numba-cuda-mlir lower ``a != b`` of floats as Python and numba-cuda do: true when either is
    a NaN (``arith.cmpf une``). numba-cuda-mlir 0.6 lowers it as ``one`` (ordered), so ``x != x`` is
    always false and folds away, and a NaN test written the usual way never fires (the docs' argmax
    pattern then lost its NaNs). Its float binary operators come from one cached table,
    ``lowering.math._operator_mapping()``; the entry for ``operator.ne`` gets the unordered compare.
    Kernels compiled in this process after activation get Python's semantics, with or without coop
    calls (their ``==``, ``<``, ``<=``, ``>``, ``>=`` were already Python's: ordered)."""
    import dataclasses
    import functools
    import operator

    from numba_cuda_mlir._mlir.dialects import arith
    from numba_cuda_mlir.lowering import math

    table = math._operator_mapping()
    entry = table[operator.ne]
    if getattr(entry.float, "cuda_coop", False):
        return
    une = functools.partial(arith.cmpf, arith.CmpFPredicate.UNE)
    une.cuda_coop = True  # type: ignore[attr-defined]
    table[operator.ne] = dataclasses.replace(entry, float=une)


def errors_name_the_call_site(typing_call: Any) -> None:
    """A coop error raised while numba-cuda-mlir types a call names the call's line, and the
    TempStorage barrier analysis knows the call being typed: numba-cuda-mlir types with numba-cuda's
    ``CallConstraint`` (vendored), one per call, with its ``loc`` and ``target``; each is typed
    inside :func:`call_site` and ``typing_call`` (the analysis's context,
    ``cuda.coop._numba_like._barriers.typing_call``), as the Numba backend does."""
    from cuda.coop._backend_api import call_site
    from numba_cuda_mlir.numba_cuda.core import typeinfer

    original = typeinfer.CallConstraint.__dict__["__call__"]
    if getattr(original, "cuda_coop", False):
        return

    def __call__(self: Any, typeinfer_: Any) -> Any:
        loc = self.loc
        with (
            call_site(getattr(loc, "filename", None), getattr(loc, "line", 0) or 0),
            typing_call(getattr(typeinfer_, "func_ir", None), self.target),
        ):
            return original(self, typeinfer_)

    __call__.cuda_coop = True  # type: ignore[attr-defined]
    typeinfer.CallConstraint.__call__ = __call__


def compile_in(dispatcher: Any, context: Any) -> None:
    """Run every compile of ``dispatcher`` (a numba-cuda-mlir ``MLIRDispatcher``) inside
    ``context()``. numba-cuda-mlir compiles inside its launcher, on a launch whose argument types
    have no overload yet, through the dispatcher's ``_compile_impl`` (also its configured and
    launch-config compiles): a launch that finds its overload enters no context at all (before, coop
    entered one on every launch: 4.8 us of a 22.9 us launch on the H200's host)."""
    compile_impl = dispatcher._compile_impl

    def _compile_impl(*args: Any, **kws: Any) -> Any:
        with context():
            return compile_impl(*args, **kws)

    dispatcher._compile_impl = _compile_impl


# --- the launch path: coop's own launches of numba-cuda-mlir kernels (tests check them) -----------


def device_array_class() -> type:
    """numba-cuda-mlir's device array class (``cuda.to_device``, ``cuda.device_array``)."""
    from numba_cuda_mlir.numba_cuda.cudadrv.devicearray import DeviceNDArrayBase

    return DeviceNDArrayBase


def device_array_type(array: Any) -> Any:
    """The numba-cuda-mlir type of one of its device arrays (cached on it)."""
    return array._numba_type_


def kernel_argument_types(result: Any) -> tuple[Any, ...]:
    """The argument types of a compiled kernel (a ``CompileResult``)."""
    return tuple(result.signature.args)


def kernel_function(result: Any) -> Any:
    """The driver handle (``CUfunction``) of a compiled kernel in the current context: its cubin
    loaded by numba-cuda-mlir's own code library, once per device."""
    from cuda.bindings import driver

    return driver.CUfunction(int(result._codelibrary.get_cufunc()._handle))


def is_cooperative(result: Any) -> bool:
    """Whether a compiled kernel synchronises its grid (a cooperative launch)."""
    return bool(result.cooperative)


def fast_path_blocker(dispatcher: Any, result: Any | None = None) -> str | None:
    """Why numba-cuda-mlir's own launcher must launch this dispatcher's kernels, or None: what its
    launcher does besides the launch (argument extensions, launch-config planners, literal
    arguments, module setup callbacks of link items, debug's exception flag)."""
    from numba_cuda_mlir._whole_function_planners import _planner_registry

    if dispatcher.targetoptions.get("extensions") or dispatcher.extensions:
        return "it has argument-handling extensions"
    if dispatcher.targetoptions.get("debug"):
        return "it is compiled with debug=True (the launch checks an exception flag)"
    if dispatcher._requires_launch_config or _planner_registry.has_planners:
        return "it is launch-configuration sensitive"
    if dispatcher._literal_arg_positions:
        return "some of its arguments are compile-time literals"
    if dispatcher._module_setup_callbacks:
        return "a link item of it sets up the loaded module"
    if result is not None and result.metadata.get("cubin") is None:
        return "it has no cubin"
    return None


def resolve_kernel(dispatcher: Any, argtypes: tuple[Any, ...]) -> Any:
    """The compiled kernel for arguments of ``argtypes``, compiled now if new (inside the caller's
    compile context)."""
    return dispatcher.compile(argtypes)


def launch_error(err: Any, what: str) -> Exception:
    """The exception of a failed launch, as numba-cuda-mlir's driver raises it."""
    from numba_cuda_mlir.numba_cuda.cudadrv.driver import CudaAPIError

    return CudaAPIError(err, f"{what}: cuLaunchKernel failed with {getattr(err, 'name', err)}")


def check() -> None:
    """Raise CoopBackendError naming the first hook that this numba-cuda-mlir lacks."""
    from numba_cuda_mlir import extending, linker, mlir_lowering
    from numba_cuda_mlir.numba_cuda.cudadrv import devicearray

    for owner, name in (
        (tools, "_cached_cc"),
        (importlib.import_module("numba_cuda_mlir.mlir_optimization"), "get_lto_ptx"),
        (tools, "format_arch"),
        (tools, "get_gpu_compute_capability"),
        (extending, "typing_registry"),
        (extending, "lowering_registry"),
        (extending, "refresh_registries"),
        (mlir_lowering.MLIRLower, "link_external_item"),
        (mlir_lowering.MLIRLower, "alloca_insertion_point"),
        (mlir_lowering.MLIRLower, "load_var"),
        (mlir_lowering.MLIRLower, "store_var"),
        (mlir_lowering.MLIRLower, "get_numba_type"),
        (mlir_lowering.MLIRLower, "lower_cast"),
        (mlir_lowering.MLIRLower, "get_storage_type"),
        (mlir_lowering.MLIRLower, "as_storage"),
        (mlir_lowering.MLIRLower, "from_storage"),
        (mlir_lowering.MLIRLower, "mlir_gpu_module"),
        (linker, "resolve_link_plan"),
        (importlib.import_module("numba_cuda_mlir.numba_cuda.cudadrv.driver")._Linker, "_get_linker_options"),
        (importlib.import_module("numba_cuda_mlir.numba_cuda.core.typeinfer").CallConstraint, "__call__"),
        (importlib.import_module("numba_cuda_mlir.descriptor").MLIRDispatcher, "_compile_impl"),
        (importlib.import_module("numba_cuda_mlir.descriptor").MLIRDispatcher, "_compile"),
        (devicearray, "DeviceNDArrayBase"),
        (devicearray.DeviceNDArrayBase, "_numba_type_"),
        (importlib.import_module("numba_cuda_mlir.compiler").CodeLibrary, "get_cufunc"),
        (importlib.import_module("numba_cuda_mlir._whole_function_planners"), "_planner_registry"),
        (importlib.import_module("numba_cuda_mlir.numba_cuda.cudadrv.driver"), "CudaAPIError"),
        (importlib.import_module("numba_cuda_mlir.lowering.math"), "_operator_mapping"),
    ):
        try:
            inspect.getattr_static(owner, name)
        except AttributeError:
            raise CoopBackendError(
                f"numba-cuda-mlir changed: {getattr(owner, '__name__', owner)}.{name} is gone; this "
                "cuda-coop needs numba-cuda-mlir 0.6.x"
            ) from None
    import dataclasses
    import operator

    from numba_cuda_mlir.lowering import math

    if "float" not in {f.name for f in dataclasses.fields(math.OpForType)} or operator.ne not in (
        math._operator_mapping()
    ):
        raise CoopBackendError(
            "numba-cuda-mlir changed: lowering.math's operator table has no float entry for "
            "operator.ne; this cuda-coop needs numba-cuda-mlir 0.6.x"
        )
    # instance attributes: those of a dispatcher and of a kernel handle (made without a GPU)
    from numba_cuda_mlir import cuda
    from numba_cuda_mlir._whole_function_planners import _planner_registry
    from numba_cuda_mlir.compiler import CodeLibrary, CUFunc

    probe = cuda.jit(_probe)
    for owner, name in (
        (_planner_registry, "has_planners"),
        (probe, "_requires_launch_config"),
        (probe, "_literal_arg_positions"),
        (probe, "_module_setup_callbacks"),
        (probe, "extensions"),
        (probe, "targetoptions"),
        (CodeLibrary(b"", "probe"), "get_cufunc"),
        (CUFunc(0), "_handle"),
    ):
        if not hasattr(owner, name):
            raise CoopBackendError(
                f"numba-cuda-mlir changed: {type(owner).__name__}.{name} is gone; this cuda-coop needs "
                "numba-cuda-mlir 0.6.x"
            )


def _probe() -> None:
    """A kernel that :func:`check` makes a dispatcher of (never compiled)."""
