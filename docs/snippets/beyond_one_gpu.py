# SPDX-License-Identifier: Apache-2.0
"""docs/beyond_one_gpu.rst: a numba-cuda kernel with a coop call and NVSHMEM calls, compiled ahead
of time, and its cubin's NVSHMEM initialisation. Needs nvshmem4py (the ``nvshmem`` extra):
tests/test_nvshmem_aot.py loads this file where it is installed, compiles ``NVSHMEM_NUMBA`` and
runs ``compile_ahead_of_time``; ``launch_cubin`` needs a GPU and an initialised PE (it only parses
here)."""

# ruff: noqa: I001 (the page shows the imports in its order)
# doc-start: numba-kernel
import nvshmem.core.device.numba as shmem
from numba import cuda

import cuda.coop.numba as numba_coop
from cuda import coop

THREADS = 128


@numba_coop.jit
def block_sum_put(x, out):
    b = cuda.blockIdx.x
    total = coop.block.sum(x[b * THREADS + cuda.threadIdx.x])  # CUB's BlockReduce, inlined
    if cuda.threadIdx.x == 0:  # the block's total into out[b] on the next PE
        shmem.p(out[b : b + 1], total, (shmem.my_pe() + 1) % shmem.n_pes())
        # doc-end: numba-kernel


def compile_ahead_of_time():  # type: ignore[no-untyped-def]
    # doc-start: numba-aot
    compiled = numba_coop.compile(block_sum_put, "void(float32[::1], float32[::1])", block=THREADS)
    print(compiled.inspect().summary())  # coop's providers inlined; NVSHMEM's own calls remain
    # doc-end: numba-aot
    return compiled


def launch_cubin(compiled, x, out, blocks):  # type: ignore[no-untyped-def]
    """Needs a GPU: ``nvshmem.core.init`` done, ``x`` and ``out`` device arrays (``out`` symmetric)."""
    # doc-start: numba-cubin
    import nvshmem.core
    from cuda.core import Device, LaunchConfig, ObjectCode, launch

    library = ObjectCode.from_cubin(compiled.code)
    handle = nvshmem.core.NvshmemKernelObject.from_obj(library)
    nvshmem.core.library_init(handle)  # what nvshmem4py's shim does for numba-cuda's own modules
    kernel = library.get_kernel(compiled.inspect().functions[0])
    # doc-end: numba-cubin
    import numpy as np

    args = []  # numba's array ABI: meminfo, parent, nitems, itemsize, data, shape, strides
    for a in (x, out):
        n, size, pointer = np.int64(a.size), np.int64(a.itemsize), np.uint64(a.device_ctypes_pointer.value)
        args += [np.uint64(0), np.uint64(0), n, size, pointer, n, size]
    stream = Device().create_stream()
    launch(stream, LaunchConfig(grid=blocks, block=THREADS), kernel, *args)
    stream.sync()
    nvshmem.core.library_finalize(handle)


NVSHMEM_NUMBA = [
    (block_sum_put, "void(float32[::1], float32[::1])", {"block": THREADS, "arch": "sm_90a"}),
]
