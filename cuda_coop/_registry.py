# SPDX-License-Identifier: Apache-2.0
"""Backend registry: activation (idempotent, transactional) and host-side dispatch."""

from __future__ import annotations

import importlib
import sys
import threading
from typing import Any, Protocol

from ._errors import CoopBackendError, CoopHostCallError, CoopTypeError, call_site

__all__ = ["register", "registered_backends"]

#: backend name -> its package (the qualified namespace); the package's ``_backend`` module is what
#: :func:`register` activates, its ``pip`` extra has the backend's name.
BACKENDS = {"numba": "cuda.coop.numba", "cutlass": "cuda.coop.cutlass", "numba_mlir": "cuda.coop.numba_mlir"}
_MODULES = {name: f"{package}._backend" for name, package in BACKENDS.items()}
_NAMES = " or ".join(repr(name) for name in BACKENDS)


class Backend(Protocol):
    """What a backend module provides to the registry."""

    def activate(self) -> None:
        """Install the backend into its DSL; must undo everything itself if it raises."""

    def intercept(self, qualname: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[bool, Any]:
        """Handle a kernel-side call made from Python while the DSL traces, or return (False, None)."""

    def primitive_added(self, row: Any) -> None:
        """Learn a catalog row added after activation."""


_lock = threading.RLock()
_active: dict[str, Backend] = {}


def register(name: str) -> None:
    """Activate the backend ``name`` (one of :data:`BACKENDS`: ``"numba"``, ``"cutlass"``); idempotent.

    Raises:
        CoopTypeError: ``name`` is not a string.
        CoopBackendError: unknown name, the DSL is not installed, or activation failed; then
            nothing of it stays installed and a later call may try again.
    """
    if not isinstance(name, str):
        raise CoopTypeError(f"register: name must be a backend name, {_NAMES} (one per call), got {name!r}")
    if name not in _MODULES:
        raise CoopBackendError(f"unknown backend {name!r}; known backends: {', '.join(_MODULES)}")
    with _lock:
        if name in _active:
            return
        try:
            module: Any = importlib.import_module(_MODULES[name])
        except ImportError as exc:
            raise CoopBackendError(
                f"backend {name!r} cannot be imported ({exc}); install it with "
                f"pip install 'cuda-coop[{name.replace('_', '-')}]'"
            ) from exc
        try:
            module.activate()
        except CoopBackendError:
            raise
        except Exception as exc:
            raise CoopBackendError(f"backend {name!r} failed to activate: {exc}") from exc
        _active[name] = module


def register_on_import(name: str) -> None:
    """What a backend package does when imported: register, unless ``CUDA_COOP_NO_AUTOREGISTER=1``."""
    import os

    if os.environ.get("CUDA_COOP_NO_AUTOREGISTER") != "1":
        register(name)


def registered_backends() -> tuple[str, ...]:
    """Names of the active backends, in activation order."""
    return tuple(_active)


def host_call(qualname: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Route a kernel-side call made from Python to a tracing backend, or raise. A backend that takes
    it does so at the caller's line (the kernel source a tracing DSL runs), which its errors name."""
    if _active:
        caller = sys._getframe(2)  # the kernel's line: its caller is the stub or ThreadData.__new__
        with call_site(caller.f_code.co_filename, caller.f_lineno):
            for backend in list(_active.values()):
                handled, result = backend.intercept(qualname, args, kwargs)
                if handled:
                    return result
    raise CoopHostCallError(
        f"{qualname} is a kernel-side function: call it inside a kernel compiled by an active "
        f"backend (active: {', '.join(_active) or 'none'}), not on the host"
    )


def primitive_added(row: Any) -> None:
    """Tell the active backends about a catalog row added after their activation."""
    with _lock:
        for backend in _active.values():
            backend.primitive_added(row)
