# SPDX-License-Identifier: Apache-2.0
"""Requests and the C++ renderer (no compiler involved)."""

from __future__ import annotations

from cuda.coop._catalog import CATALOG
from cuda.coop._kinds import Arg, Form
from cuda.coop._primitive import Launch
from cuda.coop._render import TempStorageSlot, render_glue, render_requests, temp_storage_symbol
from cuda.coop._requests import Request


def _req(primitive: str = "block.load", algorithm: str = "vectorize", **kw: object) -> Request:
    base: dict[str, object] = dict(
        primitive=primitive,
        dtype="int32",
        block_dims=(128, 1, 1),
        items_per_thread=4,
        options=(("algorithm", algorithm),),
    )
    return Request(**{**base, **kw})  # type: ignore[arg-type]


def _body(source: str, symbol: str) -> str:
    return source[source.index(f"void {symbol}(") :].split("\n}\n", 1)[0]


def test_symbols_are_deterministic_and_distinct() -> None:
    a, b = _req(), _req()
    assert a == b and hash(a) == hash(b) and a.symbol == b.symbol
    assert a.symbol == "coop_block_load_int32_vectorize_b128x1x1_i4"
    variants = [
        _req(tags=("partial",)),
        _req(tags=("partial", "oob")),
        _req(block_dims=(8, 16, 1)),
        _req(items_per_thread=3),
        _req(dtype="uint32"),
        _req(primitive="block.store"),
        _req(algorithm="transpose", caller_temp_storage=True),
        _req("block.reduce", options=(("op", "max"), ("algorithm", "raking"))),
        _req("block.reduce", options=(("op", "min"), ("algorithm", "raking"))),
    ]
    assert len({v.symbol for v in variants} | {a.symbol}) == len(variants) + 1


def test_render_maps_every_template_parameter() -> None:
    req = _req(
        dtype="float16", block_dims=(4, 8, 4), items_per_thread=7, algorithm="warp_transpose_timesliced"
    )
    src = render_requests([req]).source
    assert "cub::BlockLoad<__half, 4, 7, cub::BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED, 8, 4>" in src
    assert "#include <cuda_fp16.h>" in src
    assert 'extern "C" __device__ void coop_block_load_float16_' in src
    ex = Request("block.exchange", "int64", (96, 1, 1), 3, (("mode", "striped_to_blocked"),), ("wts",))
    assert "cub::BlockExchange<long long, 96, 3, true, 1, 1>" in render_requests([ex]).source


def test_render_variants() -> None:
    src = render_requests([_req("block.store", algorithm="direct", tags=("partial",))]).source
    assert ".Store(dst, items, valid_items);" in src
    # striped: coop's loop (runs of one item), a full tile unguarded, a partial one guarded
    src = render_requests([_req("block.store", algorithm="striped", tags=("partial",))]).source
    striped = "coop_striped_runs<int, 128, 4, 1>::Store(int(cub::RowMajorTid(128, 1, 1)), dst, items"
    assert f"if (valid_items >= 512)\n  {{\n    {striped});" in src
    assert f"{striped}, valid_items);" in src
    src = render_requests([_req(tags=("partial", "oob"))]).source
    assert ".Load(src, items, valid_items, oob_default);" in src
    assert "__syncthreads" not in src  # no scratch, no barrier


def test_implicit_scratch_is_one_buffer_with_a_barrier_per_use() -> None:
    reqs = [_req(algorithm="transpose"), _req("block.store", algorithm="warp_transpose")]
    rendered = render_requests(reqs)
    assert rendered.source.count('extern "C" __device__ void* coop_block_scratch_0();') == 1
    assert rendered.source.count("__syncthreads();") == 2
    assert sorted(rendered.probes.values()) == sorted(r.symbol for r in reqs)
    assert rendered.defines == tuple(r.symbol for r in reqs)
    glue = render_glue(reqs, [], {reqs[0].symbol: (2064, 16), reqs[1].symbol: (4100, 4)})
    # a C union of the two: the larger, rounded up to the larger alignment
    assert glue.source.count("__shared__ __align__(16) unsigned char scratch[4112];") == 1
    assert glue.temp_storage == {reqs[0].symbol: (2064, 16), reqs[1].symbol: (4100, 4)}
    assert "cub" not in glue.source and "#include" not in glue.source


def test_each_scratch_group_has_its_own_buffer() -> None:
    small = _req(algorithm="transpose")
    large = _req(algorithm="transpose", dtype="int64", items_per_thread=16, scratch_group=1)
    src = render_requests([small, large]).source
    assert small.symbol != large.symbol and large.symbol.endswith("_g1")
    body = {r.symbol: _body(src, r.symbol) for r in (small, large)}
    assert "coop_block_scratch_0()" in body[small.symbol] and "scratch_1" not in body[small.symbol]
    assert "coop_block_scratch_1()" in body[large.symbol] and "scratch_0" not in body[large.symbol]
    glue = render_glue([small, large], [], {small.symbol: (2048, 16), large.symbol: (16384, 16)}).source
    assert "coop_block_scratch_0()\n{\n  __shared__ __align__(16) unsigned char scratch[2048];" in glue
    assert "coop_block_scratch_1()\n{\n  __shared__ __align__(16) unsigned char scratch[16384];" in glue


def test_warp_scratch_is_sliced_in_units_of_the_kernels_largest() -> None:
    """Every warp request of a kernel slices warp scratch in units of the largest TempStorage of its
    warp requests, one unit per thread of the narrowest logical warp."""
    opts = lambda w: (("algorithm", "transpose"), ("threads_in_warp", w))  # noqa: E731
    narrow = _req("warp.load", options=opts(8), block_dims=(64, 1, 1))
    wide = _req("warp.store", options=opts(32), block_dims=(64, 1, 1))
    src = render_requests([narrow, wide]).source
    assert 'extern "C" __device__ void* coop_warp_slice_0(void* base, int tid, int width);' in src
    assert "coop_warp_slice_0(coop_warp_scratch_0(), cub::RowMajorTid(64, 1, 1), 8)" in _body(
        src, narrow.symbol
    )
    glue = render_glue([narrow, wide], [], {narrow.symbol: (132, 4), wide.symbol: (520, 8)})
    assert "unsigned char bytes[520];" in glue.source and "(width / 8)" in glue.source
    # 64 threads, a unit per 8 of them
    assert glue.temp_storage == {narrow.symbol: (8 * 520, 8), wide.symbol: (8 * 520, 8)}
    # the buffer on a 16-byte boundary whatever its requests' alignment (ptxas vectorizes by it)
    assert "__shared__ __align__(16) unsigned char scratch[4160];" in glue.source


def test_partial_transposing_load_restores_unloaded_items() -> None:
    src = render_requests([_req(algorithm="transpose", tags=("partial",), block_dims=(8, 16, 1))]).source
    assert "cub::RowMajorTid(8, 16, 1)" in src and "previous[i]" in src
    src = render_requests([_req(algorithm="transpose", tags=("partial", "oob"))]).source
    assert "previous" not in src  # oob_default defines those items already


def test_stores_hand_cub_a_copy_of_the_items() -> None:
    """CUB's transposing stores rearrange their items array in place; a store's wrapper gives CUB a
    copy (the kernel's ThreadData keeps its values); a load writes the kernel's items directly."""
    for prim in ("block.store", "warp.store"):
        opts = (("algorithm", "transpose"),) + ((("threads_in_warp", 32),) if prim == "warp.store" else ())
        req = _req(prim, options=opts)
        body = _body(render_requests([req]).source, req.symbol)
        assert "const int (&items_in)[4]" in body and "items[i] = items_in[i]" in body, body
    req = _req(algorithm="transpose")
    assert "items_in" not in _body(render_requests([req]).source, req.symbol)


def test_caller_temp_storage_slots() -> None:
    reqs = [
        _req(algorithm="transpose", caller_temp_storage=True),
        _req("block.store", algorithm="transpose", caller_temp_storage=True),
    ]
    assert "scratch" not in render_requests(reqs).source
    probed = {reqs[0].symbol: (528, 16), reqs[1].symbol: (1040, 8)}
    src = render_glue(reqs, [TempStorageSlot(0), TempStorageSlot(0)], probed).source
    assert temp_storage_symbol(0) in src and temp_storage_symbol(1) in src
    assert src.count("__shared__ __align__(16) unsigned char storage[1040];") == 2  # the larger
    assert "scratch" not in src


def test_exclusive_temp_storage_is_a_struct_of_the_calls_slices() -> None:
    load = _req(algorithm="transpose", caller_temp_storage=True)
    store = _req("block.store", algorithm="transpose", caller_temp_storage=True)
    ts = TempStorageSlot(0, exclusive=True, uses=(load.symbol, store.symbol, load.symbol))
    src = render_glue([load, store], [ts], {load.symbol: (20, 4), store.symbol: (48, 16)}).source
    # C struct rules: 20 bytes at 0, 48 at 32 (aligned to 16), 20 at 80; 112 bytes (a multiple of 16)
    assert "__shared__ __align__(16) unsigned char storage[112];" in src
    for k, offset in enumerate((0, 32, 80)):  # one accessor per call: its slice
        base = f"static_cast<unsigned char*>({temp_storage_symbol(0)}())"
        assert f"{temp_storage_symbol(0, k)}()\n{{\n  return {base} + {offset};" in src


def test_auto_sync_puts_the_barrier_in_the_wrapper() -> None:
    req = _req(algorithm="transpose", caller_temp_storage=True, tags=("autosync",))
    body = _body(render_requests([req]).source, req.symbol)
    assert body.index("__syncthreads();") < body.index(".Load(")


def _plan(key: str, **args: Arg) -> Request:
    return CATALOG[key].resolve(args, Launch((128, 1, 1), "unknown")).request


def _td(dtype: str, n: int) -> Arg:
    return Arg(Form.THREAD_DATA, f"ThreadData({dtype}, {n})", dtype, dtype, n)


def _const(value: object) -> Arg:
    return Arg(Form.CONSTANT, repr(value), value=value)


def _scalar(dtype: str) -> Arg:
    return Arg(Form.SCALAR, dtype, dtype, dtype)


def test_optional_inputs_select_cubs_overload() -> None:
    """Absent optional inputs are left out of the call: that is how CUB's overload is chosen."""
    calls = {
        "InclusiveSum(x, out);": _plan("block.inclusive_sum", x=_td("float32", 4)),
        "InclusiveSum(x, out, aggregate);": _plan(
            "block.inclusive_sum", x=_td("float32", 4), block_aggregate=_const(True)
        ),
        "ExclusiveSum(x, out, prefix_op_callback);": _plan(
            "block.exclusive_sum", x=_td("float32", 4), prefix_op=_td("float32", 1)
        ),
        "InclusiveScan(x, out, initial_value, ::cuda::maximum<int>{}, aggregate);": _plan(
            "block.inclusive_scan",
            x=_td("int32", 4),
            op=_const("max"),
            initial_value=_const(-7),
            block_aggregate=_const(True),
        ),  # fmt: skip
        "ExclusiveScan(x, out, ::cuda::std::bit_xor<int>{});": _plan(
            "block.exclusive_scan", x=_td("int32", 4), op=_const("bit_xor")
        ),
        "result = ": _plan("block.sum", x=_td("float64", 2)),
        "Sum(x, num_valid);": _plan("block.sum", x=_scalar("int32"), num_valid=_scalar("int32")),
        "Reduce(x, ::cuda::std::multiplies<double>{});": _plan(
            "block.reduce", x=_td("float64", 2), op=_const("mul")
        ),
        "ScatterToStripedFlagged(items, out, ranks, valid_flags);": _plan(
            "block.exchange",
            items=_td("int8", 3),
            mode=_const("scatter_to_striped_flagged"),
            ranks=_td("int32", 3),
            valid_flags=_td("uint8", 3),
        ),  # fmt: skip
    }
    for expected, req in calls.items():
        assert expected in _body(render_requests([req]).source, req.symbol), expected


def test_exchange_count_takes_coops_scatter() -> None:
    """With ``valid_items`` a scatter to striped is coop's class (it reads back the positions below the
    count only, with a uniform exit); without it, CUB's."""
    args = dict(items=_td("float32", 3), mode=_const("scatter_to_striped_flagged"), ranks=_td("int32", 3))
    counted = _plan("block.exchange", **args, valid_flags=_td("uint8", 3), valid_items=_scalar("int32"))
    source = render_requests([counted]).source
    assert "#include <coop/exchange.cuh>" in source
    assert f"using {counted.symbol}_t = coop_block_scatter<float, 128, 3, 1, 1>;" in source
    assert "ScatterToStripedFlagged(items, out, ranks, valid_flags, valid_items);" in source
    plain = _plan("block.exchange", **args, valid_flags=_td("uint8", 3))
    assert "cub::BlockExchange<float, 128, 3, false, 1, 1>" in render_requests([plain]).source
    assert "coop/exchange.cuh" not in render_requests([plain]).source


def test_scalar_payload_abi() -> None:
    """A scalar reaches CUB's scalar overloads as one value (reductions) or as one item (scans)."""
    req = _plan("block.reduce", x=_scalar("int16"), op=_const("min"), num_valid=_const(5))
    assert "short& x = *static_cast<short*>(x_);" in render_requests([req]).source
    req = _plan("block.inclusive_sum", x=_scalar("int16"))
    assert "short (&x)[1] = *static_cast<short (*)[1]>(x_);" in render_requests([req]).source


def test_broadcast_gives_thread_zeros_result_to_all() -> None:
    req = _plan("block.sum", x=_td("int32", 4), broadcast=_const(True))
    body = _body(render_requests([req]).source, req.symbol)
    assert "if (cub::RowMajorTid(128, 1, 1) == 0) result_broadcast.Alias() = result;" in body
    assert body.count("__syncthreads();") == 3  # the scratch barrier, then two around the broadcast
    plain = _plan("block.sum", x=_td("int32", 4))
    assert "broadcast" not in _body(render_requests([plain]).source, plain.symbol)


def test_user_operator_is_declared_extern_and_wrapped_in_a_functor() -> None:
    def my_op(a: float, b: float) -> float:
        return a * 2 + b

    req = _plan("block.reduce", x=_td("float32", 4), op=Arg(Form.FUNCTION, "my_op", function=my_op))
    symbol = str(req.option("op"))
    assert symbol.startswith("coop_op_") and symbol.endswith("_float32")
    src = render_requests([req]).source
    assert f'extern "C" __device__ void {symbol}(void* out, const void* a, const void* b);' in src
    assert f"Reduce(x, {symbol}_functor{{}})" in src


def test_user_operator_symbol_follows_its_code() -> None:
    def a(x: int, y: int) -> int:
        return x + y

    def b(x: int, y: int) -> int:
        return x - y

    def op(fn: object) -> str:
        return str(
            _plan("block.reduce", x=_td("int32", 1), op=Arg(Form.FUNCTION, "f", function=fn)).option("op")
        )

    def make(k: int) -> object:
        def c(x: int, y: int) -> int:
            return x + k

        return c

    assert op(a) == op(a) and op(a) != op(b)
    assert op(make(1)) == op(make(1)) and op(make(1)) != op(make(2))  # closure values count


def test_an_arg_reduction_pairs_items_with_their_index() -> None:
    """argmax/argmin: each item reaches CUB as a (value, index) struct; with the default indices
    (the item's blocked or striped position; the group's rank: the lane in a logical warp) each
    thread first keeps its first best item and its position (no index per item), given indices
    replace them (and then no rank is computed), and coop's own operator reduces the pairs."""
    warp = _req(
        "warp.argmax", dtype="float32", block_dims=(40, 1, 1),
        options=(("threads_in_warp", "8"), ("arrangement", "blocked")),
    )  # fmt: skip
    striped = _req(
        "block.argmin", dtype="float32", block_dims=(64, 2, 1),
        options=(("algorithm", "warp_reductions"), ("arrangement", "striped")),
    )  # fmt: skip
    warp_striped = _req(
        "warp.argmin", dtype="float32", block_dims=(40, 1, 1),
        options=(("threads_in_warp", "8"), ("arrangement", "striped")),
    )  # fmt: skip
    blocked = (("algorithm", "raking"), ("arrangement", "blocked"))
    many = _req("block.argmax", dtype="int16", block_dims=(64, 1, 1), tags=("indices",), options=blocked)
    given = _req(
        "block.argmin", dtype="float16", block_dims=(8, 5, 2), items_per_thread=1,
        tags=("scalar", "indices"), options=blocked,
    )  # fmt: skip
    src = render_requests([warp, striped, warp_striped, many, given]).source
    body = _body(src, warp.symbol)
    assert "const int coop_rank = int(cub::RowMajorTid(40, 1, 1) % 8);" in body
    assert "const int x_at = coop_arg_first<true>(x, x_best);" in body
    assert "coop_tuple_float32_int32 x_pair{x_best, coop_rank * 4 + x_at};" in body
    assert "coop_group_threads" not in body
    assert "cub::WarpReduce<coop_tuple_float32_int32, 8>" in src
    assert ".Reduce(x_pair, coop_arg_best<true>{});" in body
    body = _body(src, striped.symbol)
    assert "const int x_at = coop_arg_first<false>(x, x_best);" in body
    assert "constexpr int coop_group_threads = 128;" in body
    assert "coop_tuple_float32_int32 x_pair{x_best, coop_rank + coop_group_threads * x_at};" in body
    body = _body(src, warp_striped.symbol)
    assert "constexpr int coop_group_threads = 8;" in body
    assert "coop_tuple_float32_int32 x_pair{x_best, coop_rank + coop_group_threads * x_at};" in body
    body = _body(src, many.symbol)
    assert "x_pairs[i] = coop_tuple_int16_int32{x[i], indices[i]};" in body
    assert ".Reduce(x_pairs, coop_arg_best<true>{});" in body
    body = _body(src, given.symbol)
    assert "coop_rank" not in body
    assert "coop_tuple_float16_int32 x_pair{x, indices};" in body
    assert ".Reduce(x_pair, coop_arg_best<false>{});" in body
