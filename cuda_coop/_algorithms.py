# SPDX-License-Identifier: Apache-2.0
"""Algorithm enums of the block tile primitives (strings are accepted wherever they are)."""

from __future__ import annotations

from enum import Enum, EnumMeta

__all__ = ["BlockLoadAlgorithm", "BlockStoreAlgorithm"]


class AlgorithmEnumMeta(EnumMeta):
    """Metaclass of the algorithm enums: lets a DSL recognise them and treat members as the
    compile-time constants they are (``coop.BlockLoadAlgorithm.VECTORIZE`` inside a kernel)."""


class BlockLoadAlgorithm(str, Enum, metaclass=AlgorithmEnumMeta):
    """How ``coop.block.load`` moves a tile from memory into registers (``cub::BlockLoadAlgorithm``).

    Every algorithm but ``STRIPED`` leaves the items in a *blocked* arrangement (thread ``t`` holds
    items ``t*n .. t*n+n-1``); ``STRIPED`` leaves them striped (thread ``t`` holds ``t, t+T, ...``).
    """

    DIRECT = "direct"
    STRIPED = "striped"
    VECTORIZE = "vectorize"
    TRANSPOSE = "transpose"
    WARP_TRANSPOSE = "warp_transpose"
    WARP_TRANSPOSE_TIMESLICED = "warp_transpose_timesliced"


class BlockStoreAlgorithm(str, Enum, metaclass=AlgorithmEnumMeta):
    """How ``coop.block.store`` moves a tile from registers to memory (``cub::BlockStoreAlgorithm``).

    Every algorithm but ``STRIPED`` expects the items in a blocked arrangement; ``STRIPED`` expects
    them striped.
    """

    DIRECT = "direct"
    STRIPED = "striped"
    VECTORIZE = "vectorize"
    TRANSPOSE = "transpose"
    WARP_TRANSPOSE = "warp_transpose"
    WARP_TRANSPOSE_TIMESLICED = "warp_transpose_timesliced"
