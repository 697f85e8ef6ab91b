# SPDX-License-Identifier: Apache-2.0
"""``cuda.coop.cutlass.compile``: a CuTe host function whose kernels call coop primitives, linked
with the kernel's CUB bundle by full LTO.

1. Trace and lower with ``llvm-only=true``; a post-compile hook takes the device module's LLVM IR.
   The trace records the kernel's requests (block dims from CuTe's launch facts).
2. The bundle: one translation unit, one NVRTC call (shared pipeline and disk cache).
3. libNVVM turns the kernel IR into LTO-IR; nvJitLink links it with the bundle: one cubin with the
   wrappers inlined.
4. Trace and compile again normally (ptxas accepting the unresolved externs); a post-compile hook
   swaps the device binary for the linked cubin. Names and parameters agree: same traced module.
``cute.compile`` never serves these compiles from its JIT cache (it always compiles).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from cuda.coop._errors import CoopBackendError, CoopError
from cuda.coop._sass import CubinReport, inspect_cubin
from cuda.coop._session import TraceSession, compiling

from . import _cute_hooks, _lto


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

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.compiled(*args, **kwargs)

    def inspect(self) -> CubinReport:
        """Registers, shared memory and SASS facts of the linked cubin."""
        return inspect_cubin(self.cubin)


def _causes(exc: BaseException) -> list[BaseException]:
    """``exc`` and every exception it was raised from or during (CuTe wraps user errors)."""
    seen: list[BaseException] = []
    stack = [exc]
    while stack:
        e = stack.pop()
        if any(e is x for x in seen):
            continue
        seen.append(e)
        stack += [x for x in (e.__cause__, e.__context__) if x is not None]
    return seen


def _compile_pass(
    host: Any, args: tuple[Any, ...], kwargs: dict[str, Any], option: Any, hook: Any, session: TraceSession
) -> Any:
    import cutlass.cute as cute

    dsl = _cute_hooks.dsl_of(host)
    try:
        with compiling(session=session), _cute_hooks.post_compile_hook(dsl, hook):
            return cute.compile[option](host, *args, **kwargs)
    except Exception as exc:
        causes = _causes(exc)
        coop = next((e for e in causes if isinstance(e, CoopError)), None)
        if coop is not None:
            raise coop from None
        if any(isinstance(e, _Captured) for e in causes):
            return None
        raise


def compile(host: Any, *args: Any, **kwargs: Any) -> CompiledCuteFunction:
    """Compile a ``@cute.jit`` function whose kernels call coop primitives, with the bundle linked.

    Takes what ``cute.compile(host, *args, **kwargs)`` takes, except ``options=`` strings (pass
    options with ``cute.compile``'s bracket form on your own compiles; this release does not merge
    them). Block dimensions come from each kernel's constant ``launch(block=...)``.

    Raises:
        CoopTypeError, CoopValueError, CoopLaunchConfigError: misuse, found while tracing.
        CoopCompileError: NVRTC, libNVVM or nvJitLink failed (with the log).
    """
    if "options" in kwargs:
        raise CoopBackendError("cuda.coop.cutlass.compile does not accept options= in this release")
    dsl = _cute_hooks.dsl_of(host)
    arch = _cute_hooks.target_arch(dsl)
    timings: dict[str, float] = {}
    captured: dict[str, Any] = {}

    def capture(module: Any) -> None:
        captured["ir"] = _cute_hooks.device_llvm_ir(module)
        raise _Captured()

    first = TraceSession()
    t0 = time.perf_counter()
    _compile_pass(host, args, kwargs, _cute_hooks.llvm_only_compile(), capture, first)
    timings["trace_and_lower"] = time.perf_counter() - t0
    if not first.requests:
        import cutlass.cute as cute

        plain = cute.compile(host, *args, **kwargs)  # no coop call: nothing to link
        return CompiledCuteFunction(plain, b"", arch, (), timings)
    if "ir" not in captured:
        raise CoopBackendError("CuTe did not hand over the device module (the DSL changed?)")
    llvm_ir, kernels = captured["ir"]

    from cuda.coop._stats import compile_stats

    before = compile_stats().nvrtc_seconds
    t0 = time.perf_counter()
    bundle = first.finalize(arch)
    timings["bundle"] = time.perf_counter() - t0
    timings["nvrtc"] = compile_stats().nvrtc_seconds - before
    t0 = time.perf_counter()
    kernel_ltoir = _lto.kernel_ltoir(llvm_ir, kernels, arch)
    timings["libnvvm"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    cubin = _lto.link(kernel_ltoir, bundle.ltoir, arch)
    timings["nvjitlink"] = time.perf_counter() - t0

    swapped: list[bool] = []

    def swap(module: Any) -> None:
        _cute_hooks.swap_device_binary(module, cubin)
        swapped.append(True)

    second = TraceSession()
    t0 = time.perf_counter()
    compiled = _compile_pass(host, args, kwargs, _cute_hooks.relocatable_ptxas(), swap, second)
    timings["cute_compile"] = time.perf_counter() - t0
    if not swapped or compiled is None:
        raise CoopBackendError(
            "CuTe compiled without running cuda.coop's post-compile hook (is CUTE_DSL_ENABLE_TVM_FFI "
            "set? it replaces the hook); the kernel would lack its CUB code"
        )
    if second.requests != first.requests:
        raise CoopBackendError("the two traces of the kernel made different coop requests")
    symbols = tuple(r.symbol for r in first.requests)
    return CompiledCuteFunction(compiled, cubin, arch, symbols, timings, dict(bundle.temp_storage))
