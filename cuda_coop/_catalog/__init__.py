# SPDX-License-Identifier: Apache-2.0
"""The catalog: one row per primitive, one module per family of rows. Everything public about a
primitive is derived from its row (the host stub and its docs, ``coop.block.__all__``, the enums,
``stubs/``, the Numba typing and lowering, the CuTe trace-time handler, the C++ wrapper); nothing
else restates it.

A family module (``load_store``, ``reduce``, ``warp``, ...) declares its rows, each with ``family=``
the module's name, lists them in ``ROWS`` in the order they are documented and its choice tables in
``CHOICES``; ``_common`` holds what several families share. This package composes ``CATALOG`` and
``CHOICES`` from the families, in the order of ``FAMILIES``, and nothing else lists them.

To add a primitive, add a row to its family (and its tests). See ``docs/contributing.rst``.
"""

from __future__ import annotations

from types import ModuleType

from .._primitive import Primitive
from . import (
    _common,
    cluster,
    exchange,
    grid,
    histogram,
    load_store,
    neighbours,
    rank,
    reduce,
    run_length,
    scan,
    sort,
    warp,
)

#: The family modules by name (a row's ``family``), in the order their rows are documented: the
#: API reference, ``coop.<scope>.__all__`` and the stubs list them so.
FAMILIES: dict[str, ModuleType] = {
    module.__name__.rpartition(".")[2]: module
    for module in (
        load_store,
        exchange,
        reduce,
        scan,
        sort,
        neighbours,
        histogram,
        run_length,
        rank,
        warp,
        cluster,
        grid,
    )
}

#: Every choice table, in the order their enums are exported: the shared ones, then each family's.
CHOICES = (*_common.CHOICES, *(choices for family in FAMILIES.values() for choices in family.CHOICES))

#: Every primitive, by catalog key (``"block.load"``), in the order they are documented.
CATALOG: dict[str, Primitive] = {row.key: row for family in FAMILIES.values() for row in family.ROWS}

#: The kernel-side namespaces, in the order every package's ``__all__`` lists them (that of the rows).
SCOPES = tuple(dict.fromkeys(row.scope for row in CATALOG.values()))


def in_scope(scope: str) -> dict[str, Primitive]:
    """The primitives of ``scope`` (``"block"``, ``"warp"``, ``"cluster"`` or ``"grid"``), by name."""
    return {p.name: p for p in CATALOG.values() if p.scope == scope}
