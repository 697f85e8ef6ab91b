# SPDX-License-Identifier: Apache-2.0
"""Items narrower than 4 bytes (bfloat16, float16, int16, int8) under ``algorithm="vectorize"``: a full
tile moves as 4-byte words, which CUB vectorizes to 16-byte accesses, where CUB on the items themselves
loads 2-byte items 8 bytes at a time at most and stores ``__half`` / ``__nv_bfloat16`` one by one (16
``STG.E.U16`` per thread of 16 items, each warp store spread over 1 KB: 0.11-0.22x of quack-kernels for
a bfloat16 RMSNorm on the H200). Pinned here without a GPU: the rendered wrapper, and the SASS of
kernels of both DSLs compiled for sm_90a (load and store widths, no CALL, no local memory)."""

from __future__ import annotations

from typing import Any

import pytest
from cuda.coop._render import render_requests
from cuda.coop._requests import Request


def _req(dtype: str = "bfloat16", items: int = 16, primitive: str = "block.load", **kw: Any) -> Request:
    options = kw.pop("options", (("algorithm", "vectorize"),))
    return Request(primitive, dtype, (256, 1, 1), items, options, **kw)


def _body(source: str, symbol: str) -> str:
    return source[source.index(f"void {symbol}(") :].split("\n}\n", 1)[0]


@pytest.mark.parametrize(
    ("dtype", "items", "words", "vector"),
    [
        ("bfloat16", 16, 8, 16),
        ("float16", 4, 2, 8),
        ("int16", 2, 1, 4),
        ("int8", 16, 4, 16),
        ("uint8", 24, 6, 8),
    ],
)
def test_a_full_vectorized_tile_of_narrow_items_moves_as_words(
    dtype: str, items: int, words: int, vector: int
) -> None:
    for primitive, verb in (("block.load", "Load"), ("block.store", "Store")):
        req = _req(dtype, items, primitive)
        src = render_requests([req]).source
        word = _req("uint32", words, primitive).symbol
        direct = _req(dtype, items, primitive, options=(("algorithm", "direct"),)).symbol
        kind = "cub::BlockLoad" if verb == "Load" else "cub::BlockStore"
        assert f"using {word}_t = {kind}<unsigned int, 256, {words}, cub::BLOCK_" in src
        body = _body(src, req.symbol)
        array = "src_" if verb == "Load" else "dst_"
        # aligned to the vector of words CUB moves (its own check then holds): words; else direct
        assert f"if (::cuda::std::is_sufficiently_aligned<{vector}>({array}))" in body
        assert f"{word}({array}, items_words);" in body
        assert f"}}\n  else\n  {{\n    {direct}({array}, items_);\n  }}" in body
        assert ".Load(" not in body and ".Store(" not in body  # no CUB class of the items' own
        assert "#include <cuda/std/bit>" in src
        assert src.index(f"void {word}(") < src.index(f"void {req.symbol}(")
        assert src.index(f"void {direct}(") < src.index(f"void {req.symbol}(")


def test_a_warp_tile_of_narrow_items_moves_as_words() -> None:
    options = (("algorithm", "vectorize"), ("threads_in_warp", "16"))
    req = _req("float16", 8, "warp.store", options=options)
    src = render_requests([req]).source
    assert "cub::WarpStore<unsigned int, 4, cub::WARP_STORE_VECTORIZE, 16>" in src
    assert "coop_warp_store_uint32_vectorize_16_b256x1x1_i4(dst_, items_words);" in _body(src, req.symbol)


@pytest.mark.parametrize(
    "req",
    [
        _req("float32", 16),  # 4-byte items: CUB vectorizes them itself
        _req("bfloat16", 3),  # 6 bytes: no whole words
        _req("int8", 6),
        _req(tags=("partial",)),  # a partial tile: CUB loads item by item, guarded
        _req(tags=("partial", "oob")),
        _req(primitive="block.store", tags=("partial",)),
        _req(options=(("algorithm", "direct"),)),  # the other algorithms move items as they are
        _req(options=(("algorithm", "striped"),)),
        _req(options=(("algorithm", "transpose"),)),
        _req(tags=("src_strided",)),  # a strided view is refused under vectorize; never words
        _req("tuple_int8_int8", 4, tags=("src_records", "items_records")),  # records: C structs
    ],
    ids=lambda r: r.symbol,
)
def test_other_tiles_move_as_items(req: Request) -> None:
    src = render_requests([req]).source
    assert "uint32" not in src and "is_sufficiently_aligned<4>" not in src


def test_a_tuple_of_narrow_items_moves_each_field_as_words() -> None:
    req = _req("tuple_bfloat16_int8", 8)
    src = render_requests([req]).source
    assert "cub::BlockLoad<unsigned int, 256, 4, cub::BLOCK_LOAD_VECTORIZE, 1, 1>" in src  # bfloat16
    assert "cub::BlockLoad<unsigned int, 256, 2, cub::BLOCK_LOAD_VECTORIZE, 1, 1>" in src  # int8


def test_a_kernel_with_the_word_request_itself_renders_it_once() -> None:
    words = _req("uint32", 8)
    src = render_requests([_req(), words]).source
    assert src.count(f"void {words.symbol}(") == 1


# --- compiled for sm_90a, both DSLs ----------------------------------------------------------------

#: (dtype, items per thread) -> vector loads and stores in a copy kernel's SASS: the aligned branch's
#: (the other branch moves the items one by one, ``direct``). CUB on the items themselves has none of
#: them but one LDG.E.64 for float16 x 4 (2 for x 16: ushort4).
WIDTHS = {
    ("bfloat16", 16): {"LDG.E.128": 2, "STG.E.128": 2},
    ("float16", 16): {"LDG.E.128": 2, "STG.E.128": 2},
    ("float16", 4): {"LDG.E.64": 1, "STG.E.64": 1},  # words: uint2
    ("int8", 16): {"LDG.E.128": 1, "STG.E.128": 1},
    ("int16", 8): {"LDG.E.128": 1, "STG.E.128": 1},
}


#: Global accesses narrower than a word: none in a kernel whose tiles all move as words.
NARROW = ("LDG.E.U8", "LDG.E.U16", "STG.E.U8", "STG.E.U16")


def _assert_words(report: Any, dtype: str, items: int, folded: bool = False) -> None:
    """The SASS moves the tile as words (``WIDTHS``). A CuTe kernel's tensors carry their alignment
    into the bundle (an ``llvm.assume`` on the generic pointer the call gets): where the tile's offset
    is provably aligned too, the runtime check folds, and no access moves a single item."""
    assert report.calls == 0 and report.local_loads == 0 and report.local_stores == 0, report.sass
    assert not report.leftover_symbols
    ops = report.opcodes()
    assert {op: ops.get(op, 0) for op in WIDTHS[(dtype, items)]} == WIDTHS[(dtype, items)], ops
    if folded:
        assert not any(ops.get(op) for op in NARROW), ops


@pytest.mark.parametrize(("dtype", "items"), [("bfloat16", 16), ("float16", 4), ("int8", 16)])
def test_cute_vectorized_copy_of_narrow_items(dtype: str, items: int) -> None:
    pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
    import cuda.coop.cutlass as cutlass_coop

    from ._cute_kernels import copy_host, fake_tensor

    n = 256 * items * 4
    compiled = cutlass_coop.compile(
        copy_host(dtype, (256, 1, 1), items, "vectorize"), fake_tensor(dtype, n), fake_tensor(dtype, n)
    )
    _assert_words(compiled.inspect(), dtype, items, folded=True)


@pytest.mark.parametrize(("dtype", "items"), [("float16", 16), ("int16", 8), ("int8", 16)])
def test_numba_vectorized_copy_of_narrow_items(dtype: str, items: int) -> None:
    import cuda.coop.numba as numba_coop

    from ._kernels import copy_kernel, signature

    compiled = numba_coop.compile(
        copy_kernel(dtype, items, "vectorize"), signature(dtype), block=256, arch="sm_90a"
    )
    _assert_words(compiled.inspect(), dtype, items)


def test_cute_bfloat16_rows_convert_in_registers() -> None:
    """A bfloat16 row in, float32 arithmetic (a block sum of squares), bfloat16 out: the kernel's
    conversions stay in registers between the word loads and stores."""
    pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
    import cuda.coop.cutlass as cutlass_coop

    from ._cute_kernels import fake_tensor, narrow_rows_host

    tile = 256 * 16
    n = tile * 8
    report = cutlass_coop.compile(
        narrow_rows_host("bfloat16", 256, 16), *(fake_tensor("bfloat16", k) for k in (n, tile, n))
    ).inspect()
    assert report.calls == 0 and report.local_loads == 0 and report.local_stores == 0, report.sass
    ops = report.opcodes()
    assert ops.get("LDG.E.128") == 4 and ops.get("STG.E.128") == 2, ops  # x and w; y
    assert not any(ops.get(op) for op in NARROW), ops  # the alignment check folded (_assert_words)
