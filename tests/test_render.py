# SPDX-License-Identifier: Apache-2.0
"""Requests and the C++ renderer (no compiler involved)."""

from __future__ import annotations

from cuda.coop._render import render_bundle, temp_storage_symbol
from cuda.coop._requests import BlockTileRequest


def _req(**kw: object) -> BlockTileRequest:
    base: dict[str, object] = dict(
        primitive="load",
        dtype="int32",
        block_dims=(128, 1, 1),
        items_per_thread=4,
        algorithm="vectorize",
        partial=False,
        oob_default=False,
        caller_temp_storage=False,
    )
    return BlockTileRequest(**{**base, **kw})  # type: ignore[arg-type]


def test_symbols_are_deterministic_and_distinct() -> None:
    a, b = _req(), _req()
    assert a == b and hash(a) == hash(b) and a.symbol == b.symbol
    assert a.symbol == "coop_block_load_int32_vectorize_b128x1x1_i4"
    variants = [
        _req(partial=True),
        _req(partial=True, oob_default=True),
        _req(block_dims=(8, 16, 1)),
        _req(items_per_thread=3),
        _req(dtype="uint32"),
        _req(primitive="store"),
        _req(algorithm="transpose", caller_temp_storage=True),
    ]
    assert len({v.symbol for v in variants} | {a.symbol}) == len(variants) + 1


def test_render_maps_every_template_parameter() -> None:
    src = render_bundle(
        [
            _req(
                dtype="float16",
                block_dims=(4, 8, 4),
                items_per_thread=7,
                algorithm="warp_transpose_timesliced",
            )
        ],
        0,
    ).source
    assert "cub::BlockLoad<__half, 4, 7, cub::BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED, 8, 4>" in src
    assert "#include <cuda_fp16.h>" in src
    assert 'extern "C" __device__ void coop_block_load_float16_' in src


def test_render_variants() -> None:
    src = render_bundle([_req(primitive="store", partial=True, algorithm="striped")], 0).source
    assert ".Store(gmem, thread_items, valid_items);" in src
    src = render_bundle([_req(partial=True, oob_default=True)], 0).source
    assert ".Load(gmem, thread_items, valid_items, *oob_default);" in src
    assert "__syncthreads" not in src  # no scratch, no barrier


def test_implicit_scratch_is_one_union_with_a_barrier_per_use() -> None:
    reqs = [_req(algorithm="transpose"), _req(primitive="store", algorithm="warp_transpose")]
    rendered = render_bundle(reqs, 0)
    assert rendered.source.count("static __shared__ coop_scratch_union_0 coop_scratch_0;") == 1
    assert rendered.source.count("__syncthreads();") == 2
    assert sorted(rendered.probes.values()) == sorted(r.symbol for r in reqs)


def test_each_scratch_group_has_its_own_buffer() -> None:
    small = _req(algorithm="transpose")
    large = _req(algorithm="transpose", dtype="int64", items_per_thread=16, scratch_group=1)
    src = render_bundle([small, large], 0).source
    assert small.symbol != large.symbol and large.symbol.endswith("_g1")
    assert "static __shared__ coop_scratch_union_0 coop_scratch_0;" in src
    assert "static __shared__ coop_scratch_union_1 coop_scratch_1;" in src
    body = {r.symbol: src[src.index(f"void {r.symbol}(") :].split("}\n", 1)[0] for r in (small, large)}
    assert "&coop_scratch_0" in body[small.symbol] and "coop_scratch_1" not in body[small.symbol]
    assert "&coop_scratch_1" in body[large.symbol] and "coop_scratch_0" not in body[large.symbol]


def test_partial_transposing_load_restores_unloaded_items() -> None:
    src = render_bundle([_req(algorithm="transpose", partial=True, block_dims=(8, 16, 1))], 0).source
    assert "cub::RowMajorTid(8, 16, 1)" in src and "previous[i]" in src
    src = render_bundle([_req(algorithm="transpose", partial=True, oob_default=True)], 0).source
    assert "previous" not in src  # oob_default defines those items already


def test_caller_temp_storage_slots() -> None:
    reqs = [
        _req(algorithm="transpose", caller_temp_storage=True),
        _req(primitive="store", algorithm="transpose", caller_temp_storage=True),
    ]
    src = render_bundle(reqs, 2).source
    assert temp_storage_symbol(0) in src and temp_storage_symbol(1) in src
    assert src.count("__shared__ coop_temp_storage_union storage;") == 2
    assert "coop_scratch" not in src
