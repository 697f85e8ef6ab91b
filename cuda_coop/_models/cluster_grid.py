# SPDX-License-Identifier: Apache-2.0
"""Models of the primitives beyond one block: a cluster's reduction (the blocks' aggregates pushed
into every block's slots) and a grid scan (tickets, published aggregates, the decoupled look-back)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._core import Frame, Panel, Row, _cells, _data, memory_panel, threads_panel

# --- clusters -------------------------------------------------------------------------------------


def cluster_result(x: np.ndarray) -> dict[str, np.ndarray]:
    """``x[block, thread, item]``: the cluster's total, in every thread of every block."""
    return {"out": np.full(x.shape[:2], x.sum())}


def cluster_frames(blocks: int, items: int) -> list[Frame]:
    threads = 4
    x = _data(blocks * threads * items, 41).reshape(blocks, threads, items)
    keys = np.arange(x.size).reshape(x.shape)

    def block_rows(values: np.ndarray, k: np.ndarray | None, marks: np.ndarray | None, title: str) -> Panel:
        rows = []
        for b in range(blocks):
            for t in range(values.shape[1]):
                kk = k[b, t] if k is not None else None
                mm = marks[b, t] if marks is not None else None
                rows.append(Row(f"b{b} t{t}", _cells(list(values[b, t]), kk, mm)))
        return Panel(title, tuple(rows))

    aggregates = x.sum(axis=(1, 2))
    slots = np.tile(aggregates, (blocks, 1))
    total = int(x.sum())
    return [
        Frame(
            f"coop.cluster.sum(items): a row split over a cluster of {blocks} blocks of {threads} threads, "
            f"{items} items each.",
            (block_rows(x, keys, None, "items (block b, thread t)"),),
        ),
        Frame(
            "Each block reduces its own items (CUB's BlockReduce): its aggregate in its thread 0.",
            (
                threads_panel(
                    "block aggregates", aggregates[:, None], None, np.full((blocks, 1), "new"), label="b"
                ),
            ),
        ),
        Frame(
            "Warp 0 of each block writes its aggregate into slot b (its rank) of every block's shared memory "
            "(st.async, completing that block's mbarrier): no block reads another's memory.",
            (
                threads_panel(
                    "each block's slots",
                    slots,
                    np.full(slots.shape, -1),
                    np.full(slots.shape, "new"),
                    label="b",
                ),
            ),
        ),
        Frame(
            "Every thread waits on its own block's mbarrier and folds the slots in rank order: the cluster's "
            f"total, {total}, in every thread.",
            (
                block_rows(
                    np.full((blocks, threads, 1), total), None, np.full((blocks, threads, 1), "new"), "result"
                ),
            ),
        ),
    ]


# --- grid scans -----------------------------------------------------------------------------------

_STATUS = {"X": "invalid", "A": "aggregate", "P": "inclusive prefix"}


def grid_scan_result(x: np.ndarray, kind: str = "exclusive_sum") -> dict[str, np.ndarray]:
    """``x[tile, thread, item]`` scanned over the whole grid in tile order."""
    flat = x.reshape(-1)
    inc = np.cumsum(flat)
    return {"out": (inc if kind == "inclusive_sum" else inc - flat).reshape(x.shape)}


def look_back(tile: int, status: Sequence[str], values: Sequence[int]) -> tuple[int, int]:
    """Decoupled look-back from ``tile``: (the sum of the predecessors' values up to and including
    the first inclusive prefix met, how many predecessors it read); a predecessor still invalid
    would be waited for (the model is called once every predecessor has published)."""
    prefix, read = 0, 0
    for p in range(tile - 1, -1, -1):
        assert status[p] != "X", "the look-back waits: call it once the predecessors have published"
        prefix += values[p]
        read += 1
        if status[p] == "P":
            break
    return prefix, read


def grid_scan_frames(tiles: int, kind: str) -> list[Frame]:
    threads, items = 4, 2
    x = _data(tiles * threads * items, 43).reshape(tiles, threads, items)
    order = np.random.default_rng(tiles).permutation(tiles)  # the order blocks reach tile_index
    aggregates = [int(a) for a in x.sum(axis=(1, 2))]

    def statuses(status: Sequence[str], values: Sequence[int | None], marks: Sequence[str]) -> Panel:
        text = [f"{s}:{v}" if v is not None else s for s, v in zip(status, values, strict=True)]
        return memory_panel(
            "tile statuses in the workspace (X invalid, A aggregate, P inclusive)", text, [-1] * tiles, marks
        )

    def tiles_panel(values: np.ndarray, title: str, marks: str = "") -> Panel:
        rows = [
            Row(
                f"tile {k}",
                _cells(
                    list(values[k].reshape(-1)),
                    list(np.arange(threads * items) + k * threads * items),
                    [marks] * (threads * items),
                ),
            )
            for k in range(tiles)
        ]
        return Panel(title, tuple(rows))

    frames = [
        Frame(
            f"coop.grid.{kind}: {tiles} blocks of {threads} threads x {items} items. Each block first "
            "takes a ticket (coop.grid.tile_index): its tile, in the order blocks arrive, whatever "
            "their blockIdx.",
            (
                memory_panel("blockIdx -> tile", [f"b{b}->{k}" for k, b in enumerate(order)], [-1] * tiles),
                tiles_panel(x, "items of each tile (blocked)"),
            ),
        ),
    ]
    status = ["P"] + ["A"] * (tiles - 1)
    frames.append(
        Frame(
            "Each tile reduces its items and publishes its aggregate (A); tile 0 publishes its "
            "inclusive prefix (P) at once.",
            (statuses(status, aggregates, ["new"] * tiles),),
        )
    )
    prefixes = [0] + [look_back(k, status, aggregates)[0] for k in range(1, tiles)]
    reads = [0] + [look_back(k, status, aggregates)[1] for k in range(1, tiles)]
    frames.append(
        Frame(
            "Decoupled look-back: the first warp of each tile reads its predecessors' statuses backwards, "
            f"adding aggregates until it meets an inclusive prefix (tiles 1 to {tiles - 1} read "
            + ", ".join(f"{r}" for r in reads[1:])
            + " statuses): its exclusive prefix.",
            (
                memory_panel("exclusive prefix of each tile", prefixes, [-1] * tiles, ["new"] * tiles),
                statuses(status, aggregates, [""] * tiles),
            ),
        )
    )
    inclusive = [p + a for p, a in zip(prefixes, aggregates, strict=True)]
    frames.append(
        Frame(
            "Each tile publishes its inclusive prefix (P): later tiles stop there.",
            (statuses(["P"] * tiles, inclusive, ["new"] * tiles),),
        )
    )
    out = grid_scan_result(x, kind)["out"]
    frames.append(
        Frame(
            f"Each thread scans its items from its tile's prefix: the {kind.replace('_', ' ')} of the "
            "whole array, in one pass.",
            (tiles_panel(out, "result", "new"),),
        )
    )
    return frames
