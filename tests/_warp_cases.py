# SPDX-License-Identifier: Apache-2.0
"""The warp primitives' test cases, shared by both backends: each case is one ``coop.warp`` call,
written the same way in a Numba and in a CuTe kernel, with an independent NumPy reference computed
per logical warp.

A test kernel holds every case of its family (one is chosen at run time by ``mode``) and runs over
``GRID`` blocks; the block is split into logical warps of ``W`` threads, each with its own tile of
``W * IPT`` items (``base``) and ``W`` per-lane results (``rbase``). The kernel's names:

``items``   ThreadData(IPT, T) loaded by hand, blocked (lane l holds l*IPT .. l*IPT+IPT-1)
``sitems``  the same tile loaded by hand, striped (lane l holds l, l+W, ...)
``s``       the lane's first blocked item, a scalar
``iv``      one value per launch; ``nv``: a runtime lane count (1..W); ``ni``: a runtime item count
``rk``      int32 ranks (a permutation of each logical warp's tile), ``tmp``/``dst``: ThreadData
Outputs: items -> ``out`` (blocked or striped), a lane's scalar -> ``red``, an aggregate -> ``agg``,
the int32 values of a key/value sort (``rk``) -> ``vout``.

The ``sort`` family (``coop.warp.merge_sort``) draws keys from a few values, so that ties are
common; its values are each logical warp's tile positions in a random order, so that the order of
equal keys (stability) is checked against ``np.argsort(kind="stable")``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._compute_cases import _apply, is_float, poison, values

GRID = 3
DTYPES = [
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64",
]  # fmt: skip
WIDTHS = [1, 2, 4, 8, 16, 32]
TILE_ALGS = ["direct", "striped", "vectorize", "transpose"]

__all__ = ["GRID", "poison"]


@dataclass(frozen=True)
class Config:
    """One test kernel: a family of cases for one element type, block shape, logical warp width and
    items per thread."""

    family: str  # "compute" (reductions, scans, broadcast, segmented reductions), "tile" (load, store,
    # exchange), "sort" (merge sort) or "batched" (batched reductions: ipt is the number of batches)
    dtype: str
    block: tuple[int, int, int]
    width: int
    ipt: int

    @property
    def threads(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    @property
    def warps(self) -> int:
        """Logical warps in the launch."""
        return GRID * self.threads // self.width

    @property
    def id(self) -> str:
        return f"warp-{self.family}-{self.dtype}-{'x'.join(map(str, self.block))}-w{self.width}-{self.ipt}"


_BLOCKS = [(32, 1, 1), (64, 1, 1), (96, 1, 1), (8, 16, 1), (4, 8, 4), (128, 1, 1), (1024, 1, 1)]
_ODD = [(48, 1, 1), (5, 7, 2), (6, 1, 1)]  # not a whole number of hardware warps: narrow widths only


def configs() -> list[Config]:
    """Every width with several dtypes, block shapes and items per thread (a rotation rather than a
    product). Tile configs avoid bfloat16 (numba-cuda has no bfloat16 arrays)."""
    out = []
    for i in range(24):
        width = WIDTHS[i % 6]
        blocks = _BLOCKS + [b for b in _ODD if (b[0] * b[1] * b[2]) % width == 0]
        out.append(
            Config("compute", DTYPES[i % 12], blocks[(i * 5) % len(blocks)], width, [1, 2, 3, 4][i % 4])
        )
    tile_dtypes = [d for d in DTYPES if d != "bfloat16"]
    for i in range(18):
        width = WIDTHS[i % 6]
        blocks = _BLOCKS + [b for b in _ODD if (b[0] * b[1] * b[2]) % width == 0]
        block = blocks[(i * 3) % len(blocks)]
        ipt = width if i % 5 == 0 else [1, 2, 3, 4, 7, 8][i % 6]  # ipt == width: the shuffle exchange
        while block[0] * block[1] * block[2] * ipt * 8 > 48 * 1024:
            ipt //= 2
        out.append(Config("tile", tile_dtypes[i % 11], block, width, max(ipt, 1)))
    for i in range(12):  # merge sort: its scratch is the block's tile of keys or values
        width = WIDTHS[i % 6]
        blocks = _BLOCKS + [b for b in _ODD if (b[0] * b[1] * b[2]) % (width if width == 1 else 32) == 0]
        block = blocks[(i * 4 + 1) % len(blocks)]
        ipt = [1, 2, 3, 4, 5, 8][(i + 2) % 6]
        while block[0] * block[1] * block[2] * ipt * 8 > 48 * 1024:
            ipt //= 2
        out.append(Config("sort", DTYPES[(i * 5) % 12], block, width, max(ipt, 1)))
    for i in range(6):  # batched reductions: fewer and more batches than lanes
        width = WIDTHS[i]
        # (at most 256 threads: the test kernel holds several ThreadData of up to 40 items per thread)
        blocks = [b for b in _BLOCKS if b[0] * b[1] * b[2] <= 256]
        blocks += [b for b in _ODD if (b[0] * b[1] * b[2]) % width == 0]
        batches = [3, 1, 7, 9, 33, 40][i]
        out.append(
            Config("batched", DTYPES[(i * 7 + 2) % 12], blocks[(i * 2 + 3) % len(blocks)], width, batches)
        )
    # Blocks that end in a partial hardware warp, one per narrow width, for every family (the
    # shared-memory calls too: transposing loads and stores, exchanges, merge sorts); all of these run
    # under the sanitizers too
    for width, block in _PARTIAL:
        out.append(Config("compute", DTYPES[(width * 5) % 12], block, width, 1 + width % 4))
        out.append(Config("tile", tile_dtypes[(width * 3) % 11], block, width, width if width < 8 else 3))
        out.append(
            Config("batched", DTYPES[(width * 7) % 12], block, width, [3, 5, 9, 17][WIDTHS.index(width) - 1])
        )
        ipt = [3, 4, 5, 2][WIDTHS.index(width) - 1]
        out.append(Config("sort", DTYPES[(width * 11 + 1) % 12], block, width, ipt))
    out.append(Config("sort", "float64", (5, 7, 2), 1, 4))
    return out


#: Blocks whose last hardware warp is partial, with a width whose logical warps fill it exactly or in
#: part: 34 threads at width 2, 36 at 4, (8, 5) at 8, 48 at 16 (issue 17's independent checks)
_PARTIAL = [(2, (34, 1, 1)), (4, (36, 1, 1)), (8, (8, 5, 1)), (16, (48, 1, 1))]


@dataclass(frozen=True)
class Case:
    """One coop.warp call of a test kernel: its statement (``{m}`` numbers its results) and what it
    writes: ``out`` (items: "blocked" / "striped", or "store" when the call writes ``out`` itself),
    ``red`` / ``agg`` ("lane0", "all", "valid": lanes < nv, "after0": lanes > 0)."""

    name: str
    statement: str
    out: str | None = None
    out_items: str = ""
    red: str | None = None
    red_value: str = ""
    agg: str | None = None
    vout: bool = False  # the int32 values ``rk`` are written to ``vout``
    out_count: int | None = None  # items of ``out_items`` written (default: items per thread)


def _ops(dtype: str) -> list[str]:
    base = ["sum", "max", "min", "user_max", "user_min", "user_add"]
    return base if is_float(dtype) else base + ["bit_and", "bit_or", "bit_xor"]


def _last_key(dtype: str, descending: bool) -> str:
    """A key ordered after every test key (a partial sort's oob_default), as kernel text."""
    if is_float(dtype):
        return "-1000.0" if descending else "1000.0"
    info = np.iinfo(np.dtype(dtype))
    return str(info.min if descending else info.max)


def cases(cfg: Config) -> list[Case]:
    w = f"threads_in_warp={cfg.width}"
    agg = "warp_aggregate=True"
    if cfg.family == "batched":
        ops = _ops(cfg.dtype)
        op1 = ops[(DTYPES.index(cfg.dtype) + cfg.width) % len(ops)]
        q1 = op1 if op1.startswith("user_") else repr(op1)
        spread = -(-cfg.ipt // cfg.width)
        return [
            Case("batched_sum-striped", f"o{{m}} = coop.warp.batched_sum(items, {w})", out="batched-striped",
                 out_items="o{m}", out_count=spread),
            Case("batched_sum-blocked", f"o{{m}} = coop.warp.batched_sum(items, arrangement='blocked', {w})",
                 out="batched-blocked", out_items="o{m}", out_count=spread),
            Case("batched_reduce-max-blocked",
                 f"o{{m}} = coop.warp.batched_reduce(items, 'max', arrangement='blocked', {w})",
                 out="batched-blocked", out_items="o{m}", out_count=spread),
            # sync_physical_warp names all 32 lanes: refused when the last hardware warp is partial
            Case(f"batched_reduce-{op1}-striped{'' if cfg.threads % 32 else '-syncpw'}",
                 f"o{{m}} = coop.warp.batched_reduce(items, {q1}, sync_physical_warp={not cfg.threads % 32}, "
                 f"{w})",
                 out="batched-striped", out_items="o{m}", out_count=spread),
        ]  # fmt: skip
    if cfg.family == "sort":
        return [
            Case("sort-less", f"coop.warp.merge_sort(tmp, 'less', {w})", out="sorted", out_items="tmp"),
            Case("sort-greater-pairs", f"coop.warp.merge_sort(tmp, 'greater', values=rk, {w})",
                 out="sorted-desc", out_items="tmp", vout=True),
            Case("sort-user_less-pairs", f"coop.warp.merge_sort(tmp, user_less, values=rk, {w})",
                 out="sorted", out_items="tmp", vout=True),
            Case("sort-user_greater", f"coop.warp.merge_sort(tmp, user_greater, {w})",
                 out="sorted-desc", out_items="tmp"),
            Case("sort-less-partial", f"coop.warp.merge_sort(tmp, 'less', valid_items=ni, {w})",
                 out="sorted-partial", out_items="tmp"),
            Case("sort-greater-partial-oob-pairs",
                 f"coop.warp.merge_sort(tmp, 'greater', values=rk, valid_items=ni, "
                 f"oob_default={_last_key(cfg.dtype, True)}, {w})",
                 out="sorted-desc-partial", out_items="tmp", vout=True),
            Case("sort-user_less-partial-oob",
                 f"coop.warp.merge_sort(tmp, user_less, valid_items=ni, "
                 f"oob_default={_last_key(cfg.dtype, False)}, {w})",
                 out="sorted-partial", out_items="tmp"),
        ]  # fmt: skip
    if cfg.family == "compute":
        ops = _ops(cfg.dtype)
        k = DTYPES.index(cfg.dtype) + cfg.width
        op1, op2 = ops[k % len(ops)], ops[(k + 3) % len(ops)]
        q = lambda op: op if op.startswith("user_") else repr(op)  # noqa: E731
        return [
            Case("sum", f"r{{m}} = coop.warp.sum(items, {w})", red="lane0", red_value="r{m}"),
            Case("sum-valid-bcast", f"r{{m}} = coop.warp.sum(s, valid_items=nv, broadcast=True, {w})",
                 red="all", red_value="r{m}"),
            Case("reduce-max", f"r{{m}} = coop.warp.reduce(items, 'max', {w})", red="lane0",
                 red_value="r{m}"),
            Case("reduce-user_min-valid", f"r{{m}} = coop.warp.reduce(s, user_min, valid_items=nv, {w})",
                 red="lane0", red_value="r{m}"),
            Case(f"reduce-{op1}-bcast", f"r{{m}} = coop.warp.reduce(items, {q(op1)}, broadcast=True, {w})",
                 red="all", red_value="r{m}"),
            Case("inclusive_sum", f"r{{m}} = coop.warp.inclusive_sum(s, {w})", red="all", red_value="r{m}"),
            Case("exclusive_sum-agg", f"r{{m}}, a{{m}} = coop.warp.exclusive_sum(s, {agg}, {w})",
                 red="all", red_value="r{m}", agg="all"),
            Case("inclusive_scan-max-init",
                 f"r{{m}} = coop.warp.inclusive_scan(s, 'max', initial_value=iv, {w})",
                 red="all", red_value="r{m}"),
            Case("inclusive_scan-user_max-valid-agg",
                 f"r{{m}}, a{{m}} = coop.warp.inclusive_scan(s, user_max, valid_items=nv, {agg}, {w})",
                 red="valid", red_value="r{m}", agg="all"),
            Case(f"inclusive_scan-{op2}", f"r{{m}} = coop.warp.inclusive_scan(s, {q(op2)}, {w})",
                 red="all", red_value="r{m}"),
            Case("exclusive_scan-min-init-valid",
                 f"r{{m}} = coop.warp.exclusive_scan(s, 'min', initial_value=iv, valid_items=nv, {w})",
                 red="valid", red_value="r{m}"),
            Case("exclusive_scan-user_add", f"r{{m}} = coop.warp.exclusive_scan(s, user_add, {w})",
                 red="after0", red_value="r{m}"),
            Case(f"exclusive_scan-{op1}-init-agg",
                 f"r{{m}}, a{{m}} = coop.warp.exclusive_scan(s, {q(op1)}, initial_value=iv, {agg}, {w})",
                 red="all", red_value="r{m}", agg="all"),
            Case("broadcast-last", f"r{{m}} = coop.warp.broadcast(s, {cfg.width - 1}, {w})", red="all",
                 red_value="r{m}"),
            Case("broadcast-runtime", f"r{{m}} = coop.warp.broadcast(s, nv - 1, {w})", red="all",
                 red_value="r{m}"),
            Case("head_segmented_sum", f"r{{m}} = coop.warp.head_segmented_sum(s, rk[0] % 3 == 0, {w})",
                 red="heads", red_value="r{m}"),
            Case("tail_segmented_sum", f"r{{m}} = coop.warp.tail_segmented_sum(s, rk[0] % 2, {w})",
                 red="heads-tail", red_value="r{m}"),
            Case(f"head_segmented_reduce-{op2}",
                 f"r{{m}} = coop.warp.head_segmented_reduce(s, rk[0] % 2, {q(op2)}, {w})",
                 red="heads", red_value="r{m}"),
            Case("tail_segmented_reduce-user_max",
                 f"r{{m}} = coop.warp.tail_segmented_reduce(s, rk[0] % 3 == 0, user_max, {w})",
                 red="heads-tail", red_value="r{m}"),
        ]  # fmt: skip
    out = []
    algs = TILE_ALGS
    for i, alg in enumerate(algs):
        arr = "striped" if alg == "striped" else "blocked"
        src = "sitems" if alg == "striped" else "items"
        alg2 = algs[(i + 1 + cfg.width) % len(algs)]
        arr2 = "striped" if alg2 == "striped" else "blocked"
        out += [
            Case(f"load-{alg}", f"coop.warp.load(x, tmp, offset=base, algorithm={alg!r}, {w})",
                 out=arr, out_items="tmp"),
            Case(f"load-{alg2}-partial-oob",
                 f"coop.warp.load(x, tmp, offset=base, algorithm={alg2!r}, valid_items=ni, "
                 f"oob_default=iv, {w})",
                 out=f"{arr2}-partial-oob", out_items="tmp"),
            Case(f"load-{alg}-partial-keep",
                 f"coop.warp.load(x, keep, offset=base, algorithm={alg!r}, valid_items=ni, {w})",
                 out=f"{arr}-partial-oob", out_items="keep"),
            Case(f"store-{alg}", f"coop.warp.store(out, {src}, offset=base, algorithm={alg!r}, {w})",
                 out="store"),
            Case(f"store-{alg2}-partial",
                 f"coop.warp.store(out, {'sitems' if arr2 == 'striped' else 'items'}, offset=base, "
                 f"algorithm={alg2!r}, valid_items=ni, {w})",
                 out="store-partial"),
        ]  # fmt: skip
    out += [
        # CUB's transposing WarpStore rearranges its array in place; coop's store leaves the items:
        # the direct store after it writes the same tile
        Case("store-transpose-then-direct",
             f"coop.warp.store(out, items, offset=base, algorithm='transpose', {w}); "
             f"coop.warp.store(out, items, offset=base, algorithm='direct', {w})",
             out="store"),
        Case("exchange-blocked_to_striped", f"coop.warp.exchange(items, 'blocked_to_striped', {w})",
             out="striped", out_items="items"),
        Case("exchange-striped_to_blocked-out",
             f"coop.warp.exchange(sitems, 'striped_to_blocked', out=dst, {w})",
             out="blocked", out_items="dst"),
        Case("exchange-scatter_to_striped", f"coop.warp.exchange(items, 'scatter_to_striped', ranks=rk, {w})",
             out="scatter", out_items="items"),
        Case("exchange-scatter_to_striped-out",
             f"coop.warp.exchange(items, 'scatter_to_striped', ranks=rk, out=dst, {w})",
             out="scatter", out_items="dst"),
    ]  # fmt: skip
    if cfg.ipt == cfg.width:
        out += [
            Case("exchange-shuffle-b2s",
                 f"coop.warp.exchange(items, 'blocked_to_striped', algorithm='shuffle', {w})",
                 out="striped", out_items="items"),
            Case("exchange-shuffle-s2b",
                 f"coop.warp.exchange(sitems, 'striped_to_blocked', out=dst, algorithm='shuffle', {w})",
                 out="blocked", out_items="dst"),
        ]  # fmt: skip
    return out


# --- data and references -------------------------------------------------------------------------


@dataclass
class Data:
    x: np.ndarray  # GRID * threads * ipt values
    ranks: np.ndarray  # int32, a permutation of each logical warp's tile
    init: np.ndarray  # one value
    nv: int  # lanes, 1..W
    ni: int  # items of each logical warp's tile, 0..W*IPT


def _values(rng: np.random.Generator, dtype: str, n: int, *, few: bool = False) -> np.ndarray:
    """Integer-valued floats (small enough that every sum is exact in any order) or full-range ints;
    with ``few``, a handful of distinct values (sort keys with ties)."""
    if few:
        low = 1 if dtype.startswith("u") else -4  # 0 stays below every unsigned key
        return rng.integers(low, low + 9, size=n).astype(np.float32 if dtype == "bfloat16" else dtype)
    if dtype in ("float16", "bfloat16"):
        return rng.choice(np.array([-1.0, 1.0]), size=n).astype(np.float32 if dtype == "bfloat16" else dtype)
    if is_float(dtype):
        return rng.integers(-100, 101, size=n).astype(dtype)
    return values(rng, dtype, n)


def data(rng: np.random.Generator, cfg: Config) -> Data:
    tile = cfg.width * cfg.ipt
    ranks = np.concatenate([rng.permutation(tile) for _ in range(cfg.warps)]).astype(np.int32)
    return Data(
        x=_values(rng, cfg.dtype, cfg.warps * tile, few=cfg.family == "sort"),
        ranks=ranks,
        init=_values(rng, cfg.dtype, 1),
        nv=int(rng.integers(1, cfg.width + 1)),
        ni=int(rng.integers(0, tile + 1)),
    )


def sizes(cfg: Config) -> dict[str, int]:
    n = GRID * cfg.threads
    return {"out": n * cfg.ipt, "red": n, "agg": n, "vout": n * cfg.ipt}


def out_dtype(cfg: Config, name: str) -> str:
    """The element type of output ``name`` (``vout`` holds int32 values, the others the config's)."""
    return "int32" if name == "vout" else cfg.dtype


def poisoned_outputs(rng: np.random.Generator, cfg: Config) -> dict[str, np.ndarray]:
    """Fresh poison for each output array, of its element type and length."""
    return {k: poison(rng, out_dtype(cfg, k), n) for k, n in sizes(cfg).items()}


def _fold(op: str, dtype: str, vals: list[object]) -> object:
    acc = vals[0]
    for v in vals[1:]:
        acc = _apply(op, dtype, acc, v)
    return acc


def _op_of(name: str) -> str:
    for op in ("user_max", "user_min", "user_add", "bit_and", "bit_or", "bit_xor", "max", "min", "sum"):
        if f"-{op}" in name:
            return op
    return "sum"


def reference(
    case: Case, cfg: Config, d: Data, poisons: dict[str, np.ndarray]
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Expected values and where they are defined, per output (starting from the poison, so that
    what a case must not write is checked to keep it)."""
    W, n = cfg.width, cfg.ipt
    tile = W * n
    want = {k: poisons[k].astype(object) for k in poisons}
    mask = {k: np.ones(len(poisons[k]), dtype=bool) for k in poisons}
    dt = cfg.dtype
    init = d.init[0].item()
    for g in range(cfg.warps):
        X = [v.item() for v in d.x[g * tile : (g + 1) * tile]]
        base, rbase = g * tile, g * W
        lanes = list(range(W))
        s = [X[lane * n] for lane in lanes]
        if cfg.family == "batched":
            B, spread = n, -(-n // W)
            op = _op_of(case.name)
            for lane in lanes:
                for j in range(spread):
                    b = lane + j * W if case.out == "batched-striped" else lane * spread + j
                    if b < B:
                        want["out"][base + lane * n + j] = _fold(op, dt, [X[k * n + b] for k in lanes])
                    else:  # no batch: undefined
                        mask["out"][base + lane * n + j] = False
            continue
        if cfg.family == "sort":
            kind = str(case.out)
            valid = d.ni if kind.endswith("partial") else tile
            keys = d.x[base : base + valid]
            if "desc" in kind:  # descending and stable: ties keep their order
                order = np.argsort(-np.unique(keys, return_inverse=True)[1], kind="stable")
            else:
                order = np.argsort(keys, kind="stable")
            want["out"][base : base + valid] = [X[p] for p in order]
            mask["out"][base + valid : base + tile] = False  # past valid_items: unspecified
            if case.vout:
                want["vout"][base : base + valid] = [int(d.ranks[base + p]) for p in order]
                mask["vout"][base + valid : base + tile] = False
            continue
        if cfg.family == "compute":
            name, op = case.name, _op_of(case.name)
            res: list[object | None]
            agg = None
            if name == "sum":
                res = [_fold("sum", dt, X)] + [None] * (W - 1)
            elif name == "sum-valid-bcast":
                res = [_fold("sum", dt, s[: d.nv])] * W
            elif name == "reduce-max":
                res = [_fold("max", dt, X)] + [None] * (W - 1)
            elif name == "reduce-user_min-valid":
                res = [_fold("min", dt, s[: d.nv])] + [None] * (W - 1)
            elif name.startswith("reduce-"):
                res = [_fold(op, dt, X)] * W
            elif name.startswith("broadcast"):
                res = [s[W - 1 if name.endswith("last") else d.nv - 1]] * W
            elif "segmented" in name:
                r0 = [int(d.ranks[base + lane * n]) for lane in lanes]
                mod3 = name in ("head_segmented_sum", "tail_segmented_reduce-user_max")  # as in cases()
                flags = [v % 3 == 0 if mod3 else v % 2 != 0 for v in r0]
                if name.startswith("head"):
                    starts = [lane == 0 or flags[lane] for lane in lanes]
                else:
                    starts = [lane == 0 or flags[lane - 1] for lane in lanes]
                res = [None] * W
                for lane in lanes:
                    if starts[lane]:
                        end = next((e for e in range(lane + 1, W) if starts[e]), W)
                        res[lane] = _fold(op, dt, s[lane:end])
            else:
                inclusive = name.startswith("inclusive")
                seeded = "init" in name
                valid = d.nv if "valid" in name else W
                acc: object | None = init if seeded else (0 if name.startswith("exclusive_sum") else None)
                res = []
                for lane in lanes:
                    if lane >= valid:
                        res.append(None)
                        continue
                    if inclusive:
                        acc = s[lane] if acc is None else _apply(op, dt, acc, s[lane])
                        res.append(acc)
                    else:
                        res.append(acc)
                        acc = s[lane] if acc is None else _apply(op, dt, acc, s[lane])
                agg = _fold(op, dt, s[:valid])
            for lane in lanes:
                r = res[lane]
                mask["red"][rbase + lane] = r is not None
                want["red"][rbase + lane] = 0 if r is None else r
                if case.agg:
                    want["agg"][rbase + lane] = agg
            continue
        kind = str(case.out)
        out = want["out"]
        if kind == "store":
            out[base : base + tile] = X
        elif kind == "store-partial":
            out[base : base + d.ni] = X[: d.ni]
        elif kind == "scatter":
            staged = [0] * tile
            for p in range(tile):
                staged[int(d.ranks[base + p])] = X[p]
            for lane in lanes:  # written by hand in the striped order
                for j in range(n):
                    out[base + lane * n + j] = staged[lane + j * W]
        else:
            arrangement, _, partial = kind.partition("-")
            vals = [X[p] if not partial or p < d.ni else init for p in range(tile)]
            for lane in lanes:  # lane's item j, written by hand at lane*n + j
                for j in range(n):
                    p = lane * n + j if arrangement == "blocked" else lane + j * W
                    out[base + lane * n + j] = vals[p]
    return {k: (want[k], mask[k]) for k in want}


def mismatches(
    cfg: Config, got: dict[str, np.ndarray], want: dict[str, tuple[np.ndarray, np.ndarray]]
) -> list[str]:
    """Every defined output element that differs from the reference (exact: the data make every
    result exact)."""
    problems = []
    for name, (w, m) in want.items():
        g = got[name][m]
        if is_float(cfg.dtype):
            gv, wv = g.astype(np.float64), w[m].astype(np.float64)
        else:
            gv = np.array([int(v) for v in g], dtype=object)
            wv = np.array([int(v) for v in w[m]], dtype=object)
        bad = gv != wv
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            at = int(np.flatnonzero(m)[i])
            problems.append(
                f"{name}: {int(bad.sum())} of {int(m.sum())} wrong, first at {at}: got {gv[i]}, want {wv[i]}"
            )
    return problems


SANITIZER_CONFIGS = {0, 5, 11, 16, 24, 29, 35, 43, 46, 57}  # a diagonal subset run under compute-sanitizer


def gpu_params() -> list[object]:
    import pytest

    return [
        pytest.param(
            c, id=c.id, marks=[pytest.mark.sanitizer] if i in SANITIZER_CONFIGS or c.threads % 32 else []
        )
        for i, c in enumerate(configs())
    ]
