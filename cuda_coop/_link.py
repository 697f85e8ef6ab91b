# SPDX-License-Identifier: Apache-2.0
"""The link step: nvJitLink of a kernel's LTO-IR with its bundle, the output kept in the cache.

nvJitLink 13.5 keeps about as many bytes as its LTO-IR inputs after ``nvJitLinkDestroy`` (measured
with the bare ``cuda.bindings.nvjitlink`` calls, so neither cuda.core nor cuda.coop:
``benchmarks/nvjitlink_leak.py`` reproduces it), so a process grows by about one bundle per link.
Two things bound that:

* a linked output is cached under the digest of its inputs: linking the same kernel again (a
  re-run, another process) reads it back, without the growth or the link's ~60 ms;
* once a process has linked ``$CUDA_COOP_LINK_IN_PROCESS_BYTES`` of LTO-IR itself (4 MiB), its
  further links run in a child process (``_link_worker``), replaced every ``WORKER_LINKS`` links,
  so the memory nvJitLink keeps goes back to the system with it.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import os
import pickle
import queue
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from . import _cache, _link_worker
from ._bundle import library_identity
from ._errors import CoopCompileError
from ._link_worker import library_file
from ._nvshmem import variables_used_flags
from ._stats import _bump

#: nvJitLink input kinds by the names cuda.core (``ObjectCode.code_type``) and Numba use.
_KINDS = {
    "ltoir": "LTOIR",
    "ptx": "PTX",
    "cubin": "CUBIN",
    "fatbin": "FATBIN",
    "object": "OBJECT",
    "o": "OBJECT",
    "library": "LIBRARY",
    "a": "LIBRARY",
    "lib": "LIBRARY",
}

#: LTO-IR a process links itself before it hands links to the worker (about what nvJitLink keeps).
DEFAULT_IN_PROCESS_BYTES = 4 << 20
#: Links one worker runs before it is replaced (bounding what it keeps: ~256 x the LTO-IR).
WORKER_LINKS = 256

_T = TypeVar("_T")
_R = TypeVar("_R")

#: One input of a link: its kind (a key of ``_KINDS``), its bytes and a name for the logs.
Input = tuple[str, bytes, str]


@functools.cache
def nvjitlink_identity() -> str:
    """The nvJitLink library in use, exactly (see :func:`~cuda.coop._bundle.library_identity`)."""
    from cuda.bindings import nvjitlink

    return library_identity("nvJitLink", "nvidia-nvjitlink", nvjitlink.version())


def link_key(inputs: Sequence[tuple[str, bytes]], options: Sequence[str], output: str) -> str:
    """The cache key of a link: the exact nvJitLink, its options, the output kind and the digest of
    each input in order."""
    return _cache.cache_key(
        what="link",
        nvjitlink=nvjitlink_identity(),
        options=list(options),
        output=output,
        inputs=[(kind, hashlib.sha256(data).hexdigest()) for kind, data in inputs],
    )


def cached(key: str, output: str, run: Callable[[], bytes]) -> bytes:
    """The linked output of ``key`` from the cache, else ``run()``'s, published for next time."""
    hit = _cache.read(key)
    if hit is not None and hit[0].get("what") == "link" and hit[0].get("output") == output:
        _bump(link_cache_hits=1)
        return hit[1]
    if _cache.exists(key):
        _bump(cache_rebuilds=1)
    start = time.perf_counter()
    try:
        linked = run()
    finally:
        _bump(links=1, link_seconds=time.perf_counter() - start)
    _cache.write(key, {"what": "link", "output": output}, linked)
    return linked


def link(inputs: Sequence[Input], arch: str, *, output: str = "cubin", options: Sequence[str] = ()) -> bytes:
    """nvJitLink ``-lto`` of ``inputs`` for ``arch`` into a cubin or PTX (``output``), through the
    cache. ``options`` are further nvJitLink options (e.g. ``-nvvm-latest``).

    Raises:
        CoopCompileError: nvJitLink failed (with its log).
    """
    return link_exact(inputs, [f"-arch={arch}", "-lto", *options], output)


def link_exact(inputs: Sequence[Input], options: Sequence[str], output: str) -> bytes:
    """nvJitLink of ``inputs`` with :func:`exact_options` of ``options``, through the cache.

    Raises:
        CoopCompileError: nvJitLink failed (with its log).
    """
    options = exact_options(options, output)
    key = link_key([(kind, data) for kind, data, _name in inputs], options, output)
    return cached(key, output, lambda: _nvjitlink(inputs, options, output))


def exact_options(options: Sequence[str], output: str) -> list[str]:
    """What nvJitLink gets (and the cache key names) for a link with ``options`` into ``output``:
    ``-ptx`` for PTX and, under ``-optimize-unused-variables``, the device variables that NVSHMEM's
    module initialisation writes named as used (``-variables-used=``; see ``_nvshmem``)."""
    options = list(options)
    if output == "ptx" and "-ptx" not in options:
        options.append("-ptx")
    return [*options, *variables_used_flags(options)]


def _nvjitlink(inputs: Sequence[Input], options: list[str], output: str) -> bytes:
    """One nvJitLink run: here while this process has linked less than its budget of LTO-IR
    (``$CUDA_COOP_LINK_IN_PROCESS_BYTES``, default 4 MiB), in the link worker after that."""
    request = ([(_KINDS[kind], data, name) for kind, data, name in inputs], options, output)
    ltoir = sum(len(data) for kind, data, _name in inputs if kind == "ltoir")
    budget = in_process_bytes()
    pool = _pool
    if pool is not None:
        answer = pool.run(request)
    else:
        answer = _worker.run(request) if _linked_here + ltoir > budget else None
    if answer is None:
        answer = _link_worker.link(*request)
        if _count_here(ltoir) > budget // 2:
            _worker.prestart()  # so that the first link past the budget does not wait for it
    if answer[0] == "error":
        raise CoopCompileError(
            f"nvJitLink failed to link {', '.join(name for _k, _d, name in inputs)}: {answer[1]}",
            log=answer[2],
            source_path="<link>",
        )
    return answer[1].rstrip(b"\0") if output == "ptx" else answer[1]


#: LTO-IR bytes linked in this process so far (nvJitLink keeps about as much).
_linked_here = 0
_count_lock = threading.Lock()


def _count_here(ltoir: int) -> int:
    global _linked_here
    with _count_lock:
        _linked_here += ltoir
        return _linked_here


def in_process_bytes() -> int:
    """``$CUDA_COOP_LINK_IN_PROCESS_BYTES`` (LTO-IR a process links itself before it hands links
    to the worker), default 4 MiB; 0 sends every link to the worker."""
    raw = os.environ.get("CUDA_COOP_LINK_IN_PROCESS_BYTES", "")
    try:
        return max(0, int(raw)) if raw else DEFAULT_IN_PROCESS_BYTES
    except ValueError:
        return DEFAULT_IN_PROCESS_BYTES


class _Worker:
    """The one link worker of this process: started when the process has linked half its budget,
    replaced (by a fresh one, started at once) after ``WORKER_LINKS`` links, which returns what
    nvJitLink kept to the system; given up for this process (links then run here, with one
    warning) if it cannot start or dies."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._pid = 0  # the process that started it (a forked child starts its own)
        self._checked = False  # its first answer (nvJitLink version and library) was read
        self._links = 0
        self._broken = False

    def prestart(self) -> None:
        """Start the worker now, if it is not running, without waiting for it."""
        with self._lock:
            if not self._broken and (self._proc is None or self._pid != os.getpid()):
                with contextlib.suppress(OSError, subprocess.SubprocessError):
                    self._spawn()  # a failure shows, with its warning, when the worker is needed

    def run(self, request: tuple[Any, ...]) -> tuple[Any, ...] | None:
        """The worker's answer to ``request``, or None if there is no worker to ask."""
        with self._lock:
            if self._broken:
                return None
            try:
                proc = self._ready()
                assert proc.stdin is not None and proc.stdout is not None
                _link_worker.write_frame(proc.stdin, request)
                answer = _link_worker.read_frame(proc.stdout)
                if answer is None:
                    raise OSError(f"the link worker exited with status {proc.wait()}")
            except (OSError, ValueError, pickle.PickleError, subprocess.SubprocessError) as exc:
                self._give_up(f"{type(exc).__name__}: {exc}")
                return None
            self._links += 1
            if self._links >= WORKER_LINKS:
                self._stop()
                with contextlib.suppress(OSError, subprocess.SubprocessError):
                    self._spawn()
            return answer  # type: ignore[no-any-return]

    def _spawn(self) -> None:
        self._proc = subprocess.Popen(
            [sys.executable, _link_worker.__file__, library_file("nvJitLink") or ""],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            close_fds=True,
        )
        self._pid, self._checked, self._links = os.getpid(), False, 0

    def _ready(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._pid != os.getpid():
            self._spawn()
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        if not self._checked:
            hello = _link_worker.read_frame(proc.stdout)
            ours = _link_worker.library()
            if hello is None or tuple(hello[1:]) != ours:
                got = "nothing" if hello is None else f"nvJitLink {hello[1]} at {hello[2]}"
                mine = f"nvJitLink {ours[0]} at {ours[1]}"
                raise OSError(f"the link worker found {got}; this process uses {mine}")
            self._checked = True
        return proc

    def _stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None and self._pid == os.getpid():
            _reap(proc, kill=False)

    def _give_up(self, reason: str) -> None:
        self._broken = True
        proc, self._proc = self._proc, None
        if proc is not None and self._pid == os.getpid():
            _reap(proc, kill=True)
        warnings.warn(
            f"cuda.coop: the link worker is not available ({reason}); linking in this process, "
            "which keeps about the size of each kernel's LTO-IR (an nvJitLink 13.5 leak)",
            RuntimeWarning,
            stacklevel=6,
        )

    def close(self) -> None:
        with self._lock:
            self._stop()


def _reap(proc: subprocess.Popen[bytes], *, kill: bool) -> None:
    """End a worker: at the end of its input (it exits), or killed; its pipes closed."""
    if kill:
        proc.kill()
    with contextlib.suppress(OSError):
        proc.stdin.close()  # type: ignore[union-attr]
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    proc.stdout.close()  # type: ignore[union-attr]


_worker = _Worker()
atexit.register(_worker.close)


class _Pool:
    """Link workers for links run side by side (:func:`parallel_links`): each link takes a free
    worker, starting one while fewer than ``n`` run (a link that the cache serves starts none), or
    waits for one."""

    def __init__(self, n: int) -> None:
        self._n = n
        self._lock = threading.Lock()
        self._free: queue.SimpleQueue[_Worker] = queue.SimpleQueue()
        self._workers: list[_Worker] = []

    def run(self, request: tuple[Any, ...]) -> tuple[Any, ...] | None:
        """A worker's answer to ``request``, or None (the caller links it itself) if that worker
        cannot start or died (it warns once; the others go on)."""
        try:
            worker = self._free.get_nowait()
        except queue.Empty:
            with self._lock:
                fresh = _Worker() if len(self._workers) < self._n else None
                if fresh is not None:
                    self._workers.append(fresh)
            worker = fresh if fresh is not None else self._free.get()
        try:
            return worker.run(request)
        finally:
            self._free.put(worker)

    def close(self) -> None:
        with self._lock:
            for w in self._workers:
                w.close()


_pool: _Pool | None = None
_pool_lock = threading.Lock()


@contextlib.contextmanager
def parallel_links(n: int) -> Iterator[None]:
    """Within the block, links that miss the cache run in up to ``n`` link worker processes (started
    as links need them): ``n`` at once for threads that link side by side, without this process
    keeping what nvJitLink leaks. ``n`` < 2, or a block inside another: the links run as they would
    without it."""
    global _pool
    with _pool_lock:
        mine = n >= 2 and _pool is None
        if mine:
            _pool = _Pool(n)
    try:
        yield
    finally:
        if mine:
            with _pool_lock:
                pool, _pool = _pool, None
            assert pool is not None
            pool.close()


def side_by_side(fn: Callable[[_T], _R], items: Sequence[_T], processes: int | None = None) -> list[_R]:
    """``fn`` of each of ``items`` in threads, up to ``processes`` (default: one per CPU) at once, their
    links in as many link workers (:func:`parallel_links`): the results in order; the first failure
    in order is raised (the items not started yet are not run)."""
    n = min(len(items), processes or os.cpu_count() or 1)
    if n < 2:
        return [fn(x) for x in items]
    from concurrent.futures import ThreadPoolExecutor

    with parallel_links(n), ThreadPoolExecutor(n, thread_name_prefix="cuda-coop-link") as pool:
        futures = [pool.submit(fn, x) for x in items]
        try:
            return [f.result() for f in futures]
        except BaseException:
            for f in futures:
                f.cancel()
            raise
