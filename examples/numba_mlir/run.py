# SPDX-License-Identifier: Apache-2.0
"""Run a Numba example under numba-cuda-mlir: ``python examples/numba_mlir/run.py
examples/numba/scans.py``.

A coop kernel's source is the same under both Numba DSLs; only its imports name the other one.
This runs the example with ``IMPORTS`` changed and nothing else (``--show`` prints the lines it
changes), so every example of ``examples/numba/`` is also a numba-cuda-mlir example. The test suite
runs each so, on a GPU (executed and verified) and without one (compiled ahead of time).
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

#: Each Numba import and its numba-cuda-mlir spelling (a line that starts with the first, after its
#: indentation, is changed)
IMPORTS = (
    ("import cuda.coop.numba as numba_coop", "import cuda.coop.numba_mlir as numba_coop"),
    ("from numba import cuda", "from numba_cuda_mlir import cuda"),
    ("from numba.cuda import ", "from numba_cuda_mlir.cuda import "),
)


def translate(source: str) -> tuple[str, list[tuple[str, str]]]:
    """``source`` with its Numba imports changed, and the (old, new) lines changed."""
    lines, changed = [], []
    for line in source.splitlines(keepends=True):
        code = line.lstrip()
        indent = line[: len(line) - len(code)]
        for numba, mlir in IMPORTS:
            if code.startswith(numba):
                new = indent + mlir + code[len(numba) :]
                changed.append((line.rstrip("\n"), new.rstrip("\n")))
                line = new
                break
        lines.append(line)
    return "".join(lines), changed


def main(argv: list[str]) -> None:
    show = "--show" in argv
    args = [a for a in argv if a != "--show"]
    if not args:
        sys.exit(f"usage: {sys.argv[0]} [--show] examples/numba/EXAMPLE.py [ARGS...]")
    path = Path(args[0]).resolve()
    source, changed = translate(path.read_text())
    if not changed:
        sys.exit(f"{path}: no Numba import to change (is it a Numba example?)")
    if show:
        for old, new in changed:
            print(f"- {old}\n+ {new}")
        return
    sys.argv = [str(path), *args[1:]]
    sys.path.insert(0, str(path.parent))  # the example's own folder, as when it runs itself
    module = types.ModuleType("__main__")  # the example as the main module, as when it runs itself
    module.__file__ = str(path)
    sys.modules["__main__"] = module
    exec(compile(source, str(path), "exec"), module.__dict__)


if __name__ == "__main__":
    main(sys.argv[1:])
