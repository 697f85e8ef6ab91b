# SPDX-License-Identifier: Apache-2.0
"""The structured-items grid (issue 18): the block and warp cases of ``tests/_compute_cases.py`` and
``tests/_warp_cases.py`` run on tuples of 2 and 3 fields of mixed types, in both DSLs.

Each case's coop call is the scalar suite's text unchanged; only the kernel's names hold tuples
(``items`` a tuple of ThreadData, ``s`` and ``iv`` tuples of scalars, ``run`` a tuple of one-item
ThreadData), and each operator is field-wise: the built-in ``"sum"`` (the struct's ``+``), or the
user operators ``user_max`` / ``user_min`` / ``user_add`` written on tuples. The built-ins that do
not apply to tuples (``"max"``, ``"min"``, the bit operators, ``"mul"`` on floats) become the user
operator of the same meaning. A field-wise operator makes field ``k`` of every result the scalar
result of field ``k`` alone, so the scalar suite's independent NumPy reference checks each field
(fresh data per field, poisoned outputs). The rest of the contract (argmax, sorts by a tuple key)
is not field-wise and has its own references in ``tests/test_structured_items.py``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import _compute_cases as cc
from . import _warp_cases as wc

#: The field lists of the grid: mixed sizes and kinds, as the issue names them.
FIELDS = [("float32", "int32"), ("float64", "int64", "float32"), ("int8", "float16")]
_BLOCKS = [(128, 1, 1), (16, 6, 1), (5, 7, 2)]  # 1-D, 2-D (96: three warps), 3-D (70: a partial warp)
_WARP_BLOCKS = [(128, 1, 1), (16, 6, 1), (8, 5, 1)]  # the last: 40 threads, a partial hardware warp
_IPTS = [1, 3, 4, 8]
#: The operators of the scalar suites, as tuple configs spell them (field-wise).
_TUPLE_OP = {"max": "user_max", "min": "user_min", "bit_and": "user_max", "bit_or": "user_min",
             "bit_xor": "user_add"}  # fmt: skip


@dataclass(frozen=True)
class Config:
    """One structured test kernel: a scalar suite's family, run on items of ``fields``."""

    suite: str  # "block" (tests/_compute_cases.py) or "warp" (tests/_warp_cases.py)
    family: str
    fields: tuple[str, ...]
    block: tuple[int, int, int]
    ipt: int
    width: int = 32  # warp suite: the logical warp width

    def field(self, k: int) -> Any:
        """The scalar suite's config of field ``k`` (its references and data)."""
        if self.suite == "block":
            return cc.Config(self.family, self.fields[k], self.block, self.ipt)
        return wc.Config(self.family, self.fields[k], self.block, self.width, self.ipt)

    @property
    def threads(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    @property
    def id(self) -> str:
        warp = f"-w{self.width}" if self.suite == "warp" else ""
        fields = "+".join(self.fields)
        return f"{self.suite}-{self.family}-{fields}-{'x'.join(map(str, self.block))}{warp}-{self.ipt}"


def configs() -> list[Config]:
    """Every field list x block shape x items per thread for the block families (36 kernels each);
    the warp families on every field list with widths 8 and 32 (32 only on whole hardware warps)."""
    out = [
        Config("block", family, f, b, n)
        for family in ("compute", "exchange")
        for f in FIELDS
        for b in _BLOCKS
        for n in _IPTS
    ]
    for i, f in enumerate(FIELDS):
        for j, b in enumerate(_WARP_BLOCKS):
            for width in (8, 32):
                if width == 32 and (b[0] * b[1] * b[2]) % 32:
                    continue
                n = _IPTS[(i + j + width) % 4]
                out.append(Config("warp", "compute", f, b, n, width))
                out.append(Config("warp", "batched", f, b, max(2, n), width))
                out.append(Config("warp", "tile", f, b, n, width))
    return [c for c in out if cases(c)]


# --- cases ---------------------------------------------------------------------------------------


def _floats(cfg: Config) -> bool:
    return any(cc.is_float(f) for f in cfg.fields)


def _block_case(case: cc.Case, cfg: Config) -> cc.Case:
    op = case.op
    if op is not None:
        op = _TUPLE_OP.get(op, op)
        if op == "mul" and _floats(cfg):  # a product of many floats is not exact
            op = "sum"
    return dataclasses.replace(case, op=op)


def _warp_case(case: wc.Case, cfg: Config) -> wc.Case:
    """The case with each built-in that does not apply to tuples replaced by the user operator of
    the same meaning. The reference reads the operator from the name: a bit operator's name names
    the user operator that replaces it (max and min keep theirs: the same meaning)."""
    name, statement = case.name, case.statement
    n = len(cfg.fields)
    for verb, array in (("load", "x"), ("store", "out")):  # a tuple of arrays, one per field
        fields = ", ".join(f"{array}{k}" for k in range(n))
        statement = statement.replace(f"coop.warp.{verb}({array}, ", f"coop.warp.{verb}(({fields}), ")
    for builtin, user in _TUPLE_OP.items():
        statement = statement.replace(repr(builtin), user)
        if builtin.startswith("bit_"):
            name = name.replace(f"-{builtin}", f"-{user}")
    return dataclasses.replace(case, name=name, statement=statement)


def cases(cfg: Config) -> list[Any]:
    """The scalar suite's cases of ``cfg`` (those of its first field), with tuple operators and a
    tuple of arrays (one per field) for each load and store; not the shuffle exchange (scalars
    only: a typed error for tuples)."""
    first = cfg.field(0)
    if cfg.suite == "block":
        return [_block_case(c, cfg) for c in cc.cases(first)]
    return [_warp_case(c, cfg) for c in wc.cases(first) if "shuffle" not in c.name]


# --- data and references ---------------------------------------------------------------------------


def data(rng: np.random.Generator, cfg: Config) -> list[Any]:
    """One scalar-suite data set per field; ranks, flags and counts are the first field's, shared."""
    first = (cc.data if cfg.suite == "block" else wc.data)(rng, cfg.field(0))
    out = [first]
    for k in range(1, len(cfg.fields)):
        own = (cc.data if cfg.suite == "block" else wc.data)(rng, cfg.field(k))
        out.append(dataclasses.replace(first, x=own.x, init=own.init))
    return out


def sizes(cfg: Config) -> dict[str, int]:
    return (cc.sizes if cfg.suite == "block" else wc.sizes)(cfg.field(0))


def poisons(rng: np.random.Generator, cfg: Config) -> list[dict[str, np.ndarray]]:
    """Fresh poison of each output of each field (``vout``, int32 values, once: field 0's)."""
    out = []
    for k, f in enumerate(cfg.fields):
        if cfg.suite == "block":
            out.append({name: cc.poison(rng, f, n) for name, n in sizes(cfg).items()})
        else:
            out.append(wc.poisoned_outputs(rng, cfg.field(k)))
    return out


def mismatches(
    case: Any, cfg: Config, d: list[Any], p: list[dict[str, np.ndarray]], got: list[Any]
) -> list[str]:
    """Each field's outputs against the scalar reference of that field."""
    problems = []
    for k in range(len(cfg.fields)):
        fc = cfg.field(k)
        if cfg.suite == "block":
            want = cc.reference(case, fc, d[k], p[k])
            problems += [f"field {k}: {m}" for m in cc.mismatches(fc, got[k], want)]
        else:
            want_w = wc.reference(case, fc, d[k], p[k])
            if k:
                want_w.pop("vout", None)
            problems += [f"field {k}: {m}" for m in wc.mismatches(fc, got[k], want_w)]
    return problems


SANITIZER_CONFIGS = {0, 17, 30, 43, 58, 71, 75, 84}  # a diagonal subset run under compute-sanitizer


def gpu_params() -> list[object]:
    import pytest

    return [
        pytest.param(c, id=c.id, marks=[pytest.mark.sanitizer] if i in SANITIZER_CONFIGS else [])
        for i, c in enumerate(configs())
    ]
