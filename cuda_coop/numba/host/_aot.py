# SPDX-License-Identifier: Apache-2.0
"""Ahead-of-time compile of a Numba kernel with its coop bundle, on a machine without a GPU."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cuda.coop._backend_api import (
    CompiledKernel,
    CoopTypeError,
    TraceSession,
    compiling,
    link,
    normalize_arch,
    normalize_block_dims,
    normalize_cluster_dims,
    short_traceback,
)
from cuda.coop._numba_like._front_door import check_output
from cuda.coop._numba_like._front_door import compile_many as compile_kernels

from .. import _numba_hooks
from ..kernel._dsl import PRESCAN
from ._options import check_compile_options, code_options, link_options, with_launch_bounds


def compile(
    func: Callable[..., None] | Any,
    signature: Any = None,
    *,
    block: int | tuple[int, ...] | None = None,
    arch: str | None = "sm_90a",
    output: str = "cubin",
    cluster: int | tuple[int, ...] | None = None,
    **options: Any,
) -> CompiledKernel:
    """Compile a kernel and link its coop bundle for ``arch``, without needing a GPU.

    Args:
        func: the kernel: a Python function, a ``cuda.coop.numba.jit`` kernel (its options that
            shape code hold here too) or a Numba dispatcher.
        signature: its Numba signature, e.g. ``"void(int32[::1], int32[::1])"``; may be left out
            for a kernel given exactly one signature in ``jit``.
        block: the block dimensions it will be launched with (ints, NumPy ints too); required.
        arch: target architecture, e.g. ``"sm_90a"`` or ``"sm_100"``; None: the current GPU's.
        output: ``"cubin"`` (linked, default), ``"ptx"`` (linked) or ``"ltoir"`` (unlinked).
        cluster: the thread-block cluster it will be launched with (``coop.cluster`` primitives are
            compiled for exactly that; at most 16 blocks; sm_90 or later); None: no cluster.
        **options: numba-cuda's options that shape code: ``debug``, ``opt``, ``lineinfo``,
            ``fastmath``, ``max_registers``, ``launch_bounds`` (default: the block's thread
            count), ``forceinline``, ``link``; they override the kernel's.

    Returns:
        A :class:`CompiledKernel`.

    Raises:
        CoopTypeError: an option ``compile`` does not take (named), a bad ``arch`` type, no
            signature, no ``block``.
        CoopValueError: a malformed ``arch`` or ``output``.
        CoopLaunchConfigError: a bad ``block``.
        CoopCompileError: NVRTC or nvJitLink failed (with the log).
    """
    with short_traceback():
        return _finish(_lower(func, signature, block, arch, output, cluster, options))


def _lower(
    func: Any,
    signature: Any,
    block: Any,
    arch: str | None,
    output: str,
    cluster: Any,
    options: dict[str, Any],
) -> _Lowered:
    from numba import cuda

    from ._dispatcher import CoopKernel

    if block is None:
        raise CoopTypeError(
            "numba_coop.compile needs block=, the block dimensions the kernel will be launched with (an "
            "int or a tuple: block=128, block=(32, 4)): its coop primitives are compiled for exactly "
            "those; arch= names the target (default 'sm_90a'; None: this machine's GPU)"
        )
    check_compile_options(options)
    check_output(output)
    arch = _numba_hooks.current_device_arch() if arch is None else normalize_arch(arch)
    dims = normalize_block_dims(block, what="compile: block")
    cluster_dims = normalize_cluster_dims(cluster, what="compile: cluster")
    if isinstance(func, CoopKernel):
        options = {**code_options(func.options), **options}
        check_compile_options(options)
        if signature is None and func.signatures is not None and len(func.signatures) == 1:
            signature = func.signatures[0]
    if signature is None:
        raise CoopTypeError("compile: signature is required, e.g. 'void(float32[::1], float32[::1])'")
    options = with_launch_bounds(options, dims[0] * dims[1] * dims[2])
    extra_files = options.pop("link", None) or ()
    max_registers = options.pop("max_registers", None)  # nvJitLink's ptxas takes it (below)
    options.pop("inline", None)  # "never" here (check_compile_options): numba-cuda's default
    py_func = getattr(func, "py_func", func)
    PRESCAN.prescan(py_func)
    cc = _numba_hooks.compute_capability(arch)
    with compiling(dims, arch, session=TraceSession(), cluster_dims=cluster_dims):
        codes, _ = cuda.compile_all(
            py_func, signature, device=False, abi="numba", output="ltoir", cc=cc, **options
        )
    # the bundle is compiled when it is first read (by _finish, or first by compile_many's prefetch)
    parts = sorted((c for c in codes[1:] if isinstance(c, _numba_hooks.LazyBundle)), key=lambda c: c.part)
    others = [c for c in codes[1:] if not isinstance(c, _numba_hooks.LazyBundle)]
    others += _numba_hooks.link_files(extra_files, cc)
    return _Lowered(bytes(codes[0]), parts, others, arch, dims, cluster_dims, output, options, max_registers)


@dataclass
class _Lowered:
    """A kernel lowered to LTO-IR by numba-cuda, its bundle's parts not read yet."""

    kernel: bytes
    parts: list[Any]  # LazyBundle, in part order
    others: list[Any]  # what else numba-cuda links, and the extra files
    arch: str
    dims: tuple[int, int, int]
    cluster: tuple[int, int, int] | None
    output: str
    options: dict[str, Any]
    max_registers: Any

    @property
    def sessions(self) -> list[TraceSession]:
        return list(dict.fromkeys(p.session for p in self.parts))


def _finish(lowered: _Lowered) -> CompiledKernel:
    """The bundle compiled (or read back) and linked with the kernel."""
    k = lowered
    bundles = [session.finalize(k.arch) for session in k.sessions]
    sizes = {name: v for b in bundles for name, v in b.temp_storage.items()}
    bundle = tuple(obj for b in bundles for obj in b.objects)
    if k.output == "ltoir":
        return CompiledKernel(k.kernel, k.output, k.arch, k.dims, bundle, sizes, k.cluster)
    inputs = [("ltoir", k.kernel, "kernel"), *(_numba_hooks.link_input(c) for c in [*k.parts, *k.others])]
    flags = ["-optimize-unused-variables", *link_options(k.options)]
    if k.max_registers:
        flags.append(f"-maxrregcount={int(k.max_registers)}")
    linked = link(inputs, k.arch, output=k.output, options=flags)
    return CompiledKernel(linked, k.output, k.arch, k.dims, bundle, sizes, k.cluster)


def compile_many(
    kernels: Iterable[Mapping[str, Any] | Sequence[Any]],
    *,
    arch: str | None = "sm_90a",
    output: str = "cubin",
    processes: int | None = None,
) -> list[CompiledKernel]:
    """Compile several kernels, their new CUB code in parallel processes: :func:`compile` of each
    (the same code), but all of them at once.

    Every kernel is lowered first; then the requests that the cache lacks are compiled by worker
    processes, one NVRTC call per group of consecutive kernels (an NVRTC call costs about the same
    for one kernel's requests as for twenty's); then the kernels are linked, side by side in threads
    and link worker processes. With a cache directory only (where the workers leave the units);
    without one, each kernel compiles its own unit as it is linked.

    Args:
        kernels: each a mapping of :func:`compile`'s arguments (``func``, ``signature``, ``block``,
            ``cluster`` and options) or a ``(func, signature, block)`` tuple.
        arch: the target architecture of all of them (None: the current GPU's).
        output: as :func:`compile`'s, for all of them.
        processes: worker processes for the units, and links at once (default: one per CPU).

    Returns:
        A :class:`CompiledKernel` for each kernel, in order.

    Raises:
        CoopTypeError: a kernel that is neither a ``(func, signature, block)`` tuple nor a mapping
            with ``func``.
        CoopError: what :func:`compile` raises, for the first kernel that fails.
    """
    return compile_kernels(
        kernels,
        lambda func, signature, block, given: _lower(
            func, signature, block, arch, output, given.pop("cluster", None), given
        ),
        lambda k: k.sessions,
        _finish,
        arch=lambda k: k.arch,
        processes=processes,
        threads=True,
    )
