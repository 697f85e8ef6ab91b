# SPDX-License-Identifier: Apache-2.0
"""Plots of the benchmarks (issue 23): coop against CUB in C++, torch and the row kernels' peers, from
the JSON results that each benchmark run writes beside its log in ``benchmarks/logs``, so that a
docs build without a GPU draws them (``.. coop-plot:: NAME`` in the docs, ``docs/_ext``).

    python benchmarks/plots.py [--out benchmarks/plots]   # the SVGs that benchmarks/RESULTS.md shows

Each plot names its result file: a new run that should be shown is a new file name here. Each SVG
carries a digest of its data and its specification (``tests/test_plots.py`` checks that the
committed SVGs are those of the current files).
"""

from __future__ import annotations

import os
import sys

# this folder's copy.py would shadow the standard library's (dataclasses and matplotlib import it)
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import argparse  # noqa: E402
import hashlib  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

LOGS = Path(__file__).resolve().parent / "logs"
OUT = Path(__file__).resolve().parent / "plots"

#: Display names and colours of the series, the same in every plot.
SERIES = {
    "numba": ("coop, numba-cuda", "#1f77b4"),
    "cute": ("coop, CuTe DSL", "#2ca02c"),
    "numba_mlir": ("coop, numba-cuda-mlir", "#17becf"),
    "cub": ("CUB C++", "#7f7f7f"),
    "torch": ("torch", "#d62728"),
    "quack": ("quack", "#9467bd"),
    "liger": ("liger", "#8c564b"),
    "copy": ("copy (the roof)", "#dddddd"),
}


@dataclass(frozen=True)
class Plot:
    """One grouped bar chart: ``rows`` of the JSON file (a path of keys), a group per row labelled by
    ``label``, a bar per series (``{json key: series name}``, series of :data:`SERIES`)."""

    name: str
    file: str
    rows: tuple[str, ...]
    label: str
    series: dict[str, str]
    title: str
    unit: str = "GB/s"
    higher_is_better: bool = True
    device: str = ""
    only: tuple[str, ...] = field(default=())

    def data(self) -> tuple[str, list[dict[str, Any]]]:
        """The device and the rows plotted."""
        doc = json.loads((LOGS / self.file).read_text())
        rows: Any = doc
        for key in self.rows:
            rows = rows[key]
        if isinstance(rows, dict):  # a single row of named values
            rows = [{"config": "", **rows}]
        if self.only:
            rows = [r for r in rows if _label(r, self.label) in self.only]
        return str(doc.get("device", self.device)), rows

    def digest(self) -> str:
        spec = json.dumps([self.name, self.rows, self.label, self.series, self.title, self.unit, self.only])
        return hashlib.sha256((LOGS / self.file).read_bytes() + spec.encode()).hexdigest()[:16]


def _label(row: dict[str, Any], label: str) -> str:
    """A group's label: ``label`` formatted with the row (``"{type} {threads}x{items}"``)."""
    return label.format(**row)


PLOTS = (
    Plot(
        "compute_sum",
        "compute_2026-12-04_run16.json",
        ("sum",),
        "{config}",
        {"numba": "numba", "cute": "cute", "numba_mlir": "numba_mlir", "cub": "cub", "torch": "torch"},
        "Block sum of 2^28 int32 (threads x items per thread)",
    ),
    Plot(
        "compute_scan",
        "compute_2026-12-04_run16.json",
        ("scan",),
        "{config}",
        {"numba": "numba", "cute": "cute", "numba_mlir": "numba_mlir", "cub": "cub", "torch copy_": "copy"},
        "Block inclusive scan of 2^28 int32 (tiles scanned alone)",
    ),
    Plot(
        "compute_rows",
        "compute_2026-12-04_run16.json",
        ("rows",),
        "{config}",
        {"numba": "numba", "cute": "cute", "numba_mlir": "numba_mlir", "cub": "cub", "torch.cumsum": "torch"},
        "Row cumsum (a block per row, prefix_op across tiles)",
    ),
    Plot(
        "warp_row_sum",
        "warp_2026-12-04_run16.json",
        ("row_sum",),
        "{config}",
        {"numba": "numba", "cute": "cute", "numba_mlir": "numba_mlir", "cub": "cub", "torch": "torch"},
        "Warp-per-row sums, 2^20 rows of 32",
    ),
    Plot(
        "sort_radix",
        "sort_2026-12-04_run16.json",
        ("radix_sort",),
        "{what}",
        {"numba": "numba", "cute": "cute", "numba_mlir": "numba_mlir", "cub": "cub"},
        "Block radix sort, 32768 tiles of 2048 keys",
    ),
    Plot(
        "sort_histogram",
        "sort_2026-12-04_run16.json",
        ("histogram",),
        "{config}",
        {
            "numba (loop)": "numba",
            "cute (loop)": "cute",
            "numba-mlir (loop)": "numba_mlir",
            "CUB C++ (loop)": "cub",
            "torch.bincount": "torch",
        },
        "Block histogram, 256 bins of 2^28 uint8 samples (GB/s of samples)",
    ),
    Plot(
        "sort_rows",
        "sort_2026-12-04_run16.json",
        ("row_sort",),
        "{config}",
        {"numba keys + index": "numba", "cute keys + index": "cute", "torch.sort": "torch"},
        "Row-wise sort with indices, 65536 rows of 2048 float32 (a block per row)",
        unit="ms",
        higher_is_better=False,
    ),
    Plot(
        "sort_top_k",
        "sort_2026-12-04_run16.json",
        ("row_top_k",),
        "{config}",
        {"numba top_k": "numba", "cute top_k": "cute", "torch.topk": "torch"},
        "Row-wise top-16 with indices, 65536 rows of 2048 float32",
        unit="ms",
        higher_is_better=False,
    ),
    Plot(
        "rows_rmsnorm_262144",
        "rows_2026-12-04_run17_rmsnorm_262144.json",
        ("rows",),
        "{kernel}, rows of {n}",
        {
            "numba 16x256x64 staged_late striped_vectors": "numba",
            "cute 16x256x64 staged_late striped_vectors": "cute",
            "cub 16x256x64 staged_late striped_vectors": "cub",
            "quack": "quack",
            "torch": "torch",
            "copy": "copy",
        },
        "RMSNorm of rows of 262144 float32, staged (16 x 256 x 64)",
    ),
    Plot(
        "grid_cumsum",
        "grid_2026-12-05_h100_tuned_delay.json",
        ("cumsum",),
        "{type} {threads}x{items}",
        {"grid_ms": "numba", "cub_ms": "cub", "torch_ms": "torch"},
        "One-kernel cumsum of 2^28 items (coop.grid vs CUB DeviceScan, torch.cumsum)",
        unit="ms",
        higher_is_better=False,
        device="NVIDIA H100",
    ),
)

BY_NAME = {p.name: p for p in PLOTS}
#: The series that are coop's: each bar is labelled with its ratio to CUB C++, or to torch where a
#: plot has no CUB series (over their time where lower is better): 1.00x is as fast.
COOP = ("numba", "cute", "numba_mlir")


def render(plot: Plot) -> str:
    """The plot as SVG text, the same for the same data (no date, a fixed hash salt)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    device, rows = plot.data()
    labels = [_label(r, plot.label) for r in rows]
    keys = [k for k in plot.series if any(k in r for r in rows)]
    ref = next((k for k in keys if plot.series[k] == "cub"), None)
    ref = ref or next((k for k in keys if plot.series[k] == "torch"), None)
    with matplotlib.rc_context({"svg.hashsalt": "cuda-coop", "svg.fonttype": "none", "font.size": 9}):
        fig, ax = plt.subplots(figsize=(7.5, 3.2))
        width = 0.8 / max(len(keys), 1)
        for i, key in enumerate(keys):
            name, colour = SERIES[plot.series[key]]
            xs = [g + (i - (len(keys) - 1) / 2) * width for g in range(len(rows))]
            values = [float(r[key]) if r.get(key) is not None else 0.0 for r in rows]
            ax.bar(xs, values, width, label=name, color=colour, edgecolor="#444444", linewidth=0.4)
            if plot.series[key] in COOP and ref is not None:  # the ratio to CUB C++ (or torch) over each bar
                for x, row, v in zip(xs, rows, values, strict=True):
                    if v and row.get(ref):
                        ratio = v / float(row[ref]) if plot.higher_is_better else float(row[ref]) / v
                        ax.text(x, v, f"{ratio:.2f}x", ha="center", va="bottom", rotation=90, fontsize=7)
        ax.set_xticks(range(len(rows)), labels)
        better = "higher is better" if plot.higher_is_better else "lower is better"
        ax.set_ylabel(f"{plot.unit} ({better})")
        ax.margins(y=0.18)
        ax.set_title(f"{plot.title}{', ' + device if device else ''}", fontsize=10)
        ax.legend(
            fontsize=8, ncols=min(len(keys), 3), loc="lower right" if plot.higher_is_better else "upper right"
        )
        ax.grid(axis="y", alpha=0.3)
        ax.set_axisbelow(True)
        fig.tight_layout()
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": "benchmarks/plots.py"})
        plt.close(fig)
    svg = buf.getvalue()
    return svg.replace("<svg ", f"<!-- coop-plot {plot.name} {plot.digest()} -->\n<svg ", 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for plot in PLOTS:
        (out / f"{plot.name}.svg").write_text(render(plot))
        print(f"{out / plot.name}.svg")


if __name__ == "__main__":
    main()
