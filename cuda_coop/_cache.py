# SPDX-License-Identifier: Apache-2.0
"""Versioned disk cache of compiled bundles: locked, atomically published, verified on read."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

SCHEMA_VERSION = 1
_MAGIC = b"COOPBNDL"


def cache_dir() -> Path:
    """``$CUDA_COOP_CACHE_DIR``, else the platform's user cache dir + ``cuda-coop``."""
    env = os.environ.get("CUDA_COOP_CACHE_DIR")
    if env:
        return Path(env)
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local"))
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "cuda-coop"


def cache_key(**parts: object) -> str:
    """SHA-256 of the schema version and the given parts (order-independent, JSON-normalised)."""
    blob = json.dumps({"schema": SCHEMA_VERSION, **parts}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def _entry(key: str) -> Path:
    return cache_dir() / "bundles" / f"{key}.bin"


def read(key: str) -> tuple[dict[str, object], bytes] | None:
    """The entry ``key`` as (metadata, payload), or None if absent, truncated or corrupt."""
    try:
        blob = _entry(key).read_bytes()
    except OSError:
        return None
    try:
        if blob[:8] != _MAGIC:
            return None
        meta_len = int.from_bytes(blob[8:16], "little")
        meta = json.loads(blob[16 : 16 + meta_len])
        payload = blob[16 + meta_len :]
        if len(payload) != meta["payload_bytes"] or hashlib.sha256(payload).hexdigest() != meta["sha256"]:
            return None
        if meta.get("key") != key:
            return None
        return meta, payload
    except (ValueError, KeyError, TypeError):
        return None


def exists(key: str) -> bool:
    """Whether an entry file (valid or not) is present."""
    return _entry(key).exists()


def write(key: str, meta: dict[str, object], payload: bytes) -> None:
    """Publish an entry atomically (write a temporary file, fsync, rename)."""
    path = _entry(key)
    path.parent.mkdir(parents=True, exist_ok=True)
    full = {**meta, "key": key, "payload_bytes": len(payload), "sha256": hashlib.sha256(payload).hexdigest()}
    head = json.dumps(full, sort_keys=True).encode()
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{key[:16]}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(_MAGIC + len(head).to_bytes(8, "little") + head + payload)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def locked(key: str) -> Iterator[None]:
    """Hold an exclusive inter-process lock for building entry ``key``."""
    lock_path = cache_dir() / "locks" / f"{key}.lock"
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "a+b") as f:
        if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
            import msvcrt

            msvcrt.locking(f.fileno(), msvcrt.LK_LOCK, 1)
            try:
                yield
            finally:
                msvcrt.locking(f.fileno(), msvcrt.LK_UNLCK, 1)
        else:
            import fcntl

            fcntl.flock(f.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(f.fileno(), fcntl.LOCK_UN)


def source_path(key: str) -> Path:
    """Where the generated source of entry ``key`` is kept for inspection."""
    return cache_dir() / "sources" / f"{key}.cu"
