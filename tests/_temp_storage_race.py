# SPDX-License-Identifier: Apache-2.0
"""Run by tests/test_temp_storage.py under compute-sanitizer racecheck: two calls reuse one shared
coop.TempStorage with no barrier between them; with auto_sync=True the library puts it there.
Usage: python -m tests._temp_storage_race numba|cute auto_sync(0|1)."""

import sys

import numpy as np


def numba(auto_sync: bool) -> None:
    import cuda.coop.numba as numba_coop
    from cuda import coop
    from numba import cuda

    @numba_coop.jit
    def k(src, dst):  # type: ignore[no-untyped-def]
        ts = coop.TempStorage(auto_sync=auto_sync)
        items = coop.ThreadData(4, np.int32)
        tile = cuda.blockIdx.x * 512
        coop.block.load(src, items, offset=tile, algorithm="transpose", temp_storage=ts)
        out = coop.block.inclusive_sum(items, temp_storage=ts)  # no barrier of ours before it
        coop.block.store(dst, out, offset=tile, algorithm="transpose", temp_storage=ts)

    x = np.arange(4 * 128 * 8, dtype=np.int32) % 7
    out = cuda.to_device(np.zeros_like(x))
    k[8, 128](cuda.to_device(x), out)
    cuda.synchronize()
    want = np.cumsum(x.reshape(8, -1), axis=1).reshape(-1)
    print("correct" if np.array_equal(out.copy_to_host(), want) else "WRONG")


def cute(auto_sync: bool) -> None:
    import cuda.coop.cutlass as cutlass_coop
    import cutlass
    import cutlass.cute as cute
    import torch
    from cuda import coop
    from cutlass.cute.runtime import from_dlpack

    @cute.kernel
    def k(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        b, _, _ = cute.arch.block_idx()
        ts = coop.TempStorage(auto_sync=auto_sync)
        items = coop.ThreadData(4, cutlass.Int32)
        coop.block.load(src, items, offset=b * 512, algorithm="transpose", temp_storage=ts)
        out = coop.block.inclusive_sum(items, temp_storage=ts)
        coop.block.store(dst, out, offset=b * 512, algorithm="transpose", temp_storage=ts)

    @cute.jit
    def host(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        k(src, dst).launch(grid=(8, 1, 1), block=(128, 1, 1))

    x = torch.arange(4 * 128 * 8, dtype=torch.int32, device="cuda") % 7
    out = torch.zeros_like(x)
    args = [from_dlpack(t, assumed_align=16) for t in (x, out)]
    cutlass_coop.compile(host, *args)(*args)
    torch.cuda.synchronize()
    want = torch.cumsum(x.view(8, -1), dim=1, dtype=torch.int32).view(-1)
    print("correct" if torch.equal(out, want) else "WRONG")


if __name__ == "__main__":
    {"numba": numba, "cute": cute}[sys.argv[1]](sys.argv[2] == "1")
