# SPDX-License-Identifier: Apache-2.0
"""stubs/ matches the declarations and the public surface; mypy checks the examples against it."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import cuda.coop.numba as numba_coop
from cuda import coop
from cuda.coop import _errors
from cuda.coop._catalog import CHOICES
from cuda.coop._stubgen import PACKAGES, render_block_stub, render_package_stub

ROOT = Path(__file__).resolve().parents[1]
STUBS = ROOT / "stubs" / "cuda" / "coop"


def _stub_all(path: Path) -> list[str]:
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "__all__":
            return list(ast.literal_eval(node.value))
    raise AssertionError(f"{path} has no __all__")


def test_block_stub_is_generated_from_the_catalog() -> None:
    assert (STUBS / "block.pyi").read_text() == render_block_stub(), "run: python -m cuda.coop._stubgen"


def test_package_stubs_carry_the_generated_choices_and_exports() -> None:
    for package, rel in PACKAGES.items():
        text = (ROOT / "stubs" / rel).read_text()
        assert text == render_package_stub(package, text), f"{rel}: run python -m cuda.coop._stubgen"


def test_stub_exports_match_the_packages() -> None:
    assert _stub_all(STUBS / "__init__.pyi") == coop.__all__
    assert _stub_all(STUBS / "numba" / "__init__.pyi") == numba_coop.__all__
    assert _stub_all(STUBS / "block.pyi") == coop.block.__all__
    for enum_name in (c.enum_name for c in CHOICES):
        assert enum_name in coop.__all__ and enum_name in numba_coop.__all__


def test_error_stubs_are_the_error_classes() -> None:
    """The stub declares each error class of ``cuda.coop`` (``_errors.__all__``, derived from the
    classes) with its bases; its typed details (CoopCompileError's attributes) are written there."""
    stubbed = {
        node.name: [ast.unparse(b) for b in node.bases]
        for node in ast.parse((STUBS / "__init__.pyi").read_text()).body
        if isinstance(node, ast.ClassDef)
    }
    for name in _errors.__all__:
        assert stubbed.get(name) == [b.__name__ for b in getattr(_errors, name).__bases__], name


def test_mypy_strict_on_examples() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stdout + out.stderr
