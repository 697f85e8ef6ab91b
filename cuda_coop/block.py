# SPDX-License-Identifier: Apache-2.0
"""Block-wide cooperative primitives, called inside kernels: ``coop.block.load``/``store``."""

from __future__ import annotations

from ._kernel_api import make_stub
from ._primitives import LOAD, STORE

__all__ = ["load", "store"]

load = make_stub(LOAD)
store = make_stub(STORE)
