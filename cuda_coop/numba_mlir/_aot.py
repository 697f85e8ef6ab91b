# SPDX-License-Identifier: Apache-2.0
"""``cuda.coop.numba_mlir.compile``: a numba-cuda-mlir kernel with coop calls compiled ahead of
time for a named architecture, without a GPU."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cuda.coop._backend_api import (
    CompiledKernel,
    CoopTypeError,
    TraceSession,
    compiling,
    normalize_arch,
    normalize_block_dims,
    normalize_cluster_dims,
    short_traceback,
)
from cuda.coop._numba_like._front_door import check_output
from cuda.coop._numba_like._front_door import compile_many as compile_kernels

from . import _ncm_hooks
from ._dispatcher import jit_options
from .kernel._dsl import PRESCAN
from .kernel._limits import check_limits


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
        return _compiled(_prepare(func, signature, block, arch, cluster, output, options))


@dataclass
class _Job:
    """One kernel to compile ahead of time, its arguments checked."""

    py_func: Any
    signature: Any
    dims: tuple[int, int, int]
    arch: str
    cluster: tuple[int, int, int] | None
    output: str
    options: dict[str, Any]


def _prepare(
    func: Any, signature: Any, block: Any, arch: str, cluster: Any, output: str, options: dict[str, Any]
) -> _Job:
    check_output(output)
    if block is None:
        raise CoopTypeError("numba_mlir.compile needs block=, the block dimensions of its launches")
    arch = normalize_arch(arch)
    dims = normalize_block_dims(block, what="compile: block")
    cluster_dims = normalize_cluster_dims(cluster, what="compile: cluster")
    py_func = getattr(func, "py_func", func)
    options = {**getattr(func, "options", {}), **options}
    PRESCAN.prescan(py_func)
    check_limits(py_func)
    return _Job(py_func, signature, dims, arch, cluster_dims, output, options)


def _run(job: _Job, *, stop_at_link: bool = False) -> CompiledKernel | TraceSession:
    """Compile ``job``; with ``stop_at_link``, stop where its bundle would be read and return the
    trace session with its requests (a kernel without coop calls compiles to the end)."""
    from numba_cuda_mlir import cuda

    session = TraceSession()
    with (
        compiling(job.dims, job.arch, session=session, cluster_dims=job.cluster),
        _ncm_hooks.compute_capability(_compute_capability(job.arch)),
        _ncm_hooks.stop_at_link() if stop_at_link else contextlib.nullcontext(),
    ):
        kernel = cuda.jit(job.py_func, **jit_options({**job.options, "chip": job.arch}, job.dims, job.arch))
        signature = tuple(job.signature) if isinstance(job.signature, list) else job.signature
        try:
            result = kernel.compile(signature)
        except Exception as exc:
            if stop_at_link and _ncm_hooks.link_reached(exc):
                return session
            raise
        if job.output == "cubin":
            code = bytes(result.metadata["cubin"])
        elif job.output == "ptx":
            code = _ncm_hooks.lto_ptx(result).encode()
        else:
            code = bytes(result.metadata["ltoir"])
    bundle = session.finalize(job.arch) if session.requests else None
    return CompiledKernel(
        code,
        job.output,
        job.arch,
        job.dims,
        bundle.objects if bundle is not None else (),
        dict(bundle.temp_storage) if bundle is not None else {},
        job.cluster,
    )


@dataclass
class _Lowered:
    """A job lowered up to its link: the trace session with its requests, or the compiled kernel of a
    kernel without coop calls."""

    job: _Job
    result: CompiledKernel | TraceSession


def _lowered(job: _Job) -> _Lowered:
    return _Lowered(job, _run(job, stop_at_link=True))


def _compiled(job: _Job) -> CompiledKernel:
    compiled = _run(job)
    assert isinstance(compiled, CompiledKernel)
    return compiled


def compile_many(
    kernels: Iterable[Mapping[str, Any] | Sequence[Any]],
    *,
    arch: str = "sm_90a",
    output: str = "cubin",
    processes: int | None = None,
) -> list[CompiledKernel]:
    """Compile several kernels, their new CUB code in parallel processes: :func:`compile` of each
    (the same code), but every kernel is lowered first (numba-cuda-mlir stopped where its linker
    would read the bundle), then the requests the cache lacks are compiled by worker processes (as
    :func:`cuda.coop.numba.compile_many` does: one NVRTC call per group of consecutive kernels), then
    each kernel is compiled to the end, one after the other, its bundle read back from the cache.
    With a cache directory only (where the workers leave the units); without one, the kernels
    compile one after the other.

    Args:
        kernels: each a mapping of :func:`compile`'s arguments (``func``, ``signature``, ``block``,
            ``cluster``, ``output`` and options) or a ``(func, signature, block)`` tuple.
        arch: the target architecture of all of them.
        output: as :func:`compile`'s, for the kernels that name none.
        processes: worker processes for the units (default: one per CPU, at most one per unit).

    Returns:
        A :class:`CompiledKernel` for each kernel, in order.

    Raises:
        CoopTypeError: a kernel that is neither a ``(func, signature, block)`` tuple nor a mapping
            with ``func``.
        CoopError: what :func:`compile` raises, for the first kernel that fails.
    """
    return compile_kernels(
        kernels,
        lambda func, sig, block, given: _lowered(
            _prepare(func, sig, block, arch, given.pop("cluster", None), given.pop("output", output), given)
        ),
        lambda k: [k.result] if isinstance(k.result, TraceSession) else [],
        lambda k: _compiled(k.job) if isinstance(k.result, TraceSession) else k.result,
        arch=lambda k: k.job.arch,
        processes=processes,
        threads=False,
    )
