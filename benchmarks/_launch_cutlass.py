# SPDX-License-Identifier: Apache-2.0
"""Host cost of launching a CuTe kernel that calls coop primitives, per route (microseconds per
launch, back-to-back launches of a small kernel, wall clock over ``n_iters`` launches).

Rows: CuTe's own compiled call with CuTe tensors; our plain call ``compiled(...)`` (through its call
state) with a torch tensor for the tensor and an int or a torch tensor for the pointer, with CuTe
tensors, with CuPy arrays (when CuPy is installed); CuTe's call after our conversion of each
argument (the plain call before the call state); a TVM-FFI compile (``--enable-tvm-ffi``, when
apache-tvm-ffi is installed) called with torch tensors; a prepared launch rewriting a torch tensor
and raw ints, and with nothing to rewrite; and the floor, a raw ``cuLaunchKernel`` (ctypes into
libcuda, arguments packed beforehand) of an NVRTC kernel taking the same four parameters. The rows
of the plain call check their results (and that no argument went through the full conversion after
the first call).
"""

from __future__ import annotations

import contextlib
import ctypes
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

N = 512 * 132


def _per_launch(launch: Callable[[], Any], n_iters: int) -> float:
    import torch

    for _ in range(50):
        launch()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n_iters):
        launch()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    return (t1 - t0) / n_iters * 1e6


def _raw_launch(src: Any, dst: Any, stream: int) -> Callable[[], Any]:
    """A pre-packed cuLaunchKernel of an NVRTC kernel with the same parameters, through ctypes."""
    from cuda.core import Device, Program, ProgramOptions

    source = Path(__file__).with_name("_launch_cutlass_raw.cu").read_text()
    arch = "sm_" + Device().arch
    kernel = Program(source, "c++", ProgramOptions(arch=arch)).compile("cubin").get_kernel("k")
    libcuda = ctypes.CDLL("libcuda.so.1")
    launch = libcuda.cuLaunchKernel
    launch.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [ctypes.c_void_p] * 3
    slots = [
        ctypes.c_void_p(src.data_ptr()),
        ctypes.c_void_p(dst.data_ptr()),
        ctypes.c_int32(3),
        ctypes.c_float(1.0),
    ]
    params = (ctypes.c_void_p * 4)(*(ctypes.addressof(s) for s in slots))
    handle = int(kernel.handle)
    grid = src.numel() // 512

    def run() -> Any:
        return launch(handle, grid, 1, 1, 128, 1, 1, 0, stream, params, None)

    run.keep = (slots, params, kernel)  # type: ignore[attr-defined]
    return run


def bench_cutlass(n_iters: int = 20000) -> dict[str, float]:
    """Microseconds per launch for each route (see the module docstring)."""
    import cuda.bindings.driver as cuda
    import cutlass
    import cutlass.cute as cute
    import torch
    from cutlass.cute.runtime import from_dlpack, make_ptr

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import cuda.coop.cutlass as cutlass_coop

    from tests._cute_kernels import launch_args, launch_host

    compiled = cutlass_coop.compile(launch_host(), *launch_args(N))
    src = torch.randint(-1000, 1000, (N,), dtype=torch.int32, device="cuda")
    dst = torch.empty_like(src)
    stream = int(torch.cuda.current_stream().cuda_stream)
    cu_stream = cuda.CUstream(stream)
    cute_src = from_dlpack(src, assumed_align=16)
    dst_ptr = dst.data_ptr()
    cute_dst = make_ptr(cutlass.Int32, dst_ptr, cute.AddressSpace.gmem, assumed_align=16)
    p = compiled.prepare(src, dst_ptr, 3, 1.0, stream)
    plain_dst = torch.empty_like(src)
    plain_ptr = plain_dst.data_ptr()
    cute_plain_dst = make_ptr(cutlass.Int32, plain_ptr, cute.AddressSpace.gmem, assumed_align=16)
    rows = {
        "CuTe compiled call, CuTe tensors": lambda: compiled.compiled(cute_src, cute_dst, 3, 1.0, cu_stream),
        "cuda.coop plain call, torch src + int dst/scalars/stream": lambda: compiled(
            src, plain_ptr, 3, 1.0, stream
        ),
        "cuda.coop plain call, torch src and dst tensors": lambda: compiled(src, plain_dst, 3, 1.0, stream),
        "cuda.coop plain call, CuTe tensor + pointer, CUstream": lambda: compiled(
            cute_src, cute_plain_dst, 3, 1.0, cu_stream
        ),
        "CuTe call after cuda.coop's conversion (the plain call before its call state)": lambda: (
            compiled._cute_call((src, plain_ptr, 3, 1.0, stream), {})
        ),
        "prepared launch, torch src + int dst/scalars/stream": lambda: p.launch(src, dst_ptr, 3, 1.0, stream),
        "prepared launch, nothing rewritten": p.launch,
        "raw cuLaunchKernel (ctypes, pre-packed)": _raw_launch(src, dst, stream),
    }
    try:
        import cupy
    except ImportError:
        cupy = None
    if cupy is not None:
        cupy_src, cupy_dst = cupy.asarray(src), cupy.empty(N, dtype=cupy.int32)  # src shared with torch
        rows["cuda.coop plain call, CuPy src and dst arrays"] = lambda: compiled(
            cupy_src, cupy_dst, 3, 1.0, stream
        )
    try:  # CuTe's TVM-FFI entry (needs apache-tvm-ffi): torch tensors straight in, on the env stream
        import tvm_ffi

        from tests._cute_kernels import env_stream_copy_args, env_stream_copy_host

        tvm = cutlass_coop.compile(
            env_stream_copy_host(), *env_stream_copy_args(N), options="--enable-tvm-ffi"
        )
        tvm_dst = torch.empty_like(src)
        rows["TVM-FFI call (--enable-tvm-ffi), torch tensors"] = lambda: tvm(src, tvm_dst)
        rows["TVM-FFI entry itself (compiled.compiled), torch tensors"] = lambda: tvm.compiled(src, tvm_dst)
    except ImportError:
        tvm = None
    # TVM-FFI launches on its environment stream: torch's current one, set once for all rows
    with tvm_ffi.use_torch_stream() if tvm is not None else contextlib.nullcontext():
        out = {name: _per_launch(fn, n_iters) for name, fn in rows.items()}
    if tvm is not None:
        torch.cuda.synchronize()
        assert torch.equal(tvm_dst, src), "the TVM-FFI call computed a wrong result"
    p.launch(src, dst_ptr, 3, 1.0, stream)
    torch.cuda.synchronize()
    assert torch.equal(dst, src * 3 + 1), "the prepared launch computed a wrong result"
    assert torch.equal(plain_dst, src * 3 + 1), "the plain call computed a wrong result"
    if cupy is not None:
        assert bool(cupy.all(cupy_dst == cupy_src * 3 + 1)), "the plain call (CuPy) computed a wrong result"
    _check_no_conversion(compiled, src, plain_dst, stream)
    return out


def _check_no_conversion(compiled: Any, src: Any, dst: Any, stream: int) -> None:
    """The plain call of a torch tensor like the last one converts nothing (no ``from_dlpack``)."""
    import cuda.coop.cutlass._args as coop_args

    convert, seen = coop_args.to_cute_checked, []
    coop_args.to_cute_checked = lambda value, spec: seen.append(value) or convert(value, spec)
    try:
        for _ in range(3):
            compiled(src, dst, 3, 1.0, stream)
    finally:
        coop_args.to_cute_checked = convert
    assert not seen, f"the plain call converted {len(seen)} arrays in full"


if __name__ == "__main__":
    for name, us in bench_cutlass().items():
        print(f"{name:55s} {us:7.2f} us")
