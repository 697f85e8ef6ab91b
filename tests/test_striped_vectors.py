# SPDX-License-Identifier: Apache-2.0
"""``algorithm="striped_vectors"`` without a GPU: the run length per item size and items per thread,
the rendered call, and the SASS of copy kernels of both DSLs compiled for sm_90a (one vector access
per run where the tile is aligned; in CuTe, the tensors' alignment reaching the call). The
arrangement itself is checked on the GPU by the load/store grids (``tests/test_numba_gpu.py``,
``tests/test_cutlass_gpu.py``: every dtype, odd blocks and items per thread, partial and misaligned
tiles), against ``tests/_reference.tile_positions``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from cuda.coop._primitive import run_items
from cuda.coop._render import render_requests
from cuda.coop._requests import Request

from ._reference import tile_positions


@pytest.mark.parametrize(
    ("itemsize", "items", "run"),
    [(1, 16, 4), (2, 16, 4), (4, 16, 4), (8, 16, 2), (16, 16, 1), (4, 6, 2), (2, 7, 1), (8, 3, 1), (1, 2, 2)],
)
def test_run_length(itemsize: int, items: int, run: int) -> None:
    assert run_items(itemsize, items) == run
    # the reference the GPU tests compare with: runs of `run` consecutive items, striped
    pos = tile_positions(3, items, "striped_vectors", itemsize)
    assert sorted(pos.ravel()) == list(range(3 * items))
    assert all(np.all(np.diff(pos[t].reshape(-1, run), axis=1) == 1) for t in range(3))
    assert pos[1, 0] == run  # thread 1's first run follows thread 0's


@pytest.mark.parametrize(
    ("primitive", "dtype", "block", "items", "cls"),
    [
        ("block.load", "bfloat16", (128, 1, 1), 16, "coop_striped_runs<__nv_bfloat16, 128, 16, 4>::Load"),
        ("block.store", "float64", (8, 4, 2), 6, "coop_striped_runs<double, 64, 6, 2>::Store"),
        ("block.load", "int8", (96, 1, 1), 3, "coop_striped_runs<signed char, 96, 3, 1>::Load"),
    ],
)
def test_the_call_is_coops_striped_runs(
    primitive: str, dtype: str, block: tuple[int, int, int], items: int, cls: str
) -> None:
    req = Request(primitive, dtype, block, items, (("algorithm", "striped_vectors"),))
    src = render_requests([req]).source
    body = src[src.index(f"void {req.symbol}(") :].split("\n}\n", 1)[0]
    array = "src" if primitive == "block.load" else "dst"
    assert f"  {cls}(int(cub::RowMajorTid({', '.join(map(str, block))})), {array}, items);" in body
    assert "#include <coop/striped_runs.cuh>\n" in src
    assert "#include <cuda/std/bit>" in src


def test_partial_tiles_pass_the_count_and_default() -> None:
    req = Request(
        "block.load", "float32", (64, 1, 1), 4, (("algorithm", "striped_vectors"),), tags=("partial", "oob")
    )
    src = render_requests([req]).source
    assert "::Load(int(cub::RowMajorTid(64, 1, 1)), src, items, valid_items, oob_default);" in src


def _ops(report: Any) -> dict[str, int]:
    assert report.calls == 0 and report.local_loads == 0 and report.local_stores == 0, report.sass
    return {op: n for op, n in report.opcodes().items() if op.startswith(("LDG", "STG"))}


def test_numba_copy_moves_runs_as_vectors() -> None:
    """Plain Numba arrays carry no alignment: the vector branch and the item-by-item one are both
    there."""
    import cuda.coop.numba as numba_coop

    from ._kernels import copy_kernel, signature

    f32 = numba_coop.compile(copy_kernel("float32", 16, "striped_vectors"), signature("float32"), block=256)
    assert _ops(f32.inspect()) == {"LDG.E.128": 4, "LDG.E": 16, "STG.E.128": 4, "STG.E": 16}
    f16 = numba_coop.compile(copy_kernel("float16", 8, "striped_vectors"), signature("float16"), block=256)
    assert _ops(f16.inspect()) == {"LDG.E.64": 2, "LDG.E.U16": 8, "STG.E.64": 2, "STG.E.U16": 8}


@pytest.mark.parametrize(("dtype", "items", "vector"), [("float32", 16, "128"), ("float16", 8, "64")])
def test_numba_aligned_arrays_fold_the_check(dtype: str, items: int, vector: str) -> None:
    """Arrays typed as aligned (what the front door does for data it finds 16-byte aligned at
    launch) tell LLVM so: with tile offsets of whole runs, only the vector accesses are left."""
    import cuda.coop.numba as numba_coop
    from cuda.coop.numba.kernel._types import AlignedArrayType
    from numba.cuda import types

    from ._kernels import copy_kernel

    ty = AlignedArrayType(getattr(types, dtype), 1, "C")
    k = numba_coop.compile(copy_kernel(dtype, items, "striped_vectors"), types.void(ty, ty), block=256)
    assert _ops(k.inspect()) == {f"LDG.E.{vector}": items // 4, f"STG.E.{vector}": items // 4}


def test_numba_aligned_arrays_take_array_operations() -> None:
    """A kernel typed with aligned arrays indexes, slices and measures them as any array; a view of
    one is a plain array (its coop calls keep the runtime check)."""
    import cuda.coop.numba as numba_coop
    import numba
    from cuda import coop
    from cuda.coop.numba.kernel._types import AlignedArrayType
    from numba import cuda
    from numba.cuda import types

    def kernel(x, y):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(4, numba.float32)
        coop.block.load(x, items, offset=cuda.blockIdx.x * 512, algorithm="striped_vectors")
        coop.block.store(y[1:], items, offset=cuda.blockIdx.x * 512, algorithm="striped_vectors")
        if cuda.threadIdx.x == 0:
            y[0] = x[x.shape[0] - 1] + len(y) + x.size

    ty = AlignedArrayType(types.float32, 1, "C")
    ops = _ops(numba_coop.compile(kernel, types.void(ty, ty), block=128).inspect())
    # x: one vector load, and its last item; y[1:]: the vector store and the item-by-item branch's
    # 4 stores, and y[0]
    assert ops == {"LDG.E.128": 1, "LDG.E": 1, "STG.E.128": 1, "STG.E": 5}, ops


@pytest.mark.parametrize(("align", "narrow"), [(16, False), (2, True)])
def test_cute_tensor_alignment_reaches_the_call(align: int, narrow: bool) -> None:
    """With 16-byte aligned tensors (and tile offsets of whole runs) the runtime check folds: one
    vector access a run and nothing else; with tensors aligned to their items only, the item-by-item
    branch is there."""
    pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
    import cuda.coop.cutlass as cutlass_coop
    from cuda.coop.cutlass._backend import cutlass_type
    from cutlass.cute.runtime import make_fake_compact_tensor

    from ._cute_kernels import copy_host

    n = 256 * 16 * 4
    tensors = [
        make_fake_compact_tensor(cutlass_type("bfloat16"), (n,), assumed_align=align) for _ in range(2)
    ]
    ops = _ops(
        cutlass_coop.compile(copy_host("bfloat16", (256, 1, 1), 16, "striped_vectors"), *tensors).inspect()
    )
    assert ops.get("LDG.E.64") == 4 and ops.get("STG.E.64") == 4, ops
    assert bool(ops.get("LDG.E.U16") or ops.get("STG.E.U16")) == narrow, ops
    if not narrow:
        assert ops == {"LDG.E.64": 4, "STG.E.64": 4}, ops
