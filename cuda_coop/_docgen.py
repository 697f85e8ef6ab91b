# SPDX-License-Identifier: Apache-2.0
"""Generate the catalog-derived parts of the documentation (``docs/conf.py`` calls this).

    python -m cuda.coop._docgen [OUT_DIR]     (default: docs/_generated)

Writes one reStructuredText table per choice (``<EnumName>.rst``), ``enums.rst`` (the API reference
entries of every choice enum) and ``spellings.rst`` (the other spellings of the built-in operators
and comparators), so that the docs list exactly what the catalog and the operator table have.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ._catalog import CHOICES
from ._choices import WIDEST_RUNS, Choices, Option
from ._operators import BUILTIN_COMPARATORS, SPELLINGS


def _notes(option: Option) -> str:
    notes = []
    if option.runs == WIDEST_RUNS:
        notes.append("items striped in runs of 4, 2 or 1 (see above); scalar items only")
    elif option.arrangement != "blocked":
        notes.append(f"items {option.arrangement}")
    if option.scratch:
        notes.append("shared scratch")
    if option.stages_tile:
        notes.append("the whole tile in shared memory (at most 48 KiB)")
    if option.whole_warps:
        notes.append("a block of 32*k threads")
    if option.one_dimensional:
        notes.append("a 1-D block")
    if option.words:
        notes.append(f"items under 4 bytes as 4-byte words (misaligned: as ``{option.words}``)")
    notes += [f"needs ``{name}=``" for name in option.uses]
    notes += [f"takes ``{name}=``" for name in option.allows]
    return "; ".join(notes) or "—"


def choice_table(choices: Choices) -> str:
    """A list-table of the options of ``choices``: name, what it does, what it needs."""
    lines = [
        ".. list-table::",
        "   :header-rows: 1",
        "   :widths: 28 47 25",
        "",
        f"   * - ``{choices.enum_name}``",
        "     - what it does",
        "     - notes",
    ]
    if choices.auto:
        lines += ['   * - ``"auto"``', f"     - {choices.auto_doc}", f'     - as ``"{choices.auto}"``']
    for o in choices.options:
        lines += [f'   * - ``"{o.value}"``', f"     - {o.doc}", f"     - {_notes(o)}"]
    return "\n".join(lines) + "\n"


def spellings_table() -> str:
    """A list-table of the built-in operators and comparators with their other spellings."""
    lines = [
        ".. list-table::",
        "   :header-rows: 1",
        "   :widths: 20 80",
        "",
        "   * - built-in",
        "     - also spelled",
    ]
    for name, texts in SPELLINGS.items():
        kind = " (comparator)" if name in BUILTIN_COMPARATORS else ""
        lines += [f'   * - ``"{name}"``{kind}', f"     - {', '.join(f'``{t}``' for t in texts)}"]
    return "\n".join(lines) + "\n"


def enum_reference() -> str:
    """API reference entries for every choice enum."""
    return "".join(
        f".. autoclass:: cuda.coop.{c.enum_name}\n   :members:\n   :undoc-members:\n   :show-inheritance:\n\n"
        for c in CHOICES
    )


def write(out: Path) -> None:
    """Write the generated files into ``out`` (only those whose text changed)."""
    out.mkdir(parents=True, exist_ok=True)
    files = {f"{c.enum_name}.rst": choice_table(c) for c in CHOICES}
    files["enums.rst"] = enum_reference()
    files["spellings.rst"] = spellings_table()
    for name, text in files.items():
        path = out / name
        if not path.exists() or path.read_text() != text:
            path.write_text(text)


if __name__ == "__main__":
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/_generated"))
