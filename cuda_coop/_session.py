# SPDX-License-Identifier: Apache-2.0
"""Trace sessions (the requests of one kernel) and the compile context that backends push."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass

from ._bundle import Bundle, compile_bundle
from ._errors import CoopValueError
from ._primitives import STATIC_SHARED_LIMIT
from ._render import temp_storage_symbol
from ._requests import BlockTileRequest


class TraceSession:
    """Collects one kernel's provider requests (deduplicated) and compiles them once."""

    def __init__(self) -> None:
        self._requests: dict[BlockTileRequest, None] = {}
        self._kernels: dict[str, int] = {}
        self._slots = 0
        self._bundle: Bundle | None = None

    @property
    def requests(self) -> tuple[BlockTileRequest, ...]:
        """The requests so far, in first-use order."""
        return tuple(self._requests)

    def add(self, request: BlockTileRequest) -> str:
        """Record ``request``; returns the wrapper symbol the kernel must call."""
        if self._bundle is not None:
            raise RuntimeError("trace session already finalized")
        self._requests.setdefault(request)
        return request.symbol

    def scratch_group(self, kernel: str) -> int:
        """The number of ``kernel`` among the kernels of this session, in first-use order (its
        implicit scratch is its own)."""
        return self._kernels.setdefault(kernel, len(self._kernels))

    def new_temp_storage(self) -> str:
        """Allocate one caller-owned shared scratch; returns the symbol of its accessor."""
        self._slots += 1
        return temp_storage_symbol(self._slots - 1)

    def finalize(self, arch: str) -> Bundle:
        """Compile the bundle (once; later calls return the same bundle)."""
        if self._bundle is None:
            bundle = compile_bundle(self.requests, self._slots, arch)
            for symbol, (size, _align) in bundle.temp_storage.items():
                if size > STATIC_SHARED_LIMIT:
                    raise CoopValueError(
                        f"{symbol} needs {size} B of shared scratch, above the {STATIC_SHARED_LIMIT} B "
                        "static limit; use a direct algorithm or fewer items per thread"
                    )
            self._bundle = bundle
        return self._bundle


@dataclass(frozen=True)
class CompileContext:
    """What a backend knows about the kernel being compiled now."""

    block_dims: tuple[int, int, int] | None
    arch: str | None  # None: the current device's


_local = threading.local()


def current_context() -> CompileContext | None:
    """The innermost context pushed on this thread, if any."""
    stack = getattr(_local, "stack", None)
    return stack[-1] if stack else None


@contextlib.contextmanager
def compile_context(block_dims: tuple[int, int, int] | None, arch: str | None) -> Iterator[None]:
    """Push a CompileContext for the duration of a kernel compile (nests; thread-local)."""
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    stack.append(CompileContext(block_dims, arch))
    try:
        yield
    finally:
        stack.pop()
