# SPDX-License-Identifier: Apache-2.0
"""The docs' pictures that are committed stay what their sources draw (issue 23): the benchmark plots
of ``benchmarks/plots`` (shown by ``benchmarks/RESULTS.md``) carry the digest of the JSON results and
of the plot's specification they were drawn from, and the README's diagram is the explorer model's
picture, byte for byte."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def plots() -> ModuleType:
    return _load("coop_benchmark_plots", ROOT / "benchmarks" / "plots.py")


def test_every_plot_names_an_existing_result(plots: ModuleType) -> None:
    for plot in plots.PLOTS:
        device, rows = plot.data()
        assert rows, plot.name
        assert any(k in r for r in rows for k in plot.series), f"{plot.name}: no series found in {plot.file}"


def test_committed_plots_are_drawn_from_the_current_results(plots: ModuleType) -> None:
    """Regenerate with ``python benchmarks/plots.py`` after a result file or a plot changes."""
    committed = {p.stem for p in (ROOT / "benchmarks" / "plots").glob("*.svg")}
    assert committed == set(plots.BY_NAME), "benchmarks/plots/ and benchmarks/plots.py disagree"
    results = (ROOT / "benchmarks" / "RESULTS.md").read_text()
    for plot in plots.PLOTS:
        text = (ROOT / "benchmarks" / "plots" / f"{plot.name}.svg").read_text()
        found = re.search(rf"<!-- coop-plot {plot.name} ([0-9a-f]+) -->", text)
        assert found and found.group(1) == plot.digest(), f"{plot.name}.svg is stale: run benchmarks/plots.py"
        assert f"plots/{plot.name}.svg" in results, f"benchmarks/RESULTS.md does not show {plot.name}"


def test_a_plot_renders(plots: ModuleType) -> None:
    pytest.importorskip("matplotlib", reason="the plots need matplotlib (.[docs] or .[test])")
    svg = plots.render(plots.BY_NAME["compute_sum"])
    assert "<svg" in svg and "CUB C++" in svg and "1.00x" in svg


def test_the_readme_diagram_is_the_models() -> None:
    explorers = _load("coop_explorers_ext", ROOT / "docs" / "_ext" / "coop_explorers.py")
    want = (
        explorers.diagram("load", {"threads": "8", "items": "4", "algorithm": "warp_transpose"}, "all") + "\n"
    )
    assert (ROOT / "docs" / "_static" / "load_warp_transpose.svg").read_text() == want
    assert "docs/_static/load_warp_transpose.svg" in (ROOT / "README.md").read_text()
