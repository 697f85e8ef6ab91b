# SPDX-License-Identifier: Apache-2.0
"""Every numba-cuda internal the Numba backend touches, in one place.

numba-cuda 0.30 has no public API for these; ``tests/test_numba_hooks.py`` fails loudly, naming
the hook, if an upgrade moves one.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any

from cuda.coop._backend_api import (
    BUNDLE_PARTS,
    CoopBackendError,
    CoopLaunchConfigError,
    CoopTypeError,
    FunctionTypes,
    TraceSession,
    call_site,
    current,
    nvshmem_variables_used,
)
from numba.cuda import cgutils, debuginfo
from numba.cuda import dispatcher as numba_dispatcher
from numba.cuda.codegen import CUDACodeLibrary
from numba.cuda.core import imputils
from numba.cuda.cudadrv import driver
from numba.cuda.cudadrv.linkable_code import LTOIR
from numba.cuda.typing import templates

#: Typing and lowering registries that the CUDA target refreshes before each compile.
TYPING_REGISTRY = templates.builtin_registry
LOWERING_REGISTRY = imputils.builtin_registry


# --- the kernel side: a library's session and bundle -----------------------------------------------


class LazyBundle(LTOIR):
    """Object ``part`` of the bundle of one trace session as a Numba linkable object, compiled when
    the linker reads it (a session's bundle is ``BUNDLE_PARTS`` of them: :func:`bundle_parts`).

    ``shared``: the session of a front-door kernel compile, which the kernel's device helpers share
    (their libraries carry these same objects, which Numba's set of linking files keeps once);
    otherwise the session of one code library (a plain ``@cuda.jit`` kernel, or a helper of one)."""

    def __init__(self, session: TraceSession, arch: str | None, part: int, *, shared: bool = False) -> None:
        super().__init__(data=b"", name=f"cuda_coop_bundle_{part}")
        self.session = session
        self.arch = arch
        self.part = part
        self.shared = shared

    @property
    def data(self) -> bytes:  # type: ignore[override]
        arch = self.arch or current_device_arch()
        return self.session.finalize(arch).part(self.part)

    def __hash__(self) -> int:
        # Numba keeps linking files in a set and links them in its order: small integers of the
        # part's order give the parts a set order of their own (the glue first), the same in every
        # process, so that the kernel's shared variables, which LTO lays out in link order, do too.
        return _PART_HASH + self.part


_PART_HASH = 1 << 40


def bundle_parts(session: TraceSession, arch: str | None, *, shared: bool = False) -> tuple[LazyBundle, ...]:
    """The link items of ``session``'s bundle: one per object it may have."""
    return tuple(LazyBundle(session, arch, k, shared=shared) for k in range(BUNDLE_PARTS))


def plan_carrying_template(name: str, key: Any, generic: Any, impl_key: Any) -> type:
    """A typing template for the calls of ``key`` whose ``generic(args, kws)`` returns (signature,
    plan), lowered under ``impl_key(plan)``. It relies on numba-cuda 0.30 calling a template
    instance's ``generic`` and then its ``get_impl_key`` for one call, before typing the next;
    ``tests/test_numba_hooks.py`` types calls of one primitive with different plans in one kernel."""

    class PlanTemplate(templates.AbstractTemplate):
        prefer_literal = True

        def generic(self, args: tuple[Any, ...], kws: dict[str, Any]) -> Any:
            sig, self._plan = generic(args, kws)
            return sig

        def get_impl_key(self, sig: Any) -> Any:
            return impl_key(self._plan)

    PlanTemplate.key = key
    PlanTemplate.__name__ = PlanTemplate.__qualname__ = name
    return PlanTemplate


def library_session(context: Any) -> TraceSession | None:
    """The trace session attached to the code library being lowered (None: none yet)."""
    return getattr(context.active_code_library, "_cuda_coop_session", None)


def attach_session(context: Any, session: TraceSession, bundle: Sequence[LazyBundle]) -> None:
    """Attach ``session`` to the code library being lowered, and its bundle's parts as linking
    files."""
    library = context.active_code_library
    library._cuda_coop_session = session
    for part in bundle:
        library.add_linking_file(part)


#: ``tag_python_function(value, ty)``: give a plain Python function the type ``ty`` in numba-cuda's
#: typing, unless it has one of its own (True if tagged); through its public ``typeof_impl``
tag_python_function = FunctionTypes("numba.cuda.extending").tag


def can_type(value: Any) -> bool:
    """Whether Numba's CUDA typing context types ``value`` (a global a kernel refers to)."""
    from numba.cuda.descriptor import cuda_target

    ctx = cuda_target.typing_context
    ctx.refresh()
    try:
        ctx.resolve_value_type(value)
    except Exception:
        return False
    return True


def function_ir(py_func: Any) -> Any:
    """Numba's IR of ``py_func`` (its frontend only: no typing)."""
    from numba.cuda.compiler import run_frontend

    return run_frontend(py_func)


def snapshot() -> dict[str, Any]:
    """Record the lengths of the registries the backend appends to, for a rollback."""
    from numba.cuda.models import cuda_data_manager

    return {
        "typing": {n: len(getattr(TYPING_REGISTRY, n)) for n in ("functions", "attributes", "globals")},
        "lowering": {
            n: len(getattr(LOWERING_REGISTRY, n)) for n in ("functions", "getattrs", "casts", "constants")
        },
        "models": set(cuda_data_manager._handlers),
        "linker_options": driver._Linker.__dict__["_get_linker_options"],
        "linker_complete": driver._Linker.__dict__["complete"],
        "module_flags": debuginfo.DIBuilder.__dict__["_set_module_flags"],
        "reduce_states": CUDACodeLibrary.__dict__["_reduce_states"],
        "current_device": numba_dispatcher.get_current_device,
        "compile_device": numba_dispatcher.CUDADispatcher.__dict__["compile_device"],
        "call_constraint": _call_constraint().__dict__["__call__"],
        "call_template": numba_dispatcher.CUDADispatcher.__dict__["get_call_template"],
    }


def _call_constraint() -> Any:
    from numba.cuda.core import typeinfer

    return typeinfer.CallConstraint


def rollback(snap: dict[str, Any]) -> None:
    """Remove whatever was registered after ``snap`` was taken."""
    from numba.cuda.models import cuda_data_manager

    for name, n in snap["typing"].items():
        del getattr(TYPING_REGISTRY, name)[n:]
    for name, n in snap["lowering"].items():
        del getattr(LOWERING_REGISTRY, name)[n:]
    for key in set(cuda_data_manager._handlers) - snap["models"]:
        del cuda_data_manager._handlers[key]
    driver._Linker._get_linker_options = snap["linker_options"]
    driver._Linker.complete = snap["linker_complete"]
    debuginfo.DIBuilder._set_module_flags = snap["module_flags"]
    CUDACodeLibrary._reduce_states = snap["reduce_states"]
    numba_dispatcher.get_current_device = snap["current_device"]
    numba_dispatcher.CUDADispatcher.compile_device = snap["compile_device"]
    _call_constraint().__call__ = snap["call_constraint"]
    numba_dispatcher.CUDADispatcher.get_call_template = snap["call_template"]


def float16_constants_as_bits() -> None:
    """numba-cuda 0.30 lowers a float16 constant (a module-level ``np.float16``, or any float
    constant Numba types as float16) with its integer data model but a float literal, ``i16 3.0``,
    which libNVVM refuses (``ERROR_INVALID_IR``): an ``oob_default=OOB`` with ``OOB = np.float16(3)``
    failed so. A lowering of float16 constants as their IEEE half bits takes precedence over
    numba-cuda's generic float one (the constants registry's ``lower_constant``)."""
    import numpy as np
    from llvmlite import ir
    from numba.cuda import types

    @LOWERING_REGISTRY.lower_constant(types.float16)
    def half_bits(context: Any, builder: Any, ty: Any, pyval: Any) -> Any:
        return ir.Constant(ir.IntType(16), int(np.float16(pyval).view(np.uint16)))


def drop_unused_variables_in_coop_links() -> None:
    """Make numba-cuda's linker pass nvJitLink ``-optimize-unused-variables`` when it links a kernel
    compiled through cuda.coop's front door (a :class:`~cuda.coop._session.Compile` is current).

    numba-cuda 0.30 builds its ``LinkerOptions`` in ``_Linker._get_linker_options`` and offers no
    way to add one. Without the option the cubin keeps ~80 KB of unused CCCL constants and the LTO
    link takes about a third longer (measured: 80 ms -> 59 ms on 2 CPU cores for a load + scan +
    store kernel). The variables NVSHMEM's module initialisation writes are named as used
    (``variables_used``): only the host writes them, so the option would delete them. Other
    kernels are linked exactly as before.
    """
    original = driver._Linker.__dict__["_get_linker_options"]
    if getattr(original, "cuda_coop", False):
        return

    def _get_linker_options(self: Any, ptx: bool) -> Any:
        options = original(self, ptx)
        if self._has_ltoir and current() is not None:
            used = nvshmem_variables_used(options.variables_used)
            options = dataclasses.replace(options, optimize_unused_variables=True, variables_used=used)
        return options

    _get_linker_options.cuda_coop = True  # type: ignore[attr-defined]
    driver._Linker._get_linker_options = _get_linker_options


#: What a cache-linked ``_Linker`` holds as its ``linker`` (numba-cuda reads ``info_log`` after
#: ``complete()``, which needs a truthy ``linker``).
_LINKED_BY_COOP = "cuda.coop link"


def link_coop_kernels_through_cache() -> None:
    """Make numba-cuda's linker hand the link of a kernel compiled through cuda.coop's front door
    to :func:`cuda.coop._link.link_exact`, with the options numba-cuda chose, so that the linked
    cubin comes from the cache when it is there (nvJitLink keeps ~the size of its LTO-IR inputs
    per link; see ``cuda.coop._link``). Other kernels are linked exactly as before.

    numba-cuda 0.30 links in ``_Linker.complete`` over ``_object_codes`` (cuda.core
    ObjectCode objects) with ``_get_linker_options``; ``get_cubin`` then reads ``info_log``.
    """
    from cuda.coop._backend_api import link_exact

    original = driver._Linker.__dict__["complete"]
    if getattr(original, "cuda_coop", False):
        return

    def complete(self: Any) -> Any:
        codes = self._object_codes
        if not (self._has_ltoir and current() is not None) or any(
            not isinstance(c.code, bytes) for c in codes
        ):
            return original(self)
        from cuda.core import ObjectCode

        options = self._get_linker_options(ptx=False)
        flags = [o.decode() for o in options.as_bytes("nvjitlink")] + list(current().link_options)
        inputs = [(c.code_type, c.code, str(c.name)) for c in codes]
        cubin = link_exact(inputs, flags, "cubin")
        self.linker, self._info_log, self._error_log = _LINKED_BY_COOP, "", ""
        self._complete = True
        return ObjectCode.from_cubin(cubin, name=options.name)

    complete.cuda_coop = True  # type: ignore[attr-defined]
    driver._Linker.complete = complete


#: The merge behaviour NVRTC gives its debug-info module flags: 1, "Error" (numba-cuda gives 2,
#: "Warning"; nvJitLink refuses to link modules whose behaviours differ).
_NVRTC_FLAG_BEHAVIOUR = 1


def debug_flags_as_nvrtc() -> None:
    """Make the debug-info module flags of a kernel compiled through cuda.coop's front door
    (``lineinfo=True`` or ``debug=True``) agree with the bundle's, so that nvJitLink links them.

    numba-cuda 0.30 writes ``"Dwarf Version"`` and ``"Debug Info Version"`` in
    ``DIBuilder._set_module_flags`` with behaviour 2; NVRTC's LTO-IR carries them with behaviour 1,
    and the link fails with "linking module flags 'Debug Info Version': IDs have conflicting
    behaviors". Other kernels keep numba-cuda's flags.
    """
    original = debuginfo.DIBuilder.__dict__["_set_module_flags"]
    if getattr(original, "cuda_coop", False):
        return

    def _set_module_flags(self: Any) -> None:
        if current() is None:
            return original(self)
        flags = cgutils.get_or_insert_named_metadata(self.module, "llvm.module.flags")
        versions = [("Dwarf Version", self.DWARF_VERSION), ("Debug Info Version", self.DEBUG_INFO_VERSION)]
        for name, version in versions:
            if version is None:
                continue
            flag = self.module.add_metadata(
                [self._const_int(_NVRTC_FLAG_BEHAVIOUR), name, self._const_int(version)]
            )
            if flag not in flags.operands:
                flags.add(flag)
        return None

    _set_module_flags.cuda_coop = True  # type: ignore[attr-defined]
    debuginfo.DIBuilder._set_module_flags = _set_module_flags


def cache_per_block(
    dispatcher: Any, dims: tuple[int, int, int], cluster: tuple[int, int, int] | None = None
) -> None:
    """Give a dispatcher an on-disk cache whose entries are keyed by the block dims (and the
    thread-block cluster, when it has one) too.

    cuda.coop makes one dispatcher per block shape of the same function; numba-cuda 0.30 keys its
    cache by signature and code only, so a kernel compiled for one block shape would be loaded for
    another. Its launch-config specialisations (``_launch_config_is_specialized`` with a
    ``_launch_config_specialization_key``) add a key to each index entry: cuda.coop's dispatchers
    are specialisations of that kind, keyed by block shape.
    """
    dispatcher.enable_caching()
    dispatcher._launch_config_is_specialized = True
    key = ("cuda.coop block", dims) if cluster is None else ("cuda.coop block", dims, "cluster", cluster)
    dispatcher._launch_config_specialization_key = key


def compile_in(dispatcher: Any, context: Callable[[], AbstractContextManager[Any]]) -> None:
    """Run the compiles numba-cuda starts itself for ``dispatcher`` (a launch through it whose
    argument types have no overload yet: its ``_compile_for_args``) inside ``context()``, so that a
    kernel launched as ``kernel.for_block(block)[grid, block](...)`` knows its block dims (after an
    aligned launch through coop only the aligned specialisation exists, and Numba types the same
    arrays plain). A compile coop started is already inside one and is left as it is."""
    compile_for_args = dispatcher._compile_for_args

    def _compile_for_args(*args: Any, **kws: Any) -> Any:
        if current() is not None:
            return compile_for_args(*args, **kws)
        with context():
            return compile_for_args(*args, **kws)

    dispatcher._compile_for_args = _compile_for_args


def cache_linked_coop_libraries() -> None:
    """Let numba-cuda pickle (for ``cache=True``) the code library of a kernel whose cubin is linked.

    numba-cuda 0.30's ``CUDACodeLibrary._reduce_states`` refuses a library with linking files; a
    coop kernel's library has one, its bundle, whose code is already inside the cached cubin (the
    cache saves the cubin after ``bind()`` and keys entries by compute capability). The bundle is
    left out of the pickle; other libraries are pickled exactly as before.
    """
    original = CUDACodeLibrary.__dict__["_reduce_states"]
    if getattr(original, "cuda_coop", False):
        return

    def _reduce_states(self: Any) -> Any:
        bundles = {f for f in self._linking_files if isinstance(f, LazyBundle)}
        if not bundles or not self._cubin_cache:
            return original(self)
        self._linking_files -= bundles
        try:
            return original(self)
        finally:
            self._linking_files |= bundles

    _reduce_states.cuda_coop = True  # type: ignore[attr-defined]
    CUDACodeLibrary._reduce_states = _reduce_states


@dataclasses.dataclass(frozen=True)
class _AheadOfTimeDevice:
    """What numba-cuda asks of "the current device" while compiling, for a named arch."""

    compute_capability: tuple[Any, ...]


def device_functions_ahead_of_time() -> None:
    """Let ``@cuda.jit(device=True)`` functions (the user's, and numba-cuda's own such as
    ``cuda.fp16.hsqrt``) compile inside an ahead-of-time coop compile, on a machine without a GPU.

    numba-cuda 0.30's ``CUDADispatcher.compile_device`` asks ``get_current_device()`` (a driver
    call) for the compute capability to compile for. Under a coop compile with an explicit arch
    (``cuda.coop.numba.compile``), that arch's compute capability is the answer; otherwise
    numba-cuda's own function answers.
    """
    original = numba_dispatcher.get_current_device
    if getattr(original, "cuda_coop", False):
        return

    def get_current_device() -> Any:
        compile_ = current()
        if compile_ is None or compile_.arch is None:
            return original()
        return _AheadOfTimeDevice(compute_capability(compile_.arch))

    get_current_device.cuda_coop = True  # type: ignore[attr-defined]
    numba_dispatcher.get_current_device = get_current_device


def helpers_per_kernel() -> None:
    """Compile a ``@cuda.jit(device=True)`` helper that calls coop primitives (itself or through
    other helpers) for each kernel that calls it.

    numba-cuda 0.30 compiles a device function once per signature (``CUDADispatcher.overloads``), so a
    helper's coop calls would keep the block shape of the first kernel that used it. A compiled
    helper whose library carries a coop bundle is reused only inside the kernel compile it was
    compiled in (the front door's session, which then holds the helper's requests too); any other
    compile, of another kernel or a plain ``@cuda.jit`` one, compiles it again. Helpers without coop
    calls are compiled once, as before. A helper that cannot be compiled again (given a signature at
    its definition, which compiles it there and disables compiling) is refused by name."""
    original_compile = numba_dispatcher.CUDADispatcher.__dict__["compile_device"]
    original_template = numba_dispatcher.CUDADispatcher.__dict__["get_call_template"]
    if getattr(original_compile, "cuda_coop", False):
        return

    def compile_device(self: Any, args: Any, return_type: Any = None) -> Any:
        cached = self.overloads.get(args)
        if cached is not None and _foreign_bundles(cached.library):
            del self.overloads[args]  # compiled for another kernel: compile it for this one
        return original_compile(self, args, return_type)

    def get_call_template(self: Any, args: Any, kws: Any) -> Any:
        if not self._can_compile:
            for cres in self.overloads.values():
                foreign = _foreign_bundles(cres.library)
                if foreign:
                    _refuse_fixed_helper(self, foreign)
        return original_template(self, args, kws)

    compile_device.cuda_coop = True  # type: ignore[attr-defined]
    numba_dispatcher.CUDADispatcher.compile_device = compile_device
    numba_dispatcher.CUDADispatcher.get_call_template = get_call_template


def _foreign_bundles(library: Any) -> list[Any]:
    """The coop bundles a compiled device function's library carries that are not the current
    kernel compile's: another front-door kernel's, or, under a front-door compile, a library's own."""
    compile_ = current()
    mine = compile_.session if compile_ is not None else None
    return [
        f
        for f in library._linking_files
        if isinstance(f, LazyBundle) and (f.session if f.shared else None) is not mine
    ]


def _refuse_fixed_helper(dispatcher: Any, foreign: list[Any]) -> None:
    compile_ = current()
    shapes = sorted({r.block_dims for f in foreign for r in f.session.requests})
    here = compile_.block_dims if compile_ is not None else None
    name = getattr(dispatcher.py_func, "__qualname__", dispatcher.py_func.__name__)
    raise CoopLaunchConfigError(
        f"device function {name!r} calls coop primitives and was compiled at its definition (for its "
        f"explicit signature), for block {' and '.join(map(str, shapes)) or 'dims of its own'}; the kernel "
        f"calling it is compiled for block {here}. A coop helper is compiled for the block of each "
        "kernel that calls it: define it without a signature, @cuda.jit(device=True)"
    )


def errors_name_the_call_site(typing_call: Callable[[Any, Any], AbstractContextManager[Any]]) -> None:
    """A coop error raised while Numba types a call names the call's line in the kernel source:
    numba-cuda 0.30's ``CallConstraint`` (one per call in the function being typed, with its
    ``loc``) types the call inside :func:`cuda.coop._errors.call_site`, which the plan records for
    the bundle's own errors too. The same constraint names the call's statement (its ``target``
    variable in the type inferer's ``func_ir``) to ``typing_call`` (the TempStorage barrier
    analysis's context, ``cuda.coop._numba_like._barriers.typing_call``)."""
    from numba.cuda.core import typeinfer

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


def compute_capability(arch: str) -> tuple[Any, ...]:
    """``sm_90a`` -> ``(9, 0, "a")``, ``sm_100`` -> ``(10, 0)``: numba-cuda's spelling."""
    digits = arch[3:].rstrip("af")
    suffix = arch[3 + len(digits) :]
    cc: tuple[Any, ...] = (int(digits[:-1]), int(digits[-1]))
    return cc + (suffix,) if suffix else cc


def link_files(files: Any, cc: tuple[Any, ...]) -> list[Any]:
    """The ``link=`` files of a kernel (paths or numba-cuda ``LinkableCode``) as the code objects
    numba-cuda's own linker would add for ``cc`` (a ``.cu`` file is compiled by NVRTC to LTO-IR)."""
    if isinstance(files, (str, bytes)) or not hasattr(files, "__iter__"):
        files = [files]
    linker = driver._Linker(cc=cc, lto=True)
    for f in files:
        linker.add_file_guess_ext(f)
    return list(linker._object_codes)


def compile_only(dispatcher: Any, signatures: tuple[Any, ...], each: Any) -> None:
    """Compile ``dispatcher`` for ``signatures`` and for nothing else, as ``numba.cuda.jit(sigs)``
    does (a single signature makes it specialised: launches skip type dispatch); each compile runs
    in the context ``each()`` makes (a kernel compile of its own)."""
    from numba.cuda.core import sigutils

    for sig in signatures:
        argtypes, restype = sigutils.normalize_signature(sig)
        if restype is not None and str(restype) != "none":
            raise CoopTypeError(f"signature {sig!r}: a kernel returns void")
        with each():
            dispatcher.compile(argtypes)
    dispatcher._specialized = len(signatures) == 1
    dispatcher.disable_compile()


def current_device_arch() -> str:
    """``sm_XY`` of the current CUDA device.

    Raises:
        CoopBackendError: there is no usable GPU (then an ``arch`` must be named).
    """
    from numba import cuda

    try:
        major, minor = cuda.get_current_device().compute_capability
    except Exception as exc:  # numba-cuda raises its own errors for a missing driver or device
        raise CoopBackendError(
            f"arch=None means the current GPU's architecture, and there is no usable GPU ({exc}); "
            "name one, e.g. arch='sm_90a'"
        ) from exc
    return f"sm_{major}{minor}"


def check() -> None:
    """Raise CoopBackendError naming the first hook that this numba-cuda lacks."""
    from numba.cuda import compiler, descriptor
    from numba.cuda.cudadrv.devicearray import DeviceNDArray
    from numba.cuda.models import cuda_data_manager

    for owner, attr in (
        (TYPING_REGISTRY, "functions"),
        (TYPING_REGISTRY, "globals"),
        (LOWERING_REGISTRY, "functions"),
        (LOWERING_REGISTRY, "lower_constant"),
        (cuda_data_manager, "_handlers"),
        (driver._Linker, "_get_linker_options"),
        (driver._Linker, "complete"),
        (driver._Linker, "info_log"),
        (debuginfo.DIBuilder, "_set_module_flags"),
        (debuginfo.DIBuilder, "DEBUG_INFO_VERSION"),
        (debuginfo.DIBuilder, "DWARF_VERSION"),
        (CUDACodeLibrary, "_reduce_states"),
        (numba_dispatcher, "get_current_device"),
        (numba_dispatcher.CUDADispatcher, "compile_device"),
        (numba_dispatcher.CUDADispatcher, "get_call_template"),
        (numba_dispatcher.CUDADispatcher, "_can_compile"),
        (numba_dispatcher.CUDADispatcher, "_compile_for_args"),
        (_call_constraint(), "__call__"),
        (compiler, "run_frontend"),
        (type(descriptor.cuda_target), "typing_context"),  # the class: no typing context made here
        (driver, "FILE_EXTENSION_MAP"),
        (driver, "Stream"),
        (numba_dispatcher._Kernel, "argument_types"),
        (DeviceNDArray, "_numba_type_"),
        (CUDACodeLibrary, "add_linking_file"),
    ):
        if not hasattr(owner, attr):
            raise CoopBackendError(
                f"numba-cuda changed: {getattr(owner, '__name__', type(owner).__name__)}.{attr} is gone; "
                "this cuda-coop needs numba-cuda 0.30.x"
            )
    if not {"data", "name"} <= set(inspect.signature(LTOIR.__init__).parameters):
        raise CoopBackendError(
            "numba-cuda changed: LTOIR(data=, name=) is gone (cuda-coop's bundle is an LTOIR whose "
            "data is compiled when read); this cuda-coop needs numba-cuda 0.30.x"
        )
    if "target" not in inspect.signature(_call_constraint().__init__).parameters:
        raise CoopBackendError(
            "numba-cuda changed: CallConstraint no longer takes its call's target variable; this "
            "cuda-coop needs numba-cuda 0.30.x"
        )


def link_input(code: Any) -> tuple[str, bytes, str]:
    """A code object of ``numba.cuda.compile_all`` (a cuda.core ``ObjectCode`` or a Numba
    ``LinkableCode``) as a link input (kind, bytes, name)."""
    from numba.cuda.cudadrv.driver import FILE_EXTENSION_MAP

    if hasattr(code, "code_type"):  # cuda.core ObjectCode (e.g. a .cu file Numba compiled)
        kind, data, name = code.code_type, code.code, getattr(code, "name", "") or code.code_type
    else:
        kind = next(ext for ext, k in FILE_EXTENSION_MAP.items() if k == code.kind)
        data, name = code.data, code.name or kind
    return kind, data.encode() if isinstance(data, str) else bytes(data), str(name)


# --- the launch path's numba-cuda internals (tests/test_numba_launch.py checks them) ---------------


def numba_stream(stream: Any, handle: int) -> Any:
    """``stream`` as Numba's launch takes it (0, a Numba stream or an external stream of ``handle``)."""
    from numba import cuda
    from numba.cuda.cudadrv.driver import Stream

    if handle == 0:
        return 0
    if isinstance(stream, Stream):
        return stream
    return cuda.external_stream(handle)


def device_array_type(array: Any) -> Any:
    """The Numba type of a ``DeviceNDArray`` (cached on it)."""
    return array._numba_type_


def kernel_argument_types(kernel: Any) -> Any:
    """The Numba types of a compiled ``_Kernel``'s parameters."""
    return kernel.argument_types


def is_cooperative(kernel: Any) -> bool:
    """Whether a compiled ``_Kernel`` synchronises its grid (needs a cooperative launch)."""
    return bool(kernel.cooperative)


def kernel_function(kernel: Any) -> Any:
    """The driver handle of a compiled ``_Kernel`` in the current context (its module loaded and
    initialised by ``_Kernel.bind``), as the ``CUfunction`` ``cuLaunchKernel`` takes (a library
    ``CUkernel`` is accepted there too; converting once spares the binding a conversion per call)."""
    from cuda.bindings import driver

    kernel.bind()
    return driver.CUfunction(int(kernel._codelibrary.get_cufunc().handle))


def fast_path_blocker(dispatcher: Any, kernel: Any | None = None) -> str | None:
    """Why Numba's own launch path must handle this dispatcher (or kernel), or None."""
    if dispatcher.targetoptions.get("extensions"):
        return "it has argument-handling extensions"
    if getattr(dispatcher, "_launch_config_sensitive", False):
        return "it is launch-configuration sensitive"
    if kernel is not None:
        if kernel.debug:
            return "it is compiled with debug=True (the launch checks an exception flag)"
        if getattr(kernel, "launch_config_sensitive", False):
            return "it is launch-configuration sensitive"
    return None


def can_compile(dispatcher: Any) -> bool:
    """Whether a numba-cuda dispatcher may compile new signatures (none given at its definition)."""
    return bool(dispatcher._can_compile)


def launch_error(err: Any, what: str) -> Exception:
    from numba.cuda.cudadrv.driver import CudaAPIError

    return CudaAPIError(err, f"{what}: cuLaunchKernel failed with {getattr(err, 'name', err)}")
