# SPDX-License-Identifier: Apache-2.0
"""What an ahead-of-time compile of a kernel with coop calls returns, whichever the DSL."""

from __future__ import annotations

from dataclasses import dataclass

from ._errors import CoopValueError
from ._sass import CubinReport, inspect_cubin

__all__ = ["CompiledKernel"]


@dataclass(frozen=True)
class CompiledKernel:
    """The result of :func:`compile`.

    Attributes:
        code: the linked cubin (``output="cubin"``), the linked PTX text as bytes (``"ptx"``),
            or the kernel's own LTO-IR (``"ltoir"``; link it with every object of ``bundle_ltoir``).
        output: which of the three ``code`` is.
        arch: the target, e.g. ``"sm_90a"``.
        block: the block dimensions the coop primitives were specialised for.
        bundle_ltoir: the kernel's CUB bundle as LTO-IR objects, all to be linked with the kernel, in
            this order: the kernel's glue (its shared memory), then units of the primitives'
            wrappers; none if the kernel uses no primitive.
        temp_storage: exact ``(size, alignment)`` of each CUB ``TempStorage`` in the bundle, by
            wrapper symbol (from the bundle's own sizeof/alignof probes).
        cluster: the thread-block cluster the coop primitives were specialised for, or None.
    """

    code: bytes
    output: str
    arch: str
    block: tuple[int, int, int]
    bundle_ltoir: tuple[bytes, ...]
    temp_storage: dict[str, tuple[int, int]]
    cluster: tuple[int, int, int] | None = None

    def inspect(self) -> CubinReport:
        """Registers, shared memory and SASS facts of the cubin (``output="cubin"`` only)."""
        if self.output != "cubin":
            raise CoopValueError(f"inspect() needs output='cubin', this is {self.output!r}")
        return inspect_cubin(self.code)
