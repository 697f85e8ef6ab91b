# SPDX-License-Identifier: Apache-2.0
"""Inspect a cubin without a GPU: functions, registers, shared memory (from the ELF) and the
SASS (from nvdisasm): calls, local-memory traffic, leftover provider symbols."""

from __future__ import annotations

import os
import re
import struct
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass

from ._errors import CoopError

_EIATTR_REGCOUNT = 0x2F
_EIATTR_FRAME_SIZE = 0x11
_EIATTR_MAX_THREADS = 0x05  # .maxntid (CUDA C++ __launch_bounds__)
_EIATTR_REQNTID = 0x10  # .reqntid
_TKINFO_ARCH = re.compile(rb"-arch[ =]sm_(\d+)([af]?)\b")
_PROVIDER = re.compile(r"coop_(block|warp|temp_storage|probe|op)_\w*")
# an instruction: its address comment, an optional predicate, the opcode with its modifiers
_OPCODE = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[T0-9]\s+)?([A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*)")
# ptxas's own subroutines of IEEE-rounded division, reciprocal and square root: the float32 slow
# paths (``$__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath``) and the float64 routines
# (``$__internal_0_$__cuda_sm20_div_rn_f64_full``), all named ``$__internal_N_$__cuda_smNN_...``
_INTERNAL_CALL = re.compile(r"\$__internal_\d+_\$__cuda_sm\w+")


@dataclass(frozen=True)
class CubinReport:
    """What a linked cubin contains.

    Attributes:
        size: bytes of the cubin.
        arch: the architecture it was built for, e.g. ``"sm_90a"`` (from the ELF header's flags; the
            ``a``/``f`` suffix from the ptxas command line recorded in the cubin, when present).
        functions: names of the functions with code (kernels and any non-inlined callee).
        registers: registers per thread, by function.
        shared_bytes: static shared memory, by function: the kernel's own, as the driver reports it
            (``cuFuncGetAttribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)``); at launch, sm_80 and later
            GPUs add 1 KiB per block that the system reserves.
        frame_bytes: per-thread stack frame (local memory), by function.
        thread_bounds: the block size each kernel declares to ptxas, by function:
            ``("maxntid", (x, y, z))`` (an upper bound, as CUDA C++ ``__launch_bounds__``) or
            ``("reqntid", (x, y, z))`` (the exact size); kernels that declare none are absent.
        calls: CALL instructions in the SASS, but for ``internal_calls``.
        internal_calls: CALLs of ptxas's own subroutines (``$__internal_N_$__cuda_sm...``: IEEE-rounded
            division, reciprocal and square root, the float32 slow paths and the float64 routines,
            which ptxas emits as subroutines in every kernel that divides, coop or not).
        local_loads: LDL (local-memory load) instructions in the SASS.
        local_stores: STL (local-memory store) instructions in the SASS.
        leftover_symbols: provider symbols still present (ELF symbols or SASS text).
        sass: the disassembly.
    """

    size: int
    arch: str
    functions: tuple[str, ...]
    registers: dict[str, int]
    shared_bytes: dict[str, int]
    frame_bytes: dict[str, int]
    thread_bounds: dict[str, tuple[str, tuple[int, int, int]]]
    calls: int
    internal_calls: int
    local_loads: int
    local_stores: int
    leftover_symbols: tuple[str, ...]
    sass: str

    def _bounds(self, function: str) -> str:
        if function not in self.thread_bounds:
            return ""
        kind, dims = self.thread_bounds[function]
        return f", {kind} {'x'.join(map(str, dims))}"

    def opcodes(self) -> dict[str, int]:
        """How many instructions of each opcode the SASS has, modifiers included (``"LDG.E.128"``,
        ``"STG.E.U16"``; predicated ones counted too), e.g. to check the width of loads and stores."""
        counts: dict[str, int] = {}
        for m in _OPCODE.finditer(self.sass):
            counts[m.group(1)] = counts.get(m.group(1), 0) + 1
        return dict(sorted(counts.items()))

    def summary(self) -> str:
        """One line per function: registers, shared memory, stack, and the inlining verdict."""
        lines = [f"cubin: {self.size} bytes for {self.arch}, {len(self.functions)} function(s)"]
        for f in self.functions:
            name = f if len(f) <= 60 else f[:57] + "..."
            lines.append(
                f"  {name}: {self.registers.get(f, '?')} registers, {self.shared_bytes.get(f, 0)} B "
                f"shared, {self.frame_bytes.get(f, 0)} B stack{self._bounds(f)}"
            )
        verdict = (
            "no provider call remains"
            if not (self.calls or self.leftover_symbols)
            else f"{self.calls} CALL, leftover symbols: {', '.join(self.leftover_symbols) or 'none'}"
        )
        if self.internal_calls:
            verdict += f" ({self.internal_calls} CALL of ptxas's own IEEE division/sqrt slow path)"
        lines.append(f"  SASS: {verdict}; {self.local_loads} LDL, {self.local_stores} STL")
        return "\n".join(lines)


def _sections(elf: bytes) -> list[tuple[str, int, bytes, int]]:
    """(name, type, data, link) of each section of a 64-bit little-endian ELF."""
    if elf[:4] != b"\x7fELF" or elf[4] != 2:
        raise CoopError("not a 64-bit ELF cubin")
    shoff = struct.unpack_from("<Q", elf, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    raw = []
    for i in range(shnum):
        name, typ, _flags, _addr, off, size, link = struct.unpack_from("<IIQQQQI", elf, shoff + i * shentsize)
        data = b"" if typ == 8 else elf[off : off + size]  # SHT_NOBITS has no bytes in the file
        raw.append((name, typ, data, link, size))
    strtab = raw[shstrndx][2]

    def cstr(tab: bytes, at: int) -> str:
        return tab[at : tab.index(b"\0", at)].decode()

    return [(cstr(strtab, n), t, d if t != 8 else b"\0" * s, link) for n, t, d, link, s in raw]


def _symbols(sections: list[tuple[str, int, bytes, int]]) -> list[str]:
    for _name, typ, data, link in sections:
        if typ == 2:  # SHT_SYMTAB
            strtab = sections[link][2]
            out = []
            for off in range(0, len(data), 24):
                st_name = struct.unpack_from("<I", data, off)[0]
                out.append(strtab[st_name : strtab.index(b"\0", st_name)].decode())
            return out
    return []


def _nv_info(data: bytes) -> list[tuple[int, bytes]]:
    """(attribute, value bytes) of an ``.nv.info`` section."""
    out, off = [], 0
    while off + 4 <= len(data):
        fmt, attr = data[off], data[off + 1]
        if fmt == 0x04:  # EIFMT_SVAL: u16 size, then the value
            size = struct.unpack_from("<H", data, off + 2)[0]
            out.append((attr, data[off + 4 : off + 4 + size]))
            off += 4 + size
        else:
            out.append((attr, data[off + 2 : off + 4]))
            off += 4
    return out


def nvdisasm_path() -> str | None:
    """nvdisasm from the ``nvidia-cuda-nvdisasm`` wheel or the CUDA toolkit, if installed."""
    try:
        from cuda.pathfinder import find_nvidia_binary_utility

        found = find_nvidia_binary_utility("nvdisasm")
        if found:
            return str(found)
    except ImportError:
        pass
    import shutil

    return shutil.which("nvdisasm")


def cubin_arch(cubin: bytes, sections: list[tuple[str, int, bytes, int]] | None = None) -> str:
    """The architecture a cubin was built for, e.g. ``"sm_90a"``.

    The SM number is in the ELF header's ``e_flags``: bits 8-15 in cubins of ELF ABI version 8 and
    later (CUDA 13: ``0x6005a04`` is sm_90), bits 0-7 before. The flags do not say ``a`` or ``f``;
    ptxas records its ``-arch`` in the ``.note.nv.tkinfo`` note, which gives the suffix.
    """
    sections = _sections(cubin) if sections is None else sections
    e_flags = struct.unpack_from("<I", cubin, 0x30)[0]
    sm = (e_flags >> 8) & 0xFF if cubin[8] >= 8 else e_flags & 0xFF
    for name, _t, data, _l in sections:
        if name == ".note.nv.tkinfo":
            m = _TKINFO_ARCH.search(data)
            if m and int(m.group(1)) == sm:
                return f"sm_{sm}{m.group(2).decode()}"
    return f"sm_{sm}"


def disassemble(cubin: bytes, flags: Sequence[str] = ("-c",)) -> str:
    """nvdisasm's output for ``cubin`` with ``flags`` (default: the SASS of the code sections).

    Raises:
        CoopError: no nvdisasm.
    """
    tool = nvdisasm_path()
    if tool is None:
        raise CoopError("nvdisasm not found: pip install nvidia-cuda-nvdisasm (or put it on PATH)")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "kernel.cubin")
        with open(path, "wb") as f:
            f.write(cubin)
        return subprocess.run([tool, *flags, path], check=True, capture_output=True, text=True).stdout


#: The shared memory the GPU reserves per block from sm_90 (cudaDevAttrReservedSharedMemoryPerBlock).
_RESERVED_SHARED = 1024


def inspect_cubin(cubin: bytes) -> CubinReport:
    """Read a cubin's resources from its ELF and disassemble it with nvdisasm."""
    sections = _sections(cubin)
    symbols = _symbols(sections)
    functions = tuple(n[len(".text.") :] for n, *_ in sections if n.startswith(".text."))
    registers: dict[str, int] = {}
    frames: dict[str, int] = {}
    bounds: dict[str, tuple[str, tuple[int, int, int]]] = {}
    for name, _t, data, _l in sections:
        function = name[len(".nv.info.") :] if name.startswith(".nv.info.") else None
        if name != ".nv.info" and function not in functions:
            continue
        for attr, value in _nv_info(data):
            if function is None and attr in (_EIATTR_REGCOUNT, _EIATTR_FRAME_SIZE) and len(value) == 8:
                sym, count = struct.unpack("<II", value)
                target = registers if attr == _EIATTR_REGCOUNT else frames
                target[symbols[sym]] = count
            if function and attr in (_EIATTR_MAX_THREADS, _EIATTR_REQNTID) and len(value) == 12:
                kind = "maxntid" if attr == _EIATTR_MAX_THREADS else "reqntid"
                bounds[function] = (kind, struct.unpack("<III", value))
    # From sm_90, ptxas lays the block's system-reserved window (1 KiB) out at the start of each
    # kernel's shared section when the cubin has a reserved-shared section; the driver reports the
    # kernel's own part (cuFuncGetAttribute SHARED_SIZE_BYTES), and so does this report.
    reserved = _RESERVED_SHARED if any(n.startswith(".nv.shared.reserved.") for n, *_ in sections) else 0
    shared = {
        f: max(0, sum(len(d) for n, _t, d, _l in sections if n == f".nv.shared.{f}") - reserved)
        for f in functions
    }
    sass = disassemble(cubin)
    code = [ln for ln in sass.splitlines() if "/*" in ln and ";" in ln]
    calls = [ln for ln in code if re.search(r"\bCALL\b", ln)]
    leftovers = sorted({m.group(0) for m in _PROVIDER.finditer(sass + "\n" + "\n".join(symbols))})
    return CubinReport(
        size=len(cubin),
        arch=cubin_arch(cubin, sections),
        functions=functions,
        registers=registers,
        shared_bytes=shared,
        frame_bytes=frames,
        thread_bounds=bounds,
        calls=sum(1 for ln in calls if not _INTERNAL_CALL.search(ln)),
        internal_calls=sum(1 for ln in calls if _INTERNAL_CALL.search(ln)),
        local_loads=sum(1 for ln in code if re.search(r"\bLDL(\.\w+)*\b", ln)),
        local_stores=sum(1 for ln in code if re.search(r"\bSTL(\.\w+)*\b", ln)),
        leftover_symbols=tuple(leftovers),
        sass=sass,
    )
