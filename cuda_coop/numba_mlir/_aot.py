# SPDX-License-Identifier: Apache-2.0
"""``cuda.coop.numba_mlir.compile``: a numba-cuda-mlir kernel with coop calls compiled ahead of
time for a named architecture, without a GPU."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cuda.coop._backend_api import (
    CompiledKernel,
    CoopTypeError,
    CoopValueError,
    TraceSession,
    compiling,
    normalize_arch,
    normalize_block_dims,
    normalize_cluster_dims,
    short_traceback,
)

from . import _ncm_hooks
from ._dispatcher import jit_options
from .kernel._limits import check_limits
from .kernel._prescan import prescan


def _compute_capability(arch: str) -> tuple[int, int]:
    digits = arch.removeprefix("sm_").rstrip("af")
    return int(digits[:-1]), int(digits[-1])


def compile(
    func: Callable[..., None] | Any,
    signature: Any,
    *,
    block: int | tuple[int, ...] | None = None,
    arch: str = "sm_90a",
    cluster: int | tuple[int, ...] | None = None,
    output: str = "cubin",
    **options: Any,
) -> CompiledKernel:
    """Compile a kernel and link its coop bundle for ``arch`` (a cubin), without needing a GPU.

    Args:
        func: the kernel: a Python function or a numba-cuda-mlir ``cuda.jit`` dispatcher.
        signature: its Numba signature, e.g. ``(types.float32[::1], types.float32[::1])``.
        block: the block dimensions it will be launched with; required.
        arch: target architecture, e.g. ``"sm_90a"``.
        cluster: the thread-block cluster it will be launched with (``coop.cluster`` primitives are
            compiled for exactly that); None: no cluster.
        output: ``"cubin"`` (linked, default), ``"ptx"`` (after the LTO link) or ``"ltoir"`` (the
            kernel's own, unlinked; the bundle is ``bundle_ltoir``).
        **options: numba-cuda-mlir's ``cuda.jit`` options.
    """
    with short_traceback():
        if output not in ("cubin", "ptx", "ltoir"):
            raise CoopValueError(f"compile: output={output!r} is not one of cubin, ptx, ltoir")
        if block is None:
            raise CoopTypeError("numba_mlir.compile needs block=, the block dimensions of its launches")
        from numba_cuda_mlir import cuda

        arch = normalize_arch(arch)
        dims = normalize_block_dims(block, what="compile: block")
        cluster_dims = normalize_cluster_dims(cluster, what="compile: cluster")
        py_func = getattr(func, "py_func", func)
        options = {**getattr(func, "options", {}), **options}
        prescan(py_func)
        check_limits(py_func)
        session = TraceSession()
        with (
            compiling(dims, arch, session=session, cluster_dims=cluster_dims),
            _ncm_hooks.compute_capability(_compute_capability(arch)),
        ):
            kernel = cuda.jit(py_func, **jit_options({**options, "chip": arch}, dims, arch))
            result = kernel.compile(tuple(signature) if isinstance(signature, list) else signature)
            if output == "cubin":
                code = bytes(result.metadata["cubin"])
            elif output == "ptx":
                code = _ncm_hooks.lto_ptx(result).encode()
            else:
                code = bytes(result.metadata["ltoir"])
        bundle = session.finalize(arch) if session.requests else None
        return CompiledKernel(
            code,
            output,
            arch,
            dims,
            bundle.objects if bundle is not None else (),
            dict(bundle.temp_storage) if bundle is not None else {},
            cluster_dims,
        )
