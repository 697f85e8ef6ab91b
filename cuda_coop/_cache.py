# SPDX-License-Identifier: Apache-2.0
"""The disk cache of compiled bundles and linked kernels.

Its guarantees (documented in docs/concepts.rst, "Bundle and cache"):

* **Never a wrong answer.** An entry ends with the SHA-256 of every byte before it (header,
  metadata and payload), and carries its own key. An entry that fails either check, or whose
  metadata does not parse, is rebuilt (``compile_stats().cache_rebuilds``), never trusted.
* **Never a failed compile.** Whatever goes wrong around it (no home directory, a directory that
  cannot be created or written, a full disk, an entry path that is a directory, a lock held too
  long by a stopped process) the compile goes on without the cache, with one
  :class:`~cuda.coop.CoopCacheWarning` per directory and reason.
* **Never a mess.** Entries are published atomically (temporary file, rename; no fsync: an entry
  torn by a crash fails its checksum and is rebuilt, so a write costs no disk flush); temporary
  files left by killed publishers are removed; the size is capped, least recently used first.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

from ._errors import CoopCacheWarning

SCHEMA_VERSION = 2
_MAGIC = b"COOPBND2"
_DIGEST_BYTES = 32
#: Temporary files older than this are left by a killed publisher (a publish takes well under 1 s).
STALE_TMP_SECONDS = 600
#: After this long waiting for another process's lock, say so.
LOCK_NOTICE_SECONDS = 5.0
#: After this long (``$CUDA_COOP_CACHE_LOCK_TIMEOUT``), compile without the lock.
DEFAULT_LOCK_TIMEOUT = 120.0
#: Size cap of the cache (``$CUDA_COOP_CACHE_MAX_BYTES``); eviction goes down to 80% of it.
DEFAULT_MAX_BYTES = 2 << 30

_warned: set[str] = set()
_swept: set[str] = set()
_written: dict[str, int] = {}  # bytes written per cache directory since its size was last checked
_lock = threading.Lock()


def _warn(where: object, reason: str) -> None:
    """One CoopCacheWarning per directory (the first reason found)."""
    with _lock:
        if str(where) in _warned:
            return
        _warned.add(str(where))
    warnings.warn(
        f"cuda.coop: the bundle cache in {where} is not used ({reason}); compiling without it",
        CoopCacheWarning,
        stacklevel=4,
    )


def _reason(exc: OSError) -> str:
    """The error, and the path it concerns (the target of a rename, not its temporary file)."""
    path = exc.filename2 or exc.filename
    if isinstance(path, str) and path.endswith(".tmp"):
        path = os.path.dirname(path)
    return f"{type(exc).__name__}: {exc.strerror or exc}" + (f" ({path})" if path else "")


def cache_dir() -> Path | None:
    """``$CUDA_COOP_CACHE_DIR``, else the platform's user cache directory + ``cuda-coop``; None when
    neither exists (no home directory), with a warning."""
    env = os.environ.get("CUDA_COOP_CACHE_DIR")
    if env:
        return Path(env)
    try:
        if sys.platform == "win32":
            base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
        elif sys.platform == "darwin":
            base = Path.home() / "Library" / "Caches"
        else:
            base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    except (RuntimeError, KeyError) as exc:  # Path.home() without HOME or a passwd entry
        _warn("the user cache directory", f"no home directory: {exc}; set CUDA_COOP_CACHE_DIR")
        return None
    return base / "cuda-coop"


def _subdir(name: str, create: bool) -> Path | None:
    root = cache_dir()
    if root is None:
        return None
    path = root / name
    if create:
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            hint = "; check CUDA_COOP_CACHE_DIR" if os.environ.get("CUDA_COOP_CACHE_DIR") else ""
            _warn(root, _reason(exc) + hint)
            return None
    return path


def cache_key(**parts: object) -> str:
    """SHA-256 of the schema version and the given parts (order-independent, JSON-normalised)."""
    blob = json.dumps({"schema": SCHEMA_VERSION, **parts}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def _entry(key: str) -> Path | None:
    d = _subdir("bundles", create=False)
    return None if d is None else d / f"{key}.bin"


def _decode(blob: bytes, key: str) -> tuple[dict[str, object], bytes] | None:
    """The entry's (metadata, payload) if every byte checks out, else None."""
    if len(blob) < len(_MAGIC) + 8 + _DIGEST_BYTES or blob[: len(_MAGIC)] != _MAGIC:
        return None
    body, digest = blob[:-_DIGEST_BYTES], blob[-_DIGEST_BYTES:]
    if hashlib.sha256(body).digest() != digest:
        return None
    head_len = int.from_bytes(body[len(_MAGIC) : len(_MAGIC) + 8], "little")
    start = len(_MAGIC) + 8
    try:
        meta = json.loads(body[start : start + head_len])
    except (ValueError, UnicodeDecodeError):
        return None
    payload = body[start + head_len :]
    if not isinstance(meta, dict) or meta.get("key") != key or meta.get("payload_bytes") != len(payload):
        return None
    return meta, payload


def read(key: str) -> tuple[dict[str, object], bytes] | None:
    """The entry ``key`` as (metadata, payload), or None if absent or not intact. A hit counts as a
    use for the least-recently-used eviction."""
    path = _entry(key)
    if path is None:
        return None
    try:
        blob = path.read_bytes()
    except OSError:
        return None
    hit = _decode(blob, key)
    if hit is not None:
        with contextlib.suppress(OSError):
            os.utime(path)
    return hit


def exists(key: str) -> bool:
    """Whether something (intact or not) is at entry ``key``'s path."""
    path = _entry(key)
    return path is not None and path.exists()


@functools.cache
def _file_mode() -> int:
    """What ``open()`` would give a new file: 0o666 less the umask (``mkstemp`` gives 0o600, which
    would keep other users of a shared cache from reading entries)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write(key: str, meta: dict[str, object], payload: bytes) -> bool:
    """Publish an entry atomically; False (and a warning) if the cache cannot take it."""
    d = _subdir("bundles", create=True)
    if d is None:
        return False
    head = json.dumps({**meta, "key": key, "payload_bytes": len(payload)}, sort_keys=True).encode()
    body = _MAGIC + len(head).to_bytes(8, "little") + head + payload
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=d, prefix=f".{key[:16]}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), _file_mode())
            f.write(body + hashlib.sha256(body).digest())
        os.replace(tmp, d / f"{key}.bin")
        tmp = None
    except OSError as exc:
        _warn(d.parent, _reason(exc))
        return False
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    _sweep_stale(d)
    _enforce_cap(d.parent, len(body) + _DIGEST_BYTES)
    return True


def _sweep_stale(bundles: Path) -> None:
    """Remove temporary files of killed publishers (once per process and directory)."""
    with _lock:
        if str(bundles) in _swept:
            return
        _swept.add(str(bundles))
    cutoff = time.time() - STALE_TMP_SECONDS
    for path in bundles.glob(".*.tmp"):
        with contextlib.suppress(OSError):
            if path.stat().st_mtime < cutoff:
                path.unlink()


def max_bytes() -> int:
    """The size cap: ``$CUDA_COOP_CACHE_MAX_BYTES`` or 2 GiB."""
    value = os.environ.get("CUDA_COOP_CACHE_MAX_BYTES")
    try:
        return int(value) if value else DEFAULT_MAX_BYTES
    except ValueError:
        _warn("CUDA_COOP_CACHE_MAX_BYTES", f"not a number of bytes: {value!r}; using {DEFAULT_MAX_BYTES}")
        return DEFAULT_MAX_BYTES


def list_entries(root: Path) -> list[tuple[float, int, Path]]:
    """(last use, size, path) of every entry and kept source under the cache directory ``root``."""
    out = []
    for sub, suffix in (("bundles", ".bin"), ("sources", ".cu")):
        with contextlib.suppress(OSError):
            for e in os.scandir(root / sub):
                if e.name.endswith(suffix) and not e.name.startswith("."):
                    with contextlib.suppress(OSError):
                        st = e.stat()
                        out.append((st.st_mtime, st.st_size, Path(e.path)))
    return out


def _enforce_cap(root: Path, written: int) -> None:
    """Evict least recently used entries (and their sources) down to 80% of the cap: checked at a
    process's first write and then each time it has written 1/64 of the cap (so that a write does
    not list a large cache; the cap is exceeded by at most that much per process)."""
    cap = max_bytes()
    with _lock:
        since = _written.get(str(root))
        if since is not None and since + written < cap // 64:
            _written[str(root)] = since + written
            return
        _written[str(root)] = 0
    entries = list_entries(root)
    total = sum(size for _t, size, _p in entries)
    if total <= cap:
        return
    for _t, size, path in sorted(entries):
        if total <= 0.8 * cap:
            break
        with contextlib.suppress(OSError):
            path.unlink()
            total -= size


def _lock_timeout() -> float:
    value = os.environ.get("CUDA_COOP_CACHE_LOCK_TIMEOUT")
    try:
        return float(value) if value else DEFAULT_LOCK_TIMEOUT
    except ValueError:
        return DEFAULT_LOCK_TIMEOUT


def _open_lock(path: Path) -> tuple[object | None, str]:
    """The lock file, opened (another user's may be read-only: a lock only needs a descriptor),
    or None and why not."""
    reason = ""
    for mode in ("a+b", "rb"):
        try:
            return open(path, mode), ""  # noqa: SIM115 - closed by the caller
        except OSError as exc:
            reason = reason or _reason(exc)
    return None, reason


def _try_lock(f: object) -> bool:
    fileno = f.fileno()  # type: ignore[attr-defined]
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        import msvcrt

        try:
            msvcrt.locking(fileno, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fileno, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _unlock(f: object) -> None:
    fileno = f.fileno()  # type: ignore[attr-defined]
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        import msvcrt

        msvcrt.locking(fileno, msvcrt.LK_UNLCK, 1)
    else:
        import fcntl

        fcntl.flock(fileno, fcntl.LOCK_UN)


@contextlib.contextmanager
def locked(key: str) -> Iterator[None]:
    """Hold the inter-process lock for building entry ``key`` while the block runs, if it can be
    had: a missing or unusable lock directory, or a holder that keeps it past the timeout (a
    stopped process), lets the block run without it (publishing stays atomic)."""
    d = _subdir("locks", create=True)
    f, reason = (None, "") if d is None else _open_lock(d / f"{key}.lock")
    if f is None:
        if d is not None:
            _warn(d.parent, reason)
        yield
        return
    with f:  # type: ignore[attr-defined]
        start, delay, noticed = time.monotonic(), 0.01, False
        timeout = _lock_timeout()
        while not _try_lock(f):
            waited = time.monotonic() - start
            if waited > timeout:
                _warn(d, f"the lock of bundle {key[:16]} was held more than {timeout:.0f} s")  # type: ignore[union-attr]
                yield
                return
            if waited > LOCK_NOTICE_SECONDS and not noticed:
                noticed = True
                warnings.warn(
                    f"cuda.coop: waiting for another process that builds the same bundle "
                    f"({d}/{key}.lock); after {timeout:.0f} s (CUDA_COOP_CACHE_LOCK_TIMEOUT) this "
                    "compile goes on without it",
                    CoopCacheWarning,
                    stacklevel=3,
                )
            time.sleep(delay)
            delay = min(delay * 2, 0.5)
        try:
            yield
        finally:
            _unlock(f)


def save_source(key: str, source: str) -> str:
    """Keep the generated source of entry ``key`` for inspection; its path (in the cache, else in
    the system's temporary directory). Never raises."""
    for directory in (_subdir("sources", create=True), Path(tempfile.gettempdir())):
        if directory is None:
            continue
        path = directory / (f"{key}.cu" if directory.name == "sources" else f"cuda-coop-{key}.cu")
        try:
            path.write_text(source)
            return str(path)
        except OSError:
            continue
    return "<the generated source could not be written anywhere>"


def source_path(key: str) -> Path | None:
    """Where the generated source of entry ``key`` is kept, if the cache has a directory."""
    d = _subdir("sources", create=False)
    return None if d is None else d / f"{key}.cu"


def clear() -> int:
    """Remove every entry, kept source, lock file and temporary file; the number removed."""
    root = cache_dir()
    removed = 0
    if root is None:
        return 0
    for sub, pattern in (
        ("bundles", "*.bin"),
        ("bundles", ".*.tmp"),
        ("sources", "*.cu"),
        ("locks", "*.lock"),
    ):
        for path in (root / sub).glob(pattern):
            with contextlib.suppress(OSError):
                path.unlink()
                removed += 1
    return removed
