# SPDX-License-Identifier: Apache-2.0
"""A prepared launch whose driver call is faked (no GPU): for the host tests of the launch path of
each Numba-family backend."""

from __future__ import annotations

import types as pytypes
from typing import Any

from cuda.coop._args import Marshal, Spec
from cuda.coop._launch import Layout
from cuda.coop._prepared import PreparedLaunch


def fake_prepared(
    specs: list[Spec], names: str, marshal: Marshal, stream: int = 0, what: str = "k"
) -> tuple[PreparedLaunch, list[tuple[Any, ...]]]:
    """A :class:`PreparedLaunch` of arguments ``specs`` (named by the letters of ``names``) and the
    list its launches append their driver-call arguments to."""
    calls: list[tuple[Any, ...]] = []

    def fake_launch(*call: Any) -> tuple[int]:
        calls.append(call)
        return (0,)

    plan = pytypes.SimpleNamespace(
        what=what,
        layout=Layout(specs),
        device=0,
        function="F",
        driver_launch=fake_launch,
        marshal=marshal,
        launch_error=lambda err, what: RuntimeError(what),
    )
    return PreparedLaunch(plan, (8, 1, 1), (128, 1, 1), 0, stream, list(names)), calls  # type: ignore[arg-type]
