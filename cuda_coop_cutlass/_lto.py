# SPDX-License-Identifier: Apache-2.0
"""CuTe kernel LLVM IR -> libNVVM LTO-IR -> nvJitLink with the coop bundle -> cubin."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from cuda.coop import _link
from cuda.coop._errors import CoopCompileError

_NVVM_VERSION = "!nvvmir.version = !{!90000}\n!90000 = !{i32 2, i32 0, i32 3, i32 2}\n"

# CuTe declares a kernel's static block size as `.reqntid` (exact); a CUDA C++ CUB kernel declares
# it with __launch_bounds__ (`.maxntid`, an upper bound). Under `.reqntid` ptxas if-converts CUB's
# warp-timesliced exchanges into predicated shared-memory traffic that runs at 0.60x (H200, 256 x 4
# copy; CUB's own kernel drops to 0.86x when given `.reqntid`), so the linked kernels declare
# `.maxntid` as CUB's do. CuTe's launcher always launches with the traced block size, so the bound
# is the same number.
_REQNTID, _MAXNTID = '"nvvm.reqntid"=', '"nvvm.maxntid"='


def kernel_ltoir(llvm_ir: str, kernels: list[str], arch: str, options: Sequence[str] = ()) -> bytes:
    """libNVVM (``-nvvm-latest -gen-lto``) of CuTe's device LLVM IR; the kernels are kept alive
    through ``@llvm.used`` (LTO would otherwise drop them) and declare their block size as an upper
    bound, as CUB's kernels do (see ``_REQNTID``). ``options`` are further libNVVM options."""
    from cuda.bindings import nvvm

    used = ", ".join(f"ptr @{k}" for k in kernels)
    text = (
        llvm_ir.replace(_REQNTID, _MAXNTID)
        + f'\n@llvm.used = appending global [{len(kernels)} x ptr] [{used}], section "llvm.metadata"\n'
        + _NVVM_VERSION
    ).encode()
    prog = nvvm.create_program()
    try:
        nvvm.add_module_to_program(prog, text, len(text), "cute_kernels")
        if _LIBDEVICE_CALL in text:  # cute.math functions lower to libdevice calls
            libdevice = _libdevice()
            nvvm.lazy_add_module_to_program(prog, libdevice, len(libdevice), "libdevice")
        opts = [f"-arch=compute_{arch[3:]}", "-nvvm-latest", "-gen-lto", *options]
        try:
            nvvm.compile_program(prog, len(opts), opts)
        except nvvm.nvvmError as exc:
            log = bytearray(nvvm.get_program_log_size(prog))
            nvvm.get_program_log(prog, log)
            raise CoopCompileError(
                "libNVVM rejected the CuTe kernel's LLVM IR",
                log=log.decode(errors="replace"),
                source_path="<CuTe device module>",
            ) from exc
        out = bytearray(nvvm.get_compiled_result_size(prog))
        nvvm.get_compiled_result(prog, out)
        return bytes(out)
    finally:
        nvvm.destroy_program(prog)


def link(
    kernel: bytes, bundle: bytes, arch: str, options: Sequence[str] = (), output: str = "cubin"
) -> bytes:
    """nvJitLink ``-lto -nvvm-latest -optimize-unused-variables`` and ``options`` (through the cache):
    the kernels with the bundle inlined, as a cubin or PTX (``output``). (cuda.core's Linker cannot
    pass ``-nvvm-latest``, which CuTe's modern IR needs.)"""
    inputs = [("ltoir", kernel, "cute_kernels"), ("ltoir", bundle, "cuda_coop_bundle")]
    opts = ["-nvvm-latest", "-optimize-unused-variables", *options]
    return _link.link(inputs, arch, options=opts, output=output)


_LIBDEVICE_CALL = b"@__nv_"


@functools.cache
def _libdevice() -> bytes:
    from cuda.pathfinder import find_bitcode_lib

    with open(find_bitcode_lib("device"), "rb") as f:
        return f.read()
