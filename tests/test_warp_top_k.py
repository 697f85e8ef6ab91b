# SPDX-License-Identifier: Apache-2.0
"""``coop.warp.top_k`` without a GPU: the design (a NumPy lane model of ``coop/top_k.cuh``: its
networks, thresholds and overflow rounds) against the ``np.lexsort`` reference on the rows that
defeat a threshold, and every case of ``tests/_warp_top_k_cases.py`` compiled ahead of time on
every backend: one function, no CALL, no local memory (a tile of 16 and of 64 items a lane
included). ``tests/test_warp_top_k_gpu.py`` runs them."""

from __future__ import annotations

import os

import numpy as np
import pytest

from . import _top_k_model as model
from ._numba_family import front
from ._reference import assert_inlined
from ._warp_top_k_cases import Case, cases, mismatches, numba_kernel, numba_signature, rows


def _model_lists(case: Case, x: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    w, n, tile = case.width, case.items, case.width * case.items
    values, indices = [], []
    for row, ix in zip(x.astype(np.float32), idx, strict=True):
        running = None
        for j in range(case.tiles):
            seg, segi = row[j * tile : (j + 1) * tile], ix[j * tile : (j + 1) * tile]
            if case.mode == "blocked":
                items, given = seg.reshape(w, n), None
            else:
                items, given = seg.reshape(n, w).T, segi.reshape(n, w).T
            if case.mode == "first" and j == 0:
                running = model.top_k_call(items, case.k, first=0, striped=case.mode != "blocked")
                continue
            if running is None:
                running = (np.full(w, -np.inf, np.float32), np.full(w, model.NO_INDEX))
            running = model.top_k_call(
                items,
                case.k,
                running=running,
                first=j * tile,
                indices=given if case.mode == "indices" else None,
                striped=case.mode != "blocked",
            )
        values.append(running[0])
        indices.append(running[1])
    return np.array(values), np.array(indices)


_MODEL_CASES = [c for c in cases() if c.dtype == "float32"] + [
    Case(k, n, tiles=2, width=w) for w in (8, 16) for k in (1, 2, 5, w) for n in (4, 16)
]


@pytest.mark.parametrize("case", _MODEL_CASES, ids=lambda c: c.id)
def test_the_design_is_exact(case: Case) -> None:
    """The lane model of the design gives NumPy's list on every kind of row (fresh random rows)."""
    x, idx = rows(case, np.random.default_rng())
    got_v, got_i = _model_lists(case, x, idx)
    assert not mismatches(case, x, idx, got_v, got_i)


def test_merges_on_random_rows_are_few() -> None:
    """A random row of 4096 in tiles of 32 x 32, k = 16: one merge a tile (the list's threshold
    keeps a tile's candidates under a warp's worth), as the hand-written design."""
    rng = np.random.default_rng(7)
    merges, running = 0, None
    row = rng.standard_normal(4096).astype(np.float32)
    for j in range(4):
        stats: dict[str, int] = {}
        tile = row[j * 1024 : (j + 1) * 1024].reshape(32, 32).T
        running = model.top_k_call(tile, 16, running=running, first=j * 1024, stats=stats)
        merges += stats["merges"]
    assert merges <= 4


def test_a_full_width_list_takes_its_first_tile_in_about_one_merge() -> None:
    """k = 32 of 32 lanes, one tile of 32 x 32 random items (a row of 1024): the threshold from the
    lanes' two best items lets ~36 items through (one merge, then a few insertions) where the least of
    the lanes' maxima let ~122 (four merges)."""
    rng = np.random.default_rng(11)
    merges = []
    for _ in range(20):
        stats: dict[str, int] = {}
        row = rng.standard_normal(1024).astype(np.float32)
        tile = row.reshape(32, 32).T
        v, i = model.top_k_call(tile, 32, stats=stats)
        order = np.lexsort((np.arange(1024), -row.astype(np.float64)))[:32]
        np.testing.assert_array_equal(i, order)
        np.testing.assert_array_equal(v, row[order])
        merges.append(stats["merges"])
    assert max(merges) <= 2 and np.mean(merges) <= 1.5, merges


_AOT = [c for c in cases() if c.dtype != "bfloat16"]  # Numba has no bfloat16 arrays


@pytest.mark.parametrize("case", _AOT, ids=lambda c: c.id)
def test_numba_compiles_without_local_memory(case: Case) -> None:
    coop_module, cuda = front("numba")
    report = coop_module.compile(numba_kernel(case, coop_module, cuda), numba_signature(case), block=128)
    sass = report.inspect()
    assert_inlined(sass)
    if case.width == 32:
        # ptxas proves every shuffle, vote and reduction convergent: no divergent fallback copies (a
        # branch it cannot prove warp-uniform around one brought ~860 of 1936 instructions, 10 BRA.DIV)
        assert "BRA.DIV" not in sass.opcodes(), case.id


_FEW = ("k16-n16-t3-striped-float32-w32", "k16-n16-t3-first-float32-w32", "k16-n16-t3-indices-float32-w32",
        "k3-n32-t3-blocked-float32-w32", "k16-n8-t3-striped-float16-w32", "k8-n16-t3-striped-int32-w32",
        "k7-n16-t3-striped-float32-w16", "k16-n64-t2-striped-float32-w32")  # fmt: skip


@pytest.mark.parametrize("case", [c for c in _AOT if c.id in _FEW], ids=lambda c: c.id)
def test_numba_mlir_compiles_without_local_memory(case: Case) -> None:
    pytest.importorskip("numba_cuda_mlir", reason="numba-cuda-mlir is not installed")
    coop_module, cuda = front("numba_mlir")
    report = coop_module.compile(numba_kernel(case, coop_module, cuda), numba_signature(case), block=128)
    assert_inlined(report.inspect())


@pytest.mark.parametrize(
    "case", [c for c in cases() if c.id in _FEW or c.dtype == "bfloat16"], ids=lambda c: c.id
)
def test_cute_compiles_without_local_memory(case: Case) -> None:
    pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
    os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")
    import cuda.coop.cutlass as cutlass_coop
    import cutlass
    from cutlass.cute.runtime import make_fake_compact_tensor

    from ._warp_top_k_cute import cute_host

    host, ty = cute_host(case)
    big, small = case.rows * case.n, case.rows * case.width
    fakes = [
        make_fake_compact_tensor(t, (m,), assumed_align=16)
        for t, m in ((ty, big), (cutlass.Int32, big), (ty, small), (cutlass.Int32, small))
    ]
    assert_inlined(cutlass_coop.compile(host, *fakes).inspect())


def test_the_header_is_one_source_for_the_benchmark() -> None:
    """benchmarks/rows_cub.cu's hand-written row top-k uses the header's networks, not copies."""
    from pathlib import Path

    cu = (Path(__file__).resolve().parents[1] / "benchmarks" / "rows_cub.cu").read_text()
    assert "#include <coop/top_k.cuh>" in cu
    for piece in ("coop_topk_pth_largest", "coop_topk_merge", "coop_topk_marks"):
        assert piece in cu, piece


def _best(values: np.ndarray, indices: np.ndarray, k: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    """The list by lane: the ``k`` best non-NaN (value, index) pairs, larger value first, of equal
    values the smaller index, then the empty entry."""
    keep = ~np.isnan(values)
    v, i = values[keep], indices[keep]
    order = np.lexsort((i, -v))[:k]
    out_v, out_i = np.full(w, -np.inf, np.float32), np.full(w, model.NO_INDEX, np.int64)
    out_v[: len(order)], out_i[: len(order)] = v[order], i[order]
    return out_v, out_i


def _second_tile(w: int, n: int, k: int, beat: int, ties: int, rng: np.random.Generator, given: bool):
    """A running list from a random first tile and a second tile whose ``beat`` items are above the
    list's k-th value, ``ties`` equal to it, the rest below. Default (striped) indices, or with
    ``given`` (indices given): the first tile's even numbers from 10000, the second's ties half below
    every earlier index (they enter by it) and half above, its other items above."""
    first = rng.standard_normal((w, n)).astype(np.float32)
    idx1 = np.arange(w)[:, None] + w * np.arange(n)[None, :]
    idx2 = w * n + idx1
    if given:
        idx1, idx2 = 10000 + 2 * idx1, 10001 + 2 * idx1
    running = _best(first.ravel(), idx1.ravel(), k, w)
    kth = running[0][k - 1]
    second = (kth - 1.0 - rng.random(w * n)).astype(np.float32)
    at = rng.choice(w * n, beat + ties, replace=False)
    second[at[:beat]] = kth + 1.0 + rng.random(beat).astype(np.float32)
    second[at[beat:]] = kth
    if given:
        low = at[beat : beat + (ties + 1) // 2]
        idx2 = idx2.ravel().copy()
        idx2[low] = rng.choice(10000, len(low), replace=False)
        idx2 = idx2.reshape(w, n)
    return running, second.reshape(w, n), idx2


@pytest.mark.parametrize("w", (8, 16, 32))
@pytest.mark.parametrize("k", (1, 2, 5, 16, 32))
@pytest.mark.parametrize("n", (4, 32))
def test_few_candidates_are_inserted_many_merged(w: int, k: int, n: int) -> None:
    """A tile after a full list: up to ``few`` candidates are inserted one at a time (no merge), more
    are merged first; the list is NumPy's either way, whatever the count (0, 1, the bound and one
    past it, a warp's worth, more) and wherever they sit."""
    if k > w:
        pytest.skip("the list holds one entry a lane")
    rng = np.random.default_rng(1000 * w + 10 * k + n)
    few = model.few(k, w, n)
    for beat in sorted({0, 1, 2, few - 1, few, few + 1, w, w + 1, min(3 * w, w * n)}):
        if not 0 <= beat <= w * n:
            continue
        for _ in range(3):
            running, second, idx2 = _second_tile(w, n, k, beat, 0, rng, False)
            stats: dict[str, int] = {}
            got = model.top_k_call(second, k, running=running, first=w * n, stats=stats)
            both_v = np.concatenate([running[0][:k], second.ravel()])
            both_i = np.concatenate([running[1][:k], idx2.ravel()])
            want = _best(both_v, both_i, k, w)
            np.testing.assert_array_equal(got[0], want[0])
            np.testing.assert_array_equal(got[1], want[1])
            if beat <= few:
                assert stats == {"merges": 0, "insertions": beat}, (beat, few, stats)
            elif beat <= w:  # (more than the lanes: the tile's lane maxima may raise the threshold first)
                assert stats["merges"] >= 1, (beat, few, stats)


@pytest.mark.parametrize("w", (8, 16, 32))
@pytest.mark.parametrize("k", (1, 5, 16, 32))
@pytest.mark.parametrize("ties", (1, 3, 12, 40))
def test_ties_at_the_threshold(w: int, k: int, ties: int) -> None:
    """Items equal to the list's k-th: with the default indices (after the k-th's) none enters and none
    is a candidate; with given indices below the k-th's they enter by their index, inserted or merged."""
    if k > w:
        pytest.skip("the list holds one entry a lane")
    n = 8
    rng = np.random.default_rng(100 * w + k + ties)
    for given in (False, True):
        for beat in (0, 1):
            running, second, idx2 = _second_tile(w, n, k, beat, ties, rng, given)
            stats: dict[str, int] = {}
            got = model.top_k_call(
                second, k, running=running, first=w * n, indices=idx2 if given else None, stats=stats
            )
            both_v = np.concatenate([running[0][:k], second.ravel()])
            both_i = np.concatenate([running[1][:k], idx2.ravel()])
            want = _best(both_v, both_i, k, w)
            np.testing.assert_array_equal(got[0], want[0])
            np.testing.assert_array_equal(got[1], want[1])
            if not given:  # ties after the k-th are not candidates
                assert stats["insertions"] + stats["merges"] <= beat, stats
            elif ties + beat <= model.few(k, w, n):  # every tie a candidate (>=), all inserted
                assert stats["merges"] == 0, stats


def test_the_insertion_bound_is_the_models() -> None:
    """``coop_topk_few`` and ``coop_topk_merge_stages`` (the header, compiled by NVRTC) give the lane
    model's numbers for every width, k and a range of items a lane."""
    from cuda.coop import _bundle
    from cuda.coop._render import RenderedRequests

    checks = []
    for w in (1, 2, 4, 8, 16, 32):
        for k in range(1, w + 1):
            p = model._pow2(k)
            checks.append(f"static_assert(coop_topk_merge_stages({p}, {w}) == {model.merge_stages(p, w)});")
            for n in (1, 3, 4, 8, 16, 32, 64):
                checks.append(f"static_assert(coop_topk_few({k}, {w}, {n}) == {model.few(k, w, n)});")
    unit = RenderedRequests("#include <coop/top_k.cuh>\n" + "\n".join(checks) + "\n", {}, ())
    obj, _log, _pch = _bundle._nvrtc(unit, _bundle._options("sm_90a"), {})
    assert len(bytes(obj.code)) >= 0
