# SPDX-License-Identifier: Apache-2.0
"""The explorers: one per drawn primitive, each naming the catalog row it draws, its controls and
its frames (``EXPLORERS``, in the order the docs show them; ``BY_NAME``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._core import LANES, Explorer, Param, _choice
from .cluster_grid import cluster_frames, grid_scan_frames
from .movement import exchange_frames, load_frames, shuffle_frames, store_frames
from .reduce_scan import argmax_frames, batched_frames, reduce_frames, scan_frames, warp_scan_frames
from .sorting import (
    adjacent_frames,
    discontinuity_frames,
    histogram_frames,
    merge_sort_frames,
    radix_sort_frames,
    rld_frames,
    top_k_frames,
)


def _threads_param(options: tuple[int, ...] = (4, 8), default: int = 8) -> Param:
    return Param("threads", "threads", options, default)


def _width_param(options: tuple[int, ...] = (4, 8), default: int = 8) -> Param:
    return Param("width", "threads_in_warp", options, default)


def _items_param(options: tuple[int, ...] = (1, 2, 3, 4), default: int = 4) -> Param:
    return Param("items", "items per thread", options, default)


def _whole_warps(enum_name: str) -> Callable[..., bool]:
    def valid(threads: int, algorithm: str, **_: Any) -> bool:
        return not _choice(enum_name, algorithm).whole_warps or threads % LANES == 0

    return valid


def _shuffle_valid(mode: str, distance: int, **_: Any) -> bool:
    if mode in ("up", "down"):
        return distance == 1  # no distance: one position
    return mode == "offset" or distance > 0


def _choices(name: str, default: str) -> Param:
    """The control of the explorer's row's choice parameter ``name``: every option of its table."""
    return Param(name, name, (), default, from_row=True)


EXPLORERS: tuple[Explorer, ...] = (
    Explorer(
        "load",
        "block.load",
        "concepts",
        (_threads_param(), _items_param(), _choices("algorithm", "warp_transpose")),
        load_frames,
        "Where each item of a tile lands in the threads' registers, by load algorithm.",
        _whole_warps("BlockLoadAlgorithm"),
    ),
    Explorer(
        "store",
        "block.store",
        "concepts",
        (_threads_param(), _items_param(), _choices("algorithm", "striped")),
        store_frames,
        "Where each thread's items land in memory, by store algorithm.",
        _whole_warps("BlockStoreAlgorithm"),
    ),
    Explorer(
        "exchange",
        "block.exchange",
        "exchange",
        (
            _threads_param(),
            _items_param((2, 3, 4), 4),
            _choices("mode", "blocked_to_striped"),
        ),
        exchange_frames,
        "Items moved between arrangements, or scattered by rank, through shared memory.",
    ),
    Explorer(
        "shuffle",
        "block.shuffle",
        "sorting",
        (
            _threads_param(),
            _items_param((1, 2, 3), 2),
            _choices("mode", "up"),
            Param("distance", "distance", (1, 2, -1), 1),
        ),
        shuffle_frames,
        "Values passed between threads: by a distance, rotated, or the whole tile moved by one.",
        _shuffle_valid,
    ),
    Explorer(
        "reduce",
        "block.sum",
        "reductions",
        (_threads_param(), _items_param((1, 2, 4), 2), Param("broadcast", "broadcast", (False, True), False)),
        reduce_frames,
        "A block reduction: each thread's items, then a tree within each warp, then across warps.",
    ),
    Explorer(
        "warp_load",
        "warp.load",
        "warp",
        (
            _width_param(),
            _items_param((1, 2, 3, 4), 3),
            _choices("algorithm", "transpose"),
        ),
        lambda width, items, algorithm: load_frames(width, items, algorithm, "WarpLoadAlgorithm"),
        "A logical warp's load: where each item of the warp's tile lands in its lanes.",
    ),
    Explorer(
        "warp_store",
        "warp.store",
        "warp",
        (
            _width_param(),
            _items_param((1, 2, 3, 4), 3),
            _choices("algorithm", "transpose"),
        ),
        lambda width, items, algorithm: store_frames(width, items, algorithm, "WarpStoreAlgorithm"),
        "A logical warp's store: where each lane's items land in the warp's tile.",
    ),
    Explorer(
        "warp_exchange",
        "warp.exchange",
        "warp",
        (
            _width_param(),
            _items_param((2, 3, 4), 4),
            _choices("mode", "blocked_to_striped"),
        ),
        lambda width, items, mode: exchange_frames(width, items, mode),
        "A logical warp's items rearranged among its lanes (t: a lane of the logical warp).",
    ),
    Explorer(
        "batched_reduce",
        "warp.batched_sum",
        "warp",
        (
            Param("batches", "batches", (4, 6, 8), 6),
            _choices("arrangement", "striped"),
        ),
        batched_frames,
        "Several reductions at once: item b of every lane belongs to batch b.",
    ),
    Explorer(
        "scan",
        "block.exclusive_sum",
        "scans",
        (
            _threads_param(),
            _items_param((1, 2, 3, 4), 3),
            Param("kind", "scan", ("exclusive_sum", "inclusive_sum"), "exclusive_sum"),
            Param("tiles", "tiles (a prefix_op across them)", (1, 2), 2),
        ),
        scan_frames,
        "A block scan: thread totals, a scan across the threads, and what a prefix_op carries across tiles.",
        also=" / inclusive_sum",
    ),
    Explorer(
        "warp_scan",
        "warp.inclusive_sum",
        "warp",
        (
            _width_param((4, 8, 16)),
            Param("kind", "scan", ("inclusive_sum", "exclusive_sum"), "inclusive_sum"),
        ),
        lambda width, kind: warp_scan_frames(16, width, kind),
        "A warp scan on logical warps: each group of threads_in_warp lanes scans on its own.",
        also=" on logical warps",
    ),
    Explorer(
        "adjacent_difference",
        "block.adjacent_difference",
        "sorting",
        (
            _threads_param(),
            _items_param((1, 2, 3), 3),
            _choices("direction", "left"),
        ),
        adjacent_frames,
        "Each item combined with its neighbour in the tile, across thread boundaries.",
    ),
    Explorer(
        "discontinuity",
        "block.discontinuity",
        "sorting",
        (_threads_param(), _items_param((1, 2, 3), 3), _choices("flags", "heads")),
        discontinuity_frames,
        "Flags where a run of equal keys starts or ends.",
    ),
    Explorer(
        "histogram",
        "block.histogram",
        "sorting",
        (
            _threads_param(),
            _items_param((2, 3, 4), 4),
            Param("bins", "bins", (4, 8), 8),
            _choices("algorithm", "atomic"),
        ),
        histogram_frames,
        "Counts of the tile's samples per bin, by atomics or by sorting.",
    ),
    Explorer(
        "run_length_decode",
        "block.run_length_decode",
        "sorting",
        (_threads_param(), _items_param((2, 3, 4), 4), Param("window", "window", (0, 1), 0)),
        rld_frames,
        "Runs (value, length) decoded into a window of consecutive items per thread.",
    ),
    Explorer(
        "merge_sort",
        "block.merge_sort",
        "sorting",
        (_threads_param((2, 4, 8), 8), _items_param((1, 2, 3), 3)),
        merge_sort_frames,
        "A block merge sort: each thread's keys, then merges of runs twice as long.",
    ),
    Explorer(
        "radix_sort",
        "block.radix_sort",
        "sorting",
        (
            _threads_param(),
            _items_param((1, 2, 3), 2),
            Param("radix_bits", "radix_bits", (1, 2), 2),
            _choices("output", "blocked"),
        ),
        radix_sort_frames,
        "A block radix sort: a stable pass per group of bits, from the lowest.",
    ),
    Explorer(
        "top_k",
        "block.top_k",
        "sorting",
        (
            _threads_param(),
            _items_param((2, 3), 2),
            Param("k", "k", (1, 3, 5), 3),
            Param("largest", "largest", (True, False), True),
        ),
        top_k_frames,
        "The k largest (or smallest) keys gathered into the tile's first slots.",
    ),
    Explorer(
        "argmax",
        "block.argmax",
        "structured",
        (_threads_param(), _items_param((2, 3), 2), Param("broadcast", "broadcast", (False, True), False)),
        argmax_frames,
        "A structured item, (value, index), reduced: ties go to the smaller index.",
    ),
    Explorer(
        "cluster_sum",
        "cluster.sum",
        "clusters",
        (Param("blocks", "blocks in the cluster", (2, 4), 4), _items_param((1, 2, 3), 2)),
        cluster_frames,
        "A row over the blocks of a cluster: each block's aggregate pushed into every block's slots.",
    ),
    Explorer(
        "grid_scan",
        "grid.exclusive_sum",
        "grid_scans",
        (
            Param("tiles", "tiles", (3, 5, 6), 5),
            Param("kind", "scan", ("exclusive_sum", "inclusive_sum"), "exclusive_sum"),
        ),
        grid_scan_frames,
        "A scan over the whole grid in one pass: tickets, published aggregates, the decoupled look-back.",
    ),
)

#: The explorers by name.
BY_NAME = {e.name: e for e in EXPLORERS}
