# SPDX-License-Identifier: Apache-2.0
"""The Sphinx docs build without warnings, and every public name is documented in them."""

from __future__ import annotations

import html
import importlib
import inspect
import re
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PUBLIC_MODULES = ("cuda.coop", "cuda.coop.cache", "cuda.coop.numba", "cuda.coop.cutlass")


def test_docs_build_without_warnings(html_dir: Path) -> None:
    for page in ("index", "quickstart", "concepts", "cutlass", "examples", "api"):
        assert (html_dir / f"{page}.html").is_file(), page


def _public_names() -> list[tuple[str, str]]:
    return [(m, n) for m in PUBLIC_MODULES for n in importlib.import_module(m).__all__]


def _anchors(module: str, name: str, obj: object) -> set[str]:
    """HTML ids under which ``module.name`` may be documented (re-exports: where they come from)."""
    if isinstance(obj, types.ModuleType):
        return {f"module-{obj.__name__}"}
    ids = {f"{module}.{name}"}
    for other in PUBLIC_MODULES:
        if getattr(importlib.import_module(other), name, None) is obj:
            ids.add(f"{other}.{name}")
    return ids


@pytest.mark.parametrize("module", PUBLIC_MODULES)
def test_public_modules_have_docstrings(module: str) -> None:
    assert (inspect.getdoc(importlib.import_module(module)) or "").strip(), module


@pytest.mark.parametrize(("module", "name"), _public_names())
def test_public_name_resolves_is_documented_and_in_the_docs(module: str, name: str, html_dir: Path) -> None:
    obj = getattr(importlib.import_module(module), name)  # resolves
    assert (inspect.getdoc(obj) or "").strip(), f"{module}.{name} has no docstring"
    api = (html_dir / "api.html").read_text()
    ids = set(re.findall(r'id="([^"]+)"', api))
    want = _anchors(module, name, obj)
    assert ids & want, f"{module}.{name} is not documented in docs/api.rst (looked for ids {sorted(want)})"


def test_every_example_is_in_the_docs() -> None:
    text = (DOCS / "examples.rst").read_text() + (DOCS / "quickstart.rst").read_text()
    included = set(re.findall(r"\.\. literalinclude:: \.\./(\S+)", text))
    examples = {p.relative_to(ROOT).as_posix() for p in (ROOT / "examples").rglob("*.py")}
    assert examples <= included, f"examples missing from docs/examples.rst: {sorted(examples - included)}"


def test_readme_links_to_existing_doc_pages() -> None:
    readme = (ROOT / "README.md").read_text()
    for link in re.findall(r"\]\((docs/[^)#]+)", readme):
        assert (ROOT / html.unescape(link)).is_file(), link
