# SPDX-License-Identifier: Apache-2.0
"""Warp-level cooperative primitives, called inside kernels (``coop.warp.load``, ...).

Each function here is generated from its catalog row; on the host it raises
``CoopHostCallError``, inside a kernel the active backend compiles it.
"""

from __future__ import annotations

from ._catalog import in_scope
from ._kernel_api import make_stub

_ROWS = in_scope("warp")

__all__ = list(_ROWS)

globals().update({name: make_stub(row) for name, row in _ROWS.items()})
