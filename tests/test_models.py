# SPDX-License-Identifier: Apache-2.0
"""The models behind the docs' diagrams and explorers (``cuda.coop._models``, issue 23), checked on
fresh random data against the independent references that the GPU tests compare the kernels with
(``_reference``, ``_compute_cases``, ``_sort_cases``): a model that drifts from what the kernels do
fails here, and ``test_models_gpu.py`` runs the kernels themselves."""

from __future__ import annotations

import json

import numpy as np
import pytest
from cuda.coop import _models
from cuda.coop._catalog import CATALOG, CHOICES

from . import _compute_cases as cc
from . import _sort_cases as sc
from ._reference import tile_positions

SHAPES = [(1, 1), (4, 3), (8, 4), (32, 2), (64, 5), (96, 3)]


def _rng() -> np.random.Generator:
    return np.random.default_rng()


@pytest.mark.parametrize(("threads", "items"), SHAPES)
def test_arrangements_match_the_references(threads: int, items: int) -> None:
    for arrangement in ("blocked", "striped", "striped_vectors"):
        assert (
            _models.positions(arrangement, threads, items) == tile_positions(threads, items, arrangement)
        ).all()
    for arrangement in ("blocked", "striped"):
        assert (
            _models.positions(arrangement, threads, items) == cc._positions(arrangement, threads, items)
        ).all()
    if threads % 32 == 0:
        got = _models.positions("warp_striped", threads, items, lanes=32)
        assert (got == cc._positions("warp_striped", threads, items)).all()


@pytest.mark.parametrize(
    "enum", ["BlockLoadAlgorithm", "BlockStoreAlgorithm", "WarpLoadAlgorithm", "WarpStoreAlgorithm"]
)
def test_every_load_and_store_algorithm_has_its_arrangement(enum: str) -> None:
    """Each option of the catalog, with the arrangement the catalog gives it: what the explorers
    draw as the result of a load or a store."""
    for option in next(c for c in CHOICES if c.enum_name == enum).options:
        want = tile_positions(8, 4, option.arrangement)
        if "Store" in enum:
            got = _models.store_result(8, 4, option.value, enum)
        else:
            got = _models.load_result(8, 4, option.value, enum)
        assert (got["positions"] == want).all(), option.value


@pytest.mark.parametrize(
    "mode", [o.value for o in next(c for c in CHOICES if c.enum_name == "BlockExchangeMode").options]
)
@pytest.mark.parametrize(("threads", "items"), [(32, 2), (64, 3), (96, 4)])
def test_exchange_matches_the_reference(mode: str, threads: int, items: int) -> None:
    rng = _rng()
    x = rng.integers(-1000, 1000, (threads, items))
    ranks, flags = _models.exchange_ranks(threads, items, mode)
    tile = threads * items
    d = cc.Data(x.reshape(-1), ranks.reshape(-1), ranks.reshape(-1), flags.reshape(-1), np.zeros(1), tile)
    cfg = cc.Config("exchange", "int64", (threads, 1, 1), items)
    out, mask = np.zeros(tile, dtype=object), np.zeros(tile, bool)
    got = _models.exchange_result(threads, items, mode, x, lanes=32)
    cc._exchange(cc.Case("exchange", mode=mode), cfg, x, d, 0, out, mask)
    assert (got["defined"].reshape(-1) == mask).all()
    assert (got["out"].reshape(-1)[mask] == out[mask].astype(np.int64)).all()


def _sort_cfg(threads: int, items: int, group: str = "neighbours") -> sc.Config:
    return sc.Config("int32", "int32", (threads, 1, 1), items, group)


@pytest.mark.parametrize(("threads", "items"), SHAPES)
@pytest.mark.parametrize("mode", ["offset", "rotate", "up", "down"])
def test_shuffle_matches_the_reference(threads: int, items: int, mode: str) -> None:
    rng = _rng()
    x = rng.integers(-1000, 1000, (threads, items))
    for distance in (1, 2, 5, -1, -3):
        if mode == "rotate" and distance < 0 or mode in ("up", "down") and distance != 1:
            continue
        got = _models.shuffle_result(threads, items, mode, distance, x)["out"].reshape(-1)
        if mode in ("offset", "rotate"):
            src = np.arange(threads) + distance
            src = src if mode == "offset" else src % threads
            want = sc._shuffled(x.reshape(-1), threads, lambda t, src=src: src[t])
        else:  # the reference's "up" case replaces the kept first item by the block suffix
            case = sc._shuffle(_sort_cfg(threads, items), "x", "up-suffix" if mode == "up" else "down")
            want = case.ref(x.reshape(-1), x, sc.Params(0, 1))["ok"]
            if mode == "up":
                want[0] = x.reshape(-1)[0]
        assert (got == want).all(), (mode, distance)


@pytest.mark.parametrize(("threads", "items"), SHAPES)
def test_neighbour_primitives_match_the_references(threads: int, items: int) -> None:
    rng = _rng()
    x = rng.integers(0, 4, (threads, items)).astype(np.int32)  # runs of equal keys
    p = sc.Params(0, 1, 0, x.reshape(-1)[0], x.reshape(-1)[-1])
    for direction in ("left", "right"):
        got = _models.adjacent_result(x, direction)["out"].reshape(-1)
        want = sc._adjacent("x", right=direction == "right").ref(x.reshape(-1), x, p)["ok"]
        assert (got == want).all(), direction
    for flags in ("heads", "tails", "heads_and_tails"):
        got = _models.discontinuity_result(x, flags)["out"].reshape(-1)
        want = sc._discontinuity("x", flags=flags).ref(x.reshape(-1), x, p)["oi"]
        assert (got == want).all(), flags


@pytest.mark.parametrize(("threads", "items"), SHAPES)
def test_sorts_and_histogram_match_the_references(threads: int, items: int) -> None:
    rng = _rng()
    x = rng.integers(0, 16, (threads, items)).astype(np.int32)
    flat = x.reshape(-1)
    stable = np.argsort(flat, kind="stable")
    for output in ("blocked", "striped"):
        got = _models.radix_sort_result(x, output, threads, items)
        pos = tile_positions(threads, items, output)
        assert (got["out"] == flat[stable][pos]).all() and (got["origin"] == stable[pos]).all()
    merged = _models.merge_sort_result(x)
    assert (merged["out"].reshape(-1) == flat[stable]).all()
    for bins in (4, 16, 37):
        cfg = sc.Config("int32", "int32", (threads, 1, 1), items, "histogram")
        want = sc._histogram(cfg, "x").ref(np.minimum(flat, bins - 1), x, sc.Params(0, 1))["oi"]
        got = _models.histogram_result(np.minimum(x, bins - 1), max(bins, cfg.bins or 0))["counts"]
        assert (got[: len(want)] == want).all()
    for k in (1, 3, threads * items):
        for largest in (True, False):
            if k > flat.size:
                continue
            cfg = sc.Config("int32", "int32", (threads, 1, 1), items, "sort")
            want = sc._top_k(cfg, "x", k=k, largest=largest).ref(flat, x, sc.Params(0, 1))["ok"][:k]
            assert (_models.top_k_result(x, k, largest)["selected"] == np.sort(want)).all()


@pytest.mark.parametrize(("threads", "items"), [(8, 4), (32, 3), (64, 2)])
@pytest.mark.parametrize("window", [False, True])
def test_run_length_decode_matches_the_reference(threads: int, items: int, window: bool) -> None:
    cfg = sc.Config("int32", "int32", (threads, 1, 1), items, "decode")
    rng = _rng()
    keys = rng.integers(-100, 100, cfg.tile).astype(np.int32)
    begin = int(rng.integers(0, 2 * cfg.tile))
    lengths = sc.run_lengths(cfg, begin)
    want = sc._decode(cfg, "x", window=window).ref(keys, keys, sc.Params(begin, begin + 1))["ok"]
    got = _models.rld_result(keys, lengths, items, threads, begin if window else 0)
    assert (got["out"].reshape(-1)[got["defined"].reshape(-1)] == want[got["defined"].reshape(-1)]).all()
    assert int(got["total"]) == int(lengths.sum())


@pytest.mark.parametrize(("threads", "items"), SHAPES)
def test_scans_and_reductions(threads: int, items: int) -> None:
    rng = _rng()
    x = rng.integers(-50, 50, (threads, items))
    flat = x.reshape(-1)
    prefix = int(rng.integers(-100, 100))
    inc = _models.scan_result(x, "inclusive_sum", prefix)
    exc = _models.scan_result(x, "exclusive_sum", prefix)
    assert (inc["out"].reshape(-1) == np.cumsum(flat) + prefix).all()
    assert (exc["out"].reshape(-1) == np.concatenate([[0], np.cumsum(flat)[:-1]]) + prefix).all()
    assert int(inc["aggregate"]) == flat.sum()
    for broadcast in (False, True):
        r = _models.reduce_result(threads, items, broadcast, x)
        assert (r["out"][r["defined"]] == flat.sum()).all() and r["defined"][0]
        assert r["defined"].all() == (broadcast or threads == 1)


@pytest.mark.parametrize("width", [1, 2, 4, 8, 16, 32])
def test_warp_models(width: int) -> None:
    rng = _rng()
    x = rng.integers(-50, 50, 64)
    seg = x.reshape(-1, width)
    inc = _models.warp_scan_result(x, width, "inclusive_sum")["out"].reshape(-1, width)
    assert (inc == np.cumsum(seg, axis=1)).all()
    exc = _models.warp_scan_result(x, width, "exclusive_sum")["out"].reshape(-1, width)
    assert (exc[:, 0] == 0).all() and (exc[:, 1:] == inc[:, :-1]).all()
    for batches in (1, width, 2 * width + 1):
        items = rng.integers(-50, 50, (width, batches))
        for arrangement in ("striped", "blocked"):
            r = _models.batched_result(batches, width, arrangement, items)
            per = -(-batches // width)
            for lane in range(width):
                for i in range(per):
                    b = lane + i * width if arrangement == "striped" else lane * per + i
                    if b < batches:
                        assert r["out"][lane, i] == items[:, b].sum() and r["batch"][lane, i] == b
                    else:
                        assert r["batch"][lane, i] == -1


# --- the explorers --------------------------------------------------------------------------------


def test_every_explorer_draws_every_choice() -> None:
    """Each explorer: its default is a choice; every choice has frames whose cells are strings,
    JSON-serialisable; at least the 14 families of the reference docs."""
    assert len(_models.EXPLORERS) >= 14 and len(_models.BY_NAME) == len(_models.EXPLORERS)
    for explorer in _models.EXPLORERS:
        assert explorer.default() in explorer.choices(), explorer.name
        for choice in explorer.choices():
            frames = explorer.frames(**choice)
            assert frames and all(f.caption and f.panels for f in frames), (explorer.name, choice)
            for f in frames:
                for p in f.panels:
                    for r in p.rows:
                        assert all(
                            isinstance(c.text, str) and c.mark in ("", "new", "undef", "off") for c in r.cells
                        )
            json.dumps([[c.text for p in f.panels for r in p.rows for c in r.cells] for f in frames])


def test_explorers_offer_every_catalog_option() -> None:
    """A choice the catalog gains (an algorithm, a mode) appears in the explorers of its row, which
    must then draw it: a control named after a choice parameter of the explorer's row offers that
    parameter's options, read from the row."""
    offered = set()
    for explorer in _models.EXPLORERS:
        choices = CATALOG[explorer.row].choices()
        for control in (p for p in explorer.params if p.from_row):
            options = {o.value for o in choices[control.name].options}
            assert set(control.options) == options, (explorer.name, control.name)
            valid = {c[control.name] for c in explorer.choices()}
            assert options == valid, f"{explorer.name}: an option of {control.name} with no valid choice"
            offered.add(choices[control.name].enum_name)
    # at least the load, store and exchange choices (block and warp), shuffle, adjacent difference,
    # discontinuity, histogram, radix sort output and the batched arrangement
    assert len(offered) >= 12, offered


def _last_panel(frames: list[_models.Frame]) -> list[list[str]]:
    return [[c.text for c in r.cells] for r in frames[-1].panels[-1].rows]


@pytest.mark.parametrize("name", ["load", "exchange", "shuffle", "radix_sort", "merge_sort"])
def test_the_last_frame_shows_the_models_result(name: str) -> None:
    """What an explorer ends on is the model's result, for every choice."""
    explorer = _models.BY_NAME[name]
    for choice in explorer.choices():
        shown = _last_panel(explorer.frames(**choice))
        t, n = choice.get("threads", 0), choice.get("items", 0)
        if name == "load":
            want = _models.load_result(t, n, choice["algorithm"])["positions"]
        elif name == "exchange":
            r = _models.exchange_result(t, n, choice["mode"])
            want = np.where(r["defined"], r["out"], None)
        elif name == "shuffle":
            want = _models.shuffle_result(t, n, choice["mode"], choice["distance"])["out"]
        elif name == "radix_sort":
            x = _models._data(t * n, 23, high=16).reshape(t, n)
            want = _models.radix_sort_result(x, choice["output"], t, n)["out"]
        else:
            x = _models._data(t * n, 29, high=20).reshape(t, n)
            want = _models.merge_sort_result(x)["out"]
        assert shown == [[_models._text(v) for v in row] for row in want], choice


@pytest.mark.parametrize(("threads", "items"), SHAPES)
def test_argmax_cluster_and_grid_models(threads: int, items: int) -> None:
    rng = _rng()
    x = rng.integers(0, 5, (threads, items))  # ties
    r = _models.argmax_result(x)
    flat = x.reshape(-1)
    first = min(i for i in range(flat.size) if flat[i] == flat.max())
    assert int(r["value"]) == flat.max() and int(r["index"]) == first
    blocks = rng.integers(-9, 9, (3, threads, items))
    assert (_models.cluster_result(blocks)["out"] == blocks.sum()).all()
    for kind in ("exclusive_sum", "inclusive_sum"):
        got = _models.grid_scan_result(blocks, kind)["out"].reshape(-1)
        inc = np.cumsum(blocks.reshape(-1))
        assert (got == (inc if kind == "inclusive_sum" else inc - blocks.reshape(-1))).all()


def test_the_look_back_finds_each_tiles_prefix() -> None:
    """Whatever mix of published aggregates (A) and inclusive prefixes (P) a tile's predecessors
    show, the look-back's sum is the total of the tiles before it."""
    rng = _rng()
    for _ in range(200):
        tiles = int(rng.integers(2, 12))
        aggregates = rng.integers(-50, 50, tiles)
        status = ["P"] + [str(s) for s in rng.choice(["A", "P"], tiles - 1)]
        values = [
            int(aggregates[: k + 1].sum()) if s == "P" else int(aggregates[k]) for k, s in enumerate(status)
        ]
        for tile in range(1, tiles):
            prefix, read = _models.look_back(tile, status, values)
            assert prefix == aggregates[:tile].sum()
            assert status[tile - read] == "P" and "P" not in status[tile - read + 1 : tile]


@pytest.mark.parametrize("name", ["reduce", "argmax", "scan", "grid_scan"])
def test_the_reductions_and_scans_end_on_the_models_result(name: str) -> None:
    explorer = _models.BY_NAME[name]
    for choice in explorer.choices():
        shown = _last_panel(explorer.frames(**choice))
        if name == "reduce":
            t, n = choice["threads"], choice["items"]
            x = _models._data(t * n, 7).reshape(t, n)
            want = _models.reduce_result(t, n, choice["broadcast"], x)
            assert [row[0] for row in shown] == [
                str(v) if d else "" for v, d in zip(want["out"], want["defined"], strict=True)
            ]
        elif name == "argmax":
            t, n = choice["threads"], choice["items"]
            r = _models.argmax_result(_models._data(t * n, 37, high=6).reshape(t, n))
            assert shown[0] == [f"{r['value']}@{r['index']}"]
            assert all(row == ([shown[0][0]] if choice["broadcast"] else [""]) for row in shown[1:])
        elif name == "scan":
            t, n, tiles = choice["threads"], choice["items"], choice["tiles"]
            before = sum(int(_models._data(t * n, 3 + k).sum()) for k in range(tiles - 1))
            x = _models._data(t * n, 3 + tiles - 1).reshape(t, n)
            want = _models.scan_result(x, choice["kind"], before)["out"]
            assert shown == [[str(v) for v in row] for row in want]
        else:
            tiles = choice["tiles"]
            x = _models._data(tiles * 8, 43).reshape(tiles, 4, 2)
            want = _models.grid_scan_result(x, choice["kind"])["out"].reshape(tiles, -1)
            assert shown == [[str(v) for v in row] for row in want]
