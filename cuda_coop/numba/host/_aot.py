# SPDX-License-Identifier: Apache-2.0
"""Ahead-of-time compile of a Numba kernel with its coop bundle, on a machine without a GPU."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cuda.coop._backend_api import (
    CompiledKernel,
    CoopTypeError,
    CoopValueError,
    TraceSession,
    compiling,
    link,
    normalize_arch,
    normalize_block_dims,
    normalize_cluster_dims,
    short_traceback,
)

from .. import _numba_hooks
from ..kernel._prescan import prescan
from ._options import check_compile_options, code_options, link_options, with_launch_bounds

_OUTPUTS = ("cubin", "ptx", "ltoir")


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
        return _compile(func, signature, block, arch, output, cluster, options)


def _compile(
    func: Any,
    signature: Any,
    block: Any,
    arch: str | None,
    output: str,
    cluster: Any,
    options: dict[str, Any],
) -> CompiledKernel:
    from numba import cuda

    from ._dispatcher import CoopKernel

    if block is None:
        raise CoopTypeError(
            "numba_coop.compile needs block=, the block dimensions the kernel will be launched with (an "
            "int or a tuple: block=128, block=(32, 4)): its coop primitives are compiled for exactly "
            "those; arch= names the target (default 'sm_90a'; None: this machine's GPU)"
        )
    check_compile_options(options)
    if output not in _OUTPUTS:
        raise CoopValueError(f"compile: output={output!r} is not one of {', '.join(_OUTPUTS)}")
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
    prescan(py_func)
    cc = _numba_hooks.compute_capability(arch)
    with compiling(dims, arch, session=TraceSession(), cluster_dims=cluster_dims):
        codes, _ = cuda.compile_all(
            py_func, signature, device=False, abi="numba", output="ltoir", cc=cc, **options
        )
        kernel_ltoir = bytes(codes[0])
        # Our bundles are compiled here (once, when first read); the rest is what Numba links.
        parts = sorted((c for c in codes[1:] if isinstance(c, _numba_hooks.LazyBundle)), key=lambda c: c.part)
        others = [c for c in codes[1:] if not isinstance(c, _numba_hooks.LazyBundle)]
        inputs = [("ltoir", kernel_ltoir, "kernel"), *(_numba_hooks.link_input(c) for c in [*parts, *others])]
        inputs += [_numba_hooks.link_input(c) for c in _numba_hooks.link_files(extra_files, cc)]
    sessions = dict.fromkeys(c.session for c in codes[1:] if isinstance(c, _numba_hooks.LazyBundle))
    bundles = [session.finalize(arch) for session in sessions]
    sizes = {k: v for b in bundles for k, v in b.temp_storage.items()}
    bundle = tuple(obj for b in bundles for obj in b.objects)
    if output == "ltoir":
        return CompiledKernel(kernel_ltoir, output, arch, dims, bundle, sizes, cluster_dims)
    flags = ["-optimize-unused-variables", *link_options(options)]
    if max_registers:
        flags.append(f"-maxrregcount={int(max_registers)}")
    linked = link(inputs, arch, output=output, options=flags)
    return CompiledKernel(linked, output, arch, dims, bundle, sizes, cluster_dims)
