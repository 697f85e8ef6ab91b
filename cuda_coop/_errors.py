# SPDX-License-Identifier: Apache-2.0
"""Error hierarchy: one base, argument errors also subclass the matching built-in."""

from __future__ import annotations

__all__ = [
    "CoopError",
    "CoopTypeError",
    "CoopValueError",
    "CoopBackendError",
    "CoopLaunchConfigError",
    "CoopCompileError",
    "CoopHostCallError",
    "CoopCacheWarning",
]


class CoopError(Exception):
    """Base class of every error raised by cuda.coop."""


class CoopTypeError(CoopError, TypeError):
    """An argument of a coop call has the wrong type (or is not a compile-time constant)."""


class CoopValueError(CoopError, ValueError):
    """An argument of a coop call has a value that is not allowed."""


class CoopBackendError(CoopError, RuntimeError):
    """A backend could not be found, imported or activated."""


class CoopLaunchConfigError(CoopError, ValueError):
    """The block dimensions of a kernel cannot be known or are not allowed."""


class CoopHostCallError(CoopError, RuntimeError):
    """A kernel-side function was called on the host."""


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


class CoopCacheWarning(UserWarning):
    """The bundle cache could not be used for a compile (the compile went on without it), or a
    compile is waiting for another process's lock. The message names the directory and why."""
