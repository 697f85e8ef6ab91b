# SPDX-License-Identifier: Apache-2.0
"""A strided 1-D CuTe view (a column ``mat[None, col]``) read and written with every algorithm the
docs allow on one, then reduced, scanned or stored, tile after tile in a loop, on 1-D, 2-D and
partial-warp blocks, int32 and float32, static and dynamic strides (``tests/_strided_cute.py``).
Ahead of time here (a diagonal subset: no CALL, no local memory); on the GPU every case runs in a
process of its own with a time limit, so a kernel that hangs fails its own case, by name, and the
run goes on. A diagonal subset is marked ``sanitizer``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")

from . import _strided_cute as sc  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CASE_LIMIT_S = 180  # a case compiles once and runs in well under 20 s; past this it is hung
#: every 19th case (both algorithms, the three blocks, both types, static and dynamic strides, looped
#: and unrolled) and the issue's own kernel (striped, a block sum, tiles unrolled: it hung, issue 46)
SANITIZER_EVERY, SANITIZER_ALSO = 19, {"striped-sum-64x1-int32-static-unrolled"}


def _params(every: int = 1) -> list[object]:
    return [
        pytest.param(
            c,
            id=c.id,
            marks=[pytest.mark.sanitizer] if i % SANITIZER_EVERY == 0 or c.id in SANITIZER_ALSO else [],
        )
        for i, c in enumerate(sc.cases())
        if i % every == 0
    ]


@pytest.mark.parametrize("case", _params(every=7))
def test_strided_views_compile_and_inline(case: sc.Case) -> None:
    import cuda.coop.cutlass as cutlass_coop

    report = cutlass_coop.compile(sc.host(case), *sc.fake_tensors(case), arch="sm_90a").inspect()
    assert report.calls == 0 and report.local_loads == 0 and report.local_stores == 0, report.sass


@pytest.mark.gpu
@pytest.mark.parametrize("case", _params())
def test_strided_views_on_the_gpu(case: sc.Case) -> None:
    try:
        done = subprocess.run(
            [sys.executable, "-m", "tests._strided_cute", case.id],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=CASE_LIMIT_S,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{case.id}: the kernel did not finish in {CASE_LIMIT_S} s (hung)")
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 0 and lines and lines[-1] == f"{case.id} ok", done.stdout + done.stderr
