# SPDX-License-Identifier: Apache-2.0
"""Requests: one instantiation of a catalog primitive, frozen, hashable, with a deterministic symbol.

A request is computed once per call site (by :meth:`Primitive.resolve`) and carries everything
the renderer needs: the primitive, the element type, the block dims, the items per thread, the
compile-time choices by name, which optional inputs are present, and where its CUB
``TempStorage`` lives. Only the renderer turns it into C++.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

_UNSAFE = re.compile(r"[^A-Za-z0-9_]")
_MAX_SYMBOL = 160


@dataclass(frozen=True)
class Request:
    """One instantiation of a primitive.

    Attributes:
        primitive: the catalog key, e.g. ``"block.load"``.
        dtype: the element type of the payload (``"int32"``...).
        block_dims: ``(x, y, z)``.
        items_per_thread: items of the payload per thread (1 for a scalar payload).
        options: compile-time values by parameter name, in the row's order: choices
            (``("algorithm", "vectorize")``), operators (``("op", "max")`` or a user operator's
            symbol), element types of secondary items (``("valid_flags", "uint8")``).
        tags: symbol suffixes of what is present or set, in the row's order: optional inputs
            (``"partial"``, ``"oob"``), flags (``"bcast"``), a scalar payload (``"scalar"``).
        caller_temp_storage: its CUB ``TempStorage`` is a caller-owned ``coop.TempStorage``.
        scratch_group: which kernel of the bundle owns its scratch (0 unless several kernels share
            one bundle; only for requests that use scratch).
        cluster_dims: the launch's thread-block cluster ``(x, y, z)``, for a row of the cluster
            scope (None for the others, whatever the launch).
    """

    primitive: str
    dtype: str
    block_dims: tuple[int, int, int]
    items_per_thread: int
    options: tuple[tuple[str, str], ...] = ()
    tags: tuple[str, ...] = ()
    caller_temp_storage: bool = False
    scratch_group: int = 0
    cluster_dims: tuple[int, int, int] | None = None

    def option(self, name: str) -> str | None:
        """The compile-time value recorded for parameter ``name``, or None."""
        return dict(self.options).get(name)

    def has(self, tag: str) -> bool:
        """Whether a tag (an optional input present, a flag set) is in the request."""
        return tag in self.tags

    @property
    def symbol(self) -> str:
        """The extern "C" name of this request's wrapper (deterministic, readable)."""
        x, y, z = self.block_dims
        scope, name = self.primitive.split(".")
        values = "".join(f"_{v}" for _k, v in self.options)
        flags = "".join(f"_{t}" for t in self.tags)
        flags += "_ts" if self.caller_temp_storage else ""
        flags += f"_g{self.scratch_group}" if self.scratch_group else ""
        if self.cluster_dims is not None:
            flags += "_c{}x{}x{}".format(*self.cluster_dims)
        text = f"coop_{scope}_{name}_{self.dtype}{values}_b{x}x{y}x{z}_i{self.items_per_thread}{flags}"
        text = _UNSAFE.sub("_", text)
        if len(text) <= _MAX_SYMBOL:
            return text
        digest = hashlib.sha256(repr(self).encode()).hexdigest()[:16]
        return f"{text[: _MAX_SYMBOL - 17]}_{digest}"
