# SPDX-License-Identifier: Apache-2.0
"""Provider requests: frozen, hashable, every template parameter explicit, deterministic symbol."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class BlockTileRequest:
    """One instantiation of a block tile primitive (``cub::BlockLoad`` / ``cub::BlockStore``).

    Its C ABI is the same for load and store::

        void <symbol>(void* gmem, void* items, int valid_items, const void* oob_default, void* temp)

    ``gmem`` points at the block's tile (``T*``), ``items`` at the thread's ``items_per_thread``
    values, ``oob_default`` at one ``T``; unused arguments are ignored (and vanish with LTO).
    Untyped pointers keep the caller's and the wrapper's LLVM signatures identical, whatever ``T``.

    ``scratch_group`` tells apart the kernels of one bundle that use implicit shared scratch: each
    group gets its own scratch buffer, sized for its own requests (0 for every other request).
    """

    primitive: str
    dtype: str
    block_dims: tuple[int, int, int]
    items_per_thread: int
    algorithm: str
    partial: bool
    oob_default: bool
    caller_temp_storage: bool
    scratch_group: int = 0

    @property
    def symbol(self) -> str:
        """The extern "C" name of this request's wrapper."""
        x, y, z = self.block_dims
        flags = ("_partial" if self.partial else "") + ("_oob" if self.oob_default else "")
        flags += "_ts" if self.caller_temp_storage else ""
        flags += f"_g{self.scratch_group}" if self.scratch_group else ""
        return (
            f"coop_block_{self.primitive}_{self.dtype}_{self.algorithm}"
            f"_b{x}x{y}x{z}_i{self.items_per_thread}{flags}"
        )
