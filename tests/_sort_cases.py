# SPDX-License-Identifier: Apache-2.0
"""The sorting and data-dependent primitives' test cases (issue 10), shared by both backends: each
case is one coop call, written the same way in a Numba and in a CuTe kernel, with an independent
NumPy reference (``np.argsort(kind="stable")`` and friends).

A test kernel holds many cases (one is chosen at run time by ``mode``) and runs each over ``GRID``
blocks x ``TILES`` tiles per block, in a loop, so that implicit scratch is reused. The kernel's
names:

``keys``    ThreadData(IPT, K) loaded with the tile in the blocked arrangement
``vals``    ThreadData(IPT, V) loaded with the values (each item's position in the tile, as V)
``begin``, ``end``   a runtime bit range (one per launch)
``t``       the thread's row-major index
Outputs, stored blocked or striped as the case says: ``ok`` (K), ``ov`` (V), ``oi`` (int32 flags).

A case's call may be several statements (one a line); ``{LOOP}`` stands for each DSL's loop over the
thread's items (``for j in ...:``), ``{SYNC}`` for its block barrier, ``{KEY}(...)`` for a literal
made a key (CuTe stores only values of the element's own type). Histogram kernels also have
``sh``, ``bins`` int32 counters in shared memory, and their keys are samples ``0 .. bins-1``.

Every case runs on three data sets per launch: random keys over the whole range (floats with
``-0.0``, ``+0.0``, NaN and infinities sprinkled in), few distinct keys (many duplicates), and all
keys equal.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

GRID = 3
TILES = 2
KEY_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
              "float64"]  # fmt: skip
VALUE_DTYPES = ["int32", "float64", "uint16", "int64", "float32"]  # hold every position of a tile exactly
BLOCKS: list[tuple[int, int, int]] = [
    (256, 1, 1), (128, 1, 1), (96, 1, 1), (8, 16, 1), (4, 8, 4), (1024, 1, 1), (5, 7, 2), (32, 1, 1),
    (64, 1, 1),
]  # fmt: skip
IPTS = [8, 4, 3, 5, 2, 2, 7, 16, 1]
VARIANTS = ("random", "dups", "equal")


def is_float(dtype: str) -> bool:
    return dtype.startswith("float")


def bits(dtype: str) -> int:
    return np.dtype(dtype).itemsize * 8


#: The kernels' families of cases (one kernel each, so that no kernel grows past its registers).
GROUPS = ("sort", "neighbours", "histogram", "merge", "decode", "rank")
#: Histogram bins per sample type (at most a tile: the counters are stored in the tile's place).
HISTOGRAM_BINS = {"int8": 100, "int16": 500, "int32": 37, "int64": 300, "uint8": 256, "uint16": 2048,
                  "uint32": 333, "uint64": 7}  # fmt: skip


@dataclass(frozen=True)
class Config:
    """One test kernel: key and value types, block shape, items per thread and family of cases."""

    key: str
    value: str
    block: tuple[int, int, int]
    ipt: int
    group: str = "sort"

    @property
    def threads(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    @property
    def tile(self) -> int:
        return self.threads * self.ipt

    @property
    def bins(self) -> int | None:
        """The histogram family's bins (its samples are ``0 .. bins-1``); None for the others."""
        return min(HISTOGRAM_BINS[self.key], self.tile) if self.group == "histogram" else None

    @property
    def id(self) -> str:
        return f"{self.group}-{self.key}-{self.value}-{'x'.join(map(str, self.block))}-{self.ipt}"


#: The block shapes of a power-of-two number of threads (CUB's block merge sort needs one).
POW2_BLOCKS = [b for b in BLOCKS if not (b[0] * b[1] * b[2]) & (b[0] * b[1] * b[2] - 1)]


def configs() -> list[Config]:
    """Every family of cases with every key type, with a rotation of value types, block shapes and
    items per thread (the merge family's blocks are those of a power-of-two thread count)."""
    return [
        Config(k, VALUE_DTYPES[i % len(VALUE_DTYPES)], blocks[i % len(blocks)], IPTS[i % len(IPTS)], g)
        for g in GROUPS
        for blocks in [POW2_BLOCKS if g == "merge" else BLOCKS]
        for i, k in enumerate(KEY_DTYPES)
        if g != "histogram" or k in HISTOGRAM_BINS  # samples are bin numbers
        if g != "rank" or k.startswith("uint")  # ranked keys are unsigned bits
    ]


@dataclass(frozen=True)
class Params:
    """Per-launch runtime values."""

    begin: int
    end: int
    nvalid: int = 0  # valid items of a partial tile
    x0: object = 0  # the key array's first two items (tile predecessor / successor)
    x1: object = 0


Reference = Callable[[np.ndarray, np.ndarray, Params], dict[str, np.ndarray]]


@dataclass(frozen=True)
class Case:
    """One coop call of a test kernel, what it stores, and its reference on one tile.

    Attributes:
        id: a readable name.
        call: the statements, identical in both DSLs (``{LOOP}``: the loop over the thread's items).
        stores: (ThreadData name, output array, ``"blocked"`` or ``"striped"``) after the call.
        ref: (tile keys, tile values, params) -> the expected tile of each output array.
        ordered: its keys have no NaN or infinity (``'less'`` on floats is a strict weak ordering
            only without NaN; a partial sort's ``oob_default`` must be ordered after every key).
        any_zero_sign: a zero it computes may have either sign (CUDA's ``fmax`` of -0.0 and +0.0
            returns one of them by position, as C and IEEE 754 allow); its outputs' zeros compare
            equal whatever their sign, all other values bitwise.
    """

    id: str
    call: str
    stores: tuple[tuple[str, str, str], ...]
    ref: Reference = field(compare=False)
    ordered: bool = False
    any_zero_sign: bool = False


# --- references ------------------------------------------------------------------------------------


def ordered_bits(keys: np.ndarray) -> np.ndarray:
    """CUB's bit-ordered keys as uint64 (unsigned as is, signed with the sign bit flipped, floats
    twiddled: negative ones complemented, others with the sign bit flipped; -0.0 as +0.0)."""
    n = bits(keys.dtype.name)
    u = keys.view(f"u{keys.dtype.itemsize}").astype(np.uint64)
    sign, ones = np.uint64(1 << (n - 1)), np.uint64((1 << n) - 1)
    if keys.dtype.kind == "i":
        return u ^ sign
    if keys.dtype.kind == "f":
        u = np.where((u & sign) != 0, u ^ ones, u ^ sign)
        return np.where(u == (sign ^ ones), sign, u)  # twiddled -0.0 -> twiddled +0.0
    return u


def sort_order(
    keys: np.ndarray, *, descending: bool = False, begin: int = 0, end: int | None = None
) -> np.ndarray:
    """The stable order of ``keys`` by their bits ``begin .. end-1``. Over all bits the order is
    NumPy's own (independent of CUB's bit twiddling): ``np.argsort(kind="stable")`` ascending (NaN
    last, -0.0 equal to +0.0); descending, NaN first and ``~key`` for integers."""
    n = bits(keys.dtype.name)
    end = n if end is None else end
    if begin == 0 and end == n:
        if not descending:
            return np.argsort(keys, kind="stable")
        if keys.dtype.kind == "f":
            wide = keys.astype(np.float64)
            return np.lexsort((-np.nan_to_num(wide, nan=0.0), ~np.isnan(wide)))
        return np.argsort(~keys, kind="stable")
    mask = np.uint64((1 << (end - begin)) - 1)
    digits = (ordered_bits(keys) >> np.uint64(begin)) & mask
    return np.argsort(mask - digits if descending else digits, kind="stable")


def _radix_ref(*, values: bool, descending: bool, bit_range: str | tuple[int, int] | None) -> Reference:
    def ref(keys: np.ndarray, vals: np.ndarray, p: Params) -> dict[str, np.ndarray]:
        begin, end = (p.begin, p.end) if bit_range == "runtime" else (bit_range or (0, None))
        order = sort_order(keys, descending=descending, begin=begin, end=end)
        out = {"ok": keys[order]}
        if values:
            out["ov"] = vals[order]
        return out

    return ref


def _radix(cfg: Config, id_: str, *, values: bool = False, descending: bool = False,
           bit_range: str | tuple[int, int] | None = None, output: str = "blocked", radix_bits: int = 4,
           temp: bool = False) -> Case:  # fmt: skip
    args = ["keys"]
    if values:
        args.append("values=vals")
    if descending:
        args.append("descending=True")
    if bit_range == "runtime":
        args += ["begin_bit=begin", "end_bit=end"]
    elif bit_range is not None:
        args += [f"begin_bit={bit_range[0]}", f"end_bit={bit_range[1]}"]
    if output != "blocked":
        args.append(f"output={output!r}")
    if radix_bits != 4:
        args.append(f"radix_bits={radix_bits}")
    if temp:
        args.append("temp_storage=ts")
    stores = (("keys", "ok", output),) + ((("vals", "ov", output),) if values else ())
    return Case(
        f"radix_sort-{id_}",
        f"coop.block.radix_sort({', '.join(args)})",
        stores,
        _radix_ref(values=values, descending=descending, bit_range=bit_range),
    )


def max_radix_bits(threads: int) -> int:
    """The most radix bits whose digit counters fit the static shared-memory limit."""
    return max(b for b in range(1, 9) if ((1 << (b - 1)) + 1) * threads * 4 <= 48 * 1024)


def last_key(dtype: str, descending: bool) -> str:
    """A key ordered after every key of ordered data (a partial sort's ``oob_default``), as kernel
    text: ordered float keys are normal values of scale 100 (and zeros), far inside +-60000."""
    if is_float(dtype):
        return "-60000.0" if descending else "60000.0"
    info = np.iinfo(np.dtype(dtype))
    return str(info.min if descending else info.max)


def _merge(cfg: Config, id_: str, *, op: str = "less", values: bool = False, partial: bool = False,
           oob: bool = False, stable: bool = False, temp: bool = False) -> Case:  # fmt: skip
    """A block merge sort; a partial tile's keys (and values) past ``nvalid`` are unspecified after
    CUB's sort, so the case puts the input back there (the reference keeps them)."""
    descending = op == "greater"
    args = ["keys", op if op.startswith("user_") else repr(op)]
    if values:
        args.append("values=vals")
    if partial:
        args.append("valid_items=nvalid")
    if oob:
        args.append(f"oob_default={last_key(cfg.key, descending)}")
    if stable:
        args.append("stable=True")
    if temp:
        args.append("temp_storage=ts")
    lines = [f"coop.block.merge_sort({', '.join(args)})"]
    if partial:
        lines += ["{LOOP}", "    if t * {IPT} + j >= nvalid:", "        keys[j] = x[base + t * {IPT} + j]"]
        if values:
            lines.append("        vals[j] = v[base + t * {IPT} + j]")
    stores = (("keys", "ok", "blocked"),) + ((("vals", "ov", "blocked"),) if values else ())

    def ref(keys: np.ndarray, vals: np.ndarray, p: Params) -> dict[str, np.ndarray]:
        # CUB's Sort is the same merge of runs as StableSort (which calls it): the stable order is
        # the reference of both, and keys alone are the same either way but for -0.0 and +0.0
        n = min(p.nvalid, len(keys)) if partial else len(keys)
        order = np.concatenate([sort_order(keys[:n], descending=descending), np.arange(n, len(keys))])
        out = {"ok": keys[order]}
        if values:
            out["ov"] = vals[order]
        return out

    return Case(f"merge_sort-{id_}", "\n".join(lines), stores, ref, ordered=True)


def run_lengths(cfg: Config, begin: int, nvalid: int | None = None) -> np.ndarray:
    """The decode cases' run lengths, as their kernels compute them: 1..3 for run ``p = t*n + j``
    (``1 + (7t + 5j + begin) % 3``), and 0 from run ``nvalid`` on (trailing zero-length runs)."""
    t, j = np.divmod(np.arange(cfg.tile), cfg.ipt)
    lengths = 1 + (t * 7 + j * 5 + begin) % 3
    if nvalid is not None:
        lengths[nvalid:] = 0
    return lengths


def _decode(cfg: Config, id_: str, *, runs: str = "lengths", window: bool = False, trailing: bool = False,
            relative: bool = False, temp: bool = False) -> Case:  # fmt: skip
    """A block run-length decode of the tile's keys (the runs' values) with lengths computed in the
    kernel, one window of ``threads * ipt`` items from 0 or (``window``) from ``begin``. Items past the
    decoded size are unspecified: the case sets them to the tile's first key (offsets to -1). The
    decoded size goes to ``oi`` (with lengths; with offsets, the scan's aggregate is the size)."""
    start = "begin" if window else "0"
    lines = [
        "rl = coop.ThreadData({IPT}, {I32})",
        "o = coop.ThreadData({IPT}, {I32})",
        "{LOOP}",
        "    rl[j] = 1 + (t * 7 + j * 5 + begin) % 3",
    ]
    if trailing:
        lines += ["    if t * {IPT} + j >= nvalid:", "        rl[j] = 0"]
    args = ["keys", "decoded_items_per_thread={IPT}"]
    args.append("run_lengths=rl" if runs == "lengths" else "run_offsets=ro")
    if window:
        args.append("from_decoded_offset=begin")
    if relative:
        args.append("relative_offsets=True")
    if temp:
        args.append("temp_storage=ts")
    outs = "d" + (", off" if relative else "") + (", total" if runs == "lengths" else "")
    if runs == "offsets":
        lines.append("ro, total = coop.block.exclusive_sum(rl, block_aggregate=True)")
    lines += [
        f"{outs} = coop.block.run_length_decode({', '.join(args)})",
        "{LOOP}",
        "    o[j] = total",
        f"    if {start} + t * {{IPT}} + j >= total:",
        "        d[j] = x[base]",
    ]
    if relative:
        lines.append("        off[j] = -1")
        lines += ["{LOOP}", "    o[j] = o[j] + 1000000 * off[j]"]  # the size and the offsets in one
    stores = (("d", "ok", "blocked"), ("o", "oi", "blocked"))

    def ref(keys: np.ndarray, vals: np.ndarray, p: Params) -> dict[str, np.ndarray]:
        lengths = run_lengths(cfg, p.begin, p.nvalid if trailing else None)
        total = int(lengths.sum())
        first = p.begin if window else 0
        pos = first + np.arange(len(keys))
        inside = pos < total
        decoded = np.repeat(keys, lengths)
        out = np.full(len(keys), keys[0])
        out[inside] = decoded[pos[inside]]
        o = np.full(len(keys), total, dtype=np.int64)
        if relative:
            starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
            run = np.repeat(np.arange(len(keys)), lengths)
            offsets = np.full(len(keys), -1)
            offsets[inside] = pos[inside] - starts[run[pos[inside]]]
            o = o + 1000000 * offsets
        return {"ok": out, "oi": o.astype(np.int32)}

    return Case(f"run_length_decode-{id_}", "\n".join(lines), stores, ref)


def _rank(cfg: Config, id_: str, *, algorithm: str = "basic", num_bits: int = 4, descending: bool = False,
          begin: int | None = None, temp: bool = False) -> Case:  # fmt: skip
    """A block radix rank by bits ``begin .. begin+num_bits-1``: a constant ``begin``, or (None) the
    runtime ``begin`` folded into the key (``begin % (bits - num_bits + 1)``). The reference is the
    inverse of the stable order of the digits."""
    room = bits(cfg.key) - num_bits + 1
    args = ["keys", f"begin_bit={begin}" if begin is not None else f"begin_bit=begin % {room}",
            f"num_bits={num_bits}"]  # fmt: skip
    if descending:
        args.append("descending=True")
    if algorithm != "basic":
        args.append(f"algorithm={algorithm!r}")
    if temp:
        args.append("temp_storage=ts")

    def ref(keys: np.ndarray, vals: np.ndarray, p: Params) -> dict[str, np.ndarray]:
        first = begin if begin is not None else p.begin % room
        mask = np.uint64((1 << num_bits) - 1)
        digits = (keys.astype(np.uint64) >> np.uint64(first)) & mask
        # equal digits keep their order: blocked (thread, item), or for 'match' warp-striped (warp,
        # item, lane): CUB's match ranks a warp's lanes item by item
        t, i = np.divmod(np.arange(len(keys)), cfg.ipt)
        seq = (t // 32) * (32 * cfg.ipt) + i * 32 + t % 32 if algorithm == "match" else t * cfg.ipt + i
        order = np.lexsort((seq, mask - digits if descending else digits))
        ranks = np.empty(len(keys), dtype=np.int32)
        ranks[order] = np.arange(len(keys), dtype=np.int32)
        return {"oi": ranks}

    call = f"rk = coop.block.radix_rank({', '.join(args)})"
    return Case(f"radix_rank-{id_}", call, (("rk", "oi", "blocked"),), ref)


def _top_k(cfg: Config, id_: str, *, k: int | None = None, largest: bool = True, pairs: bool = False,
           partial: bool = False) -> Case:  # fmt: skip
    """A block top-k of ``k`` keys (a constant; None: ``begin * (tile // 64) + 1`` from the runtime
    ``begin``), made comparable: the selected slots (the tile's first ``min(k, valid)``) are flagged
    in ``oi`` (1; 0 where a pair's value, the key's input position, does not point at an equal key;
    2 for the others), the others are filled with a key ordered after every key, and the tile is
    radix-sorted ascending. The reference: the ``k`` largest (smallest) of the valid keys in CUB's bit
    order, ascending, then the fill. Which of several keys equal to the k-th are selected is
    unspecified (the same keys, but for the sign of zeros: compared by value)."""
    kexpr = str(k) if k is not None else f"begin * {cfg.tile // 64} + 1"
    fill = last_key(cfg.key, descending=False)
    args = ["keys", kexpr] + (["values=p"] if pairs else []) + ([] if largest else ["largest=False"])
    args += ["valid_items=nvalid"] if partial else []
    lines = ["p = coop.ThreadData({IPT}, {I32})", "{LOOP}", "    p[j] = t * {IPT} + j"] if pairs else []
    lines += [f"coop.block.top_k({', '.join(args)})", "{LOOP}", "    oi[base + t * {IPT} + j] = 2",
              f"    if t * {{IPT}} + j < {kexpr}:",
              f"        if t * {{IPT}} + j < {'nvalid' if partial else cfg.tile}:"]  # fmt: skip
    if pairs:
        lines += ["            oi[base + t * {IPT} + j] = 0", "            if x[base + p[j]] == keys[j]:",
                  "                oi[base + t * {IPT} + j] = 1"]  # fmt: skip
    else:
        lines += ["            oi[base + t * {IPT} + j] = 1"]
    lines += [
        "{LOOP}",
        "    if oi[base + t * {IPT} + j] == 2:",
        f"        keys[j] = {{KEY}}({fill})",
        "coop.block.radix_sort(keys)",
    ]

    def ref(keys: np.ndarray, vals: np.ndarray, p: Params) -> dict[str, np.ndarray]:
        n = len(keys)
        valid = min(p.nvalid, n) if partial else n
        count = k if k is not None else p.begin * (cfg.tile // 64) + 1
        m = max(0, min(count, valid))
        order = np.argsort(ordered_bits(keys[:valid]), kind="stable")
        chosen = keys[:valid][order[valid - m :] if largest else order[:m]]
        chosen = chosen[np.argsort(ordered_bits(chosen), kind="stable")]
        out = np.concatenate(
            [chosen, np.full(n - m, float(fill) if is_float(cfg.key) else int(fill), keys.dtype)]
        )
        return {"ok": out, "oi": np.where(np.arange(n) < m, 1, 2).astype(np.int32)}

    return Case(f"top_k-{id_}", "\n".join(lines), (("keys", "ok", "blocked"),), ref, ordered=True,
                any_zero_sign=True)  # fmt: skip


def _neighbour(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        if op == "subtract":
            return a - b
        if op == "max":  # ::cuda::maximum: fmax for floating point (a NaN loses), else (a < b) ? b : a
            # the sign of fmax(-0.0, +0.0) is unspecified: the case compares zeros by value
            return np.fmax(a, b) if a.dtype.kind == "f" else np.where(a < b, b, a)
        return np.where(a > b, a, b)  # user_max: a if a > b else b


def _adjacent(id_: str, *, op: str = "subtract", right: bool = False, neighbour: bool = False,
              partial: bool = False) -> Case:  # fmt: skip
    args = ["keys"]
    if op != "subtract":
        args.append(f"op={op}" if op.startswith("user_") else f"op={op!r}")
    if right:
        args.append("direction='right'")
    if neighbour:
        args.append("tile_successor=x[0]" if right else "tile_predecessor=x[1]")
    if partial:
        args.append("valid_items=nvalid")

    def ref(keys: np.ndarray, vals: np.ndarray, p: Params) -> dict[str, np.ndarray]:
        out = keys.copy()
        n = len(keys) if not partial else min(p.nvalid, len(keys))
        if right:
            out[: max(n - 1, 0)] = _neighbour(op, keys[: max(n - 1, 0)], keys[1:n])
            if neighbour:
                out[-1] = _neighbour(op, keys[-1:], np.array([p.x0], dtype=keys.dtype))[0]
        else:
            out[1:n] = _neighbour(op, keys[1:n], keys[: max(n - 1, 0)])
            if neighbour and n > 0:
                out[0] = _neighbour(op, keys[:1], np.array([p.x1], dtype=keys.dtype))[0]
        return {"ok": out}

    return Case(f"adjacent_difference-{id_}", f"d = coop.block.adjacent_difference({', '.join(args)})",
                (("d", "ok", "blocked"),), ref, any_zero_sign=op == "max")  # fmt: skip


def _discontinuity(id_: str, *, flags: str = "heads", op: str = "not_equal", predecessor: bool = False,
                   successor: bool = False) -> Case:  # fmt: skip
    args = ["keys"]
    if flags != "heads":
        args.append(f"flags={flags!r}")
    if op != "not_equal":
        args.append(f"op={op}" if op.startswith("user_") else f"op={op!r}")
    if predecessor:
        args.append("tile_predecessor=x[1]")
    if successor:
        args.append("tile_successor=x[0]")
    compare = {
        "not_equal": np.not_equal, "equal": np.equal, "less": np.less, "greater": np.greater,
        "user_less": np.less,
    }[op]  # fmt: skip

    def ref(keys: np.ndarray, vals: np.ndarray, p: Params) -> dict[str, np.ndarray]:
        with np.errstate(invalid="ignore"):
            before = np.concatenate([np.array([p.x1], dtype=keys.dtype), keys[:-1]])
            after = np.concatenate([keys[1:], np.array([p.x0], dtype=keys.dtype)])
            heads = compare(before, keys).astype(np.int32)
            tails = compare(keys, after).astype(np.int32)
        if not predecessor:
            heads[0] = 1
        if not successor:
            tails[-1] = 1
        out = {"heads": heads, "tails": tails, "heads_and_tails": heads + 2 * tails}[flags]
        return {"oi": out}

    if flags == "heads_and_tails":
        call = f"hf, tf = coop.block.discontinuity({', '.join(args)})\n"
        call += "{LOOP}\n    hf[j] = hf[j] + 2 * tf[j]"
    else:
        call = f"hf = coop.block.discontinuity({', '.join(args)})"
    return Case(f"discontinuity-{id_}", call, (("hf", "oi", "blocked"),), ref)


def _shuffled(keys: np.ndarray, threads: int, source: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """Each thread's items (rows of the blocked tile) taken from thread ``source(t)``'s, or kept where
    the source is outside the block."""
    rows = keys.reshape(threads, -1)
    src = source(np.arange(threads))
    inside = (src >= 0) & (src < threads)
    return np.where(inside[:, None], rows[np.clip(src, 0, threads - 1)], rows).reshape(-1)


def _shuffle(cfg: Config, id_: str, mode: str) -> Case:
    threads = cfg.threads
    if mode == "offset":  # a runtime distance, negative at times
        call = "{LOOP}\n    keys[j] = coop.block.shuffle(keys[j], distance=begin - 3)"
        stores: tuple[tuple[str, str, str], ...] = (("keys", "ok", "blocked"),)
    elif mode == "rotate":
        call = f"{{LOOP}}\n    keys[j] = coop.block.shuffle(keys[j], mode='rotate', distance={threads} - 2)"
        stores = (("keys", "ok", "blocked"),)
    elif mode == "up-suffix":  # thread 0's first item (kept by 'up') replaced by the suffix
        call = "u, edge = coop.block.shuffle(keys, mode='up', block_suffix=True)\nif t == 0:\n    u[0] = edge"
        stores = (("u", "ok", "blocked"),)
    elif mode == "down":
        call = "u = coop.block.shuffle(keys, mode='down')"
        stores = (("u", "ok", "blocked"),)
    else:  # down-prefix: the last thread's last item (kept by 'down') replaced by the prefix
        call = (f"u, edge = coop.block.shuffle(keys, mode='down', block_prefix=True)\n"
                f"if t == {threads - 1}:\n    u[{cfg.ipt - 1}] = edge")  # fmt: skip
        stores = (("u", "ok", "blocked"),)

    def ref(keys: np.ndarray, vals: np.ndarray, p: Params) -> dict[str, np.ndarray]:
        if mode == "offset":
            return {"ok": _shuffled(keys, threads, lambda t: t + (p.begin - 3))}
        if mode == "rotate":
            return {"ok": _shuffled(keys, threads, lambda t: (t + threads - 2) % threads)}
        out = keys.copy()
        if mode == "up-suffix":
            out[1:] = keys[:-1]
            out[0] = keys[-1]
        else:
            out[:-1] = keys[1:]
            if mode == "down-prefix":
                out[-1] = keys[0]
        return {"ok": out}

    return Case(f"shuffle-{id_}", call, stores, ref)


def _histogram(cfg: Config, id_: str, *, shared: bool = False, algorithm: str = "atomic",
               twice: str | None = None, temp: bool = False) -> Case:  # fmt: skip
    """Counts of the tile's samples into ``oi`` (at the tile's place, or copied there from ``sh``);
    ``twice``: a second call with that algorithm and ``init=False`` adds them again."""
    bins = cfg.bins
    assert bins is not None
    where = "sh" if shared else "oi, offset=base"
    args = [f"keys, {where}, bins={bins}"]
    if algorithm != "atomic":
        args.append(f"algorithm={algorithm!r}")
    if temp:
        args.append("temp_storage=ts")
    lines = [f"coop.block.histogram({', '.join(args)})"]
    if twice is not None:
        again = f", algorithm={twice!r}" if twice != "atomic" else ""
        # the sort algorithm's updates are not atomic: the block synchronizes between two updates
        lines += ["{SYNC}", f"coop.block.histogram(keys, {where}, bins={bins}, init=False{again})"]
    if shared:
        lines += ["{SYNC}", "{LOOP}", f"    if t * {cfg.ipt} + j < {bins}:",
                  f"        oi[base + t * {cfg.ipt} + j] = sh[t * {cfg.ipt} + j]", "{SYNC}"]  # fmt: skip
    sorted_ = "sort" in (algorithm, twice)
    stores = (("keys", "ok", "blocked"),) if sorted_ else ()

    def ref(keys: np.ndarray, vals: np.ndarray, p: Params) -> dict[str, np.ndarray]:
        counts = np.bincount(keys.astype(np.int64), minlength=bins).astype(np.int32)
        out = {"oi": counts * (2 if twice else 1)}
        if sorted_:  # the sort algorithm sorts the samples in place
            out["ok"] = np.sort(keys, kind="stable")
        return out

    return Case(f"histogram-{id_}", "\n".join(lines), stores, ref)


def cases(cfg: Config) -> list[Case]:
    """The cases of one kernel (its family's)."""
    n, most = bits(cfg.key), max_radix_bits(cfg.threads)
    sort = [
        _radix(cfg, "keys"),
        _radix(cfg, "pairs", values=True),
        _radix(cfg, "desc", descending=True),
        _radix(cfg, "pairs-desc-striped", values=True, descending=True, output="striped"),
        _radix(cfg, "striped-6bits", output="striped", radix_bits=min(6, most)),
        _radix(cfg, "pairs-runtime-range", values=True, bit_range="runtime"),
        _radix(cfg, "const-range-3bits", bit_range=(1, n - 1), radix_bits=3),
        _radix(
            cfg,
            "pairs-desc-range-striped-most-bits",
            values=True,
            descending=True,
            bit_range="runtime",
            output="striped",
            radix_bits=most,
        ),  # fmt: skip
        _radix(cfg, "pairs-1bit-temp", values=True, radix_bits=1, temp=True),
    ]
    if cfg.block[1:] == (1, 1):  # CUB's block top-k takes a 1-D block
        sort += [
            _top_k(cfg, "largest-const-k", k=max(1, cfg.tile // 3)),
            _top_k(cfg, "smallest-runtime-k-partial", largest=False, partial=True),
            _top_k(cfg, "pairs-largest-runtime-k", pairs=True),
            _top_k(cfg, "pairs-smallest-const-k-partial", k=max(1, cfg.tile - 5), largest=False, pairs=True,
                   partial=True),
        ]  # fmt: skip
    neighbours = [
        _adjacent("left"),
        _adjacent("right-successor", right=True, neighbour=True),
        _adjacent("left-user-predecessor-partial", op="user_max", neighbour=True, partial=True),
        _adjacent("right-max-partial", op="max", right=True, partial=True),
        _discontinuity("heads"),
        _discontinuity("tails-successor", flags="tails", successor=True),
        _discontinuity("both-user-predecessor", flags="heads_and_tails", op="user_less", predecessor=True),
        _discontinuity(
            "both-greater-neighbours", flags="heads_and_tails", op="greater", predecessor=True, successor=True
        ),  # fmt: skip
        _discontinuity("heads-equal-predecessor", op="equal", predecessor=True),
        _shuffle(cfg, "offset-runtime", "offset"),
        _shuffle(cfg, "rotate", "rotate"),
        _shuffle(cfg, "up-suffix", "up-suffix"),
        _shuffle(cfg, "down", "down"),
        _shuffle(cfg, "down-prefix", "down-prefix"),
    ]
    merge = [
        _merge(cfg, "less"),
        _merge(cfg, "greater-pairs-stable", op="greater", values=True, stable=True),
        _merge(cfg, "user-pairs-stable-temp", op="user_less", values=True, stable=True, temp=True),
        _merge(cfg, "less-partial", partial=True),
        _merge(cfg, "greater-pairs-partial-oob-stable", op="greater", values=True, partial=True, oob=True,
               stable=True),
        _merge(cfg, "user-partial-oob", op="user_less", partial=True, oob=True),
    ]  # fmt: skip
    decode = [
        _decode(cfg, "lengths"),
        _decode(cfg, "lengths-trailing-zeros-relative", trailing=True, relative=True),
        _decode(cfg, "lengths-window-temp", window=True, temp=True),
        _decode(cfg, "offsets-window-relative", runs="offsets", window=True, relative=True),
    ]
    rank = [
        _rank(cfg, "basic-runtime-begin", num_bits=min(4, most)),
        _rank(
            cfg, "memoize-desc-most-bits-temp", algorithm="memoize", num_bits=most, descending=True, temp=True
        ),
        _rank(cfg, "basic-desc-low-3bits", num_bits=3, descending=True, begin=0),
    ]
    if cfg.threads % 32 == 0 and cfg.block[1:] == (1, 1):  # 'match' takes a 1-D block of whole warps
        rank += [
            _rank(cfg, "match-5bits", algorithm="match", num_bits=5),
            _rank(cfg, "match-desc-top-bit", algorithm="match", num_bits=1, descending=True, begin=n - 1),
        ]
    if cfg.group != "histogram":
        groups = {"sort": sort, "neighbours": neighbours, "merge": merge, "decode": decode, "rank": rank}
        return groups[cfg.group]
    return [
        _histogram(cfg, "atomic-global"),
        _histogram(cfg, "atomic-shared", shared=True),
        _histogram(cfg, "sort-shared", shared=True, algorithm="sort"),
        _histogram(cfg, "atomic-then-sort-composite-global", twice="sort"),
        _histogram(
            cfg,
            "sort-temp-then-atomic-composite-shared",
            shared=True,
            algorithm="sort",
            twice="atomic",
            temp=True,
        ),  # fmt: skip
    ]


# --- data ----------------------------------------------------------------------------------------------


def keys_data(rng: np.random.Generator, dtype: str, size: int, variant: str, high: int | None = None,
              ordered: bool = False) -> np.ndarray:  # fmt: skip
    """Keys of one launch: ``random`` over the whole range (floats: normal values with specials
    sprinkled in, only -0.0 and +0.0 when ``ordered``; with ``high``, ``0 .. high-1``), ``dups`` (a
    few distinct keys), ``equal`` (one key)."""
    dt = np.dtype(dtype)
    if high is not None:
        pool = rng.integers(0, high, size=size).astype(dt)
    elif is_float(dtype):
        pool = rng.normal(scale=100.0, size=size).astype(dt)
        specials = np.array([-0.0, 0.0] if ordered else [-0.0, 0.0, np.nan, np.inf, -np.inf], dtype=dt)
        pick = rng.random(size) < 0.1
        pool[pick] = rng.choice(specials, size=int(pick.sum()))
    else:
        info = np.iinfo(dt)
        pool = rng.integers(info.min, info.max, size=size, endpoint=True, dtype=dt)
    if variant == "random":
        return pool
    if variant == "dups":
        return rng.choice(pool[:5], size=size)
    return np.full(size, pool[0], dtype=dt)


def values_data(cfg: Config) -> np.ndarray:
    """Each item's position in its tile, as the value type (so a stable order shows in them)."""
    return np.tile(np.arange(cfg.tile), GRID * TILES).astype(cfg.value)


def params(rng: np.random.Generator, cfg: Config, keys: np.ndarray) -> Params:
    n = bits(cfg.key)
    begin = int(rng.integers(0, n - 1))
    return Params(
        begin, int(rng.integers(begin + 1, n + 1)), int(rng.integers(0, cfg.tile + 1)), keys[0], keys[1]
    )


def expected(case: Case, cfg: Config, keys: np.ndarray, vals: np.ndarray, p: Params,
             poisons: dict[str, np.ndarray]) -> dict[str, np.ndarray]:  # fmt: skip
    """The expected output arrays (poison where the case stores nothing)."""
    want = {k: v.copy() for k, v in poisons.items()}
    for tile in range(GRID * TILES):
        s = slice(tile * cfg.tile, (tile + 1) * cfg.tile)
        for name, value in case.ref(keys[s], vals[s], p).items():
            want[name][s.start : s.start + len(value)] = value  # the tile, or its first items
    return want


def mismatches(
    got: dict[str, np.ndarray], want: dict[str, np.ndarray], any_zero_sign: bool = False
) -> list[str]:
    """Bitwise differences per output (NaN equal to NaN, -0.0 different from +0.0 where a key is
    moved: a sort moves bits, it does not compute); with ``any_zero_sign`` zeros of either sign
    are equal (:attr:`Case.any_zero_sign`)."""
    out = []
    for name, w in want.items():
        g = got[name]
        if w.dtype.kind == "f":
            same = (g.view(f"u{w.itemsize}") == w.view(f"u{w.itemsize}")) | (np.isnan(g) & np.isnan(w))
            if any_zero_sign:
                same |= (g == 0) & (w == 0)
        else:
            same = g == w
        if not same.all():
            bad = np.flatnonzero(~same)
            out.append(f"{name}: {bad.size} differ, first at {bad[0]}: got {g[bad[0]]!r}, want {w[bad[0]]!r}")
    return out


def poison(rng: np.random.Generator, dtype: str, n: int) -> np.ndarray:
    if is_float(dtype):
        return (8.0 * rng.integers(125, 250, size=n)).astype(dtype)
    info = np.iinfo(np.dtype(dtype))
    return rng.integers(info.min, info.max, size=n, endpoint=True, dtype=np.dtype(dtype))


SANITIZER_CONFIGS = {0, 4, 8, 13, 17, 21, 22, 26, 31, 36}  # a diagonal subset run under compute-sanitizer


def gpu_params() -> list[object]:
    import pytest

    return [
        pytest.param(c, id=c.id, marks=[pytest.mark.sanitizer] if i in SANITIZER_CONFIGS else [])
        for i, c in enumerate(configs())
    ]
