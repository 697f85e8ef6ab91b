# SPDX-License-Identifier: Apache-2.0
"""``coop.grid`` without a GPU: the workspace's layout and initial image (what the C++ side,
``coop_grid_area``, reads), the three DSLs compile the grid-scan test kernels ahead of time with
every provider inlined (0 CALL, 0 LDL/STL), and the typed errors: a workspace of another type, a
block narrower than a warp, a tile that is not an integer, bad ScanState arguments, a grid larger
than a ScanState at the front door."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from cuda import coop
from cuda.coop import grid as cg
from cuda.coop._args import SCAN_STATE, ArrayABI, Marshal, check_workspaces, describe, workspace_tiles
from cuda.coop._catalog import CATALOG
from cuda.coop._kinds import Arg, Form
from cuda.coop._primitive import Launch

from . import _grid_kernels as gk


@pytest.mark.parametrize(
    ("item_type", "single", "txn"),
    [
        ("int8", True, 4),
        ("float16", True, 4),
        ("int32", True, 8),
        ("float64", True, 16),
        ("complex64", True, 16),
        (("float32", "int32"), True, 16),
        (("int32", "int32", "int32"), False, 0),
        ("complex128", False, 0),
    ],
)
def test_layout_and_initial_image(item_type: Any, single: bool, txn: int) -> None:
    """Header words (check word, layout, capacity, launch count 0); in both areas the 32 padding
    entries out of bounds (0) and every tile INVALID (99): one status per CUB TxnWord (its low byte)
    or in the status array of the split layout."""
    d = cg.item_dtype(item_type)
    tiles = 77
    assert cg.single_word(d) is single
    img = cg.image(tiles, item_type).view(np.uint8)
    assert img.size == cg.bytes_needed(tiles, item_type) == cg.ScanState.bytes_needed(tiles, item_type)
    assert img.size % 256 == 0
    header = img[:16].view(np.uint32)
    assert list(header) == [cg.MAGIC, (d.itemsize << 1) | single, tiles, 0]
    area = cg.area_bytes(tiles, d)
    assert area % 256 == 0 and img.size == cg.HEADER_BYTES + 2 * area
    for k in range(2):
        base = cg.HEADER_BYTES + k * area
        if single:
            statuses = img[base : base + (cg.PADDING + tiles) * txn : txn]
            assert not img[base : base + area].reshape(-1)[np.arange(area) % txn != 0].any()
        else:
            statuses = img[base : base + (cg.PADDING + tiles) * 4].view(np.uint32)
        assert (statuses[: cg.PADDING] == 0).all() and (statuses[cg.PADDING :] == cg.INVALID).all()


def test_item_types_share_a_layout_by_size() -> None:
    assert cg.bytes_needed(1000, "int32") == cg.bytes_needed(1000, np.float32)
    assert cg.layout_tag(cg.item_dtype("int32")) == cg.layout_tag(cg.item_dtype("float32"))
    assert cg.layout_tag(cg.item_dtype("int64")) != cg.layout_tag(cg.item_dtype("int32"))


def test_scan_state_arguments_are_checked() -> None:
    with pytest.raises(coop.CoopValueError, match="tiles=0"):
        cg.ScanState.bytes_needed(0, "int32")
    with pytest.raises(coop.CoopTypeError, match="tiles must be an int"):
        cg.ScanState.bytes_needed(2.5, "int32")
    with pytest.raises(coop.CoopTypeError, match="unsupported element type"):
        cg.ScanState.bytes_needed(4, "int128")
    with pytest.raises(coop.CoopTypeError, match="item_type"):
        cg.ScanState.bytes_needed(4, object())
    with pytest.raises(coop.CoopValueError, match="array_module"):
        cg.ScanState(4, "int32", array_module="jax")
    with pytest.raises(coop.CoopTypeError, match="__cuda_array_interface__"):
        cg.ScanState.wrap(np.zeros(1024, np.uint64), 4, "int32")


class _FakeArray:
    """A CUDA array seen through its interface only (no GPU needed to read its key)."""

    def __init__(self, words: int, ptr: int = 0x10000, typestr: str = "<u8") -> None:
        self.__cuda_array_interface__ = {
            "shape": (words,),
            "typestr": typestr,
            "data": (ptr, False),
            "version": 3,
        }


class _FakeState:
    __coop_scan_state__ = True

    def __init__(self, tiles: int) -> None:
        self.tiles = tiles
        self.array = _FakeArray(cg.bytes_needed(tiles, "int32") // 8)


def test_wrap_refuses_a_small_misaligned_or_mistyped_buffer() -> None:
    with pytest.raises(coop.CoopValueError, match="need"):
        cg.ScanState.wrap(_FakeArray(8), 4, "int32")
    with pytest.raises(coop.CoopValueError, match="256-byte"):
        cg.ScanState.wrap(_FakeArray(10_000, ptr=0x10008), 4, "int32")
    with pytest.raises(coop.CoopTypeError, match="uint64"):
        cg.ScanState.wrap(_FakeArray(10_000, typestr="<i4"), 4, "int32")


def test_front_door_keys_a_scan_state_by_its_tiles() -> None:
    marshal = Marshal(ArrayABI("P", (0,), lambda ptr, *_: (ptr,), 1))
    keys, values = marshal.read_args([_FakeState(40), 3, _FakeState(12)])
    assert keys[0][0] == (SCAN_STATE, 40) and keys[2][0] == (SCAN_STATE, 12)
    assert workspace_tiles(keys) == 12 and workspace_tiles(keys[1:2]) == 0
    assert "ScanState of 40 tiles" in describe(keys[0])
    check_workspaces([_FakeState(40), 1], (40, 1, 1), "k")
    with pytest.raises(coop.CoopLaunchConfigError, match="grid has 41 blocks.*argument 0.*40 tiles"):
        check_workspaces([_FakeState(40), 1], (41, 1, 1), "k")


def _arg(form: Form, dtype: str | None = None, **kw: Any) -> Arg:
    return Arg(form, shown=f"{form.value} {dtype}", dtype=dtype, **kw)


def test_kinds_refuse_what_is_not_a_workspace_or_a_tile() -> None:
    row = CATALOG["grid.exclusive_sum"]
    launch = Launch((128, 1, 1), "unknown")
    items = _arg(Form.THREAD_DATA, "int32", items=4)
    state = _arg(Form.ARRAY, "uint64")
    tile = _arg(Form.SCALAR, "int32")
    plan = row.resolve({"x": items, "state": state, "tile": tile}, launch)
    assert plan.request.dtype == "int32"
    with pytest.raises(coop.CoopTypeError, match="state must be a contiguous array of uint64"):
        row.resolve({"x": items, "state": _arg(Form.ARRAY, "int32"), "tile": tile}, launch)
    with pytest.raises(coop.CoopTypeError, match="state must be a grid scan's workspace"):
        row.resolve({"x": items, "state": tile, "tile": tile}, launch)
    with pytest.raises(coop.CoopTypeError, match="state must be in global memory"):
        row.resolve({"x": items, "state": _arg(Form.ARRAY, "uint64", memory="shared"), "tile": tile}, launch)
    with pytest.raises(coop.CoopTypeError, match="tile must be an integer"):
        row.resolve({"x": items, "state": state, "tile": _arg(Form.SCALAR, "float32")}, launch)
    with pytest.raises(coop.CoopValueError, match="tile=-1"):
        row.resolve({"x": items, "state": state, "tile": Arg(Form.CONSTANT, "-1", value=-1)}, launch)
    with pytest.raises(coop.CoopLaunchConfigError, match="x dimension is 16"):
        row.resolve({"x": items, "state": state, "tile": tile}, Launch((16, 8, 1), "unknown"))
    for flag in ("total", "tile_prefix"):  # results asked for at compile time
        asked = row.resolve(
            {"x": items, "state": state, "tile": tile, flag: Arg(Form.CONSTANT, "True", value=True)}, launch
        )
        assert asked.request.has("total" if flag == "total" else "tpre")
        with pytest.raises(coop.CoopTypeError, match=f"{flag} must be a compile-time constant True or False"):
            row.resolve({"x": items, "state": state, "tile": tile, flag: _arg(Form.SCALAR, "bool")}, launch)
        with pytest.raises(coop.CoopTypeError, match=f"{flag} must be a compile-time constant True or False"):
            row.resolve(
                {"x": items, "state": state, "tile": tile, flag: Arg(Form.CONSTANT, "1", value=1)}, launch
            )
    index = CATALOG["grid.tile_index"]
    assert index.resolve({"state": state}, launch).request.dtype == "uint64"
    with pytest.raises(coop.CoopTypeError, match="state must be a contiguous array of uint64"):
        index.resolve({"state": _arg(Form.ARRAY, "uint64", stride=2)}, launch)


def _numba_report(cfg: gk.Config, **options: Any) -> Any:
    """``inspect()`` of the Numba kernel of ``cfg``, compiled ahead of time."""
    import cuda.coop.numba as numba_coop

    sig = f"void({cfg.dtype}[::1], {cfg.dtype}[::1], {cfg.dtype}[::1], uint64[::1], int64)"
    return numba_coop.compile(gk.numba_kernel(cfg), sig, block=cfg.block, **options).inspect()


def _cute_report(cfg: gk.Config) -> Any:
    """``inspect()`` of the CuTe kernel of ``cfg``, compiled ahead of time with fake tensors."""
    pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
    import cuda.coop.cutlass as cutlass_coop
    import cutlass

    from ._cute_kernels import fake_tensor
    from ._grid_cute import host

    tensors = [fake_tensor(cfg.dtype, 1024) for _ in range(3)] + [fake_tensor("uint64", 1024)]
    return cutlass_coop.compile(host(cfg), *tensors, cutlass.Int32(5), cutlass.Int32(5)).inspect()


def test_tile_index_order_is_a_checked_choice() -> None:
    launch = Launch((128, 1, 1), "unknown")
    index = CATALOG["grid.tile_index"]
    state = _arg(Form.ARRAY, "uint64")
    assert dict(index.resolve({"state": state}, launch).request.options)["order"] == "ticket"
    for order in ("block", coop.GridTileOrder.BLOCK):
        asked = index.resolve({"state": state, "order": Arg(Form.CONSTANT, "str", value=order)}, launch)
        assert dict(asked.request.options)["order"] == "block"
    with pytest.raises(coop.CoopValueError, match="order.*'ticket'.*'block'"):
        index.resolve({"state": state, "order": Arg(Form.CONSTANT, "str", value="blockidx")}, launch)


@pytest.mark.parametrize("backend", ["numba", "cutlass"])
def test_tile_index_in_block_order_takes_no_ticket(backend: str) -> None:
    """``order='block'``: no atomic on the workspace and no barrier to share a ticket (one barrier
    fewer than the ticket's kernel); the scan's first warp still checks the workspace (a trap)."""
    report = _numba_report if backend == "numba" else _cute_report
    reports = {
        o: report(gk.Config("exclusive_sum", "int32", (128, 1, 1), 4, 7, order=o))
        for o in ("ticket", "block")
    }
    ticket, block = reports["ticket"].sass, reports["block"].sass
    assert "ATOMG.E.ADD" in ticket and "ATOMG.E.ADD" not in block, block
    assert block.count("BAR.SYNC") == ticket.count("BAR.SYNC") - 1, (ticket, block)
    assert "BPT.TRAP" in block  # the scan's check of the workspace


def test_host_call_is_refused() -> None:
    with pytest.raises(coop.CoopHostCallError, match="kernel-side function"):
        coop.grid.tile_index(np.zeros(4, np.uint64))


_CASES = [
    gk.Config("exclusive_sum", "int32", (128, 1, 1), 4, 7),
    gk.Config("inclusive_max_init", "float64", (32, 3, 1), 2, 7),
    gk.Config("exclusive_user_init", "int16", (48, 1, 1), 3, 7),
    gk.Config("inclusive_sum", "uint8", (128, 1, 1), 3, 7),
    gk.Config("exclusive_user_init", "uint64", (64, 1, 1), 3, 7),
    gk.Config("exclusive_sum", "float16", (128, 1, 1), 2, 7),
    gk.Config("inclusive_sum", "complex64", (64, 1, 1), 2, 7),
    gk.Config("exclusive_sum", "complex128", (32, 1, 1), 1, 7),
    # blocks of a partial warp: the tile scanned alone, then the first warp's look-back
    gk.Config("inclusive_sum", "float64", (48, 1, 1), 5, 7),
    gk.Config("exclusive_user_init", "int32", (40, 1, 1), 2, 7),
    gk.Config("exclusive_max", "int16", (33, 3, 1), 3, 7),
]
_CUTE_CASES = [
    *_CASES[:2],
    gk.Config("inclusive_max_init", "bfloat16", (64, 1, 1), 4, 7),
    gk.Config("exclusive_max", "uint32", (96, 1, 1), 2, 7),
    gk.Config("inclusive_sum", "float64", (48, 1, 1), 5, 7),
]


@pytest.mark.parametrize("cfg", _CASES, ids=lambda c: c.id())
def test_numba_kernels_inline(cfg: gk.Config) -> None:
    report = _numba_report(cfg)
    assert report.calls == 0 and report.local_loads == 0 and report.local_stores == 0, report.sass
    assert not report.leftover_symbols


def test_float64_grid_scan_in_a_small_block_fits_with_one_block_per_sm_bound() -> None:
    """ptxas gives a float64 grid scan of 64 threads x 3 items 32 registers and an 8-byte spill under
    the default launch bounds (the thread count alone); ``launch_bounds=(threads, 1)``, as
    docs/numba.rst advises, gives it the registers it needs and no local memory."""
    import cuda.coop.numba as numba_coop

    cfg = gk.Config("inclusive_sum", "float64", (64, 1, 1), 3, 7)
    sig = "void(float64[::1], float64[::1], float64[::1], uint64[::1], int64)"
    kernel = gk.numba_kernel(cfg)
    report = numba_coop.compile(kernel, sig, block=cfg.block, launch_bounds=(64, 1)).inspect()
    assert report.calls == 0 and report.local_loads == 0 and report.local_stores == 0, report.sass


#: The look-back's backoff (its NANOSLEEP operands, ns): sums take CUB's sm_90 DeviceScan tuning
#: (cub/device/dispatch/tuning/tuning_scan.cuh, by item size, float and double apart); other scans
#: keep TilePrefixCallbackOp's default. The test kernels' own sleeps are 1000 ns.
_BACKOFF = [
    ("exclusive_sum", "int32", {648, 1245}),
    ("inclusive_sum", "float32", {688, 1140}),
    ("inclusive_sum", "float64", {576, 1215}),
    ("exclusive_sum", "uint64", {632, 1290}),
    ("inclusive_sum", "int16", {376, 1125}),
    ("exclusive_sum", "uint8", {168, 1140}),
    ("inclusive_sum", "complex64", {350, 450}),
    ("exclusive_max", "int32", {350, 450}),
    ("exclusive_user_init", "float32", {350, 450}),
]


@pytest.mark.parametrize(("scan", "dtype", "sleeps"), _BACKOFF, ids=[f"{a}-{b}" for a, b, _ in _BACKOFF])
def test_look_back_backs_off_as_cub_device_scan(scan: str, dtype: str, sleeps: set[int]) -> None:
    sass = _numba_report(gk.Config(scan, dtype, (128, 1, 1), 2, 7), arch="sm_90a").sass
    found = {int(v, 16) for v in re.findall(r"NANOSLEEP 0x([0-9a-f]+)", sass)} - {1000}
    assert found == sleeps


@pytest.mark.parametrize("cfg", _CUTE_CASES, ids=lambda c: c.id())
def test_cute_kernels_inline(cfg: gk.Config) -> None:
    report = _cute_report(cfg)
    assert report.calls == 0 and report.local_loads == 0 and report.local_stores == 0, report.sass


def test_numba_mlir_kernel_inlines() -> None:
    pytest.importorskip("numba_cuda_mlir")
    import cuda.coop.numba_mlir as mlir_coop
    from numba_cuda_mlir import cuda

    cfg = _CASES[0]
    sig = f"void({cfg.dtype}[::1], {cfg.dtype}[::1], {cfg.dtype}[::1], uint64[::1], int64)"
    report = mlir_coop.compile(gk.numba_kernel(cfg, cuda), sig, block=cfg.block).inspect()
    assert report.calls == 0 and report.local_loads == 0 and report.local_stores == 0, report.sass


@pytest.mark.parametrize("fields", [("int32", "int32", "int32"), ("float32", "int32")], ids="_".join)
def test_structured_kernels_inline(fields: tuple[str, ...]) -> None:
    """Structured items of 12 bytes (status and values apart) and 8 (one word), partial tiles: no
    local memory (with ``algorithm="raking"`` ptxas refilled registers around the look-back's
    shuffles here, hence the grid scans' default ``warp_scans``)."""
    import cuda.coop.numba as numba_coop

    from .test_grid_gpu import _structured_kernel

    arrays = ", ".join(f"{f}[::1]" for f in fields)
    sig = f"void({arrays}, {arrays}, uint64[::1], int64)"
    report = numba_coop.compile(_structured_kernel(fields, 64 * 3, 3), sig, block=64).inspect()
    assert report.calls == 0 and report.local_loads == 0 and report.local_stores == 0, report.sass
