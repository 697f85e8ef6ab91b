# SPDX-License-Identifier: Apache-2.0
"""Sphinx configuration of the cuda-coop documentation.

Build: ``python -m sphinx -W --keep-going -b html docs docs/_build/html``. autodoc imports
``cuda.coop``, ``cuda.coop.numba``, ``cuda.coop.cutlass`` and ``cuda.coop.numba_mlir``, which needs
the ``docs`` extra but no GPU (where numba-cuda-mlir cannot be installed, Python 3.10, autodoc mocks
it).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import cuda.coop
from cuda.coop._catalog import CHOICES
from cuda.coop._docgen import write as write_generated

# The choice tables and the enums' API entries are generated from the catalog.
write_generated(Path(__file__).parent / "_generated")

project = "cuda-coop"
author = "cuda-coop contributors"
copyright = "cuda-coop contributors"
release = cuda.coop.__version__
version = release

# the diagrams and explorers of how items move (docs/_ext/coop_explorers.py)
sys.path.insert(0, str(Path(__file__).parent / "_ext"))
extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.viewcode", "coop_explorers"]

napoleon_google_docstring = True
napoleon_numpy_docstring = False
autodoc_member_order = "bysource"
# numba-cuda-mlir needs Python >= 3.11: below, its API pages are built from a mock
autodoc_mock_imports = [] if importlib.util.find_spec("numba_cuda_mlir") else ["numba_cuda_mlir"]
autodoc_typehints = "signature"

exclude_patterns = ["_build", "_generated", "_ext"]
html_static_path = ["_static"]
html_theme = "alabaster"
html_theme_options = {"description": "CUB block primitives inside Python GPU kernels"}


#: The choice enums are documented once, by the generated "Choice enums" section; ``automodule``
#: of ``cuda.coop`` skips them (read from the catalog, so a new enum needs no edit here).
_CHOICE_ENUMS = {c.enum_name for c in CHOICES}


def _skip_choice_enums(app: object, what: str, name: str, obj: object, skip: bool, options: object) -> bool:
    return skip or (what == "module" and name in _CHOICE_ENUMS)


def setup(app: object) -> None:
    app.connect("autodoc-skip-member", _skip_choice_enums)  # type: ignore[attr-defined]
