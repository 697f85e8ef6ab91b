# SPDX-License-Identifier: Apache-2.0
"""GPU correctness of coop.block.load/store in CuTe DSL kernels, against NumPy.

Pairwise covering of 10 dtypes x 8 block shapes x 7 items per thread (80 kernels); each kernel
traces every algorithm x {load, partial load, partial load + oob_default, store, partial store}
and runs each with an aligned and a misaligned tile over three blocks, on fresh random bits with
poisoned outputs; after a store the kernel writes its items again, which the store must leave as
they are. Comparisons are bitwise (copies move bits).
"""

import numpy as np
import pytest

pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")

from ._reference import host_array, tile_positions  # noqa: E402

pytestmark = pytest.mark.gpu

DTYPES = ["int8", "int16", "int32", "int64", "uint32", "uint64", "float16", "bfloat16", "float32", "float64"]
BLOCKS = [(32, 1, 1), (64, 1, 1), (128, 1, 1), (256, 1, 1), (1024, 1, 1), (8, 16, 1), (4, 8, 4), (96, 1, 1)]
IPTS = [1, 2, 3, 4, 7, 8, 16]
WIDTH = {"int8": 1, "int16": 2, "int32": 4, "int64": 8, "uint32": 4, "uint64": 8, "float16": 2, "bfloat16": 2,
         "float32": 4, "float64": 8}  # fmt: skip
BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _configs() -> list[object]:
    return [
        pytest.param(
            d, b, IPTS[(i + k) % len(IPTS)], id=f"{d}-{'x'.join(map(str, b))}-{IPTS[(i + k) % len(IPTS)]}"
        )
        for i, d in enumerate(DTYPES)
        for k, b in enumerate(BLOCKS)
    ]


def _torch(bits: np.ndarray, dtype: str):  # type: ignore[no-untyped-def]
    """The bits on the GPU as a torch tensor of ``dtype``."""
    import torch

    signed = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}[bits.itemsize]
    return torch.from_numpy(bits.view(signed)).to("cuda").view(getattr(torch, dtype))


@pytest.mark.parametrize(("dtype", "block", "ipt"), _configs())
def test_cute_load_store_grid(dtype: str, block: tuple[int, int, int], ipt: int) -> None:
    import cuda.coop.cutlass as cutlass_coop
    import cutlass
    import torch
    from cutlass.cute.runtime import from_dlpack

    from ._cute_kernels import ALGORITHMS, GRID, KINDS, grid_host

    threads = block[0] * block[1] * block[2]
    tile = threads * ipt
    big = threads * ipt * WIDTH[dtype] > 0.9 * 48 * 1024
    modes = [
        (a, k)
        for a in ALGORITHMS
        for k in KINDS
        if not (big and "transpose" in a and a != "warp_transpose_timesliced")
    ]
    n = GRID * tile + 1
    rng = np.random.default_rng(abs(hash((dtype, block, ipt))) % 2**32)
    ubits = BITS[WIDTH[dtype]]

    def rand(count: int) -> np.ndarray:
        return rng.integers(0, np.iinfo(ubits).max, size=count, dtype=ubits, endpoint=True)

    def dev(bits: np.ndarray):  # type: ignore[no-untyped-def]
        return from_dlpack(_torch(bits, dtype), assumed_align=16)

    src0, init0, out0, oob0 = rand(n), rand(n), rand(n), rand(1)
    zero = cutlass.Int32(0)
    host = grid_host(dtype, block, ipt, modes)
    compiled = cutlass_coop.compile(host, dev(src0), dev(init0), dev(out0), dev(oob0), zero, zero, zero)
    failures = []
    for m, (alg, kind) in enumerate(modes):
        for shift in (0, 1):
            src, init, poison, oob = rand(n), rand(n), rand(n), rand(1)
            valid = int(rng.integers(0, tile))
            t_src, t_out = _torch(src, dtype), _torch(poison, dtype)
            compiled(from_dlpack(t_src, assumed_align=16), dev(init), from_dlpack(t_out, assumed_align=16),
                     dev(oob), m, shift, valid)  # fmt: skip
            torch.cuda.synchronize()
            got, kept = (host_array(t, np.dtype(BITS[WIDTH[dtype]]).name) for t in (t_out, t_src))
            if kind.startswith("store") and not np.array_equal(kept[: GRID * tile], init[: GRID * tile]):
                bad = np.count_nonzero(kept[: GRID * tile] != init[: GRID * tile])
                failures.append(f"{alg}/{kind}/shift={shift}: the store changed {bad} of the items")
            pos = tile_positions(threads, ipt, alg, WIDTH[dtype])
            want = poison.copy()
            for b in range(GRID):
                base = b * tile
                mine = init[base : base + tile].reshape(threads, ipt)
                mask = pos < (valid if kind != "load" and kind != "store" else tile)
                if kind.startswith("load"):
                    fill = np.full_like(mine, oob[0]) if kind == "load_oob" else mine
                    want[base : base + tile] = np.where(mask, src[base + shift + pos], fill).reshape(-1)
                else:
                    want[base + shift + pos[mask]] = mine[mask]
            if not np.array_equal(got, want):
                failures.append(
                    f"{alg}/{kind}/shift={shift}/valid={valid}: {np.count_nonzero(got != want)} wrong"
                )
    assert not failures, "\n".join(failures)


def test_same_algorithm_in_numba_and_cute_gives_identical_output() -> None:
    """The coop calls are written the same way in both DSLs; the outputs agree bit for bit."""
    import cuda.coop.cutlass as cutlass_coop
    import torch
    from cutlass.cute.runtime import from_dlpack
    from numba import cuda

    ex = _example("same_kernel_three_dsls")
    n = 64 * ex.TILE
    src = torch.randn(n, device="cuda")
    out_numba, out_cute = torch.full_like(src, float("nan")), torch.full_like(src, float("nan"))
    ex.numba_scale[n // ex.TILE, ex.THREADS](cuda.as_cuda_array(src), cuda.as_cuda_array(out_numba))
    args = [from_dlpack(t, assumed_align=16) for t in (src, out_cute)]
    cutlass_coop.compile(ex.cute_scale, *args)(*args)
    torch.cuda.synchronize()
    assert torch.equal(out_numba, out_cute)
    assert torch.equal(out_numba, src * 2)
    if ex.HAVE_MLIR:  # the numba-cuda-mlir kernel, launched with torch tensors
        out_mlir = torch.full_like(src, float("nan"))
        ex.mlir_scale[n // ex.TILE, ex.THREADS](src, out_mlir)
        torch.cuda.synchronize()
        assert torch.equal(out_mlir, out_numba)


def test_two_kernels_of_one_host_function() -> None:
    """Two coop kernels in one trace (one bundle, one scratch buffer each) both copy correctly."""
    import cuda.coop.cutlass as cutlass_coop
    import torch
    from cutlass.cute.runtime import from_dlpack

    from ._cute_kernels import TWO_KERNEL_TILE, two_kernel_host

    n = 5 * TWO_KERNEL_TILE
    src = torch.randint(-(2**31), 2**31 - 1, (n,), dtype=torch.int32, device="cuda")
    small, large = torch.full_like(src, -7), torch.full_like(src, -7)
    args = [from_dlpack(t, assumed_align=16) for t in (src, small, large)]
    cutlass_coop.compile(two_kernel_host(), *args)(*args)
    torch.cuda.synchronize()
    assert torch.equal(large, src)
    # blocked in (transpose load), striped out: item i of thread t lands at i * 64 + t
    assert torch.equal(small[:128], src[:128].reshape(64, 2).t().reshape(-1))
    assert bool((small[128:] == -7).all())


def _example(name: str):  # type: ignore[no-untyped-def]
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "examples" / "cutlass" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
