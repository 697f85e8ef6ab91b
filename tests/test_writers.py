# SPDX-License-Identifier: Apache-2.0
"""The launch paths' argument-writer generator (cuda_coop/_writers.py): the function it writes."""

from __future__ import annotations

from typing import Any

from cuda.coop._writers import Arm, generate


def test_arms_become_if_elif_else_chains_in_order() -> None:
    out: list[Any] = []
    ns: dict[str, Any] = {"out": out, "s0": lambda a: out.append(("slow", a)), "last1": None}
    arms = [
        Arm(
            (("type(a0) is int", ("out.append(('int', a0))",)), ("a0 is None", ("pass",))),
            ("s0(a0)",),
        ),
        Arm((("a1 is last1", ("out.append('same')",)),), (), before=("global last1",)),
        Arm(otherwise=("out.append(('any', a2))",)),
    ]
    f = generate("write", arms, ns, last=("return len(out)",))
    assert f(3, "x", 1.5) == 2 and out == [("int", 3), ("any", 1.5)]
    out.clear()
    assert f("s", None, 0) == 3 and out == [("slow", "s"), "same", ("any", 0)]
    out.clear()
    assert f(None, 1, 2) == 1 and out == [("any", 2)]


def test_no_arguments_is_a_function_that_does_nothing() -> None:
    f = generate("nothing", [], {})
    assert f() is None
