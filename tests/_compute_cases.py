# SPDX-License-Identifier: Apache-2.0
"""The computing primitives' test cases, shared by both backends: each case is one coop call,
written the same way in a Numba and in a CuTe kernel, with an independent NumPy reference.

A test kernel holds many cases (one is chosen at run time by ``mode``) and runs each over
``GRID`` blocks x ``TILES`` tiles per block, in a loop, so that a running prefix is carried
across tiles and implicit scratch is reused. The kernel's names:

``items``   ThreadData(IPT, T) loaded with the tile (blocked: thread t holds t*IPT .. t*IPT+IPT-1)
``s``       the thread's first item, a scalar
``iv``      the initial value (one per launch), ``run``: ThreadData(1, T) seeded with it
``nvalid``  a runtime count of threads, ``rk``/``grk``: ranks (a permutation / with -1s),
``fl``      uint8 flags, ``dst``: ThreadData(IPT, T) for ``out=``
Outputs: ``o`` (items or a scalar) -> ``out`` or ``red``; ``r`` -> ``red``; ``a`` -> ``agg``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

GRID = 3
TILES = 2
DTYPES = [
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64",
]  # fmt: skip
BLOCKS: list[tuple[int, int, int]] = [
    (32, 1, 1), (64, 1, 1), (128, 1, 1), (256, 1, 1), (1024, 1, 1), (8, 16, 1), (4, 8, 4), (96, 1, 1),
    (5, 7, 2),
]  # fmt: skip
IPTS = [1, 2, 3, 4, 7, 16, 8]  # the grid below takes the first six; 8: the structured grid's
REDUCE_ALGS = ["raking", "raking_commutative_only", "warp_reductions"]
SCAN_ALGS = ["raking", "raking_memoize", "warp_scans"]
EXCHANGE_MODES = [
    "striped_to_blocked", "blocked_to_striped", "warp_striped_to_blocked", "blocked_to_warp_striped",
    "scatter_to_blocked", "scatter_to_striped", "scatter_to_striped_guarded", "scatter_to_striped_flagged",
]  # fmt: skip
SCATTER_TO_STRIPED = EXCHANGE_MODES[5:]  # the modes that take valid_items
SHARED_LIMIT = 48 * 1024
_BITS = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}  # significand bits
_SIZE = {d: int("".join(c for c in d if c.isdigit())) // 8 for d in DTYPES}


def is_float(dtype: str) -> bool:
    return dtype.startswith(("float", "bfloat"))


@dataclass(frozen=True)
class Config:
    """One test kernel: a family of cases for one element type, block shape and items per thread."""

    family: str  # "compute" (reductions and scans) or "exchange"
    dtype: str
    block: tuple[int, int, int]
    ipt: int

    @property
    def threads(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    @property
    def tile(self) -> int:
        return self.threads * self.ipt

    @property
    def id(self) -> str:
        return f"{self.family}-{self.dtype}-{'x'.join(map(str, self.block))}-{self.ipt}"


def configs() -> list[Config]:
    """Every dtype, block shape and items-per-thread count, in both families; each kernel a
    different combination (a rotation rather than a product, so the suite stays within minutes)."""
    out = [Config("compute", DTYPES[i % 12], BLOCKS[i % 9], IPTS[i % 6]) for i in range(18)]
    out += [Config("exchange", DTYPES[i], BLOCKS[(i + 4) % 9], IPTS[(i + 3) % 6]) for i in range(12)]
    return out


@dataclass(frozen=True)
class Case:
    """One coop call of a test kernel."""

    prim: str
    algorithm: str | None = None
    op: str | None = None
    scalar: bool = False
    init: bool = False
    agg: bool = False
    prefix: bool = False
    broadcast: bool = False
    num_valid: bool = False
    mode: str | None = None
    wts: bool = False
    out_param: bool = False
    count: bool = False  # exchange: valid_items=nvalid * 2 (positions read back)

    def statement(self, m: int) -> str:
        """The coop call of case number ``m``, identical in both DSLs; its results are named with
        the suffix ``m`` (``o3``, ``a3``, ``r3``)."""
        x = "s" if self.scalar else "items"
        args = [x]
        if self.prim == "exchange":
            args.append(repr(self.mode))
            if self.mode in ("scatter_to_blocked", "scatter_to_striped", "scatter_to_striped_flagged"):
                args.append("ranks=rk")
            if self.mode == "scatter_to_striped_guarded":
                args.append("ranks=grk")
            if self.mode == "scatter_to_striped_flagged":
                args.append("valid_flags=fl")
            if self.out_param:
                args.append("out=dst")
            if self.wts:
                args.append("warp_time_slicing=True")
            if self.count:
                args.append("valid_items=nvalid * 2")
            return f"coop.block.exchange({', '.join(args)})"
        if self.op is not None:
            args.append(self.op if self.op.startswith("user_") else repr(self.op))
        if self.init:
            args.append("initial_value=iv")
        if self.num_valid:
            args.append("num_valid=nvalid")
        if self.agg:
            args.append("block_aggregate=True")
        if self.prefix:
            args.append("prefix_op=run")
        if self.broadcast:
            args.append("broadcast=True")
        if self.algorithm is not None:
            args.append(f"algorithm={self.algorithm!r}")
        if self.prim in ("sum", "reduce"):
            target = f"r{m}"
        else:
            target = f"o{m}, a{m}" if self.agg else f"o{m}"
        return f"{target} = coop.block.{self.prim}({', '.join(args)})"

    def outputs(self, m: int) -> tuple[str | None, str | None, str | None]:
        """Names of what case ``m`` writes: (items -> out, scalar -> red, aggregate -> agg)."""
        if self.prim == "exchange":
            return ("dst" if self.out_param else "items"), None, None
        if self.prim in ("sum", "reduce"):
            return None, f"r{m}", None
        items = None if self.scalar else f"o{m}"
        scalar = f"o{m}" if self.scalar else None
        return items, scalar, (f"a{m}" if self.agg else None)

    @property
    def id(self) -> str:
        parts = [self.prim, self.mode or "", self.op or "", self.algorithm or ""]
        flags = ["scalar", "init", "agg", "prefix", "broadcast", "num_valid", "wts", "out_param", "count"]
        parts += [f for f in flags if getattr(self, f)]
        return "/".join(p for p in parts if p)


def _ops(dtype: str) -> list[str]:
    if is_float(dtype):
        return ["sum", "max", "min", "user_max", "user_min", "user_add"]
    return ["sum", "max", "min", "user_max", "user_min", "user_add", "mul", "bit_and", "bit_or", "bit_xor"]


def cases(cfg: Config) -> list[Case]:
    """The cases of one test kernel (choices rotate with the config, so that the grid covers every
    algorithm, operator and option)."""
    k = DTYPES.index(cfg.dtype) + IPTS.index(cfg.ipt)
    if cfg.family == "exchange":
        out = []
        tile_bytes = cfg.tile * _SIZE[cfg.dtype]
        for i, mode in enumerate(EXCHANGE_MODES):
            if "warp_striped" in mode and cfg.threads % 32:
                continue
            sliceable = mode not in ("scatter_to_striped_guarded", "scatter_to_striped_flagged")
            fits = tile_bytes <= SHARED_LIMIT
            if not fits and not sliceable:
                continue
            wts = not fits or (sliceable and (i + k) % 2 == 1)
            out.append(Case("exchange", mode=mode, wts=wts, out_param=(i + k) % 3 == 0))
        if tile_bytes <= SHARED_LIMIT:  # a count of the positions read back: coop's scatter, no slicing
            mode = SCATTER_TO_STRIPED[k % 3]
            out.append(Case("exchange", mode=mode, out_param=DTYPES.index(cfg.dtype) % 2 == 0, count=True))
        return out
    ops = _ops(cfg.dtype)
    r = [REDUCE_ALGS[(k + j) % 3] for j in range(4)]
    s = [SCAN_ALGS[(k + j) % 3] for j in range(6)]
    op = [ops[(k + j) % len(ops)] for j in range(8)]
    cases_ = [
        Case("sum", algorithm=r[0]),
        Case("sum", algorithm=r[1], broadcast=True),
        Case("sum", algorithm=r[2], scalar=True, num_valid=True),
        Case("reduce", algorithm=r[0], op="max"),
        Case("reduce", algorithm=r[1], op="user_min", broadcast=True),
        Case("reduce", algorithm=r[2], op=op[0]),
        Case("reduce", algorithm=r[3], op="user_max", scalar=True, num_valid=True),
        Case("reduce", op=op[1], scalar=True),
        Case("inclusive_sum", algorithm=s[0]),
        Case("inclusive_sum", algorithm=s[1], agg=True),
        Case("inclusive_sum", algorithm=s[2], prefix=True),
        Case("exclusive_sum", algorithm=s[0], agg=True),
        Case("exclusive_sum", algorithm=s[1], prefix=True),
        Case("exclusive_sum", algorithm=s[2], scalar=True),
        Case("inclusive_scan", algorithm=s[3], op="max", init=True),
        Case("inclusive_scan", algorithm=s[4], op="user_max", agg=True),
        Case("inclusive_scan", algorithm=s[5], op=op[2], prefix=True),
        Case("inclusive_scan", op=op[3], init=True, agg=True),
        Case("inclusive_scan", op="sum", scalar=True, init=True),
        Case("exclusive_scan", algorithm=s[0], op="min", init=True, agg=True),
        Case("exclusive_scan", algorithm=s[1], op="user_min"),
        Case("exclusive_scan", algorithm=s[2], op=op[4], prefix=True),
        Case("exclusive_scan", op=op[5], init=True),
        Case("exclusive_scan", op="max", scalar=True, agg=True),
    ]
    # raking_commutative_only needs a commutative operator: all of ours are
    return cases_


# --- data ------------------------------------------------------------------------------------------


@dataclass
class Data:
    """The inputs of one launch, as the host holds them (values of the element type, as float64
    for floats and Python-int-exact int64/uint64 arrays for integers)."""

    x: np.ndarray
    ranks: np.ndarray
    granks: np.ndarray
    flags: np.ndarray
    init: np.ndarray  # one value
    nvalid: int


def _np(dtype: str) -> np.dtype:
    return np.dtype("float32" if dtype == "bfloat16" else dtype)


def values(rng: np.random.Generator, dtype: str, n: int) -> np.ndarray:
    """Fresh random values of ``dtype`` (never all zeros): full-range integers; uniform reals in
    [-1, 1) for float32/64; random +-1 for float16/bfloat16, so that their sums stay exact as far
    as the format allows (see ``_sum_tolerance``)."""
    if dtype in ("float16", "bfloat16"):
        return rng.choice(np.array([-1.0, 1.0]), size=n).astype(_np(dtype))
    if is_float(dtype):
        return rng.uniform(-1.0, 1.0, size=n).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)


def data(rng: np.random.Generator, cfg: Config) -> Data:
    n = GRID * TILES * cfg.tile
    ranks = np.concatenate([rng.permutation(cfg.tile) for _ in range(GRID * TILES)]).astype(np.int32)
    drop = rng.random(n) < 0.25
    flags = (rng.random(n) < 0.75).astype(np.uint8)
    return Data(
        x=values(rng, cfg.dtype, n),
        ranks=ranks,
        granks=np.where(drop, -1, ranks).astype(np.int32),
        flags=flags,
        init=values(rng, cfg.dtype, 1),
        nvalid=int(rng.integers(1, cfg.threads + 1)),
    )


# --- reference -------------------------------------------------------------------------------------


def _wrap(dtype: str, v: int) -> int:
    bits = 8 * _SIZE[dtype]
    v &= (1 << bits) - 1
    if dtype.startswith("int") and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def _apply(op: str, dtype: str, a: object, b: object) -> object:
    name = op.removeprefix("user_")
    name = {"add": "sum"}.get(name, name)
    if is_float(dtype):
        fa, fb = float(a), float(b)  # type: ignore[arg-type]
        return {"sum": fa + fb, "max": max(fa, fb), "min": min(fa, fb), "mul": fa * fb}[name]
    ia, ib = int(a), int(b)  # type: ignore[call-overload]
    r = {
        "sum": ia + ib,
        "mul": ia * ib,
        "max": max(ia, ib),
        "min": min(ia, ib),
        "bit_and": ia & ib,
        "bit_or": ia | ib,
        "bit_xor": ia ^ ib,
    }[name]
    return _wrap(dtype, r)


def _is_sum(op: str) -> bool:
    return op in ("sum", "user_add")


@dataclass
class Expected:
    """What one launch must produce: expected values, where they are defined, and the tolerance
    (0 where exact), for each output array."""

    out: np.ndarray
    out_mask: np.ndarray
    out_tol: np.ndarray
    red: np.ndarray
    red_mask: np.ndarray
    red_tol: np.ndarray
    agg: np.ndarray
    agg_mask: np.ndarray
    agg_tol: np.ndarray


def _gamma(dtype: str, depth: int) -> float:
    """Higham's gamma_d for a tree of ``depth`` roundings (0 for integers)."""
    if not is_float(dtype):
        return 0.0
    u = 2.0 ** -_BITS[dtype]
    return depth * u / (1 - depth * u)


def _sum_tolerance(dtype: str, depth: int, abs_sums: np.ndarray, values: list[object]) -> np.ndarray:
    """Tolerance of sums whose inputs have the running absolute sums ``abs_sums``: 0 when exact
    (integer-valued inputs whose absolute sum is representable: every partial sum, in any order,
    is then exact), else Higham's bound gamma_d * sum|x| for a combining tree of depth d."""
    if not is_float(dtype):
        return np.zeros(len(abs_sums))
    integral = all(float(v).is_integer() for v in values)
    if integral and float(np.max(abs_sums, initial=0.0)) <= 2.0 ** _BITS[dtype]:
        return np.zeros(len(abs_sums))
    return _gamma(dtype, depth) * abs_sums


def _positions(arrangement: str, threads: int, ipt: int) -> np.ndarray:
    """pos[t, j]: tile position of thread t's item j."""
    t = np.arange(threads)[:, None]
    j = np.arange(ipt)[None, :]
    if arrangement == "blocked":
        return t * ipt + j
    if arrangement == "striped":
        return j * threads + t
    return (t // 32) * 32 * ipt + j * 32 + t % 32  # warp-striped


def reference(case: Case, cfg: Config, d: Data, poison: dict[str, np.ndarray]) -> Expected:
    """The independent NumPy reference of one case over the whole launch."""
    threads, ipt, tile = cfg.threads, cfg.ipt, cfg.tile
    out, red, agg = (
        poison[k].astype(np.float64 if is_float(cfg.dtype) else object) for k in ("out", "red", "agg")
    )
    masks = {k: np.ones(len(poison[k]), dtype=bool) for k in ("out", "red", "agg")}
    tols = {k: np.zeros(len(poison[k])) for k in ("out", "red", "agg")}
    depth_r = ipt + 2 * math.ceil(threads / 32) + 8
    depth_s = 2 * ipt + 2 * math.ceil(threads / 32) + 10
    init = d.init[0].item()
    for b in range(GRID):
        running = init
        running_abs = abs(float(init)) if is_float(cfg.dtype) else 0.0
        for tl in range(TILES):
            base = (b * TILES + tl) * tile
            rbase = (b * TILES + tl) * threads
            X = d.x[base : base + tile].reshape(threads, ipt)
            if case.prim == "exchange":
                _exchange(case, cfg, X, d, base, out, masks["out"])
                continue
            F = [v.item() for v in (X[:, 0] if case.scalar else X.reshape(-1))]
            op = case.op or "sum"
            if case.prim in ("sum", "reduce"):
                part = F[: d.nvalid] if case.num_valid else F
                acc = part[0]
                for v in part[1:]:
                    acc = _apply(op, cfg.dtype, acc, v)
                red[rbase : rbase + threads] = acc
                sl = slice(rbase, rbase + threads) if case.broadcast else slice(rbase, rbase + 1)
                defined = np.zeros(threads, dtype=bool)
                defined[sl.start - rbase : sl.stop - rbase] = True
                masks["red"][rbase : rbase + threads] = defined
                if _is_sum(op):
                    total_abs = np.array([float(np.sum(np.abs(np.asarray(part, dtype=float))))])
                    tols["red"][rbase : rbase + threads] = _sum_tolerance(
                        cfg.dtype, depth_r, total_abs, part
                    )[0]
                continue
            inclusive = case.prim.startswith("inclusive")
            seed = running if case.prefix else (init if case.init else None)
            if seed is None and case.prim == "exclusive_sum":
                seed = 0
            res, acc = [], seed
            for v in F:
                if inclusive:
                    acc = v if acc is None else _apply(op, cfg.dtype, acc, v)
                    res.append(acc)
                else:
                    res.append(acc)
                    acc = v if acc is None else _apply(op, cfg.dtype, acc, v)
            total = F[0]
            for v in F[1:]:
                total = _apply(op, cfg.dtype, total, v)
            defined = np.array([r is not None for r in res])
            vals = np.array([0 if r is None else r for r in res], dtype=object)
            absf = np.abs(np.asarray(F, dtype=float))
            prior = (
                running_abs
                if case.prefix
                else (abs(float(init)) if case.init and is_float(cfg.dtype) else 0.0)
            )
            cum = prior + np.cumsum(absf) - (0 if inclusive else absf)
            seeds = [running if case.prefix else init] if (case.prefix or case.init) else []
            tol = _sum_tolerance(cfg.dtype, depth_s + 2 * tl, cum, F + seeds) if _is_sum(op) else 0 * cum
            if case.scalar:
                red[rbase : rbase + threads] = vals
                masks["red"][rbase : rbase + threads] = defined
                tols["red"][rbase : rbase + threads] = tol
            else:
                out[base : base + tile] = vals
                masks["out"][base : base + tile] = defined
                tols["out"][base : base + tile] = tol
            if case.agg:
                agg[rbase : rbase + threads] = total
                if _is_sum(op):
                    tols["agg"][rbase : rbase + threads] = _sum_tolerance(
                        cfg.dtype, depth_r, np.array([float(np.sum(absf))]), F
                    )[0]
            if case.prefix:
                running = _apply(op, cfg.dtype, running, total)
                running_abs += float(np.sum(absf))
    return Expected(
        out, masks["out"], tols["out"], red, masks["red"], tols["red"], agg, masks["agg"], tols["agg"]
    )


def _exchange(
    case: Case, cfg: Config, X: np.ndarray, d: Data, base: int, out: np.ndarray, mask: np.ndarray
) -> None:
    threads, ipt, tile = cfg.threads, cfg.ipt, cfg.tile
    mode = str(case.mode)
    src_arr, dst_arr = {
        "striped_to_blocked": ("striped", "blocked"),
        "blocked_to_striped": ("blocked", "striped"),
        "warp_striped_to_blocked": ("warp_striped", "blocked"),
        "blocked_to_warp_striped": ("blocked", "warp_striped"),
    }.get(mode, (None, "striped" if "striped" in mode else "blocked"))
    staged = np.zeros(tile, dtype=object)
    covered = np.zeros(tile, dtype=bool)
    if src_arr is not None:
        pos = _positions(src_arr, threads, ipt)
        staged[pos] = X
        covered[pos] = True
    else:
        ranks = (d.granks if mode.endswith("guarded") else d.ranks)[base : base + tile].reshape(threads, ipt)
        keep = ranks >= 0
        if mode.endswith("flagged"):
            keep &= d.flags[base : base + tile].reshape(threads, ipt) != 0
        staged[ranks[keep]] = X[keep]
        covered[ranks[keep]] = True
    pos = _positions(dst_arr, threads, ipt)
    # thread t's item j (written to out at t*ipt + j) is the tile's value at pos[t, j]
    got, defined = staged[pos], covered[pos]
    if case.count:  # positions from valid_items on are not read back: the items stay as they were
        past = pos >= 2 * d.nvalid
        got = np.where(past, X, got)
        defined = defined | past
    out[base : base + tile] = got.reshape(-1)
    mask[base : base + tile] = defined.reshape(-1)


def mismatches(cfg: Config, got: dict[str, np.ndarray], want: Expected) -> list[str]:
    """Every output element that differs from the reference. The reference starts from the poison,
    so an element the case must not write is checked to still hold it; elements the case writes
    with undefined values (CUB's) are masked out."""
    problems = []
    for name in ("out", "red", "agg"):
        m = getattr(want, f"{name}_mask")
        tol = getattr(want, f"{name}_tol")[m]
        if is_float(cfg.dtype):
            g = got[name][m].astype(np.float64)
            w = getattr(want, name)[m].astype(np.float64)
            bad = ~(np.abs(g - w) <= tol)
        else:
            g = np.array([int(v) for v in got[name][m]], dtype=object)
            w = np.array([int(v) for v in getattr(want, name)[m]], dtype=object)
            bad = g != w
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            problems.append(
                f"{name}: {int(bad.sum())} of {int(m.sum())} wrong, first at {int(np.flatnonzero(m)[i])}: "
                f"got {g[i]}, want {w[i]} (tolerance {tol[i]:.3g})"
            )
    return problems


def poison(rng: np.random.Generator, dtype: str, n: int) -> np.ndarray:
    """Values that no case produces: full-range integers, or floats from 1000 to 2000 in steps of 8
    (exact in every float format, far from any result of the test data)."""
    if is_float(dtype):
        return (8.0 * rng.integers(125, 250, size=n)).astype(_np(dtype))
    return values(rng, dtype, n)


def sizes(cfg: Config) -> dict[str, int]:
    """Lengths of the kernel's arrays."""
    n = GRID * TILES * cfg.tile
    return {"out": n, "red": GRID * TILES * cfg.threads, "agg": GRID * TILES * cfg.threads}


SANITIZER_CONFIGS = {0, 7, 13, 18, 22, 27}  # a diagonal subset run under compute-sanitizer


def gpu_params() -> list[object]:
    """The configs as pytest parameters of a GPU grid test (the subset above marked ``sanitizer``)."""
    import pytest

    return [
        pytest.param(c, id=c.id, marks=[pytest.mark.sanitizer] if i in SANITIZER_CONFIGS else [])
        for i, c in enumerate(configs())
    ]
