# SPDX-License-Identifier: Apache-2.0
"""``cuda.coop.cutlass.compile``: a CuTe host function whose kernels call coop primitives, linked
with the kernel's CUB bundle by full LTO.

1. Trace and lower with ``llvm-only=true``; a post-compile hook takes the device module's LLVM IR.
   The trace records the kernel's requests (block dims from CuTe's launch facts).
2. The bundle: one translation unit, one NVRTC call (shared pipeline and disk cache).
3. libNVVM turns the kernel IR into LTO-IR; nvJitLink links it with the bundle: one cubin with the
   wrappers inlined. Both see each kernel under a name without "cutlass" (ptxas allocates such
   kernels' registers differently; see ``_lto``); the cubin gets the kernel's own name back.
4. Trace and compile again normally (ptxas accepting the unresolved externs); a post-compile hook
   swaps the device binary for the linked cubin. Names and parameters agree: same traced module.
``cute.compile`` never serves these compiles from its JIT cache (it always compiles).
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cuda.coop._backend_api import (
    CoopBackendError,
    CoopError,
    CoopTypeError,
    CoopValueError,
    CubinReport,
    TraceSession,
    causes,
    compiling,
    inspect_cubin,
    nvshmem_library_init,
    prefetch_bundles,
    short_traceback,
    side_by_side,
)

from . import _args, _cute_hooks, _lto, _options
from ._launch import PreparedLaunch


class _Captured(Exception):
    """Stops the first compile once the device LLVM IR is in hand."""


@dataclass
class CompiledCuteFunction:
    """A CuTe compiled function whose kernels have their coop bundle linked in.

    Call it like CuTe's compiled function.

    Attributes:
        compiled: CuTe's own compiled function object.
        cubin: the linked device code (what replaced CuTe's binary).
        arch: the target architecture.
        symbols: the bundle's wrapper symbols, all inlined into the kernels.
        temp_storage: exact ``(size, alignment)`` of each CUB ``TempStorage`` in the bundle, by
            wrapper symbol (from the bundle's own sizeof/alignof probes).
        timings: seconds per stage: trace+lower (first pass), nvrtc, libnvvm, nvjitlink, and the
            second CuTe compile.
    """

    compiled: Any
    cubin: bytes
    arch: str
    symbols: tuple[str, ...]
    timings: dict[str, float] = field(default_factory=dict)
    temp_storage: dict[str, tuple[int, int]] = field(default_factory=dict)
    _specs: dict[str, Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._names = [n for n, _a in _cute_hooks.runtime_parameters(self.compiled)] if self._specs else []
        self._local = threading.local()  # this thread's call state

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Launch as CuTe's compiled function does; torch tensors, CuPy arrays and other DLPack
        arrays are accepted for tensor parameters (converted to the CuTe tensor compiled for and
        checked against it: element type, rank, static extents, alignment).

        Each thread launches through a call state of its own (a :class:`PreparedLaunch` made at its
        first call, keeping none of the arguments): a call writes each argument into its C slot and
        calls CuTe's host entry. A torch tensor, CuPy array or other DLPack array like one passed
        before (type, dtype, shape, strides, device) costs a few attribute reads; an array of a new
        layout is converted and checked once (``from_dlpack``), its descriptor copied. Functions
        whose calls CuTe must see itself (TVM-FFI, an argument passed as the object it is, a
        specialization record, workspace arguments) are called through CuTe's own call, each
        argument converted."""
        try:
            state = self._local.state
        except AttributeError:
            return self._first_call(args, kwargs)
        if state is None:
            return self._cute_call(args, kwargs)
        return state.call(args, kwargs)

    def _first_call(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """This thread's first call: make its call state (or find that CuTe's call must be used)."""
        state = self._call_state(args, kwargs)
        self._local.state = state
        if state is None:
            return self._cute_call(args, kwargs)
        return state.call(args, kwargs)

    def _call_state(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> PreparedLaunch | None:
        """A call state for these arguments, or None where CuTe's own call must be used."""
        compiled = self.compiled
        if (
            not _cute_hooks.has_engine(compiled)
            or _cute_hooks.is_tvm_ffi(compiled)
            or not _cute_hooks.plain_reentry(compiled)
        ):
            return None
        try:
            state = PreparedLaunch(compiled, self._specs, args, kwargs)  # raises for wrong arguments
        except CoopBackendError:  # arguments CuTe marshals in a way the state does not know
            return None
        if not state.rewritable or not _cute_hooks.is_context_free(state._executor):
            return None
        state.forget()
        return state

    def _cute_call(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """CuTe's own call, DLPack arrays, addresses and streams converted first."""
        if self._specs:
            args, kwargs = _args.convert(self._specs, self._names, args, kwargs)
        try:
            return self.compiled(*args, **kwargs)
        except Exception as exc:
            if not _cute_hooks.has_engine(self.compiled):
                _cute_hooks.executor(self.compiled)  # raises the typed error
            raise exc

    def prepare(self, *args: Any, **kwargs: Any) -> PreparedLaunch:
        """Bind, check and marshal the arguments once; ``launch(*new_args)`` then rewrites only the
        argument slots (tensors' data pointers, pointers, scalars, streams) and launches. See
        :class:`PreparedLaunch` (one per thread)."""
        if self.tvm_ffi:
            raise CoopValueError(
                "prepare(): this function was compiled with TVM-FFI, whose entry takes torch tensors and "
                "streams itself at TVM-FFI's cost; call it directly (compiled(*args))"
            )
        return PreparedLaunch(self.compiled, self._specs, args, kwargs)

    @property
    def tvm_ffi(self) -> bool:
        """Compiled with ``--enable-tvm-ffi`` (``cute.EnableTVMFFI``): calls go straight to TVM-FFI's
        entry, which takes torch tensors (and any DLPack tensor) as they are."""
        return _cute_hooks.is_tvm_ffi(self.compiled)

    def inspect(self) -> CubinReport:
        """Registers, shared memory and SASS facts of the linked cubin."""
        return inspect_cubin(self.cubin)

    def nvshmem_init(self) -> Any:
        """Run NVSHMEM's module initialisation on this function's device code (loaded now if it is
        not yet), as nvshmem4py's ``cute_compile_helper`` does after ``cute.compile``: kernels that call
        nvshmem4py's CuTe device API (``nvshmem.core.device.cute``) need it after
        ``nvshmem.core.init`` and before their first launch.

        Returns:
            nvshmem4py's kernel object, for ``nvshmem.core.library_finalize`` once the launches are done.

        Raises:
            CoopBackendError: nvshmem4py is not installed (the message names the extra,
                ``pip install 'cuda-coop[nvshmem]'``), or CuTe loaded no device code.
        """
        return nvshmem_library_init(lambda: _cute_hooks.loaded_library(self.compiled))


def _compile_pass(
    host: Any, args: tuple[Any, ...], kwargs: dict[str, Any], options: Any, hook: Any, session: TraceSession
) -> Any:
    dsl = _cute_hooks.dsl_of(host)
    try:
        with compiling(session=session), _cute_hooks.post_compile_hook(dsl, hook):
            return _cute_hooks.compile_with(options)(host, *args, **kwargs)
    except Exception as exc:
        chain = causes(exc)
        coop = next((e for e in chain if isinstance(e, CoopError)), None)
        if coop is not None:
            raise coop from None
        if any(isinstance(e, _Captured) for e in chain):
            return None
        raise


#: The CuTe DSL compiles one function at a time per process: its tracing state is global (four threads
#: calling ``cute.compile`` at once abort the process), so :data:`compile` holds this lock while it
#: traces, links and compiles.
_COMPILE_LOCK = threading.RLock()


class _Compile:
    """Compile a ``@cute.jit`` function whose kernels call coop primitives, with the bundle linked.

    ``cuda.coop.cutlass.compile(host, *args, **kwargs)`` takes what ``cute.compile`` takes: the
    function, its (fake or real) arguments, ``options="..."`` (CuTe's option string) and, in the
    bracket form ``cuda.coop.cutlass.compile[cute.GenerateLineInfo, cute.OptLevel(2)](host, *args)``,
    CuTe's option objects. Each option either works or raises ``CoopValueError`` naming it (see the
    CUTLASS backend page). Block dimensions come from each kernel's constant ``launch(block=...)``.

    Args:
        host: the ``@cute.jit`` function that launches the kernels.
        *args: its arguments, as for ``cute.compile``.
        arch: the target, e.g. ``"sm_90a"``. Default: the ``--gpu-arch`` option, else
            ``CUTE_DSL_ARCH``, else the current GPU's.
        options: CuTe's options string, e.g. ``"--opt-level 2 --generate-line-info"``.
        **kwargs: keyword arguments of ``host``, and ``cute.compile``'s own
            (``trace_finalize_hooks=``, which then run on both traces).

    Threads may call it at once: the CuTe DSL compiles one function at a time in a process, so the
    calls run one after another (for compiles in parallel, use processes).

    Raises:
        CoopTypeError, CoopValueError, CoopLaunchConfigError: misuse, found while tracing; a bad
            ``arch``, none with no GPU, a refused or malformed option.
        CoopCompileError: NVRTC, libNVVM or nvJitLink failed (with the log).
    """

    def __init__(self, bracket: Any = None) -> None:
        self._bracket = bracket

    def __getitem__(self, options: Any) -> _Compile:
        return _Compile(options)

    def __call__(
        self, host: Any, *args: Any, arch: str | None = None, options: str | None = None, **kwargs: Any
    ) -> CompiledCuteFunction:
        with _COMPILE_LOCK, short_traceback():
            return _compile(host, args, kwargs, self._bracket, options, arch)

    def many(
        self,
        jobs: Iterable[Sequence[Any] | Mapping[str, Any]],
        *,
        arch: str | None = None,
        options: str | None = None,
        processes: int | None = None,
    ) -> list[CompiledCuteFunction]:
        """Compile several host functions, the CUB code new to the cache in parallel processes:
        :data:`compile` of each, but every function is traced first, then the units of requests the
        cache lacks are compiled by worker processes (as :func:`cuda.coop.numba.compile_many` does),
        then the functions' kernels are linked with their bundles side by side (threads, link worker
        processes), then CuTe compiles each function again with its linked cubin, one after the
        other. With a cache directory only (where the workers leave the units); without
        one, each function compiles its own.

        ``cuda.coop.cutlass.compile_many`` is this method of :data:`compile`; the bracket form's
        options hold for every job: ``compile[cute.OptLevel(2)].many(jobs)``.

        Args:
            jobs: each a tuple ``(host, *args)`` or a mapping with ``"host"`` and any of ``"args"``
                (a tuple), ``"kwargs"`` (a dict), ``"arch"`` and ``"options"`` (overriding the
                arguments below for that job).
            arch: as :data:`compile`'s, for every job that names none.
            options: CuTe's options string, for every job that names none.
            processes: worker processes for the units, and links at once (default: one per CPU).

        Returns:
            A :class:`CompiledCuteFunction` for each job, in order.

        Raises:
            CoopTypeError: a job that is neither a non-empty tuple nor a mapping with ``"host"``, or a
                mapping with a key it does not take (named).
            CoopError: what :data:`compile` raises, for the first job that fails.
        """
        with _COMPILE_LOCK, short_traceback():
            parsed = [_job(k, job, arch, options) for k, job in enumerate(jobs)]
            traced = [_trace(h, a, kw, self._bracket, o, ar) for h, a, kw, ar, o in parsed]
            pending = [t for t in traced if isinstance(t, _Traced)]
            for target in dict.fromkeys(t.plan.arch for t in pending):
                sessions = [t.session.requests for t in pending if t.plan.arch == target]
                prefetch_bundles(sessions, target, processes)
            linked = iter(side_by_side(_linked, pending, processes))  # in the order of `pending`
            return [t if not isinstance(t, _Traced) else _second_pass(t, next(linked)) for t in traced]

    def __repr__(self) -> str:
        return "cuda.coop.cutlass.compile" + (f"[{self._bracket!r}]" if self._bracket is not None else "")


_JOB_KEYS = ("host", "args", "kwargs", "arch", "options")


def _job(
    k: int, job: Any, arch: str | None, options: str | None
) -> tuple[Any, tuple[Any, ...], dict[str, Any], str | None, str | None]:
    """One job of :meth:`_Compile.many` as (host, args, kwargs, arch, options)."""
    if isinstance(job, Mapping):
        unknown = [key for key in job if key not in _JOB_KEYS]
        if unknown or "host" not in job:
            what = f"takes no key {unknown[0]!r}" if unknown else "lacks 'host'"
            raise CoopTypeError(
                f"compile_many: job {k} {what}; a job is a mapping with 'host' and any of 'args' (a "
                "tuple), 'kwargs', 'arch', 'options', or a tuple (host, *args)"
            )
        return (
            job["host"],
            tuple(job.get("args", ())),
            dict(job.get("kwargs", {})),
            job.get("arch", arch),
            job.get("options", options),
        )
    if isinstance(job, Sequence) and not isinstance(job, str) and len(job) > 0:
        return job[0], tuple(job[1:]), {}, arch, options
    raise CoopTypeError(
        f"compile_many: job {k} is a {type(job).__name__}; a job is a tuple (host, *args) or a mapping "
        "with 'host' and any of 'args', 'kwargs', 'arch', 'options'"
    )


compile = _Compile()
compile.__doc__ = _Compile.__doc__
compile_many = compile.many


def _compile(
    host: Any, args: tuple[Any, ...], kwargs: dict[str, Any], bracket: Any, options: Any, arch_arg: Any
) -> CompiledCuteFunction:
    traced = _trace(host, args, kwargs, bracket, options, arch_arg)
    return traced if isinstance(traced, CompiledCuteFunction) else _finish(traced)


@dataclass
class _Traced:
    """A host function after its first pass: its kernels' device LLVM IR and their coop requests,
    the bundle not compiled yet."""

    host: Any
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    plan: Any
    session: TraceSession
    llvm_ir: Any
    kernels: Any
    timings: dict[str, float]
    libraries: tuple[str, ...] = ()  # bitcode of the kernels' cute.extern calls (e.g. NVSHMEM's)


def _trace(
    host: Any, args: tuple[Any, ...], kwargs: dict[str, Any], bracket: Any, options: Any, arch_arg: Any
) -> _Traced | CompiledCuteFunction:
    """The first pass (trace, lower, take the device IR); a function without coop calls is compiled
    plainly and returned as it is."""
    dsl = _cute_hooks.dsl_of(host)
    plan = _options.plan(bracket, options, arch_arg, dsl)
    arch = plan.arch
    timings: dict[str, float] = {}
    captured: dict[str, Any] = {}

    def capture(module: Any) -> None:
        captured["ir"] = _cute_hooks.device_llvm_ir(module)
        captured["libraries"] = _cute_hooks.device_link_libraries(module)
        raise _Captured()

    first = TraceSession()
    t0 = time.perf_counter()
    _compile_pass(host, args, kwargs, _options.first_pass(plan, arch), capture, first)
    timings["trace_and_lower"] = time.perf_counter() - t0
    if not first.requests:
        plain = _cute_hooks.compile_with(_options.plain_pass(plan, arch))(host, *args, **kwargs)
        specs = _args.specs_for(plain, args, kwargs)
        return CompiledCuteFunction(plain, b"", arch, (), timings, _specs=specs)  # nothing to link
    if "ir" not in captured:
        raise CoopBackendError("CuTe did not hand over the device module (the DSL changed?)")
    llvm_ir, kernels = captured["ir"]
    return _Traced(host, args, kwargs, plan, first, llvm_ir, kernels, timings, captured["libraries"])


def _finish(traced: _Traced) -> CompiledCuteFunction:
    """The bundle linked into the kernels, and the second pass with the linked cubin swapped in."""
    return _second_pass(traced, _linked(traced))


@dataclass
class _Linked:
    bundle: Any
    kernel_ltoir: bytes
    cubin: bytes


def _linked(traced: _Traced) -> _Linked:
    """The bundle (compiled, or read back from the cache) and the kernels' LTO-IR linked with it:
    no CuTe call, so threads may run it side by side (``compile_many``)."""
    plan, first, arch, timings, kernels = (
        traced.plan,
        traced.session,
        traced.plan.arch,
        traced.timings,
        traced.kernels,
    )
    from cuda.coop._backend_api import compile_stats

    before = compile_stats().nvrtc_seconds
    t0 = time.perf_counter()
    bundle = first.finalize(arch)
    timings["bundle"] = time.perf_counter() - t0
    timings["nvrtc"] = compile_stats().nvrtc_seconds - before
    t0 = time.perf_counter()
    kernel_ltoir = _lto.kernel_ltoir(traced.llvm_ir, kernels, arch, plan.nvvm, traced.libraries)
    timings["libnvvm"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    cubin = _lto.link(kernel_ltoir, bundle.objects, arch, plan.link, kernels=kernels)
    timings["nvjitlink"] = time.perf_counter() - t0
    return _Linked(bundle, kernel_ltoir, cubin)


def _second_pass(traced: _Traced, linked: _Linked) -> CompiledCuteFunction:
    host, args, kwargs, plan, first = traced.host, traced.args, traced.kwargs, traced.plan, traced.session
    arch, timings, kernels = plan.arch, traced.timings, traced.kernels
    bundle, kernel_ltoir, cubin = linked.bundle, linked.kernel_ltoir, linked.cubin
    dsl = _cute_hooks.dsl_of(host)
    swapped: list[bool] = []

    def swap(module: Any) -> None:
        _cute_hooks.swap_device_binary(module, cubin)
        swapped.append(True)

    second = TraceSession()
    used = _options.second_pass(plan, arch)
    t0 = time.perf_counter()
    compiled = _compile_pass(host, args, kwargs, used, swap, second)
    timings["cute_compile"] = time.perf_counter() - t0
    if not swapped or compiled is None:
        raise CoopBackendError(
            "CuTe compiled without running cuda.coop's post-compile hook (the DSL changed?); the kernel "
            "would lack its CUB code"
        )
    if second.requests != first.requests:
        raise CoopBackendError("the two traces of the kernel made different coop requests")
    if plan.dumps:
        ptx = functools.partial(_lto.link, kernel_ltoir, bundle.objects, arch, plan.link, "ptx", kernels)
        _cute_hooks.set_artifacts(compiled, _options.write_dumps(plan, dsl, compiled, cubin, ptx))
    symbols = tuple(r.symbol for r in first.requests)
    specs = _args.specs_for(compiled, args, kwargs)
    return CompiledCuteFunction(compiled, cubin, arch, symbols, timings, dict(bundle.temp_storage), specs)
