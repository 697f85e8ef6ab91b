# SPDX-License-Identifier: Apache-2.0
"""Block-wide cooperative primitives, called inside kernels (``coop.block.load``, ...).

Each function here is generated from its catalog row; on the host it raises
``CoopHostCallError``, inside a kernel the active backend compiles it.
"""

from __future__ import annotations

from ._catalog import in_scope
from ._kernel_api import make_stub

_ROWS = in_scope("block")

__all__ = list(_ROWS)

globals().update({name: make_stub(row) for name, row in _ROWS.items()})
