# SPDX-License-Identifier: Apache-2.0
"""Models of the sorting and data-dependent primitives: adjacent difference, discontinuity,
histogram, run-length decode, radix sort, merge sort and top-k."""

from __future__ import annotations

import numpy as np

from ._core import Frame, _data, memory_panel, positions, threads_panel

# --- adjacent difference, discontinuity -------------------------------------------------------------


def adjacent_result(x: np.ndarray, direction: str) -> dict[str, np.ndarray]:
    flat = x.reshape(-1).astype(np.int64)
    out = flat.copy()
    if direction == "left":
        out[1:] = flat[1:] - flat[:-1]
    else:
        out[:-1] = flat[:-1] - flat[1:]
    return {"out": out.reshape(x.shape)}


def adjacent_frames(threads: int, items: int, direction: str) -> list[Frame]:
    neighbour = "predecessor" if direction == "left" else "successor"
    x = _data(threads * items, 13).reshape(threads, items)
    keys = np.arange(threads * items).reshape(threads, items)
    out = adjacent_result(x, direction)["out"]
    edge = (0, 0) if direction == "left" else (threads - 1, items - 1)
    marks = np.full(x.shape, "new")
    marks[edge] = ""
    formula = "x[i] - x[i-1]" if direction == "left" else "x[i] - x[i+1]"
    kept = "first" if direction == "left" else "last"
    return [
        Frame(
            f"coop.block.adjacent_difference(items, direction='{direction}'): the tile in blocked order.",
            (threads_panel("items", x, keys),),
        ),
        Frame(
            f"out[i] = {formula} across thread boundaries too (each thread gets its neighbour's edge item); "
            f"the tile's {kept} item is copied (or paired with tile_{neighbour}).",
            (threads_panel("items", x, keys), threads_panel("result", out, None, marks)),
        ),
    ]


def discontinuity_result(x: np.ndarray, flags: str) -> dict[str, np.ndarray]:
    flat = x.reshape(-1)
    heads = np.ones(flat.size, np.int32)
    heads[1:] = flat[1:] != flat[:-1]
    tails = np.ones(flat.size, np.int32)
    tails[:-1] = flat[:-1] != flat[1:]
    out = {"heads": heads, "tails": tails, "heads_and_tails": heads + 2 * tails}[flags]
    return {"out": out.reshape(x.shape)}


def discontinuity_frames(threads: int, items: int, flags: str) -> list[Frame]:
    x = np.sort(_data(threads * items, 17, high=4)).reshape(threads, items)
    keys = np.arange(threads * items).reshape(threads, items)
    res = discontinuity_result(x, flags)["out"]
    frames = [
        Frame(
            "coop.block.discontinuity(items"
            + ("" if flags == "heads" else f", flags='{flags}'")
            + "): runs of equal keys, blocked.",
            (threads_panel("items", x, keys),),
        )
    ]
    if flags == "heads_and_tails":
        h, t_ = res % 2, res // 2
        frames.append(
            Frame(
                "head_flags[i] = x[i-1] != x[i] (the first item: 1); tail_flags[i] = x[i] != x[i+1] "
                "(the last: 1).",
                (
                    threads_panel("items", x, keys),
                    threads_panel("head_flags", h, None, np.full(x.shape, "new")),
                    threads_panel("tail_flags", t_, None, np.full(x.shape, "new")),
                ),
            )
        )
    else:
        formula = (
            "x[i-1] != x[i] (the tile's first item: 1)"
            if flags == "heads"
            else "x[i] != x[i+1] (the tile's last item: 1)"
        )
        frames.append(
            Frame(
                f"{flags[:-1]}_flags[i] = {formula}.",
                (
                    threads_panel("items", x, keys),
                    threads_panel(f"{flags[:-1]} flags", res, None, np.full(x.shape, "new")),
                ),
            )
        )
    return frames


# --- histogram, run-length decode --------------------------------------------------------------------


def histogram_result(x: np.ndarray, bins: int) -> dict[str, np.ndarray]:
    return {"counts": np.bincount(x.reshape(-1), minlength=bins)}


def histogram_frames(threads: int, items: int, bins: int, algorithm: str) -> list[Frame]:
    x = _data(threads * items, 19, high=bins).reshape(threads, items)
    keys = np.arange(threads * items).reshape(threads, items)
    counts = histogram_result(x, bins)["counts"]
    zero = memory_panel("bins (shared or global memory)", [0] * bins, [-1] * bins)
    frames = [
        Frame(
            f"coop.block.histogram(samples, bins_array, bins={bins}, algorithm='{algorithm}'): the bins "
            "start at zero (init=True).",
            (threads_panel("samples", x, keys), zero),
        )
    ]
    if algorithm == "sort":
        flat = np.sort(x.reshape(-1), kind="stable")
        order = np.argsort(x.reshape(-1), kind="stable")
        sorted_ = flat.reshape(threads, items)
        frames.append(
            Frame(
                "The samples are radix-sorted in place (blocked)...",
                (
                    threads_panel(
                        "samples, sorted", sorted_, order.reshape(threads, items), np.full(x.shape, "new")
                    ),
                    zero,
                ),
            )
        )
        frames.append(
            Frame(
                "...and one thread per run of equal samples adds the run's length to its bin.",
                (
                    threads_panel("samples, sorted", sorted_, order.reshape(threads, items)),
                    memory_panel("bins", list(counts), [-1] * bins, ["new"] * bins),
                ),
            )
        )
    else:
        frames.append(
            Frame(
                "Each sample adds one to its bin with a block-scope atomic (the samples stay as they are).",
                (
                    threads_panel("samples", x, keys),
                    memory_panel("bins", list(counts), [-1] * bins, ["new"] * bins),
                ),
            )
        )
    return frames


def rld_result(
    values: np.ndarray, lengths: np.ndarray, items: int, threads: int, begin: int
) -> dict[str, np.ndarray]:
    """Run ``r`` of ``values[r]`` repeated ``lengths[r]`` times; the window of ``threads*items``
    decoded items from ``begin`` (``defined`` False past the decoded size), and the total size."""
    decoded = np.repeat(values.reshape(-1), lengths.reshape(-1))
    pos = begin + np.arange(threads * items)
    inside = pos < decoded.size
    out = np.zeros(threads * items, dtype=values.dtype)
    out[inside] = decoded[pos[inside]]
    run = np.repeat(np.arange(values.size), lengths.reshape(-1))
    which = np.full(threads * items, -1)
    which[inside] = run[pos[inside]]
    return {
        "out": out.reshape(threads, items),
        "defined": inside.reshape(threads, items),
        "run": which.reshape(threads, items),
        "total": np.array(decoded.size),
    }


def rld_frames(threads: int, items: int, window: int) -> list[Frame]:
    runs_per_thread = max(1, items // 2)
    values = (np.arange(threads * runs_per_thread) * 3 % 10).reshape(threads, runs_per_thread)
    lengths = (1 + (np.arange(threads * runs_per_thread) * 7 % 3)).reshape(threads, runs_per_thread)
    keys = np.arange(values.size).reshape(values.shape)
    begin = window * threads * items
    res = rld_result(values, lengths, items, threads, begin)
    total = int(res["total"])
    texts = np.where(res["defined"], res["out"], None)
    marks = np.where(res["defined"], "new", "undef")
    frames = [
        Frame(
            f"coop.block.run_length_decode(values, decoded_items_per_thread={items}, run_lengths=lengths"
            + (f", from_decoded_offset={begin})" if window else ")")
            + f": {values.size} runs, {total} items decoded.",
            (threads_panel("run values", values, keys), threads_panel("run lengths", lengths, keys)),
        ),
        Frame(
            "A block-wide exclusive sum of the lengths gives each run's first decoded offset.",
            (
                threads_panel(
                    "run offsets",
                    (np.cumsum(lengths.reshape(-1)) - lengths.reshape(-1)).reshape(lengths.shape),
                    keys,
                    np.full(lengths.shape, "new"),
                ),
            ),
        ),
        Frame(
            f"Each thread decodes {items} consecutive items of the window starting at {begin} (blocked): "
            "a search for the run each one falls in; items past the decoded size are unspecified.",
            (threads_panel("decoded", texts, res["run"], marks),),
        ),
    ]
    return frames


# --- sorting ----------------------------------------------------------------------------------------


def radix_sort_result(x: np.ndarray, output: str, threads: int, items: int) -> dict[str, np.ndarray]:
    order = np.argsort(x.reshape(-1), kind="stable")
    sorted_ = x.reshape(-1)[order]
    pos = positions(output, threads, items)
    return {"out": sorted_[pos], "origin": order[pos]}


def radix_sort_frames(threads: int, items: int, radix_bits: int, output: str) -> list[Frame]:
    held = "t*n .. t*n+n-1" if output == "blocked" else "t, t+T, ..."
    end_bit = 4
    x = _data(threads * items, 23, high=16).reshape(threads, items)
    origin = np.arange(threads * items)
    cur = x.reshape(-1).copy()
    frames = [
        Frame(
            f"coop.block.radix_sort(keys, end_bit={end_bit}, radix_bits={radix_bits}"
            + (", output='striped'" if output == "striped" else "")
            + f"): {end_bit}-bit keys, {radix_bits} bit(s) ranked per pass; drawn in binary.",
            (
                threads_panel(
                    "keys", _binary(cur, end_bit).reshape(threads, items), origin.reshape(threads, items)
                ),
            ),
        )
    ]
    for lo in range(0, end_bit, radix_bits):
        digit = (cur >> lo) & ((1 << radix_bits) - 1)
        order = np.argsort(digit, kind="stable")
        cur, origin = cur[order], origin[order]
        frames.append(
            Frame(
                f"Pass over bits {lo}..{min(lo + radix_bits, end_bit) - 1}: each key's rank is the "
                "keys with a smaller digit plus the keys before it with the same digit (a block-wide "
                "scan of digit counts); the keys are exchanged to their ranks (stable).",
                (
                    threads_panel(
                        "keys",
                        _binary(cur, end_bit).reshape(threads, items),
                        origin.reshape(threads, items),
                        np.full((threads, items), "new"),
                    ),
                ),
            )
        )
    res = radix_sort_result(x, output, threads, items)
    frames.append(
        Frame(
            f"Sorted: thread t holds sorted positions {held} ({output}).",
            (threads_panel("keys", res["out"], res["origin"], np.full((threads, items), "new")),),
        )
    )
    return frames


def _binary(values: np.ndarray, bits: int) -> np.ndarray:
    return np.array([format(int(v), f"0{bits}b") for v in values.reshape(-1)], dtype=object).reshape(
        values.shape
    )


def merge_sort_result(x: np.ndarray) -> dict[str, np.ndarray]:
    order = np.argsort(x.reshape(-1), kind="stable")
    return {"out": x.reshape(-1)[order].reshape(x.shape), "origin": order.reshape(x.shape)}


def merge_sort_frames(threads: int, items: int) -> list[Frame]:
    x = _data(threads * items, 29, high=20).reshape(threads, items)
    n = threads * items
    vals = x.reshape(-1).copy()
    origin = np.arange(n)
    frames = [
        Frame(
            f"coop.block.merge_sort(keys, 'less'): {threads} threads (a power of two), {items} keys each, "
            "blocked.",
            (threads_panel("keys", x, origin.reshape(threads, items)),),
        )
    ]
    for t in range(threads):
        seg = slice(t * items, (t + 1) * items)
        o = np.argsort(vals[seg], kind="stable")
        vals[seg], origin[seg] = vals[seg][o], origin[seg][o]
    frames.append(
        Frame(
            "Each thread sorts its own keys (in registers).",
            (
                threads_panel(
                    "keys",
                    vals.reshape(threads, items),
                    origin.reshape(threads, items),
                    np.full((threads, items), "new"),
                ),
            ),
        )
    )
    size = 2
    while size <= threads:
        run = size * items
        for a in range(0, n, run):
            o = np.argsort(vals[a : a + run], kind="stable")
            vals[a : a + run], origin[a : a + run] = vals[a : a + run][o], origin[a : a + run][o]
        frames.append(
            Frame(
                f"Groups of {size} threads merge their two sorted runs of {run // 2} keys (through "
                "shared memory, each thread finding its share by a merge-path search).",
                (
                    threads_panel(
                        "keys",
                        vals.reshape(threads, items),
                        origin.reshape(threads, items),
                        np.full((threads, items), "new"),
                    ),
                ),
            )
        )
        size *= 2
    return frames


def top_k_result(x: np.ndarray, k: int, largest: bool) -> dict[str, np.ndarray]:
    """The selected keys (sorted: their order in the first ``k`` slots is unspecified)."""
    flat = np.sort(x.reshape(-1), kind="stable")
    chosen = flat[-k:] if largest else flat[:k]
    return {"selected": np.sort(chosen)}


def top_k_frames(threads: int, items: int, k: int, largest: bool) -> list[Frame]:
    which = "largest" if largest else "smallest"
    x = _data(threads * items, 31, high=50).reshape(threads, items)
    keys = np.arange(threads * items).reshape(threads, items)
    flat = x.reshape(-1)
    order = np.argsort(flat, kind="stable")
    chosen = order[-k:][::-1] if largest else order[:k]
    n = flat.size
    texts = np.full(n, None, dtype=object)
    kk = np.full(n, -1)
    marks = np.full(n, "undef", dtype=object)
    texts[: len(chosen)] = flat[chosen]
    kk[: len(chosen)] = chosen
    marks[: len(chosen)] = "new"
    sel = np.full(n, "off", dtype=object)
    sel[chosen] = ""
    return [
        Frame(
            f"coop.block.top_k(keys, {k}"
            + ("" if largest else ", largest=False")
            + "): the tile in blocked order.",
            (threads_panel("keys", x, keys),),
        ),
        Frame(
            f"Radix passes over the keys' bits (8 a pass) narrow down the {k} {which} "
            "keys without sorting the tile.",
            (threads_panel("keys", x, keys, sel.reshape(x.shape)),),
        ),
        Frame(
            f"The selected keys are gathered into the tile's first {k} slots, in no particular order; "
            "the other "
            "slots are unspecified.",
            (threads_panel("keys", texts.reshape(x.shape), kk.reshape(x.shape), marks.reshape(x.shape)),),
        ),
    ]
