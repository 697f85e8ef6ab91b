# SPDX-License-Identifier: Apache-2.0
"""The compile in progress, and the trace session that collects one bundle's requests.

One mechanism serves both backends: :func:`compiling` pushes a :class:`Compile` (a context
variable, so it nests and is private to its thread); the backend reads it while its DSL compiles a
kernel. Numba's front door sets the block dims and arch of the specialisation being compiled; the
CUTLASS bridge sets the session of the ``@cute.jit`` function it compiles.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Hashable, Iterator
from dataclasses import dataclass

from ._bundle import Bundle, compile_bundle
from ._errors import CoopCompileError, CoopValueError
from ._primitive import STATIC_SHARED_LIMIT
from ._render import TempStorageSlot, temp_storage_symbol
from ._requests import Request


class TraceSession:
    """Collects one bundle's requests (deduplicated) and compiles them once."""

    def __init__(self) -> None:
        self._requests: dict[Request, None] = {}
        self._kernels: dict[str, int] = {}
        self._temp_storage: list[TempStorageSlot] = []
        self._temp_storage_keys: dict[object, int] = {}
        self._sites: dict[str, None] = {}
        self._bundle: Bundle | None = None
        self.attached: dict[str, object] = {}  # what a backend keeps with the session, by backend
        self._once: set[Hashable] = set()

    @property
    def requests(self) -> tuple[Request, ...]:
        """The requests so far, in first-use order."""
        return tuple(self._requests)

    def add(self, request: Request, where: str = "") -> str:
        """Record ``request`` (made at call site ``where``); returns the wrapper symbol the kernel
        must call."""
        if self._bundle is not None:
            raise RuntimeError("trace session already finalized")
        self._requests.setdefault(request)
        if where:
            self._sites.setdefault(where)
        return request.symbol

    def first(self, key: Hashable) -> bool:
        """True the first time ``key`` is seen in this session (a backend's once-per-function work,
        such as a kernel prologue's call); the key is held for the session's life."""
        if key in self._once:
            return False
        self._once.add(key)
        return True

    def scratch_group(self, kernel: str) -> int:
        """The number of ``kernel`` among the kernels of this session, in first-use order (its
        scratch is its own)."""
        return self._kernels.setdefault(kernel, len(self._kernels))

    def new_temp_storage(self, group: int = 0, sharing: str = "shared", key: object = None) -> int:
        """Allocate one caller-owned shared scratch for kernel ``group`` (``sharing`` as
        ``coop.TempStorage`` takes it); returns its slot number (the accessor of its base is
        ``temp_storage_symbol(slot)``). A ``key`` already seen returns that slot (one
        ``coop.TempStorage()`` that the DSL lowers more than once)."""
        if key is not None and key in self._temp_storage_keys:
            return self._temp_storage_keys[key]
        self._temp_storage.append(TempStorageSlot(group, exclusive=sharing == "exclusive"))
        slot = len(self._temp_storage) - 1
        if key is not None:
            self._temp_storage_keys[key] = slot
        return slot

    def temp_storage_slot(self, key: object) -> int:
        """The slot allocated for ``key`` by :meth:`new_temp_storage`."""
        return self._temp_storage_keys[key]

    def use_temp_storage(self, slot: int, request: Request) -> str | None:
        """A call of ``request`` uses caller scratch ``slot``: for an exclusive one, the symbol of the
        accessor of this call's own slice; None for a shared one (the call uses its base)."""
        ts = self._temp_storage[slot]
        if not ts.exclusive:
            return None
        self._temp_storage[slot] = ts.using(request.symbol)
        return temp_storage_symbol(slot, len(ts.uses))

    def finalize(self, arch: str) -> Bundle:
        """Compile the bundle (once; later calls return the same bundle)."""
        if self._bundle is None:
            try:
                bundle = compile_bundle(self.requests, tuple(self._temp_storage), arch)
            except CoopCompileError as exc:  # one bundle for the kernel's calls: name them all
                raise exc.at(", ".join(self._sites)) from None
            for symbol, (size, _align) in bundle.temp_storage.items():
                if size > STATIC_SHARED_LIMIT:
                    raise CoopValueError(
                        f"{symbol} needs {size} B of shared scratch, above the {STATIC_SHARED_LIMIT} B "
                        "static limit; use another algorithm, fewer items per thread or a smaller block"
                    )
            self._bundle = bundle
        return self._bundle


@dataclass(frozen=True)
class Compile:
    """What a backend knows of the kernel compile in progress.

    Attributes:
        block_dims: the block the kernel is specialised for (Numba's front door), if known.
        arch: the target architecture (None: the current device's).
        session: the session that collects the requests (the CUTLASS bridge's), if any.
        link_options: extra nvJitLink options the front door asks for (e.g. ``-g`` under
            ``debug=True``).
        cluster_dims: the thread-block cluster the kernel is specialised for (Numba's front door),
            or None for a launch without one.
    """

    block_dims: tuple[int, int, int] | None = None
    arch: str | None = None
    session: TraceSession | None = None
    link_options: tuple[str, ...] = ()
    cluster_dims: tuple[int, int, int] | None = None


_current: contextvars.ContextVar[Compile | None] = contextvars.ContextVar("cuda_coop_compile", default=None)


def current() -> Compile | None:
    """The innermost compile in progress in this context, if any."""
    return _current.get()


@contextlib.contextmanager
def compiling(
    block_dims: tuple[int, int, int] | None = None,
    arch: str | None = None,
    session: TraceSession | None = None,
    link_options: tuple[str, ...] = (),
    cluster_dims: tuple[int, int, int] | None = None,
) -> Iterator[Compile]:
    """Make a :class:`Compile` current for the duration of a kernel compile (nests)."""
    compile_ = Compile(block_dims, arch, session, link_options, cluster_dims)
    token = _current.set(compile_)
    try:
        yield compile_
    finally:
        _current.reset(token)
