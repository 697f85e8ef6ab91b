# SPDX-License-Identifier: Apache-2.0
"""``import cuda.coop`` is host-only; the namespace package and backend modules behave."""

from __future__ import annotations

import subprocess
import sys

import pytest
from cuda import coop


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_import_loads_no_dsl_binding_or_driver() -> None:
    heavy = ("numba", "cutlass", "cuda.bindings", "cuda.core", "cuda.cccl", "numpy")
    out = _run(
        "import sys, cuda.coop\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {heavy!r} or m.startswith({heavy!r})))"
    )
    assert out.strip() == "[]"


def test_import_without_any_gpu_driver_visible() -> None:
    out = subprocess.run(
        [sys.executable, "-c", "import cuda.coop as c; print(c.registered_backends())"],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "CUDA_VISIBLE_DEVICES": ""},
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "()"


def test_cuda_stays_a_namespace_package() -> None:
    out = _run("import cuda, cuda.coop, cuda.core, cuda.bindings; print(getattr(cuda, '__file__', None))")
    assert out.strip() == "None"


def test_cutlass_namespace_is_reserved() -> None:
    with pytest.raises(coop.CoopBackendError, match="CUTLASS"):
        import cuda.coop.cutlass  # noqa: F401
    with pytest.raises(coop.CoopBackendError, match="CUTLASS"):
        coop.register("cutlass")
    assert "cutlass" not in coop.registered_backends()
