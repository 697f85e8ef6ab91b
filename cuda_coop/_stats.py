# SPDX-License-Identifier: Apache-2.0
"""Process-wide compile counters, so that callers and tests can see what the pipeline did."""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace

__all__ = ["CompileStats", "compile_stats"]


@dataclass(frozen=True)
class CompileStats:
    """A snapshot of the bundle pipeline's counters since the process started.

    Attributes:
        nvrtc_compiles: NVRTC compiles of units of requests, each of which parses CUB (one per kernel
            with requests that no cached unit has; none for a kernel whose requests were all
            compiled before, in any kernel).
        cache_hits: units and glues read back from the disk cache.
        cache_rebuilds: cache entries found corrupt or truncated and rebuilt.
        nvrtc_seconds: wall time spent inside NVRTC for units of requests.
        pch_creates: NVRTC precompiled headers of CUB's configuration this process made (at most one
            per architecture, while compiling its second unit; none with ``$CUDA_COOP_PCH=0``).
        pch_uses: units compiled with that precompiled header (about 0.5 s each instead of 1.3 s).
        glue_compiles: NVRTC compiles of a kernel's glue (its shared memory and accessors: no CUB,
            tens of milliseconds), for each kernel whose glue is not in the cache.
        glue_seconds: wall time spent inside NVRTC for glues.
        links: nvJitLink invocations for kernels compiled through cuda.coop (none when the linked
            kernel is read back from the cache).
        link_cache_hits: linked kernels read back from the disk cache.
        link_seconds: wall time spent inside nvJitLink.
    """

    nvrtc_compiles: int = 0
    cache_hits: int = 0
    cache_rebuilds: int = 0
    nvrtc_seconds: float = 0.0
    pch_creates: int = 0
    pch_uses: int = 0
    glue_compiles: int = 0
    glue_seconds: float = 0.0
    links: int = 0
    link_cache_hits: int = 0
    link_seconds: float = 0.0


_lock = threading.Lock()
_current = CompileStats()


def compile_stats() -> CompileStats:
    """Return the current counters (an immutable snapshot; compare two to measure a span)."""
    return _current


def _bump(**delta: float) -> None:
    global _current
    with _lock:
        _current = replace(
            _current,
            **{k: getattr(_current, k) + v for k, v in delta.items()},  # type: ignore[arg-type]
        )
