# SPDX-License-Identifier: Apache-2.0
"""Error hierarchy: one base, argument errors also subclass the matching built-in."""

from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Iterator


class CoopError(Exception):
    """Base class of every error raised by cuda.coop.

    Attributes:
        where: ``file:line`` of the coop call in the kernel source that the error is about, when it
            was raised while a kernel compiled (the message then starts with it); else ``""``.
    """

    where: str = ""

    def at(self, where: str) -> CoopError:
        """Name the call site ``where`` first in the message (once; an inner site wins)."""
        if where and not self.where:
            self.where = where
            self.args = (f"{where}: {self.args[0] if self.args else ''}", *self.args[1:])
        return self


class CoopTypeError(CoopError, TypeError):
    """An argument of a coop call has the wrong type (or is not a compile-time constant)."""


class CoopValueError(CoopError, ValueError):
    """An argument of a coop call has a value that is not allowed."""


class CoopBackendError(CoopError, RuntimeError):
    """A backend could not be found, imported or activated."""


class CoopLaunchConfigError(CoopError, ValueError):
    """The block dimensions of a kernel cannot be known or are not allowed."""


class CoopCompileError(CoopError, RuntimeError):
    """NVRTC rejected a generated bundle.

    Attributes:
        log: the compiler log.
        source_path: where the generated C++ source was written, for inspection.
    """

    def __init__(self, message: str, *, log: str, source_path: str) -> None:
        super().__init__(f"{message}\n  generated source: {source_path}\n  NVRTC log:\n{log}")
        self.log = log
        self.source_path = source_path


class CoopHostCallError(CoopError, RuntimeError):
    """A kernel-side function was called on the host."""


class CoopCacheWarning(UserWarning):
    """The bundle cache could not be used for a compile (the compile went on without it), or a
    compile is waiting for another process's lock. The message names the directory and why."""


#: The error classes and the cache warning, in the order they are defined here (``cuda.coop`` exports
#: them in that order).
__all__ = [
    name
    for name, value in dict(globals()).items()
    if isinstance(value, type) and issubclass(value, (CoopError, Warning))
]


def causes(exc: BaseException) -> list[BaseException]:
    """``exc`` and every exception it was raised from or while handling (a DSL may wrap an error
    raised in a backend's hook), each once."""
    seen: list[BaseException] = []
    stack = [exc]
    while stack:
        e = stack.pop()
        if any(e is x for x in seen):
            continue
        seen.append(e)
        stack += [x for x in (e.__cause__, e.__context__) if x is not None]
    return seen


_call_site: contextvars.ContextVar[tuple[str, int] | None] = contextvars.ContextVar(
    "cuda_coop_call_site", default=None
)


def site(filename: str, line: int) -> str:
    """``file:line`` as coop errors show it: relative to the working directory when under it."""
    try:
        rel = os.path.relpath(filename)
    except ValueError:  # another drive
        rel = filename
    return f"{filename if rel.startswith('..') else rel}:{line}"


def current_call_site() -> str:
    """The kernel-source location of the coop call being compiled (``file:line``), or ``""``."""
    where = _call_site.get()
    return site(*where) if where is not None else ""


@contextlib.contextmanager
def call_site(filename: str | None, line: int = 0) -> Iterator[None]:
    """While a backend compiles the call at ``filename:line`` of the kernel source, coop errors it
    raises name it first (formatted only when asked: DSLs type every call of a kernel here)."""
    token = _call_site.set((filename, line) if filename else None)
    try:
        yield
    except CoopError as exc:
        exc.at(current_call_site())
        raise
    finally:
        _call_site.reset(token)


class short_traceback:  # noqa: N801  (used as a context manager, like contextlib's)
    """At a front door: a CoopError from the compile below it is raised with no frames of the DSL's
    or coop's internals (its message names the kernel's line); ``CUDA_COOP_FULL_TRACEBACK=1`` keeps
    them, for debugging cuda.coop itself."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, exc: BaseException | None, tb: object) -> bool:
        if isinstance(exc, CoopError) and not os.environ.get("CUDA_COOP_FULL_TRACEBACK"):
            try:
                raise exc.with_traceback(None) from None
            finally:  # no cycle through this frame: the error is freed when its last user drops it
                del exc, tb
        return False
