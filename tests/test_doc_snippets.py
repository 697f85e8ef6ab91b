# SPDX-License-Identifier: Apache-2.0
"""Every Python code block of the docs compiles: the pages show fragments of the kernels in
``docs/snippets/`` (``literalinclude`` between ``doc-start``/``doc-end`` markers), and this test
compiles each kernel ahead of time without a GPU, as tests/test_numba_aot.py does (one function, no
call, no local memory). A ``.. code-block:: python`` in a page would escape that, so none may remain;
listings of signatures are ``.. code-block:: text``."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from ._reference import assert_inlined

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SNIPPETS = DOCS / "snippets"
#: snippet files that need a DSL other than numba-cuda, by the module they import
_NEEDS = {"cutlass": "cutlass", "numba_mlir": "numba_cuda_mlir"}


def _load(name: str) -> ModuleType:
    for dsl, module in _NEEDS.items():
        if name.startswith(dsl):
            pytest.importorskip(module, reason=f"{module} is not installed")
    spec = importlib.util.spec_from_file_location(f"_doc_snippets_{name}", SNIPPETS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = sys.modules.get(spec.name)
    if module is None:
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    return module


def _entries(attr: str) -> list[Any]:
    """pytest params ``(file, index)`` of the list ``attr`` of every snippet file, read from the
    source (importing here would import the DSLs at collection)."""
    out = []
    for path in sorted(SNIPPETS.glob("*.py")):
        text = path.read_text()
        match = re.search(rf"^{attr} = \[\n(.*?)^\]", text, re.M | re.S)
        if match:
            count = len(re.findall(r"^    [(\w]", match.group(1), re.M))
            out += [pytest.param(path.stem, i, id=f"{path.stem}-{i}") for i in range(count)]
    return out


@pytest.mark.parametrize(("name", "index"), _entries("NUMBA"))
def test_numba_snippet_compiles(name: str, index: int) -> None:
    import cuda.coop.numba as numba_coop

    kernel, signature, options = _load(name).NUMBA[index]
    assert_inlined(numba_coop.compile(kernel, signature, **options).inspect(), functions=None)


@pytest.mark.parametrize(("name", "index"), _entries("HOST"))
def test_host_snippet_compiles(name: str, index: int) -> None:
    """Host code of a page that compiles ahead of time: it runs here and returns what it compiled."""
    compiled = _load(name).HOST[index]()
    for one in compiled if isinstance(compiled, list) else [compiled]:
        assert_inlined(one.inspect(), functions=None)


@pytest.mark.parametrize(("name", "index"), _entries("CUTE"))
def test_cute_snippet_compiles(name: str, index: int) -> None:
    import cuda.coop.cutlass as cutlass_coop

    host, make_args = _load(name).CUTE[index]
    assert_inlined(cutlass_coop.compile(host, *make_args()).inspect(), functions=None)


@pytest.mark.parametrize(("name", "index"), _entries("MLIR"))
def test_numba_mlir_snippet_compiles(name: str, index: int) -> None:
    import cuda.coop.numba_mlir as mlir_coop

    kernel, signature, options = _load(name).MLIR[index]
    assert_inlined(mlir_coop.compile(kernel, signature, **options).inspect(), functions=None)


def _pages() -> list[Path]:
    return sorted(DOCS.glob("*.rst"))


@pytest.mark.parametrize("page", _pages(), ids=lambda p: p.name)
def test_no_uncompiled_python_block(page: Path) -> None:
    """Python in a page comes from docs/snippets/ (compiled above) or examples/ (tests/test_examples.py)."""
    text = page.read_text()
    assert not re.search(r"^\s*\.\. code-block:: (python|py|python3)\s*$", text, re.M), (
        f"{page.name}: a `.. code-block:: python`; put the code in a kernel in docs/snippets/ and "
        "literalinclude it between doc-start/doc-end markers (a signature listing is `code-block:: text`)"
    )
    assert not re.search(r"^\s*(::|.*[^:]::)\s*$\n\n\s+(import |from |def |@|\w+ = )", text, re.M), (
        f"{page.name}: a literal block (`::`) that holds Python; literalinclude it from docs/snippets/"
    )
    for included in re.findall(r"\.\. literalinclude:: (\S+)", text):
        path = (DOCS / included).resolve()
        assert path.is_file(), f"{page.name}: {included} does not exist"
        assert path.is_relative_to(SNIPPETS) or path.is_relative_to(ROOT / "examples"), (
            f"{page.name}: {included} is neither a snippet nor an example"
        )


def test_every_snippet_marker_is_shown_and_paired() -> None:
    """Each doc-start has its doc-end, and each marked fragment is included by some page."""
    shown = "".join(p.read_text() for p in _pages())
    for path in sorted(SNIPPETS.glob("*.py")):
        text = path.read_text()
        starts = re.findall(r"# doc-start: (\S+)$", text, re.M)
        ends = re.findall(r"# doc-end: (\S+)$", text, re.M)
        assert starts == ends and len(set(starts)) == len(starts), (path.name, starts, ends)
        for name in starts:
            assert f":start-after: doc-start: {name}\n" in shown, f"{path.name}: {name} is not in any page"


def test_contributing_row_is_the_catalogs() -> None:
    """docs/contributing.rst's row of coop.block.reduce, written out, is the catalog's but for its texts."""
    from cuda.coop._catalog.reduce import REDUCE

    shown = _load("contributing").REDUCE
    fields = ("scope", "name", "family", "cub", "call", "results", "scratch", "check", "returns_annotation")
    for field in fields:
        assert getattr(shown, field) == getattr(REDUCE, field), field

    def signature(row: Any) -> list[tuple[Any, ...]]:
        return [(p.name, p.kind, p.annotation, p.default, p.keyword_only, p.excludes) for p in row.params]

    assert signature(shown) == signature(REDUCE)
