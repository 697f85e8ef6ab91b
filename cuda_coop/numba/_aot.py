# SPDX-License-Identifier: Apache-2.0
"""Ahead-of-time compile of a Numba kernel with its coop bundle, on a machine without a GPU."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cuda.coop._bundle import normalize_arch
from cuda.coop._errors import CoopValueError
from cuda.coop._link import Input, link
from cuda.coop._primitive import normalize_block_dims
from cuda.coop._sass import CubinReport, inspect_cubin
from cuda.coop._session import compiling

from ._lowering import LazyBundle
from ._prescan import prescan

_OUTPUTS = ("cubin", "ptx", "ltoir")


@dataclass(frozen=True)
class CompiledKernel:
    """The result of :func:`compile`.

    Attributes:
        code: the linked cubin (``output="cubin"``), the linked PTX text as bytes (``"ptx"``),
            or the kernel's own LTO-IR (``"ltoir"``; link it with ``bundle_ltoir``).
        output: which of the three ``code`` is.
        arch: the target, e.g. ``"sm_90a"``.
        block: the block dimensions the coop primitives were specialised for.
        bundle_ltoir: the kernel's CUB bundle as LTO-IR (empty if the kernel uses no primitive).
        temp_storage: exact ``(size, alignment)`` of each CUB ``TempStorage`` in the bundle, by
            wrapper symbol (from the bundle's own sizeof/alignof probes).
    """

    code: bytes
    output: str
    arch: str
    block: tuple[int, int, int]
    bundle_ltoir: bytes
    temp_storage: dict[str, tuple[int, int]]

    def inspect(self) -> CubinReport:
        """Registers, shared memory and SASS facts of the cubin (``output="cubin"`` only)."""
        if self.output != "cubin":
            raise CoopValueError(f"inspect() needs output='cubin', this is {self.output!r}")
        return inspect_cubin(self.code)


def _cc(arch: str) -> tuple[Any, ...]:
    digits = arch[3:].rstrip("af")
    suffix = arch[3 + len(digits) :]
    cc: tuple[Any, ...] = (int(digits[:-1]), int(digits[-1]))
    return cc + (suffix,) if suffix else cc


def compile(
    func: Callable[..., None] | Any,
    signature: Any,
    *,
    block: int | tuple[int, ...],
    arch: str = "sm_90a",
    output: str = "cubin",
    **options: Any,
) -> CompiledKernel:
    """Compile a kernel and link its coop bundle for ``arch``, without needing a GPU.

    Args:
        func: the kernel: a Python function, a ``cuda.coop.numba.jit`` kernel or a Numba
            dispatcher.
        signature: its Numba signature, e.g. ``"void(int32[::1], int32[::1])"``.
        block: the block dimensions it will be launched with.
        arch: target architecture, e.g. ``"sm_90a"`` or ``"sm_90"``.
        output: ``"cubin"`` (linked, default), ``"ptx"`` (linked) or ``"ltoir"`` (unlinked).
        **options: passed to ``numba.cuda.compile_all`` (e.g. ``fastmath=True``); unless given,
            ``launch_bounds`` is the block's thread count.

    Returns:
        A :class:`CompiledKernel`.
    """
    from numba import cuda

    if output not in _OUTPUTS:
        raise CoopValueError(f"output={output!r} is not one of {', '.join(_OUTPUTS)}")
    arch = normalize_arch(arch)
    dims = normalize_block_dims(block, what="compile: block")
    py_func = getattr(func, "py_func", func)
    prescan(py_func)
    with compiling(dims, arch):
        options.setdefault("launch_bounds", dims[0] * dims[1] * dims[2])
        codes, _ = cuda.compile_all(
            py_func, signature, device=False, abi="numba", output="ltoir", cc=_cc(arch), **options
        )
        kernel_ltoir = bytes(codes[0])
        # Our bundles are compiled here (once, when first read); the rest is what Numba links.
        inputs = [("ltoir", kernel_ltoir, "kernel"), *(_link_input(c) for c in codes[1:])]
    ours = [c for c in codes[1:] if isinstance(c, LazyBundle)]
    sizes = {k: v for c in ours for k, v in c.session.finalize(arch).temp_storage.items()}
    bundle = b"".join(bytes(c.data) for c in ours)
    if output == "ltoir":
        return CompiledKernel(kernel_ltoir, output, arch, dims, bundle, sizes)
    linked = link(inputs, arch, output=output, options=["-optimize-unused-variables"])
    return CompiledKernel(linked, output, arch, dims, bundle, sizes)


def _link_input(code: Any) -> Input:
    """A code object of ``numba.cuda.compile_all`` (a cuda.core ``ObjectCode`` or a Numba
    ``LinkableCode``) as a link input."""
    from numba.cuda.cudadrv.driver import FILE_EXTENSION_MAP

    if hasattr(code, "code_type"):  # cuda.core ObjectCode (e.g. a .cu file Numba compiled)
        kind, data, name = code.code_type, code.code, getattr(code, "name", "") or code.code_type
    else:
        kind = next(ext for ext, k in FILE_EXTENSION_MAP.items() if k == code.kind)
        data, name = code.data, code.name or kind
    return kind, data.encode() if isinstance(data, str) else bytes(data), str(name)
