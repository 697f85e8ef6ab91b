# SPDX-License-Identifier: Apache-2.0
"""The options of ``numba.cuda.jit``, as ``cuda.coop.numba.jit`` and ``compile`` take them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cuda.coop._backend_api import CoopTypeError, CoopValueError

#: What numba-cuda 0.30's ``cuda.jit`` takes for a kernel, and what each does in a coop kernel.
JIT_OPTIONS: dict[str, str] = {
    "debug": "full debug info (cuda-gdb); use with opt=False",
    "opt": "NVVM optimisation (default True)",
    "lineinfo": "source-line info for profilers and compute-sanitizer",
    "fastmath": "fast-math code generation",
    "max_registers": "register cap per thread (a kernel given it gets no default launch bounds)",
    "launch_bounds": (
        "launch bounds: max threads, or (max threads, min blocks per SM); default: each "
        "specialisation's exact thread count"
    ),
    "forceinline": "force-inline device functions",
    "inline": "Numba IR inlining of device functions ('never' or 'always')",
    "link": "extra files (.cu, .ptx, .ltoir, .o, .a, .cubin, .fatbin) linked into the kernel",
    "cache": "cache compiled kernels on disk (per block shape)",
    "extensions": "argument-handling extensions of numba-cuda",
    "shared_memory_carveout": "L1 / shared memory split at launch",
    "lto": "link-time optimisation: always on (it inlines the primitives)",
}

#: Options that shape the code ``compile`` builds; the rest only matter to launches.
CODE_OPTIONS = (
    "debug",
    "opt",
    "lineinfo",
    "fastmath",
    "max_registers",
    "launch_bounds",
    "forceinline",
    "link",
)


def check_jit_options(options: Mapping[str, Any], *, what: str) -> None:
    """Raise a typed error, naming the option, for anything ``numba.cuda.jit`` would not take for a
    coop kernel."""
    for name in options:
        if name not in JIT_OPTIONS and name != "device":
            raise CoopTypeError(
                f"{what}: unknown option {name}=; numba.cuda.jit takes {', '.join(sorted(JIT_OPTIONS))}"
            )
    if options.get("device"):
        raise CoopTypeError(
            f"{what}: device=True is not supported: it compiles kernels; write device functions "
            "with numba.cuda.jit(device=True) (a coop operator may be one)"
        )
    if options.get("max_registers") and options.get("launch_bounds") is not None:
        raise CoopValueError(
            f"{what}: max_registers={options['max_registers']!r} has no effect on a kernel with "
            f"launch_bounds={options['launch_bounds']!r} (ptxas ignores the register cap of a function "
            "with launch bounds); pass max_registers alone, or launch_bounds=(threads, min_blocks) to "
            "have ptxas fit min_blocks blocks per SM"
        )
    if options.get("lto", True) is not True:
        raise CoopValueError(
            f"{what}: lto={options['lto']!r}: coop primitives are linked into the kernel by LTO, so lto "
            "is always on; leave it out"
        )


def check_compile_options(options: Mapping[str, Any]) -> None:
    """Raise a typed error for an option ``compile`` cannot honour."""
    check_jit_options(options, what="compile")
    if options.get("inline", "never") != "never":
        raise CoopTypeError(
            f"compile: inline={options['inline']!r} cannot be honoured ahead of time (numba-cuda's "
            "compile_all has no inline option); use forceinline=True, or jit launches"
        )
    for name in options:
        if name not in CODE_OPTIONS and name not in ("lto", "device", "inline"):
            raise CoopTypeError(
                f"compile: {name}= only matters when a kernel is launched ({JIT_OPTIONS[name]}); "
                f"compile takes {', '.join(CODE_OPTIONS)}"
            )


def code_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The options of a ``jit`` kernel that shape its code (what ``compile`` inherits)."""
    return {k: v for k, v in options.items() if k in CODE_OPTIONS or k == "inline"}


def link_options(options: Mapping[str, Any]) -> tuple[str, ...]:
    """The nvJitLink options a kernel compiled with ``options`` needs beyond numba-cuda's own.

    ``debug=True``: ``-g`` (DWARF for cuda-gdb) and ``-nvvm-latest`` (NVVM's ``-g -opt=0`` LTO-IR is
    readable only by nvJitLink's current NVVM).
    """
    return ("-g", "-nvvm-latest") if options.get("debug") else ()


def with_launch_bounds(options: Mapping[str, Any], threads: int) -> dict[str, Any]:
    """``options`` with coop's default ``launch_bounds``, the block's thread count (as a CUB kernel's
    ``__launch_bounds__``), unless they give ``launch_bounds`` or ``max_registers``: ptxas ignores a
    register cap on a function with launch bounds, so a kernel capped by ``max_registers`` gets none."""
    if "launch_bounds" in options or options.get("max_registers"):
        return dict(options)
    return {"launch_bounds": threads, **options}
