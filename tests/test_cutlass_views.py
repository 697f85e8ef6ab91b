# SPDX-License-Identifier: Apache-2.0
"""CuTe tensors as CuTe users write them, as ``src``/``dst`` of coop.block.load/store: a tile of one
row (``cute.local_tile``), ``tensor[row, None]``, a whole compact 2-D tensor with ``offset=``, a
column (a strided 1-D view: ``direct``, ``striped``, and ``striped_vectors`` / ``auto`` item by item in
their runs); refused layouts name the view that works.
Ahead of time here; on the GPU against NumPy (both static and dynamic layouts)."""

from typing import Any

import numpy as np
import pytest

pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")

import cuda.coop.cutlass as cutlass_coop  # noqa: E402
import cutlass  # noqa: E402
import cutlass.cute as cute  # noqa: E402
from cuda import coop  # noqa: E402

THREADS, ITEMS, ROWS = 64, 4, 6
TILE = THREADS * ITEMS
VIEWS = ["local_tile", "row", "whole", "column", "column_offset"]


def _host(view: str, algorithm: str) -> Any:
    @cute.kernel
    def kernel(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        b, _, _ = cute.arch.block_idx()
        items = coop.ThreadData(ITEMS, cutlass.Float32)
        if cutlass.const_expr(view == "local_tile"):  # the tile of row b: layout (1,TILE):(0,1)
            coop.block.load(cute.local_tile(src, (1, TILE), (b, 0)), items, algorithm=algorithm)
            coop.block.store(cute.local_tile(dst, (1, TILE), (b, 0)), items, algorithm=algorithm)
        if cutlass.const_expr(view == "row"):
            coop.block.load(src[b, None], items, algorithm=algorithm)
            coop.block.store(dst[b, None], items, algorithm=algorithm)
        if cutlass.const_expr(view == "whole"):  # the compact 2-D tensor, in memory order
            coop.block.load(src, items, offset=b * TILE, algorithm=algorithm)
            coop.block.store(dst, items, offset=b * TILE, algorithm=algorithm)
        if cutlass.const_expr(view == "column"):  # (2*TILE, ROWS) row-major: column b, stride ROWS
            coop.block.load(src[None, b], items, algorithm=algorithm)
            coop.block.store(dst[None, b], items, algorithm=algorithm)
        if cutlass.const_expr(view == "column_offset"):  # offset= counts items of the strided view
            coop.block.load(src[None, b], items, offset=TILE, algorithm=algorithm)
            coop.block.store(dst[None, b], items, offset=TILE, algorithm=algorithm)

    @cute.jit
    def host(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        kernel(src, dst).launch(grid=(ROWS, 1, 1), block=(THREADS, 1, 1))

    return host


def _shape(view: str) -> tuple[int, int]:
    return (2 * TILE, ROWS) if view.startswith("column") else (ROWS, TILE)


def _fake(view: str) -> Any:
    from cutlass.cute.runtime import make_fake_compact_tensor

    return make_fake_compact_tensor(cutlass.Float32, _shape(view), stride_order=(1, 0), assumed_align=16)


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("algorithm", ["direct", "striped", "striped_vectors", "auto"])
def test_views_compile_and_inline(view: str, algorithm: str) -> None:
    report = cutlass_coop.compile(_host(view, algorithm), _fake(view), _fake(view)).inspect()
    assert report.calls == 0 and report.local_loads == 0 and report.local_stores == 0


@pytest.mark.parametrize("view", ["local_tile", "row", "whole"])
@pytest.mark.parametrize("algorithm", ["vectorize", "transpose", "warp_transpose"])
def test_contiguous_views_take_every_algorithm(view: str, algorithm: str) -> None:
    report = cutlass_coop.compile(_host(view, algorithm), _fake(view), _fake(view)).inspect()
    assert report.calls == 0 and report.local_loads == 0


@pytest.mark.parametrize("algorithm", ["vectorize", "transpose", "warp_transpose_timesliced"])
def test_a_strided_view_names_its_stride_and_the_fix(algorithm: str) -> None:
    message = (
        rf"src is a strided view \(stride {ROWS}\), and algorithm='{algorithm}' needs a contiguous one; "
        "use algorithm 'direct', 'striped', 'striped_vectors'"
    )
    with pytest.raises(coop.CoopValueError, match=message):
        cutlass_coop.compile(_host("column", algorithm), _fake("column"), _fake("column"))


def test_a_layout_that_stays_refused_says_which_view_works() -> None:
    @cute.kernel
    def kernel(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(ITEMS, cutlass.Float32)
        # two half rows of a (ROWS, TILE) tensor: (2, TILE/2):(TILE, 1) is not one range
        coop.block.load(cute.local_tile(src, (2, TILE // 2), (0, 0)), items)

    @cute.jit
    def host(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        kernel(src, dst).launch(grid=(1, 1, 1), block=(THREADS // 2, 1, 1))

    message = (
        r"src must be 1-D once size-1 modes are dropped.*"
        r"tensor\[row, None\] or cute.local_tile\(tensor, \(1, TILE\), \(row, 0\)\)"
    )
    with pytest.raises(coop.CoopTypeError, match=message):
        cutlass_coop.compile(host, _fake("row"), _fake("row"))


@pytest.mark.gpu
@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("algorithm", ["direct", "striped", "vectorize", "auto"])
@pytest.mark.parametrize("view", VIEWS)
def test_views_on_the_gpu(view: str, algorithm: str, dynamic: bool) -> None:
    import torch
    from cutlass.cute.runtime import from_dlpack

    if view.startswith("column") and algorithm == "vectorize":
        pytest.skip("refused (a strided view): test_a_strided_view_names_its_stride_and_the_fix")
    x = np.random.default_rng().standard_normal(_shape(view)).astype(np.float32)
    src = torch.from_numpy(x).cuda()
    dst = torch.full_like(src, float("nan"))

    def cute_tensor(t: Any) -> Any:
        ct = from_dlpack(t, assumed_align=16)
        return ct.mark_layout_dynamic(leading_dim=1) if dynamic else ct

    if dynamic and view == "whole":
        with pytest.raises(coop.CoopTypeError, match="must be 1-D once size-1 modes are dropped"):
            cutlass_coop.compile(_host(view, algorithm), cute_tensor(src), cute_tensor(dst))
        return  # a dynamic row stride may pad rows: not provably one range
    compiled = cutlass_coop.compile(_host(view, algorithm), cute_tensor(src), cute_tensor(dst))
    compiled(cute_tensor(src), cute_tensor(dst))
    torch.cuda.synchronize()
    want = np.full_like(x, np.nan)
    if view == "column":
        want[:TILE] = x[:TILE]
    elif view == "column_offset":
        want[TILE:] = x[TILE:]
    else:
        want[...] = x
    np.testing.assert_array_equal(dst.cpu().numpy(), want)


@pytest.mark.parametrize("shape", ["static", "dynamic"])
@pytest.mark.parametrize("view", ["local_tile", "row", "column", "column_offset", "whole"])
def test_dynamic_layouts(view: str, shape: str) -> None:
    """A symbolic row stride, with static or symbolic sizes (a dynamic layout, as
    from_dlpack(...).mark_layout_dynamic() gives both): a row stays unit-stride, a column is a view
    with a runtime stride, a whole tensor is refused (rows may be padded). Sizes and strides that
    are only known at run time must not be compared in Python (that stages a runtime boolean)."""
    from cutlass.cute.runtime import SymInt, make_fake_tensor

    rows, cols = _shape(view)
    if shape == "dynamic":
        rows, cols = SymInt(), SymInt(divisibility=4)
    width = SymInt(divisibility=4)
    fake = [make_fake_tensor(cutlass.Float32, (rows, cols), (width, 1), assumed_align=16) for _ in range(2)]
    if view == "whole":
        with pytest.raises(coop.CoopTypeError, match="must be 1-D once size-1 modes are dropped"):
            cutlass_coop.compile(_host(view, "striped"), *fake)
        return
    report = cutlass_coop.compile(_host(view, "striped"), *fake).inspect()
    assert report.calls == 0 and report.local_loads == 0
