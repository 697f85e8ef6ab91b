# SPDX-License-Identifier: Apache-2.0
"""CuTe kernel LLVM IR -> libNVVM LTO-IR -> nvJitLink with the coop bundle -> cubin."""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence

from cuda.coop._backend_api import CoopCompileError
from cuda.coop._backend_api import link as link_through_cache

_NVVM_VERSION = "!nvvmir.version = !{!90000}\n!90000 = !{i32 2, i32 0, i32 3, i32 2}\n"

# CuTe declares a kernel's static block size as `.reqntid` (exact); a CUDA C++ CUB kernel declares
# it with __launch_bounds__ (`.maxntid`, an upper bound). Under `.reqntid` ptxas if-converts CUB's
# warp-timesliced exchanges into predicated shared-memory traffic that runs at 0.60x (H200, 256 x 4
# copy; CUB's own kernel drops to 0.86x when given `.reqntid`), so the linked kernels declare
# `.maxntid` as CUB's do. CuTe's launcher always launches with the traced block size, so the bound
# is the same number.
_REQNTID, _MAXNTID = '"nvvm.reqntid"=', '"nvvm.maxntid"='

# ptxas allocates registers differently for a kernel whose name contains "cutlass" (case-sensitive),
# and CuTe names every kernel `kernel_cutlass_<function>_...`. Same PTX, only the name changed
# (sm_90a, ptxas 13.5): the row cumsum (BlockLoad warp_transpose, BlockScan with a prefix callback,
# BlockStore, 16 tiles in a loop) takes 81 registers at 512 x 8 named so, 64 named otherwise -- one
# block per SM instead of two -- and 73 / 56 at 256 x 8 (three blocks instead of four); it ran at
# 0.69x / 0.90x of the same kernel from Numba and from CUB C++, whose names do not have the word. So
# libNVVM, nvJitLink and ptxas see each kernel under its link name (the word respelled, same length)
# and the linked code gets the kernel's own name back, byte for byte, before anyone loads it.
_PTXAS_WORD, _LINK_WORD = "cutlass", "cvtlass"


def link_names(kernels: Sequence[str]) -> dict[str, str]:
    """The name each kernel is compiled and linked under (see ``_PTXAS_WORD``), by its own name."""
    return {k: k.replace(_PTXAS_WORD, _LINK_WORD) for k in kernels if _PTXAS_WORD in k}


def _renamed(text: str, names: dict[str, str]) -> str:
    for old, new in names.items():
        if new in text:
            raise CoopCompileError(
                f"cannot link kernel {old!r} under the name {new!r}: the CuTe module already has it"
            )
        text = text.replace(old, new)
    return text


def kernel_ltoir(
    llvm_ir: str, kernels: list[str], arch: str, options: Sequence[str] = (), libraries: Sequence[str] = ()
) -> bytes:
    """libNVVM (``-nvvm-latest -gen-lto``) of CuTe's device LLVM IR; the kernels are kept alive
    through ``@llvm.used`` (LTO would otherwise drop them), declare their block size as an upper
    bound, as CUB's kernels do (see ``_REQNTID``), and are named by :func:`link_names` (see
    ``_PTXAS_WORD``; :func:`link` gives them their names back). ``options`` are further libNVVM
    options; ``libraries`` are the bitcode files of the kernels' ``cute.extern`` functions (CuTe's
    ``link-libraries``, e.g. NVSHMEM's device library), added lazily as libdevice is: only what
    the kernels call is linked."""
    from cuda.bindings import nvvm

    names = link_names(kernels)
    used = ", ".join(f"ptr @{names.get(k, k)}" for k in kernels)
    text = (
        _renamed(llvm_ir, names).replace(_REQNTID, _MAXNTID)
        + f'\n@llvm.used = appending global [{len(kernels)} x ptr] [{used}], section "llvm.metadata"\n'
        + _NVVM_VERSION
    ).encode()
    prog = nvvm.create_program()
    try:
        nvvm.add_module_to_program(prog, text, len(text), "cute_kernels")
        if _LIBDEVICE_CALL in text:  # cute.math functions lower to libdevice calls
            libdevice = _libdevice()
            nvvm.lazy_add_module_to_program(prog, libdevice, len(libdevice), "libdevice")
        for path in libraries:
            library = _bitcode(path)
            nvvm.lazy_add_module_to_program(prog, library, len(library), os.path.basename(path))
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
    kernel: bytes,
    bundle: Sequence[bytes],
    arch: str,
    options: Sequence[str] = (),
    output: str = "cubin",
    kernels: Sequence[str] = (),
) -> bytes:
    """nvJitLink ``-lto -nvvm-latest -optimize-unused-variables`` and ``options`` (through the cache):
    the kernels with the bundle's objects inlined, as a cubin or PTX (``output``), each of ``kernels`` (the
    names given to :func:`kernel_ltoir`) under its own name again. (cuda.core's Linker cannot pass
    ``-nvvm-latest``, which CuTe's modern IR needs.)"""
    inputs = [("ltoir", kernel, "cute_kernels")]
    inputs += [("ltoir", obj, f"cuda_coop_bundle_{k}") for k, obj in enumerate(bundle)]
    opts = ["-nvvm-latest", "-optimize-unused-variables", *options]
    linked = link_through_cache(inputs, arch, options=opts, output=output)
    # Same length: the ELF's string tables (symbol and section names) keep their offsets.
    for old, new in link_names(kernels).items():
        linked = linked.replace(new.encode(), old.encode())
    return linked


_LIBDEVICE_CALL = b"@__nv_"


@functools.cache
def _libdevice() -> bytes:
    from cuda.pathfinder import find_bitcode_lib

    with open(find_bitcode_lib("device"), "rb") as f:
        return f.read()


@functools.lru_cache(maxsize=4)
def _bitcode(path: str) -> bytes:
    """A ``cute.extern`` bitcode library's bytes (NVSHMEM's is ~50 MB: read once per process)."""
    with open(path, "rb") as f:
        return f.read()
