# SPDX-License-Identifier: Apache-2.0
"""The cache of compiled bundles and linked kernels: where it is, what it holds, how to empty it.

    python -m cuda.coop.cache info      # directory, entries, bytes used, size cap
    python -m cuda.coop.cache clear     # remove every entry

The cache lives in ``$CUDA_COOP_CACHE_DIR``, else in the user cache directory
(``~/.cache/cuda-coop`` on Linux). Its size is capped by ``$CUDA_COOP_CACHE_MAX_BYTES`` (2 GiB by
default), least recently used entries first. See the documentation's "Bundle and cache".
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from . import _cache

__all__ = ["CacheInfo", "info", "clear"]


@dataclass(frozen=True)
class CacheInfo:
    """What the cache holds.

    Attributes:
        directory: where it is (None when there is none: no home directory and no
            ``CUDA_COOP_CACHE_DIR``).
        entries: compiled bundles and linked kernels in it.
        bytes: bytes used by the entries and the bundles' kept sources.
        max_bytes: the size cap.
    """

    directory: str | None
    entries: int
    bytes: int
    max_bytes: int


def info() -> CacheInfo:
    """Where the cache is and what it holds."""
    root = _cache.cache_dir()
    entries = _cache.list_entries(root) if root is not None else []
    return CacheInfo(
        directory=str(root) if root is not None else None,
        entries=sum(1 for _t, _s, path in entries if path.suffix == ".bin"),
        bytes=sum(size for _t, size, _p in entries),
        max_bytes=_cache.max_bytes(),
    )


def clear() -> int:
    """Remove every entry (bundle or linked kernel), kept source, lock file and leftover temporary
    file; returns how many files were removed. Compiles running meanwhile are unaffected (entries
    are recompiled)."""
    return _cache.clear()


def main(argv: list[str]) -> int:
    if argv == ["info"]:
        i = info()
        print(f"directory: {i.directory or '(none)'}")
        print(f"entries: {i.entries}")
        print(f"bytes: {i.bytes} of at most {i.max_bytes}")
        return 0
    if argv == ["clear"]:
        print(f"removed {clear()} files from {info().directory or '(no cache directory)'}")
        return 0
    print("usage: python -m cuda.coop.cache info|clear", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
