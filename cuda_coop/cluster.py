# SPDX-License-Identifier: Apache-2.0
"""Cluster-wide cooperative primitives (sm_90+), called inside kernels launched with a thread-block
cluster (``coop.cluster.sum``, ...): they combine the items of every block of the cluster.

Each function here is generated from its catalog row; on the host it raises
``CoopHostCallError``, inside a kernel the active backend compiles it.
"""

from __future__ import annotations

from ._catalog import in_scope
from ._kernel_api import make_stub

_ROWS = in_scope("cluster")

__all__ = list(_ROWS)

globals().update({name: make_stub(row) for name, row in _ROWS.items()})
