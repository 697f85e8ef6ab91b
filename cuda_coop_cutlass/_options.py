# SPDX-License-Identifier: Apache-2.0
"""``cute.compile`` options through the bridge's two passes: each one works or is refused by name.

The linked cubin replaces what CuTe's own device back end built, so options that shape device code
are carried to libNVVM and nvJitLink; options of tracing, host code and diagnostics go to CuTe
unchanged; artifact dumps are rewritten from the linked cubin. Options that cannot hold for a
kernel linked with its CUB bundle raise :class:`~cuda.coop.CoopValueError` naming them.
"""

from __future__ import annotations

import copy
import os
import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from cuda.coop._backend_api import CoopTypeError, CoopValueError

from . import _arch, _cute_hooks

#: Options that go to CuTe unchanged: they act on tracing, host code or CuTe's diagnostics.
PASSED = frozenset(
    {
        "EnablePYIR",
        "FrontendNext",
        "DisableCuteExtCompile",
        "EnableAssertions",
        "HostTarget",
        "RemarkFilter",
        "WarningsFilter",
        "RemarkOutput",
        "CollectCompilerDiagnostics",
        "FlattenLocsOutputJsonPath",
        "DumpDir",
        "NvdisasmOptions",
        "EnableTVMFFI",  # host code: the TVM-FFI entry calls the kernels of the linked cubin
    }
)
#: Options carried to the bridge's own device steps (and to CuTe too).
MAPPED = frozenset({"OptLevel", "GenerateLineInfo", "PtxasOptions", "GPUArch", "ExtraCompilerOpts"})
#: Dumps of device code, written again from the linked cubin.
_KEEP = {"KeepCUBIN": "cubin", "KeepPTX": "ptx", "KeepSASS": "sass"}
DUMPS = frozenset(_KEEP)
#: Options refused, and why.
REFUSED = {
    "RDC": "the bridge links each kernel with its CUB bundle into an executable cubin; relocatable "
    "device code (ptxas -c) cannot be produced from it",
    "DeviceTarget": "a @cute.jit compiled as a device function has no kernel to link the CUB bundle "
    "into; compile the host function that launches the kernels",
    "LinkLibraries": "CuTe links these into the binary the bridge replaces; link your device code "
    "into the kernel another way (e.g. cute.ffi to an extern defined in the kernel's module)",
}
#: Raw pipeline flags (ExtraCompilerOpts, CUTE_DSL_COMPILER_OPT) the bridge sets itself.
_OWN_FLAGS = ("llvm-only", "link-libraries", "cubin-format", "cubin-chip")


@dataclass
class Plan:
    """What the options ask of each step.

    Attributes:
        base: the user's CuTe ``CompileOptions`` (string and bracket forms merged).
        arch: the target architecture (see :func:`cuda_coop_cutlass._arch.resolve`).
        nvvm: extra libNVVM options; link: extra nvJitLink options.
        dumps: which of ``"cubin"``, ``"ptx"``, ``"sass"`` to write again from the linked kernel.
    """

    base: Any
    arch: str
    nvvm: list[str] = field(default_factory=list)
    link: list[str] = field(default_factory=list)
    dumps: set[str] = field(default_factory=set)


def _values(options: Any) -> dict[str, Any]:
    """Non-default option values by class name."""
    return {cls.__name__: opt.value for cls, opt in options.options.items() if opt.value != cls._default}


def _ptxas_tokens(value: str) -> list[str]:
    text = value.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]
    return shlex.split(text)


def compile_options(bracket: Any, options: Any) -> Any:
    """CuTe's ``CompileOptions`` for ``cute.compile[bracket](..., options=options)``, the two forms
    merged (where both set an option, the string wins).

    Raises:
        CoopTypeError: a bracket entry is not a CuTe compile option, or ``options`` not a string.
        CoopValueError: the options string is malformed (CuTe's message included).
    """
    try:
        merged = _cute_hooks.bracket_options(bracket)
    except Exception as exc:
        raise CoopTypeError(
            f"cuda.coop.cutlass.compile[{bracket!r}]: each entry must be a cute.compile option (an "
            f"instance or class such as cute.GenerateLineInfo); CuTe says: {_first_line(exc)}"
        ) from None
    if options is None or options == "":
        return merged
    if not isinstance(options, str):
        raise CoopTypeError(
            f"options= must be a string as cute.compile takes it (e.g. '--opt-level 2'), got {options!r}; "
            "pass option objects as cuda.coop.cutlass.compile[option, ...](host, *args)"
        )
    try:
        parsed = _cute_hooks.parse_options(options)
    except Exception as exc:
        raise CoopValueError(f"options={options!r} is malformed: {_first_line(exc)}") from None
    return _cute_hooks.merge_options(merged, parsed)


def _first_line(exc: BaseException) -> str:
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc)).strip()
    return next((ln.strip() for ln in text.splitlines() if ln.strip()), type(exc).__name__)


def plan(bracket: Any, options: Any, arch: object, dsl: Any) -> Plan:
    """Check every option given (bracket form, ``options=`` string and the DSL's environment
    variables), resolve the architecture and say what each step needs.

    Raises:
        CoopTypeError, CoopValueError: a malformed options string, an unknown or refused option, a
            bad architecture or none at all.
    """
    base = compile_options(bracket, options)
    effective = copy.deepcopy(base)
    _cute_hooks.apply_environment(effective, dsl)
    values = _values(effective)
    out = Plan(base, _arch.resolve(arch, str(values.get("GPUArch", ""))))
    for name, value in values.items():
        if name in REFUSED:
            raise CoopValueError(
                f"cute.compile option {name}: not supported by cuda.coop.cutlass.compile: {REFUSED[name]}"
            )
        if name not in PASSED | MAPPED | DUMPS:
            raise CoopValueError(
                f"cute.compile option {name}={value!r} is unknown to cuda.coop.cutlass.compile (a newer "
                "nvidia-cutlass-dsl?); compile without it"
            )
    extra = str(values.get("ExtraCompilerOpts", ""))
    for flag in _OWN_FLAGS:
        if f"{flag}=" in extra:
            raise CoopValueError(
                f"cute.compile pipeline option {flag}= (in the options or CUTE_DSL_COMPILER_OPT) is set by "
                "cuda.coop.cutlass.compile itself; remove it"
            )
    if values.get("OptLevel") == 0:  # libNVVM and nvJitLink take 0 or 3; 1-3 keep their default, 3
        out.nvvm.append("-opt=0")
        out.link.append("-O0")
    if values.get("GenerateLineInfo"):
        out.nvvm.append("-generate-line-info")
        out.link.append("-lineinfo")
    ptxas = values.get("PtxasOptions")
    if ptxas:
        out.link += [f"-Xptxas={t}" for t in _ptxas_tokens(str(ptxas))]
    out.dumps = {kind for name, kind in _KEEP.items() if values.get(name)}
    return out


def first_pass(p: Plan, arch: str) -> Any:
    """CuTe options of the first pass: the user's, lowering stopped at LLVM, no dumps, no TVM-FFI
    entry (only the device module is taken from this pass)."""
    opts = copy.deepcopy(p.base)
    _cute_hooks.set_option(opts, "GPUArch", arch)
    _cute_hooks.set_option(opts, "EnableTVMFFI", False)
    _cute_hooks.add_pipeline_flag(opts, "llvm-only=true")
    for name in DUMPS:
        _cute_hooks.set_option(opts, name, False)
    return opts


def plain_pass(p: Plan, arch: str) -> Any:
    """CuTe options of a compile with nothing to link: the user's, for ``arch``."""
    opts = copy.deepcopy(p.base)
    _cute_hooks.set_option(opts, "GPUArch", arch)
    return opts


def second_pass(p: Plan, arch: str) -> Any:
    """CuTe options of the second pass: the user's, with ptxas accepting the unresolved wrappers;
    no dumps (CuTe's would show its kernel without the CUB code: :func:`write_dumps` writes them)."""
    opts = copy.deepcopy(p.base)
    for name in DUMPS:
        _cute_hooks.set_option(opts, name, False)
    _cute_hooks.set_option(opts, "GPUArch", arch)
    ptxas = _ptxas_tokens(str(opts.options[_cute_hooks.option_class("PtxasOptions")].value or ""))
    _cute_hooks.set_option(opts, "PtxasOptions", shlex.join([*ptxas, "-c"]))
    return opts


def write_dumps(p: Plan, dsl: Any, compiled: Any, cubin: bytes, ptx: Any) -> dict[str, Any]:
    """Write the linked kernel where CuTe would have dumped its own (``ptx()`` links the PTX on
    demand). Returns the artifacts by kind."""
    effective = copy.deepcopy(p.base)
    _cute_hooks.apply_environment(effective, dsl)
    out: dict[str, Any] = {}
    for kind in sorted(p.dumps):
        path = _cute_hooks.dump_path(effective, dsl, compiled, p.arch, kind)
        if kind == "cubin":
            data = cubin
        elif kind == "ptx":
            data = ptx()
        else:
            flags = str(effective.options[_cute_hooks.option_class("NvdisasmOptions")].value)
            data = _sass(cubin, flags)
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        out[kind] = data if kind == "cubin" else data.decode(errors="replace")
    return out


def _sass(cubin: bytes, flags: str) -> bytes:
    from cuda.coop._backend_api import disassemble

    return disassemble(cubin, shlex.split(flags)).encode()
