# SPDX-License-Identifier: Apache-2.0
"""``import cuda.coop`` is host-only; the namespace package and backend modules behave."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest


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


@pytest.mark.parametrize("order", ["cutlass-first", "coop-first", "qualified-import"])
def test_cutlass_backend_registers_in_either_order(order: str) -> None:
    pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
    first = {
        "cutlass-first": "import cutlass.cute\nfrom cuda import coop\ncoop.register('cutlass')\n",
        "coop-first": "from cuda import coop\ncoop.register('cutlass')\nimport cutlass.cute\n",
        "qualified-import": "import cuda.coop.cutlass\nfrom cuda import coop\n",
    }[order]
    assert _run(first + "print(coop.registered_backends())").strip() == "('cutlass',)"


def test_cutlass_autoregistration_can_be_switched_off() -> None:
    pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import cuda.coop.cutlass\nfrom cuda import coop\nprint(coop.registered_backends())",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "CUDA_COOP_NO_AUTOREGISTER": "1"},
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "()"


def test_cutlass_failed_activation_leaves_nothing() -> None:
    pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
    out = _run(
        "import os\nos.environ['CUDA_COOP_NO_AUTOREGISTER'] = '1'\n"
        "from cuda import coop\nfrom cuda.coop.cutlass import _cute_hooks\nreal = _cute_hooks.check\n"
        "def broken():\n    raise coop.CoopBackendError('hook gone')\n"
        "_cute_hooks.check = broken\n"
        "try:\n    coop.register('cutlass')\nexcept coop.CoopBackendError as e:\n    print('raised', e)\n"
        "print(coop.registered_backends())\n_cute_hooks.check = real\ncoop.register('cutlass')\n"
        "print(coop.registered_backends())\n"
    )
    assert out.splitlines() == ["raised hook gone", "()", "('cutlass',)"]


def test_the_wheel_lists_every_package() -> None:
    """pyproject.toml names the packages one by one (setuptools' ``packages``): each source folder with
    an ``__init__.py`` is among them, or the wheel would leave it out."""
    root = Path(__file__).resolve().parents[1]
    line = re.search(r"^packages = \[(.*)\]$", (root / "pyproject.toml").read_text(), re.M)
    assert line is not None
    listed = set(re.findall(r'"([\w.]+)"', line.group(1)))
    found = set()
    for folder, package in (("cuda_coop", "cuda.coop"), ("cuda_coop_cutlass", "cuda.coop.cutlass")):
        for init in (root / folder).rglob("__init__.py"):
            found.add(".".join((package, *init.parent.relative_to(root / folder).parts)))
    assert found <= listed, sorted(found - listed)
