# SPDX-License-Identifier: Apache-2.0
"""No new import circle in the library: the modules of ``cuda_coop`` (and the CuTe backend's
``cuda_coop_cutlass``) that import one another in a ring, read from their source (module-level and
function-level imports; ``if TYPE_CHECKING:`` blocks left out, they never run).

A circle fails here with the modules that form it (``KNOWN`` lists none)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"cuda_coop": "cuda.coop", "cuda_coop_cutlass": "cuda.coop.cutlass"}

#: The circles left (each the sorted module names of one strongly connected group): none. A group
#: may be listed here only with the issue that takes it apart.
KNOWN: set[tuple[str, ...]] = set()


def _modules() -> dict[str, Path]:
    out = {}
    for folder, name in PACKAGES.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            dotted = ".".join((name, *parts))
            out[dotted.removesuffix(".__init__")] = path
    return out


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(module: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The library modules ``module`` imports (at any depth but under ``if TYPE_CHECKING:``)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            target = f"{base}.{node.module}" if node.level and node.module else node.module or base
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in known else target)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text()))
    return {m for m in found if m in known and m != module}


def _circles(graph: dict[str, set[str]]) -> set[tuple[str, ...]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: set[tuple[str, ...]] = set()

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.add(tuple(sorted(group)))

    for v in graph:
        if v not in index:
            strong(v)
    return out


def test_no_new_import_circle() -> None:
    known = _modules()
    graph = {m: _imports(m, p, known) for m, p in known.items()}
    found = _circles(graph)
    new = found - KNOWN
    assert not new, "a new import circle (modules that import one another in a ring): " + "; ".join(
        " <-> ".join(c) for c in sorted(new)
    )
