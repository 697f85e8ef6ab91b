# SPDX-License-Identifier: Apache-2.0
"""The launch paths' generated argument writers: one Python function over a kernel's arguments that
writes each into its parameter slots, the common case of each argument an inline branch (a torch
tensor like the last one: only its data pointer; an int address; a scalar of a type seen before),
the rest a call. Every launch path that rewrites a parameter buffer per call generates its function
here: the prepared launch of the Numba-family backends (:mod:`cuda.coop._prepared`), the ordinary
launch's plan reuse (``take`` of :mod:`cuda.coop._launch`) and the CuTe backend's prepared launch and
plain call. A call per argument, a loop and a dispatch are what a launch path cannot afford: each
costs as much as a torch attribute read."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Arm:
    """How the generated function takes one argument: ``cases`` (a test and the statements run when it
    holds, tried in order as ``if``/``elif``), then ``otherwise`` (the ``else`` statements; empty: no
    ``else``), after the statements of ``before`` (a ``global`` declaration). The text spells the
    argument ``a<i>`` and the namespace's names by their ``<name><i>`` (the caller puts them there)."""

    cases: tuple[tuple[str, tuple[str, ...]], ...] = ()
    otherwise: tuple[str, ...] = ()
    before: tuple[str, ...] = ()


def generate(
    name: str, arms: Sequence[Arm], ns: dict[str, Any], last: Sequence[str] = ()
) -> Callable[..., Any]:
    """The function ``name(a0, a1, ...)`` whose body takes each argument by its arm in order, then
    runs ``last``, compiled in ``ns`` (its globals: what the arms' text names)."""
    lines = [f"def {name}({', '.join(f'a{i}' for i in range(len(arms)))}):"]
    for arm in arms:
        lines += [f"    {s}" for s in arm.before]
        for k, (test, body) in enumerate(arm.cases):
            lines.append(f"    {'if' if k == 0 else 'elif'} {test}:")
            lines += [f"        {s}" for s in body]
        if arm.cases and arm.otherwise:
            lines.append("    else:")
        indent = "        " if arm.cases else "    "
        lines += [f"{indent}{s}" for s in arm.otherwise]
    lines += [f"    {s}" for s in last]
    if len(lines) == 1:
        lines.append("    pass")
    exec("\n".join(lines), ns)
    return ns[name]  # type: ignore[no-any-return]
