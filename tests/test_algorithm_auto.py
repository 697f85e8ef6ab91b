# SPDX-License-Identifier: Apache-2.0
"""``algorithm="auto"`` without a GPU: what it stands for (the enum member, the string, the docs'
table), the same machine code as the algorithm it names, tuples and strided views moved in runs, the
argmax indices of ``arrangement="auto"``, and the refusals that name what the call wrote. On the GPU:
``tests/test_algorithm_auto_gpu.py``, the load/store grids and the CuTe views."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from cuda import coop
from cuda.coop._catalog import CHOICES
from cuda.coop._docgen import choice_table
from cuda.coop._render import render_requests
from cuda.coop._requests import Request


def _ops(report: Any) -> dict[str, int]:
    assert report.calls == 0 and report.local_loads == 0 and report.local_stores == 0, report.sass
    return {op: n for op, n in report.opcodes().items() if op.startswith(("LDG", "STG"))}


def test_auto_is_a_member_and_a_name_of_the_block_tables_only() -> None:
    assert coop.BlockLoadAlgorithm.AUTO == "auto" and coop.BlockStoreAlgorithm.AUTO == "auto"
    assert coop.ItemArrangement.AUTO == "auto"
    tables = {c.enum_name: c for c in CHOICES}
    assert tables["BlockLoadAlgorithm"].normalize("AUTO") == "striped_vectors"
    assert tables["BlockLoadAlgorithm"].normalize(coop.BlockLoadAlgorithm.AUTO) == "striped_vectors"
    assert tables["ItemArrangement"].normalize("auto") == "striped_vectors"
    assert not hasattr(coop.WarpLoadAlgorithm, "AUTO")
    assert tables["WarpLoadAlgorithm"].normalize("auto") is None
    assert tables["BlockReduceAlgorithm"].normalize("auto") is None
    table = choice_table(tables["BlockLoadAlgorithm"])
    assert '* - ``"auto"``' in table and 'as ``"striped_vectors"``' in table


def test_auto_compiles_to_what_it_stands_for() -> None:
    import cuda.coop.numba as numba_coop

    from ._kernels import copy_kernel, signature

    for dtype, items in (("float32", 16), ("float16", 8), ("float32", 4), ("int8", 3)):
        auto = numba_coop.compile(copy_kernel(dtype, items, "auto"), signature(dtype), block=128).inspect()
        named = numba_coop.compile(
            copy_kernel(dtype, items, "striped_vectors"), signature(dtype), block=128
        ).inspect()
        assert auto.opcodes() == named.opcodes() and list(auto.registers.values()) == list(
            named.registers.values()
        ), (dtype, items)
    assert _ops(auto) and "LDG.E.128" not in _ops(auto)  # int8 x 3: runs of one item, striped


def _argmax_body(arrangement: str, block: tuple[int, int, int], items: int, dtype: str = "float32") -> str:
    req = Request(
        "block.argmax", dtype, block, items, (("algorithm", "warp_reductions"), ("arrangement", arrangement))
    )
    src = render_requests([req]).source
    return src[src.index(f"void {req.symbol}(") :].split("\n}\n", 1)[0]


@pytest.mark.parametrize(
    ("dtype", "items", "index"),
    [
        ("float32", 16, "(x_at / 4 * coop_group_threads + coop_rank) * 4 + x_at % 4"),
        ("float64", 8, "(x_at / 2 * coop_group_threads + coop_rank) * 2 + x_at % 2"),
        ("float32", 4, "coop_rank * 4 + x_at"),  # one run: the thread's tile, blocked
        ("float32", 3, "coop_rank + coop_group_threads * x_at"),  # runs of one: striped
    ],
)
def test_argmax_indices_in_runs(dtype: str, items: int, index: str) -> None:
    body = _argmax_body("striped_vectors", (64, 2, 1), items, dtype)
    assert "const int x_at = coop_arg_first<true>(x, x_best);" in body
    assert f"x_pair{{x_best, {index}}};" in body, body


def test_argmax_positions_in_runs_match_the_load() -> None:
    """The index formula is the tile position a ``striped_vectors`` load gives item ``j`` of thread
    ``t`` (the GPU tests compare against the same reference)."""
    from ._reference import tile_positions

    threads, v = 64, 4
    pos = tile_positions(threads, 16, "auto", 4)
    t, j = np.meshgrid(np.arange(threads), np.arange(16), indexing="ij")
    assert np.array_equal(pos, (j // v * threads + t) * v + j % v)


def test_tuples_move_in_runs_ahead_of_time() -> None:
    import cuda.coop.numba as numba_coop
    import numba
    from numba import cuda
    from numba.cuda import types

    def kernel(v, i):  # type: ignore[no-untyped-def]
        vs = coop.ThreadData(8, numba.float32)
        ix = coop.ThreadData(8, numba.int32)
        coop.block.load((v, i), (vs, ix), offset=cuda.blockIdx.x * 1024, algorithm="auto")
        for k in range(8):
            vs[k] += 1.0
        coop.block.store((v, i), (vs, ix), offset=cuda.blockIdx.x * 1024, algorithm="auto")

    ops = _ops(
        numba_coop.compile(kernel, types.void(types.float32[::1], types.int32[::1]), block=128).inspect()
    )
    # each field: two vector runs and the item-by-item branch of a plain (not provably aligned) array
    assert ops == {"LDG.E.128": 4, "LDG.E": 16, "STG.E.128": 4, "STG.E": 16}, ops


def test_tuples_whose_runs_differ_are_refused_naming_auto() -> None:
    import cuda.coop.numba as numba_coop
    import numba
    from numba.cuda import types

    def kernel(v, i):  # type: ignore[no-untyped-def]
        vs = coop.ThreadData(8, numba.float64)
        ix = coop.ThreadData(8, numba.int32)
        coop.block.load((v, i), (vs, ix), algorithm="auto")

    message = (
        "coop.block.load: algorithm='auto' ('striped_vectors') moves each field of items "
        "(tuple_float64_int32) in runs of up to 16 bytes, and at 8 items a thread its fields' runs "
        "differ (float64: 2, int32: 4 items)"
    )
    with pytest.raises(coop.CoopTypeError, match=re.escape(message)):
        numba_coop.compile(kernel, types.void(types.float64[::1], types.int32[::1]), block=128)


def test_cute_strided_views_move_runs_item_by_item() -> None:
    pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
    import cuda.coop.cutlass as cutlass_coop

    from .test_cutlass_views import _fake, _host

    ops = _ops(cutlass_coop.compile(_host("column", "auto"), _fake("column"), _fake("column")).inspect())
    assert set(ops) == {"LDG.E", "STG.E"}, ops  # a column: one access per item, no vectors
    ops = _ops(cutlass_coop.compile(_host("row", "auto"), _fake("row"), _fake("row")).inspect())
    assert ops == {"LDG.E.128": 1, "STG.E.128": 1}, ops  # a 16-byte aligned row: the run is one vector


@pytest.mark.parametrize("items", [16, 32, 64])
def test_argmax_of_many_items_in_runs_keeps_one_index(items: int) -> None:
    """A row loaded with ``auto`` and its argmax with ``arrangement="auto"``: no local memory, no
    call, and no more registers at 64 items a thread than the items themselves need (the loop keeps
    one best item and its position, not an index an item)."""
    import cuda.coop.numba as numba_coop
    import numba
    from numba import cuda
    from numba.cuda import types

    def kernel(x, out):  # type: ignore[no-untyped-def]
        xs = coop.ThreadData(items, numba.float32)
        coop.block.load(x, xs, offset=cuda.blockIdx.x * 64 * items, algorithm="auto")
        v, i = coop.block.argmax(xs, arrangement="auto")
        if cuda.threadIdx.x == 0:
            out[cuda.blockIdx.x] = i

    report = numba_coop.compile(kernel, types.void(types.float32[::1], types.int32[::1]), block=64).inspect()
    assert report.calls == 0 and report.local_loads == 0 and report.local_stores == 0, report.sass
    assert max(report.registers.values()) <= items + 40, report.registers
