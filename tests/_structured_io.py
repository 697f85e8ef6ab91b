# SPDX-License-Identifier: Apache-2.0
"""Block loads and stores of tuples of arrays (issue 18), for both DSLs: each field from (or to) its
own array with one call, one ``offset`` / ``valid_items`` for all fields, ``oob_default`` a tuple
of one value per field or one number for all of them, caller-owned scratch shared by the fields.

A kernel holds every case of its config (chosen at run time by ``mode``) and runs it over ``GRID``
blocks x ``TILES`` tiles per block; a load's items are written out by hand in the algorithm's
arrangement, a store's items are read in by hand so. The reference is NumPy's: a tile position
below the valid count holds the input, others the default, the kept value or the poison.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ._compute_kernels import _CUTE_TYPES, load

__all__ = ["Case", "Config", "configs", "cases", "numba_source", "cute_source", "load"]

GRID, TILES = 3, 2
FIELDS = [("float32", "int32"), ("float64", "int64", "float32"), ("int8", "float16")]
BLOCKS = [(128, 1, 1), (16, 6, 1), (5, 7, 2)]  # 1-D, 2-D (three warps), 3-D (70: a partial warp)
IPTS = [1, 3, 4, 8]
ALGORITHMS = ["direct", "striped", "vectorize", "transpose", "warp_transpose", "warp_transpose_timesliced"]
_WHOLE_WARPS = {"warp_transpose", "warp_transpose_timesliced"}
ONE = 3  # the one out-of-bounds default of every field (representable in each type)


@dataclass(frozen=True)
class Config:
    fields: tuple[str, ...]
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
        return f"{'+'.join(self.fields)}-{'x'.join(map(str, self.block))}-{self.ipt}"


def configs() -> list[Config]:
    """Every field list x block shape, items per thread rotated over 1, 3, 4, 8 (nine kernels)."""
    return [Config(f, b, IPTS[(i + 2 * j) % 4]) for i, f in enumerate(FIELDS) for j, b in enumerate(BLOCKS)]


@dataclass(frozen=True)
class Case:
    """One coop call (or two, with a barrier between) and what the reference expects."""

    name: str
    statement: str  # with ``X`` / ``O`` the tuples of arrays
    load: bool  # the items are loaded by the call (else read in by hand and stored by it)
    striped: bool  # the algorithm's arrangement
    past: str  # a partial tile's positions past the count: "oob" (the defaults), "one", "keep", "poison", ""


def cases(cfg: Config) -> list[Case]:
    algs = [a for a in ALGORITHMS if cfg.threads % 32 == 0 or a not in _WHOLE_WARPS]
    out = []
    for alg in algs:
        s = alg == "striped"
        call = f"coop.block.load(X, items, offset=base, algorithm={alg!r}"
        store = f"coop.block.store(O, items, offset=base, algorithm={alg!r}"
        out += [
            Case(f"load-{alg}", call + ")", True, s, ""),
            Case(f"load-{alg}-oob", call + ", valid_items=nvalid, oob_default=iv)", True, s, "oob"),
            Case(f"load-{alg}-one", call + f", valid_items=nvalid, oob_default={ONE})", True, s, "one"),
            Case(f"load-{alg}-keep", call + ", valid_items=nvalid)", True, s, "keep"),
            Case(f"store-{alg}", store + ")", False, s, ""),
            Case(f"store-{alg}-partial", store + ", valid_items=nvalid)", False, s, "poison"),
        ]
    # caller-owned scratch: the fields' calls reuse it (coop's barrier between them), the kernel's
    # barriers between the load and the store and before the next tile's load; and the same with
    # auto_sync=True (coop's barriers)
    out += [
        Case("ts-transpose", "coop.block.load(X, items, offset=base, algorithm='transpose', temp_storage=ts)"
             "; BARRIER; coop.block.store(O, items, offset=base, algorithm='transpose', temp_storage=ts)"
             "; BARRIER",
             False, False, ""),
        Case("ts-auto-transpose",
             "coop.block.load(X, items, offset=base, algorithm='transpose', valid_items=nvalid, "
             "oob_default=iv, temp_storage=tsa); coop.block.store(O, items, offset=base, "
             "algorithm='transpose', temp_storage=tsa)",
             False, False, "oob"),
    ]  # fmt: skip
    return out


def _tuple(expr: str, n: int) -> str:
    return "(" + ", ".join(expr.replace("@", str(k)) for k in range(n)) + ")"


def _each(line: str, n: int) -> str:
    return "\n".join(line.replace("@", str(k)) for k in range(n))


def _source(cfg: Config, numba: bool) -> str:
    n, ipt, threads = len(cfg.fields), cfg.ipt, cfg.threads
    names = [f"x{k}" for k in range(n)] + [f"out{k}" for k in range(n)] + [f"init{k}" for k in range(n)]
    if numba:
        head = "import numpy as np\nfrom numba import cuda\nfrom cuda import coop\n\n\n"
        sig = f"def kernel({', '.join(names)}, nvalid, mode):"
        tid = "    t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * "
        tid += "cuda.threadIdx.z)"
        block, loop, tiles, barrier = (
            "cuda.blockIdx.x",
            f"range({ipt})",
            f"range({TILES})",
            "cuda.syncthreads()",
        )
        td = "(" + ", ".join(f'coop.ThreadData({ipt}, "{f}")' for f in cfg.fields) + ")"
        types = ""
    else:
        head = "import cutlass\nimport cutlass.cute as cute\nfrom cuda import coop\n\n\n"
        ann = ", ".join(f"{p}: cute.Tensor" for p in names)
        sig = f"@cute.kernel\ndef kernel({ann}, nvalid: cutlass.Int32, mode: cutlass.Int32):"
        bx, by, _ = cfg.block
        tid = "    tx, ty, tz = cute.arch.thread_idx()\n    bidx, _, _ = cute.arch.block_idx()\n"
        tid += f"    t = tx + {bx} * (ty + {by} * tz)"
        block, loop, tiles = "bidx", f"cutlass.range_constexpr({ipt})", f"cutlass.range_constexpr({TILES})"
        barrier = "cute.arch.barrier()"
        td = _tuple(f"coop.ThreadData({ipt}, TYPE@)", n)
        types = "\n".join(f"TYPE{k} = cutlass.{_CUTE_TYPES[f]}" for k, f in enumerate(cfg.fields))
    lines = [
        head + types + "\n\n",
        sig,
        tid,
        "    X = " + _tuple("x@", n),
        "    O = " + _tuple("out@", n),
        "    iv = " + _tuple("init@[0]", n),
        "    ts = coop.TempStorage()",
        "    tsa = coop.TempStorage(auto_sync=True)",
        f"    for tile in {tiles}:",
        f"        base = ({block} * {TILES} + tile) * {cfg.tile}",
        f"        items = {td}",
        f"        for j in {loop}:",
        _each("            items[@][j] = iv[@]", n),
    ]
    for m, case in enumerate(cases(cfg)):
        pos = f"t + j * {threads}" if case.striped else f"t * {ipt} + j"
        lines.append(f"        if mode == {m}:")
        if not case.load:
            lines += [
                f"            for j in {loop}:",
                _each(f"                items[@][j] = x@[base + {pos}]", n),
            ]
        for statement in case.statement.replace("BARRIER", barrier).split("; "):
            lines.append(f"            {statement}")
        if case.load:
            lines += [
                f"            for j in {loop}:",
                _each(f"                out@[base + {pos}] = items[@][j]", n),
            ]
    source = "\n".join(lines) + "\n"
    if not numba:
        tensors = ", ".join(f"{p}: cute.Tensor" for p in names)
        bx, by, bz = cfg.block
        source += (
            f"\n\n@cute.jit\ndef host({tensors}, nvalid: cutlass.Int32, mode: cutlass.Int32):\n"
            f"    kernel({', '.join(names)}, nvalid, mode).launch(grid=({GRID}, 1, 1), "
            f"block=({bx}, {by}, {bz}))\n"
        )
    return source


def numba_source(cfg: Config) -> str:
    """A module defining ``kernel`` (for ``cuda.coop.numba.jit``)."""
    return _source(cfg, True)


def cute_source(cfg: Config) -> str:
    """A module defining the ``@cute.kernel`` and its ``@cute.jit`` launcher ``host``."""
    return _source(cfg, False)


# --- data and reference ----------------------------------------------------------------------------


def _random(rng: np.random.Generator, dtype: str, size: int) -> np.ndarray:
    if np.dtype(dtype).kind == "f":
        return (rng.integers(-1000, 1000, size) / 8).astype(dtype)  # exact in float16
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -(10**6)), min(info.max, 10**6), size).astype(dtype)


def inputs(rng: np.random.Generator, cfg: Config) -> dict[str, Any]:
    """Fresh inputs: each field's items and initial value, the poison of each output, the count."""
    size = GRID * TILES * cfg.tile
    return {
        "x": [_random(rng, f, size) for f in cfg.fields],
        "init": [_random(rng, f, 1) for f in cfg.fields],
        "poison": [_random(rng, f, size) for f in cfg.fields],
        "nvalid": int(rng.integers(1, cfg.tile)),
    }


def expected(cfg: Config, case: Case, d: dict[str, Any]) -> list[np.ndarray]:
    """Each field's output: its input where a tile position is below the count (every position for
    a full tile), else what the case leaves there."""
    pos = np.arange(GRID * TILES * cfg.tile) % cfg.tile
    out = []
    for k, f in enumerate(cfg.fields):
        x = d["x"][k]
        past = {"oob": d["init"][k][0], "keep": d["init"][k][0], "one": ONE, "poison": d["poison"][k]}
        if case.past:
            x = np.where(pos < d["nvalid"], x, np.asarray(past[case.past]).astype(f))
        out.append(x)
    return out


def mismatches(cfg: Config, case: Case, got: list[np.ndarray], d: dict[str, Any]) -> list[str]:
    problems = []
    for k, (g, w) in enumerate(zip(got, expected(cfg, case, d), strict=True)):
        bad = np.flatnonzero(g != w)
        if bad.size:
            problems.append(
                f"{case.name} field {k}: {bad.size} wrong, at {bad[:6].tolist()}: {g[bad[:4]]} "
                f"want {w[bad[:4]]}"
            )
    return problems
