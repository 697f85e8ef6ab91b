# SPDX-License-Identifier: Apache-2.0
"""On one GPU, one PE: kernels that sum each block's tile with ``coop.block.sum`` and put the total
into symmetric memory on the next PE with NVSHMEM (``p``; with one PE, PE 0 puts to itself), on
each backend, checked against NumPy. NVSHMEM starts with a unique-ID bootstrap (no MPI); the module
initialisation of each kernel's device code runs as for the DSL's own kernels (numba-cuda and
numba-cuda-mlir: nvshmem4py's shim runs ``library_init`` when the module loads; an ahead-of-time
cubin: ``library_init`` of the cuda.core library; CuTe: ``CompiledCuteFunction.nvshmem_init``).

Import-safe without a GPU, nvshmem4py or any DSL: what each test needs is imported in it (skipped
by name where missing). Run: ``python -m pytest -m gpu tests/test_nvshmem_gpu.py``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from ._nvshmem_kernels import BLOCKS, THREADS, cute_host, numba_kernel, numba_mlir_kernel

pytestmark = pytest.mark.gpu

_REASON = "nvshmem4py is not installed (pip install '.[nvshmem]')"


@pytest.fixture(scope="module")
def shmem() -> Iterator[Any]:
    """``nvshmem.core``, initialised on the current GPU as the only PE (unique-ID bootstrap)."""
    core = pytest.importorskip("nvshmem.core", reason=_REASON)
    from cuda.core import Device

    device = Device()
    device.set_current()
    core.init(device=device, uid=core.get_unique_id(), rank=0, nranks=1, initializer_method="uid")
    try:
        assert (core.my_pe(), core.n_pes()) == (0, 1)
        yield core
    finally:
        core.finalize()


def _tiles() -> np.ndarray:
    """Fresh random whole numbers (float32 sums of them are exact in any order)."""
    return np.random.default_rng().integers(-1000, 1000, BLOCKS * THREADS).astype(np.float32)


def _expected(x: np.ndarray) -> np.ndarray:
    return x.reshape(BLOCKS, THREADS).sum(axis=1, dtype=np.float64).astype(np.float32)


@pytest.fixture
def symmetric_out(shmem: Any) -> Iterator[dict[str, Any]]:
    """``BLOCKS`` float32 of symmetric memory, poisoned with NaN, as a CUDA array interface."""
    from numba import cuda

    buf = shmem.buffer(BLOCKS * 4)
    cai = {
        "shape": (BLOCKS,),
        "strides": None,
        "typestr": "<f4",
        "data": (int(buf.handle), False),
        "version": 3,
    }
    cuda.from_cuda_array_interface(cai, owner=buf, sync=False).copy_to_device(
        np.full(BLOCKS, np.nan, np.float32)
    )
    cuda.synchronize()
    try:
        yield cai
    finally:
        shmem.free(buf)


def _read(cai: dict[str, Any]) -> np.ndarray:
    from numba import cuda

    cuda.synchronize()
    return cuda.from_cuda_array_interface(cai, sync=False).copy_to_host()


def test_numba_jit_kernel_puts_block_sums(shmem: Any, symmetric_out: dict[str, Any]) -> None:
    """cuda.coop.numba.jit: numba-cuda loads the module and runs nvshmem4py's setup callback."""
    pytest.importorskip("nvshmem.core.device.numba", reason=_REASON)
    import cuda.coop.numba as numba_coop
    from numba import cuda

    x = _tiles()
    out = cuda.from_cuda_array_interface(symmetric_out, sync=False)
    numba_coop.jit(numba_kernel())[BLOCKS, THREADS](cuda.to_device(x), out)
    np.testing.assert_array_equal(_read(symmetric_out), _expected(x))


def test_numba_ahead_of_time_cubin_puts_block_sums(shmem: Any, symmetric_out: dict[str, Any]) -> None:
    """cuda.coop.numba.compile: the cubin loaded with cuda.core, NVSHMEM's library_init run on it (what
    nvshmem4py's shim does for numba-cuda's modules), launched through cuda.core."""
    pytest.importorskip("nvshmem.core.device.numba", reason=_REASON)
    import cuda.coop.numba as numba_coop
    from cuda.core import Device, LaunchConfig, ObjectCode, launch
    from numba import cuda

    device = Device()
    compiled = numba_coop.compile(
        numba_kernel(), "void(float32[::1], float32[::1])", block=THREADS, arch=f"sm_{device.arch}"
    )
    library = ObjectCode.from_cubin(compiled.code)
    kernel_object = shmem.NvshmemKernelObject.from_obj(library)
    shmem.library_init(kernel_object)
    try:
        kernel = library.get_kernel(compiled.inspect().functions[0])
        x = _tiles()
        d_x = cuda.to_device(x)
        # numba's array ABI: meminfo, parent, nitems, itemsize, data, shape, strides per array
        args: list[Any] = []
        for n, pointer in ((x.size, d_x.device_ctypes_pointer.value), (BLOCKS, symmetric_out["data"][0])):
            args += [
                np.uint64(0),
                np.uint64(0),
                np.int64(n),
                np.int64(4),
                np.uint64(pointer),
                np.int64(n),
                np.int64(4),
            ]
        stream = device.create_stream()
        launch(stream, LaunchConfig(grid=BLOCKS, block=THREADS), kernel, *args)
        stream.sync()
        np.testing.assert_array_equal(_read(symmetric_out), _expected(x))
    finally:
        shmem.library_finalize(kernel_object)


def test_numba_mlir_jit_kernel_puts_block_sums(shmem: Any, symmetric_out: dict[str, Any]) -> None:
    """cuda.coop.numba_mlir.jit: numba-cuda-mlir's launcher runs nvshmem4py's setup callback."""
    pytest.importorskip("nvshmem.core.device.numba_cuda_mlir", reason=_REASON)
    import cuda.coop.numba_mlir as ncoop
    from numba_cuda_mlir import cuda

    x = _tiles()
    out = cuda.from_cuda_array_interface(symmetric_out, sync=False)
    ncoop.jit(numba_mlir_kernel())[BLOCKS, THREADS](cuda.to_device(x), out)
    cuda.synchronize()
    np.testing.assert_array_equal(_read(symmetric_out), _expected(x))


def test_cute_kernel_puts_block_sums(shmem: Any) -> None:
    """cuda.coop.cutlass.compile, then nvshmem_init (nvshmem4py's cute_compile_helper does the same
    after cute.compile), then the launch; symmetric memory from nvshmem4py's torch interop."""
    pytest.importorskip("nvshmem.core.device.cute", reason=_REASON)
    torch = pytest.importorskip("torch")
    import cuda.coop.cutlass as cutlass_coop
    from cutlass.cute.runtime import from_dlpack
    from nvshmem.core.interop import torch as shmem_torch

    x = torch.from_numpy(_tiles()).cuda()
    out = shmem_torch.tensor((BLOCKS,), dtype=torch.float32)
    out.fill_(float("nan"))
    try:
        compiled = cutlass_coop.compile(
            cute_host(), from_dlpack(x, assumed_align=16), from_dlpack(out, assumed_align=16)
        )
        kernel_object = compiled.nvshmem_init()
        try:
            compiled(x, out)
            torch.cuda.synchronize()
            np.testing.assert_array_equal(out.cpu().numpy(), _expected(x.cpu().numpy()))
        finally:
            shmem.library_finalize(kernel_object)
    finally:
        shmem_torch.free_tensor(out)
