# SPDX-License-Identifier: Apache-2.0
"""The catalog is the one description of each primitive: everything public is derived from it,
and a primitive added as a row compiles on both backends without touching a backend file."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cuda import coop
from cuda.coop import _bundle
from cuda.coop._catalog import CATALOG, CHOICES, FAMILIES, in_scope
from cuda.coop._catalog import _common as catalog_common
from cuda.coop._choices import Choices
from cuda.coop._kernel_api import add
from cuda.coop._kinds import Choice
from cuda.coop._primitive import Primitive


def test_public_surface_is_derived_from_the_rows() -> None:
    assert coop.block.__all__ == list(in_scope("block"))
    for name, row in in_scope("block").items():
        stub = getattr(coop.block, name)
        assert stub.__coop_primitive__ is row
        assert str(inspect.signature(stub)) == str(row.signature())
    used = {
        p.kind.choices.enum_name for row in CATALOG.values() for p in row.params if isinstance(p.kind, Choice)
    }
    assert used == {c.enum_name for c in CHOICES}
    for choices in CHOICES:
        enum = getattr(coop, choices.enum_name)
        values = ["auto"] * bool(choices.auto) + [o.value for o in choices.options]
        assert enum is choices.enum and [m.value for m in enum] == values


#: The documented order of the rows (the API reference, ``coop.<scope>.__all__``, the stubs), recorded
#: from the single-file catalog before it was split by family (issue 48): the split keeps it.
DOCUMENTED_ORDER = """
    block.load block.load_to_shared block.store block.exchange block.sum block.reduce block.argmax
    block.argmin block.inclusive_sum block.exclusive_sum block.inclusive_scan block.exclusive_scan
    block.radix_sort block.merge_sort block.adjacent_difference block.discontinuity block.shuffle
    block.histogram block.run_length_decode block.radix_rank block.top_k
    warp.load warp.store warp.exchange warp.sum warp.reduce warp.argmax warp.argmin warp.inclusive_sum
    warp.exclusive_sum warp.inclusive_scan warp.exclusive_scan warp.broadcast warp.head_segmented_sum
    warp.tail_segmented_sum warp.head_segmented_reduce warp.tail_segmented_reduce warp.batched_sum
    warp.batched_reduce warp.merge_sort
    cluster.sum cluster.reduce cluster.argmax cluster.argmin
    grid.tile_index grid.inclusive_sum grid.exclusive_sum grid.inclusive_scan grid.exclusive_scan
""".split()
#: The choice enums in the order every package exports them, recorded likewise.
EXPORTED_CHOICES = """
    BlockLoadAlgorithm BlockStoreAlgorithm BlockReduceAlgorithm BlockScanAlgorithm BlockExchangeMode
    WarpLoadAlgorithm WarpStoreAlgorithm WarpExchangeAlgorithm WarpExchangeMode WarpBatchedArrangement
    ItemArrangement BlockRadixSortOutput BlockAdjacentDirection BlockDiscontinuityFlags BlockShuffleMode
    BlockHistogramAlgorithm BlockRadixRankAlgorithm GridTileOrder
""".split()


def test_rows_and_choices_keep_their_documented_order() -> None:
    assert [k for k in CATALOG if k in DOCUMENTED_ORDER] == DOCUMENTED_ORDER
    assert [c.enum_name for c in CHOICES] == EXPORTED_CHOICES


def test_each_family_lists_what_it_declares() -> None:
    """A row or choice table declared in a family module and left out of its ``ROWS`` or ``CHOICES``
    (so out of the catalog or unexported) fails here; each row's ``family`` names its module, and each
    module of the catalog package is a family (or ``_common``)."""
    folder = Path(catalog_common.__file__).parent
    assert {p.stem for p in folder.glob("*.py")} == {"__init__", "_common", *FAMILIES}
    shared = [v for v in vars(catalog_common).values() if isinstance(v, Choices)]
    assert shared == list(catalog_common.CHOICES)
    for name, module in FAMILIES.items():
        declared = list(vars(module).values())
        rows = [v for v in declared if isinstance(v, Primitive)]
        assert set(rows) == set(module.ROWS), name
        assert all(row.family == name for row in module.ROWS), name
        assert [v for v in declared if isinstance(v, Choices) and v not in shared] == list(module.CHOICES), (
            name
        )


def test_the_renderer_fingerprint_reads_every_catalog_and_kinds_module() -> None:
    """The bundle cache's index keys change when any module of the catalog or of the kinds does."""
    for package in ("_catalog", "_kinds"):
        folder = Path(catalog_common.__file__).parents[1] / package
        assert {f"{package}/{p.name}" for p in folder.glob("*.py")} <= set(_bundle._RENDERING), package


def test_adding_a_row_twice_is_refused() -> None:
    with pytest.raises(coop.CoopValueError, match="coop.block.load is in the catalog already"):
        add(CATALOG["block.load"])


_TOY = """
import os
os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")
from typing import Any
import numpy as np
from cuda import coop
from cuda.coop import _kernel_api
from cuda.coop._choices import Choices, Option
from cuda.coop._kinds import BlockShape, Choice, Count, Payload
from cuda.coop._primitive import Call, Cub, Param, Primitive, Result

{order_before}

# A contributor's primitive, declared once: the block-wide sum of one scalar per thread, over the
# first num_valid threads (CUB BlockReduce::Sum), with its own choice table.
ALGORITHMS = Choices("ToySumAlgorithm", "How toy_sum reduces.", (
    Option("raking", "cub::BLOCK_REDUCE_RAKING", "raking"),
    Option("warp_reductions", "cub::BLOCK_REDUCE_WARP_REDUCTIONS", "per warp, then across warps"),
))
ROW = Primitive(
    scope="block",
    name="toy_sum",
    cub=Cub("cub::BlockReduce", "cub/block/block_reduce.cuh",
            ("T", "BLOCK_DIM_X", "algorithm", "BLOCK_DIM_Y", "BLOCK_DIM_Z")),
    params=(
        Param("x", Payload(scalar=True, scalar_form=True), "Any", "a value per thread.", keyword_only=False),
        Param("num_valid", Count("valid", scalar_payload_only=True), "int | None", "threads in.", None),
        Param("algorithm", Choice(ALGORITHMS), "str", "how.", "raking"),
        Param("threads_per_block", BlockShape(), "int | None", "block dims.", None),
    ),
    call=Call("Sum", ("x", "num_valid"), returns="result"),
    results=(Result("result", "the sum, in thread 0."),),
    summary="Toy: the block-wide sum of one value per thread.",
    details="For the catalog test.",
    returns_doc="the sum, in thread 0.",
    returns_annotation="Any",
)
toy_sum = _kernel_api.add(ROW)
assert coop.block.toy_sum is toy_sum and "toy_sum" in coop.block.__all__

{order_after}

from numba import cuda

def numba_kernel(src, dst, n):
    v = src[cuda.threadIdx.x]
    total = coop.block.toy_sum(v, num_valid=n, algorithm="warp_reductions")
    if cuda.threadIdx.x == 0:
        dst[0] = total

r = numba_coop.compile(numba_kernel, "void(float32[::1], float32[::1], int32)", block=96).inspect()
print("numba", r.calls, r.local_loads, r.local_stores, r.leftover_symbols)

import cutlass
import cutlass.cute as cute
import cuda.coop.cutlass as cutlass_coop
from cutlass.cute.runtime import make_fake_compact_tensor

@cute.kernel
def cute_kernel(src: cute.Tensor, dst: cute.Tensor):
    tidx, _, _ = cute.arch.thread_idx()
    total = coop.block.toy_sum(src[tidx])
    if tidx == 0:
        dst[0] = total

@cute.jit
def host(src: cute.Tensor, dst: cute.Tensor):
    cute_kernel(src, dst).launch(grid=(1, 1, 1), block=(96, 1, 1))

fake = [make_fake_compact_tensor(cutlass.Float32, (96,), assumed_align=16) for _ in range(2)]
c = cutlass_coop.compile(host, *fake)
r = c.inspect()
print("cute", r.calls, r.local_loads, r.local_stores, r.leftover_symbols, c.symbols)
"""


@pytest.mark.parametrize("order", ["row-after-activation", "row-before-activation"])
def test_a_primitive_added_as_a_row_compiles_on_both_backends(order: str, tmp_path: Path) -> None:
    """The row alone: no backend file knows ``toy_sum``. (A script file: CuTe reads the source.)"""
    pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
    imports = "import cuda.coop.numba as numba_coop"
    script = tmp_path / "toy.py"
    script.write_text(
        _TOY.format(
            order_before=imports if order == "row-after-activation" else "",
            order_after=imports if order == "row-before-activation" else "",
        )
    )
    out = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env={**os.environ}, check=False
    )
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert "numba 0 0 0 ()" in lines
    cute = next(line for line in lines if line.startswith("cute "))
    assert cute.startswith("cute 0 0 0 ()") and "coop_block_toy_sum_float32_raking_b96x1x1_i1_scalar" in cute
