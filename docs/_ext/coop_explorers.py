# SPDX-License-Identifier: Apache-2.0
"""Diagrams and explorers of how items move, drawn from ``cuda.coop._models``.

Directives (HTML builds):

``.. coop-explorer:: NAME``
    The explorer ``NAME``: the static diagram of its default choice (the first and last frames, an
    inline SVG, there without JavaScript) and every choice's frames as JSON in the page, which
    ``_static/coop_explorer.js`` plays (controls, steps). No server and no fetch: the page works when
    opened from disk.

``.. coop-diagram:: NAME``
    A static diagram only; ``:choice: mode=blocked_to_warp_striped threads=8`` picks the controls
    (the default choice otherwise), ``:frames: all`` draws every frame (default: the first and the
    last).

``.. coop-plot:: NAME``
    A benchmark plot of ``benchmarks/plots.py`` (matplotlib, from the JSON results committed in
    ``benchmarks/logs``), inline SVG.

``python docs/_ext/coop_explorers.py OUT.svg NAME [key=value ...] [frames=all]`` writes one diagram
(the README's).
"""

from __future__ import annotations

import functools
import html
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

from cuda.coop import _models
from docutils import nodes
from docutils.parsers.rst import Directive, directives

CELL_W, CELL_H, GAP, LABEL_W, TITLE_H = 34, 24, 2, 40, 18
#: The widest a frame's line of panels gets before the next panel goes below (px), and the caption's
#: characters a line.
MAX_W, CAPTION_CHARS = 720, 100
_MARKS = {"": 0, "new": 1, "undef": 2, "off": 3}


def colour(key: int, nkeys: int) -> str:
    """The fill of an item's cell: a hue by its key (its input position), pale; white for none (the
    explorer's JavaScript computes the same)."""
    if key < 0:
        return "#ffffff"
    hue = round(300 * key / max(nkeys - 1, 1))
    return f"hsl({hue}, 70%, 82%)"


def _nkeys(frames: list[_models.Frame]) -> int:
    keys = [c.key for f in frames for p in f.panels for r in p.rows for c in r.cells]
    return max([k for k in keys if k >= 0], default=0) + 1


def frames_json(frames: list[_models.Frame]) -> dict[str, Any]:
    """A choice's frames, compact: each cell ``[text, key, mark]`` (mark: 0 plain, 1 new, 2
    unspecified, 3 not taking part)."""
    return {
        "nkeys": _nkeys(frames),
        "frames": [
            {
                "caption": f.caption,
                "panels": [
                    {
                        "title": p.title,
                        "rows": [
                            [r.label, [[c.text, c.key, _MARKS[c.mark]] for c in r.cells]] for r in p.rows
                        ],
                    }
                    for p in f.panels
                ],
            }
            for f in frames
        ],
    }


def explorer_json(explorer: _models.Explorer) -> dict[str, Any]:
    """Everything the page's explorer plays: its controls and every valid choice's frames."""
    return {
        "name": explorer.name,
        "title": explorer.title,
        "params": [
            {"name": p.name, "label": p.label, "options": [_models.option_text(o) for o in p.options]}
            for p in explorer.params
        ],
        "default": explorer.case_key(explorer.default()),
        "cases": {explorer.case_key(c): frames_json(explorer.frames(**c)) for c in explorer.choices()},
    }


# --- SVG ---------------------------------------------------------------------------------------------


def _panel_size(panel: _models.Panel) -> tuple[int, int]:
    width = max((len(r.cells) for r in panel.rows), default=0)
    return LABEL_W + width * (CELL_W + GAP), TITLE_H + len(panel.rows) * (CELL_H + GAP)


def _wrap(text: str, width: int = CAPTION_CHARS) -> list[str]:
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return [*lines, line] if line else lines


def frame_svg(frame: _models.Frame, nkeys: int, x0: int, y0: int, out: list[str]) -> tuple[int, int]:
    """Append the SVG elements of ``frame`` at ``(x0, y0)``: its caption (wrapped), then its panels
    side by side while they fit :data:`MAX_W`, the rest below; return its width and height."""
    caption = _wrap(frame.caption)
    for i, line in enumerate(caption):
        out.append(f'<text x="{x0}" y="{y0 + 14 + i * 16}" class="caption">{html.escape(line)}</text>')
    top = y0 + 16 * len(caption) + 4
    x, y, line_h, width = x0, top, 0, max((7 * len(line) for line in caption), default=0)
    for panel in frame.panels:
        w, h = _panel_size(panel)
        if x > x0 and x + w > x0 + MAX_W:  # a new line of panels
            x, y, line_h = x0, y + line_h + 6, 0
        out.append(f'<text x="{x}" y="{y + 12}" class="title">{html.escape(panel.title)}</text>')
        for i, row in enumerate(panel.rows):
            ry = y + TITLE_H + i * (CELL_H + GAP)
            out.append(f'<text x="{x}" y="{ry + 16}" class="label">{html.escape(row.label)}</text>')
            for j, cell in enumerate(row.cells):
                cx = x + LABEL_W + j * (CELL_W + GAP)
                cls = f"cell {cell.mark}".strip()
                out.append(
                    f'<rect x="{cx}" y="{ry}" width="{CELL_W}" height="{CELL_H}" class="{cls}" '
                    f'fill="{colour(cell.key, nkeys)}"/>'
                )
                if cell.text:
                    text = html.escape(cell.text)
                    out.append(f'<text x="{cx + CELL_W / 2:g}" y="{ry + 16}" class="v">{text}</text>')
        x += w + 28
        line_h = max(line_h, h)
        width = max(width, x - 28 - x0)
    return width, y + line_h - y0


_STYLE = (
    "text{font-family:sans-serif;font-size:12px;fill:#222}"
    ".caption{font-size:13px;font-style:italic}.title{font-weight:bold}.label{fill:#555}"
    ".v{text-anchor:middle}.cell{stroke:#888;stroke-width:1}.cell.new{stroke:#000;stroke-width:2}"
    ".cell.undef{stroke-dasharray:3,2;fill:#f4f4f4}.cell.off{opacity:.35}"
)


def svg(frames: list[_models.Frame], title: str) -> str:
    """One SVG of ``frames``, one under the other."""
    nkeys = _nkeys(frames)
    parts: list[str] = []
    y, width = 4, 0
    for frame in frames:
        w, h = frame_svg(frame, nkeys, 4, y, parts)
        y += h + 16
        width = max(width, w)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width + 8}" height="{y}" '
        f'viewBox="0 0 {width + 8} {y}" role="img" aria-label="{html.escape(title)}">'
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style>" + "".join(parts) + "</svg>"
    )


def choice_of(explorer: _models.Explorer, given: dict[str, str]) -> dict[str, Any]:
    """The explorer's default choice with ``given`` (option texts) changed."""
    choice = explorer.default()
    for p in explorer.params:
        if p.name in given:
            matches = [o for o in p.options if _models.option_text(o) == given[p.name]]
            if not matches:
                raise ValueError(f"{explorer.name}: {p.name}={given[p.name]} is not one of {p.options}")
            choice[p.name] = matches[0]
    unknown = set(given) - {p.name for p in explorer.params}
    if unknown or not explorer.valid(**choice):
        raise ValueError(f"{explorer.name}: not a choice of its controls: {given}")
    return choice


def diagram(name: str, given: dict[str, str] | None = None, which: str = "ends") -> str:
    """The SVG of explorer ``name``'s choice: its first and last frames, or ``all``."""
    explorer = _models.BY_NAME[name]
    choice = choice_of(explorer, given or {})
    frames = explorer.frames(**choice)
    if which != "all" and len(frames) > 2:
        frames = [frames[0], frames[-1]]
    what = ", ".join(f"{k}={_models.option_text(v)}" for k, v in choice.items())
    return svg(frames, f"{explorer.title} ({what})")


# --- Sphinx ------------------------------------------------------------------------------------------


def _parse_choice(text: str) -> dict[str, str]:
    return dict(item.split("=", 1) for item in text.split())


class ExplorerDirective(Directive):
    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        name = self.arguments[0]
        if name not in _models.BY_NAME:
            raise self.error(f"coop-explorer: no explorer {name!r} (known: {', '.join(_models.BY_NAME)})")
        explorer = _models.BY_NAME[name]
        data = json.dumps(explorer_json(explorer), separators=(",", ":")).replace("</", "<\\/")
        body = (
            f'<figure class="coop-explorer" id="explorer-{name}" data-explorer="{name}">'
            f'<div class="coop-static">{diagram(name)}</div>'
            f'<script type="application/json" class="coop-data">{data}</script>'
            f"<figcaption><b>{html.escape(explorer.title)}</b>: {html.escape(explorer.summary)} "
            '<span class="coop-hint">(With JavaScript: pick the controls and step through the '
            "frames.)</span></figcaption></figure>"
        )
        return [nodes.raw("", body, format="html")]


class DiagramDirective(Directive):
    required_arguments = 1
    option_spec = {"choice": directives.unchanged, "frames": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        name = self.arguments[0]
        if name not in _models.BY_NAME:
            raise self.error(f"coop-diagram: no explorer {name!r}")
        try:
            picture = diagram(
                name, _parse_choice(self.options.get("choice", "")), self.options.get("frames", "ends")
            )
        except ValueError as exc:
            raise self.error(str(exc)) from exc
        return [nodes.raw("", f'<div class="coop-diagram">{picture}</div>', format="html")]


@functools.cache
def _plots() -> Any:
    """``benchmarks/plots.py``, imported from the checkout (it is not part of the package), once."""
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "plots.py"
    spec = importlib.util.spec_from_file_location("coop_benchmark_plots", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


class PlotDirective(Directive):
    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        plots = _plots()
        name = self.arguments[0]
        if name not in plots.BY_NAME:
            raise self.error(f"coop-plot: no plot {name!r} (known: {', '.join(plots.BY_NAME)})")
        picture = plots.render(plots.BY_NAME[name])
        picture = picture[picture.index("<svg") :]  # inline: no XML prologue
        source = f"benchmarks/logs/{plots.BY_NAME[name].file}"
        return [
            nodes.raw(
                "",
                f'<figure class="coop-plot" id="plot-{name}">{picture}<figcaption>From '
                f"<code>{html.escape(source)}</code>; the ratio over each coop bar is to CUB C++ (to torch "
                "where the plot has no CUB bar)."
                "</figcaption></figure>",
                format="html",
            )
        ]


def setup(app: Any) -> dict[str, Any]:
    app.add_directive("coop-explorer", ExplorerDirective)
    app.add_directive("coop-diagram", DiagramDirective)
    app.add_directive("coop-plot", PlotDirective)
    app.add_js_file("coop_explorer.js")
    app.add_css_file("coop_explorer.css")
    return {"parallel_read_safe": True, "parallel_write_safe": True}


if __name__ == "__main__":
    out, name, *rest = sys.argv[1:]
    given = _parse_choice(" ".join(rest))
    which = given.pop("frames", "ends")
    Path(out).write_text(diagram(name, given, which) + "\n")
