# SPDX-License-Identifier: Apache-2.0
"""Bundle compiler: a kernel's requests -> units of wrappers (NVRTC through cuda.core.Program, one call
for the requests no cached unit has) and the kernel's glue -> LTO-IR objects, cached."""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import importlib.metadata
import io
import os
import re
import shutil
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from . import _cache
from ._errors import CoopCompileError, CoopLaunchConfigError, CoopTypeError, CoopValueError
from ._link_worker import library_file
from ._render import (
    INCLUDE_DIR,
    PCH_PREFIX,
    RenderedRequests,
    TempStorageSlot,
    coop_headers,
    render_glue,
    render_requests,
)
from ._requests import Request
from ._stats import _bump

_ARCH = re.compile(r"^(sm|compute)_(\d\d+)([af]?)$")
_PROBE_MANGLED = re.compile(r"ILy(\d+)ELy(\d+)EE")


#: The most units of requests a kernel links (besides its glue): a kernel whose requests were
#: compiled in more units compiles the rest in a new unit. The Numba DSLs give each kernel this many
#: link items for its bundle, and one for its glue (:data:`BUNDLE_PARTS`).
MAX_UNITS = 3
#: The LTO-IR objects a bundle is at most: its units and its glue.
BUNDLE_PARTS = MAX_UNITS + 1


@dataclass(frozen=True)
class Bundle:
    """A compiled bundle for ``arch``: LTO-IR objects to link with the kernel (the kernel's glue, then
    units of requests' wrappers: LTO lays out shared variables in link order), their cache keys, and
    the exact ``(size, alignment)`` of each request's TempStorage as the kernel lays it out."""

    objects: tuple[bytes, ...]
    arch: str
    keys: tuple[str, ...]
    temp_storage: dict[str, tuple[int, int]]

    def part(self, k: int) -> bytes:
        """Object ``k`` of the bundle, or beyond its last, an empty LTO-IR object (a DSL that links a
        fixed number of objects per kernel links those too)."""
        return self.objects[k] if k < len(self.objects) else _empty_object(self.arch)


def normalize_arch(arch: object, *, what: str = "arch") -> str:
    """``sm_90a`` / ``compute_90a`` / ``90a`` -> ``sm_90a``.

    Raises:
        CoopTypeError: ``arch`` is not a string.
        CoopValueError: it is not a CUDA architecture.
    """
    if not isinstance(arch, str):
        hint = f" (did you mean {what}='sm_{arch}a' or 'sm_{arch}'?)" if isinstance(arch, int) else ""
        raise CoopTypeError(f"{what} must be a string such as 'sm_90a', got {arch!r}{hint}")
    text = arch if arch[:1].isalpha() else f"sm_{arch}"
    m = _ARCH.match(text)
    if not m:
        raise CoopValueError(
            f"{what}={arch!r} is not a CUDA architecture: write 'sm_' and the compute capability's two "
            "or three digits, with 'a' or 'f' for the arch-specific targets, e.g. 'sm_90a' or 'sm_100'"
        )
    return f"sm_{m.group(2)}{m.group(3)}"


def header_manifest(roots: Sequence[str]) -> str:
    """SHA-256 of every file under the include roots: its relative path, size and modification
    time (any change to a header that NVRTC may read changes it)."""
    h = hashlib.sha256()
    for root in roots:
        for directory, _dirs, files in sorted(os.walk(root)):
            for name in sorted(files):
                path = os.path.join(directory, name)
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                h.update(f"{os.path.relpath(path, root)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def library_identity(lib: str, wheel: str, version: Sequence[int]) -> str:
    """A CUDA library exactly: its API version, the version of the wheel that ships it (e.g.
    13.5.37) and the library file loaded (its real path, size, modification time), so that a toolkit
    install or a swapped library changes it too."""
    try:
        wheel_version = importlib.metadata.version(wheel)
    except importlib.metadata.PackageNotFoundError:
        wheel_version = "no wheel"
    path = library_file(lib)
    try:
        st = os.stat(path) if path else None
    except OSError:
        st = None
    where = f"{os.path.realpath(path)}:{st.st_size}:{st.st_mtime_ns}" if path and st else "unknown"
    return f"{lib} {'.'.join(map(str, version))} ({wheel_version}; {where})"


@functools.cache
def nvrtc_version() -> tuple[int, int]:
    """NVRTC's (major, minor) version."""
    from cuda.bindings import nvrtc

    _err, major, minor = nvrtc.nvrtcVersion()
    return (major, minor)


def _nvrtc_identity() -> str:
    return library_identity("nvrtc", "nvidia-cuda-nvrtc", nvrtc_version())


#: The modules whose code decides what C++ a request's symbol stands for (an index entry maps a
#: symbol to the unit that defines it, so a change here must miss the index: another cuda-coop):
#: every module of the catalog and kinds packages among them, with coop's headers
#: (``_render.coop_headers``).
_RENDERING = (
    "_render.py",
    *sorted(f"_catalog/{p.name}" for p in (Path(__file__).parent / "_catalog").glob("*.py")),
    *sorted(f"_kinds/{p.name}" for p in (Path(__file__).parent / "_kinds").glob("*.py")),
    "_primitive.py",
    "_requests.py",
    "_dtypes.py",
    "_operators.py",
)


@functools.cache
def renderer_fingerprint() -> str:
    """A digest of the code that renders requests (see ``_RENDERING``) and of coop's headers."""
    from pathlib import Path

    here = Path(__file__).parent
    digest = hashlib.sha256()
    for name in _RENDERING:
        digest.update((here / name).read_bytes())
    digest.update(coop_headers_digest().encode())
    return digest.hexdigest()[:32]


@functools.cache
def coop_headers_digest() -> str:
    """SHA-256 of coop's headers (``include/coop/*.cuh``): their names and bytes."""
    digest = hashlib.sha256()
    for path in coop_headers():
        digest.update(f"{path.name}\0{path.stat().st_size}\0".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


@functools.cache
def _toolchain() -> dict[str, object]:
    """Include paths (CCCL's, then coop's own: ``#include <coop/...>``), the exact NVRTC, the CCCL
    version, a manifest of the headers and the digest of coop's: what enters every cache key besides
    the source and the options."""
    from cuda.cccl import get_include_paths

    paths = get_include_paths()
    include = tuple(dict.fromkeys(str(p) for p in (paths.cub, paths.cuda, INCLUDE_DIR) if p is not None))
    return {
        "include_path": include,
        "cccl": importlib.metadata.version("cuda-cccl"),
        "nvrtc": _nvrtc_identity(),
        "headers": header_manifest(include),
        "coop": coop_headers_digest(),
    }


#: The first NVRTC known to compile the bundle without ``-default-device`` (see :func:`_options`).
DEVICE_LAMBDAS_NVRTC = (13, 5)


def _options(arch: str) -> dict[str, object]:
    """The NVRTC options of a bundle for ``arch``.

    ``-default-device`` only where NVRTC needs it: CCCL 3.6 passes unannotated lambdas to
    ``cuda::static_for`` (WarpReduceBatched), which NVRTC 13.0 takes for host functions and refuses
    ("host functions are not allowed in JIT mode"); 13.5 does not. Under the option every
    ``static constexpr`` member that CCCL's headers instantiate (``numeric_limits``,
    ``integral_constant::value``, ...) becomes a ``__device__`` variable that ``-rdc`` keeps (1,314
    in the PTX of a block load + scan + store bundle, 533 without), and every kernel's link reads
    them all: without it that bundle is 126 KB of LTO-IR instead of 198 KB and nvJitLink links the
    kernel in 62 ms instead of 78 ms (2 CPU cores), to the same SASS (issue 21: all 159 kernels of
    the ahead-of-time tests, both DSLs, instruction for instruction). ``-gen-opt-lto`` would shrink
    it further (98 KB, 43 ms) but changes the linked code (other unrolling and inlining: the SASS
    of 93 of those kernels, registers up or down), so the bundle stays unoptimised IR.
    """
    tc = _toolchain()
    options: dict[str, object] = {
        "arch": arch,
        "std": "c++17",
        "include_path": tc["include_path"],
        "link_time_optimization": True,
        "relocatable_device_code": True,
    }
    if nvrtc_version() < DEVICE_LAMBDAS_NVRTC:
        options["device_as_default_execution_space"] = True
    return options


def bundle_key(rendered: RenderedRequests, options: dict[str, object]) -> str:
    """The cache key of a unit (or a glue): its source, the NVRTC options, the exact NVRTC, the CCCL
    version, a manifest of the headers and the bytes of coop's (which the source includes by name),
    and the probes it reads back."""
    tc = _toolchain()
    return _cache.cache_key(
        source=rendered.source,
        options=sorted(options.items()),
        cccl=tc["cccl"],
        nvrtc=tc["nvrtc"],
        headers=tc["headers"],
        coop=tc["coop"],
        probes=sorted(rendered.probes),
    )


def _index_key(symbol: str | Sequence[str], options: dict[str, object]) -> str:
    """The cache key of the index entry that names the unit a request's wrapper was compiled in (of
    a symbol), or the units a kernel links (of the sorted symbols of its requests)."""
    tc = _toolchain()
    return _cache.cache_key(
        index=symbol,
        renderer=renderer_fingerprint(),
        options=sorted(options.items()),
        cccl=tc["cccl"],
        nvrtc=tc["nvrtc"],
        headers=tc["headers"],
    )


@dataclass(frozen=True)
class _Unit:
    """A compiled unit: its key, LTO-IR, the symbols it defines, and its requests' probed
    TempStorage ``(size, alignment)``."""

    key: str
    ltoir: bytes
    defines: frozenset[str]
    probed: dict[str, tuple[int, int]]


def compile_bundle(requests: Sequence[Request], temp_storage: Sequence[TempStorageSlot], arch: str) -> Bundle:
    """Compile ``requests`` into LTO-IR objects for ``arch``, through the disk cache.

    Requests compiled before, in any kernel, come from the units they were compiled in (found through
    the cache's index); the others are compiled in one new unit (one NVRTC call that parses CUB).
    The kernel's glue (its shared memory and accessors, sized from the units' probes) is its own small
    unit, without CUB. ``temp_storage`` describes each caller-owned ``coop.TempStorage`` (its scratch
    group and, for an exclusive one, the calls that take a slice of it).
    """
    arch = normalize_arch(arch)
    _check_clusters(requests, arch)
    requests = sorted(set(requests), key=lambda r: r.symbol)
    options = _options(arch)
    units = _units(requests, options)
    probed = {s: v for u in units for s, v in u.probed.items()}
    glue = render_glue(requests, temp_storage, probed)
    linked = (_unit(RenderedRequests(glue.source, {}, ()), options, glue=True), *units)
    return Bundle(
        objects=tuple(u.ltoir for u in linked),
        arch=arch,
        keys=tuple(u.key for u in linked),
        temp_storage=glue.temp_storage,
    )


def _units(requests: Sequence[Request], options: dict[str, object]) -> list[_Unit]:
    """The units that define ``requests``: those this same set of requests was given before (the
    kernel's index entry: a warm compile links what the cold one did), else what :func:`_plan`
    chooses, with its new unit compiled (or read back: :func:`prefetch` may have compiled it)."""
    symbols = [r.symbol for r in requests]
    kernel_key = _index_key(symbols, options)
    known = _known(kernel_key, symbols)
    if known is not None:
        return known
    chosen, new, named = _plan(requests, lambda symbol: _indexed(symbol, options))
    units = [u for u in chosen if isinstance(u, _Unit)]
    if new:
        units.append(_unit(render_requests(new), options))
    _publish(kernel_key, new, named, [u.key for u in units], options)
    return units


class _Defines(Protocol):
    key: str
    defines: frozenset[str]


def _plan(
    requests: Sequence[Request], lookup: Callable[[str], tuple[str | None, _Defines | None]]
) -> tuple[list[_Defines], list[Request], dict[str, str | None]]:
    """(the units to reuse, the requests to compile in a new unit, the unit the index named for each
    request looked up). ``lookup(symbol)`` gives the unit the index names for a symbol and that unit
    (None if it is missing or does not define the symbol). A unit is reused where the index names
    one for a request (at most ``MAX_UNITS - 1``, none defining a symbol another chosen one does).
    Cluster rows are compiled with their kernel (its cluster state is sized for the item types of all
    its cluster calls), in units that the index does not name."""
    chosen: dict[str, _Defines] = {}
    defined: set[str] = set()
    named: dict[str, str | None] = {}
    new = []
    for req in requests:
        if req.symbol in defined:
            continue
        unit = None
        if req.cluster_dims is None and len(chosen) < MAX_UNITS - 1:
            named[req.symbol], unit = lookup(req.symbol)
        if unit is None or unit.defines & defined:
            new.append(req)
            continue
        chosen[unit.key] = unit
        defined |= unit.defines
    return list(chosen.values()), new, named


def _publish(
    kernel_key: str,
    new: Sequence[Request],
    named: dict[str, str | None],
    units: Sequence[str],
    options: dict[str, object],
) -> None:
    """Write the index: the new unit (the last of ``units``) for each of its requests the index did
    not name it for (not for cluster rows), and the units of the kernel."""
    if new and all(r.cluster_dims is None for r in new):
        for req in new:
            if named.get(req.symbol) != units[-1]:
                _cache.write(_index_key(req.symbol, options), {"unit": units[-1]}, b"")
    _cache.write(kernel_key, {"units": list(units)}, b"")


@dataclass(frozen=True)
class _Planned:
    """A unit that :func:`prefetch` will compile: its key and the symbols it will define."""

    key: str
    defines: frozenset[str]


def prefetch(kernels: Sequence[Sequence[Request]], arch: str, processes: int | None = None) -> int:
    """Compile, in parallel processes, the units that the kernels whose requests are ``kernels`` need
    and the cache lacks, and index them; a later :func:`compile_bundle` of each reads them back.
    Returns the number of units compiled.

    The kernels lacking an index entry are split, in order, into groups of consecutive kernels (one
    per :data:`KERNELS_PER_UNIT` kernels, at most ``processes``, default one per CPU): a group's
    requests that no unit in the index (or of an earlier group) defines are compiled together
    in one unit, since an NVRTC call costs about the same for the requests of one kernel as for
    those of twenty (the headers and their set-up dominate; ``benchmarks/RESULTS.md``). Then each
    kernel is planned as :func:`compile_bundle` would (at most :data:`MAX_UNITS`), its group's unit
    first; what that leaves (a kernel's cluster rows, or requests beyond its units) is a unit of the
    kernel's own. The units are compiled by worker processes, each one NVRTC call, under the
    cache's locks. Without a cache directory there is nothing to keep them in: none is compiled
    (each kernel compiles its own, one after the other).
    """
    if _cache.cache_dir() is None:
        return 0
    arch = normalize_arch(arch)
    options = _options(arch)
    pending: dict[str, list[Request]] = {}  # kernel key -> its requests, the kernels lacking an entry
    for requests in kernels:
        requests = sorted(set(requests), key=lambda r: r.symbol)
        symbols = [r.symbol for r in requests]
        kernel_key = _index_key(symbols, options)
        if kernel_key not in pending and _known(kernel_key, symbols) is None:
            pending[kernel_key] = requests
    planned: dict[str, _Planned] = {}  # symbol -> a unit planned here
    found: dict[str, tuple[str | None, _Unit | None]] = {}  # symbol -> what the index gave (read once)
    todo: dict[str, RenderedRequests] = {}
    plans = []

    def lookup(symbol: str) -> tuple[str | None, _Defines | None]:
        if symbol in planned:
            return planned[symbol].key, planned[symbol]
        if symbol not in found:  # the index is only written below, after the planning
            found[symbol] = _indexed(symbol, options)
        return found[symbol]

    def plan(rendered: RenderedRequests, requests: Sequence[Request]) -> _Planned:
        unit = _Planned(bundle_key(rendered, options), frozenset(rendered.defines))
        todo.setdefault(unit.key, rendered)
        if all(r.cluster_dims is None for r in requests):
            planned.update(dict.fromkeys((r.symbol for r in requests), unit))
        return unit

    for group in _groups(list(pending.items()), processes):
        shared = sorted(
            {r for _k, reqs in group for r in reqs if r.cluster_dims is None and lookup(r.symbol)[1] is None},
            key=lambda r: r.symbol,
        )
        unit = plan(render_requests(shared), shared) if shared else None
        for kernel_key, requests in group:
            chosen, new, named = _plan(requests, lookup)  # the group's unit is in `planned` now
            keys = [u.key for u in chosen]
            if new:
                keys.append(plan(render_requests(new), new).key)
            plans.append((kernel_key, new, named, keys, unit, shared))
    # an entry there but damaged is rebuilt by the kernel's own compile, as any damaged entry
    todo = {k: r for k, r in todo.items() if not _cache.exists(k)}
    _compile_in_workers(list(todo.values()), arch, options, processes)
    indexed: set[str] = set()
    for kernel_key, new, named, keys, unit, shared in plans:
        if unit is not None and unit.key in keys and unit.key not in indexed:  # the group's requests
            indexed.add(unit.key)
            for req in shared:
                _cache.write(_index_key(req.symbol, options), {"unit": unit.key}, b"")
        _publish(kernel_key, new, named, keys, options)
    return len(todo)


#: The kernels per group that :func:`prefetch` aims at (one unit of their new requests; fewer
#: groups, so more kernels each, where there are fewer CPUs): on the 2-CPU machine one kernel's unit
#: took 1.0-1.3 s (with the PCH), five kernels' 1.35 s, twenty kernels' 1.65 s.
KERNELS_PER_UNIT = 5


def _groups(items: list[Any], processes: int | None) -> list[list[Any]]:
    """``items`` split in order into balanced groups: one per :data:`KERNELS_PER_UNIT` items (rounded
    up), at most ``processes`` (default: one per CPU)."""
    if not items:
        return []
    n = max(1, min(processes or os.cpu_count() or 1, -(-len(items) // KERNELS_PER_UNIT)))
    size, extra = divmod(len(items), n)
    out, at = [], 0
    for k in range(n):
        take = size + (k < extra)
        out.append(items[at : at + take])
        at += take
    return out


def _compile_in_workers(
    units: Sequence[RenderedRequests], arch: str, options: dict[str, object], processes: int | None
) -> None:
    """Compile ``units`` into the cache: in this process if one, else in worker processes
    (``python -m cuda.coop._unit_worker``), each given a share of them in a file and this process's
    NVRTC file to load; a worker whose NVRTC is not this process's (its units' keys would name
    another NVRTC, and no kernel here would find them) counts as failed."""
    if not units:
        return
    n = min(len(units), processes or os.cpu_count() or 1)
    if n <= 1:
        with expect_units(len(units)):
            for rendered in units:
                _unit(rendered, options)
        return
    import json
    import subprocess
    import sys
    import tempfile

    jobs = [{"source": u.source, "probes": u.probes, "defines": list(u.defines)} for u in units]
    nvrtc_file, ours = library_file("nvrtc") or "", _toolchain()["nvrtc"]
    failed = []
    with tempfile.TemporaryDirectory(prefix="coop-units-") as tmp:
        workers: list[subprocess.Popen[str]] = []
        try:
            for k in range(n):  # every worker started before any is waited for
                share = os.path.join(tmp, f"{k}.json")
                with open(share, "w") as f:
                    json.dump(jobs[k::n], f)
                command = [sys.executable, "-m", "cuda.coop._unit_worker", arch, share, nvrtc_file]
                workers.append(
                    subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                )
            for proc in workers:
                out, err = proc.communicate()
                if proc.returncode:
                    failed.append(
                        err.strip().splitlines()[-1] if err.strip() else f"exit status {proc.returncode}"
                    )
                else:
                    answer = json.loads(out)
                    _bump(**answer["counters"])
                    if answer["nvrtc"] != ours:
                        failed.append(f"it used {answer['nvrtc']}; this process uses {ours}")
        finally:  # an error (or an interrupt) here: no worker is left running, no pipe open
            for proc in workers:
                if proc.returncode is None:
                    proc.kill()
                    proc.communicate()
    if failed:  # each kernel compiles what is missing on its own, and says what failed
        warnings.warn(
            f"cuda.coop: a worker compiling units failed ({failed[0]}); the kernels compile them one by one",
            RuntimeWarning,
            stacklevel=3,
        )


def _known(kernel_key: str, symbols: Sequence[str]) -> list[_Unit] | None:
    """The units the kernel index entry ``kernel_key`` names, if they are all intact and define
    ``symbols``."""
    hit = _cache.read(kernel_key)
    keys = hit[0].get("units") if hit is not None else None
    if not (isinstance(keys, list) and keys and all(isinstance(k, str) for k in keys)):
        return None
    units = []
    for key in keys:
        unit = _cached(key)
        if unit is None:
            return None
        units.append(unit)
    defined = frozenset().union(*(u.defines for u in units))
    return units if defined.issuperset(symbols) else None


def _indexed(symbol: str, options: dict[str, object]) -> tuple[str | None, _Unit | None]:
    """(the key of the unit the index names for ``symbol``, that unit if it is intact and defines the
    symbol)."""
    hit = _cache.read(_index_key(symbol, options))
    key = hit[0].get("unit") if hit is not None else None
    if not isinstance(key, str):
        return None, None
    unit = _cached(key)
    if unit is None or symbol not in unit.defines:
        return key, None
    return key, unit


def _unit(rendered: RenderedRequests, options: dict[str, object], *, glue: bool = False) -> _Unit:
    """``rendered`` (a unit of requests, or with ``glue`` a kernel's glue) compiled (one NVRTC call),
    or read back from the cache."""
    key = bundle_key(rendered, options)
    hit = _cached(key)
    if hit is None:
        with _cache.locked(key):
            hit = _cached(key)  # another process may have published it meanwhile
            if hit is None:
                if _cache.exists(key):
                    _bump(cache_rebuilds=1)
                meta, ltoir = _compile(rendered, options, key, glue)
                hit = _Unit(key, ltoir, frozenset(rendered.defines), _sizes(meta))
    return hit


@functools.cache
def _empty_object(arch: str) -> bytes:
    """An LTO-IR object that defines nothing, for ``arch``."""
    return _unit(RenderedRequests("", {}, ()), _options(arch), glue=True).ltoir


def _check_clusters(requests: Sequence[Request], arch: str) -> None:
    """CoopLaunchConfigError for a cluster row in a kernel built for a GPU without thread-block
    clusters (before sm_90)."""
    clustered = sorted({f"coop.{r.primitive}" for r in requests if r.cluster_dims is not None})
    if clustered and int(_ARCH.match(arch).group(2)) < 90:  # type: ignore[union-attr]
        raise CoopLaunchConfigError(
            f"{', '.join(clustered)} needs thread-block clusters, which GPUs have from sm_90 on; the "
            f"kernel is built for {arch}: build it for sm_90 or later, or reduce within each block"
        )


def _sizes(meta: dict[str, object]) -> dict[str, tuple[int, int]]:
    """The TempStorage (size, alignment) pairs of an entry's metadata; ValueError if malformed."""
    raw = meta["temp_storage"]
    if not isinstance(raw, dict):
        raise ValueError("temp_storage is not a mapping")
    out = {}
    for symbol, pair in raw.items():
        size, align = pair
        if not (isinstance(size, int) and isinstance(align, int) and size > 0 and align > 0):
            raise ValueError(f"bad TempStorage size {pair!r}")
        out[str(symbol)] = (size, align)
    return out


def _cached(key: str) -> _Unit | None:
    """An intact cache entry of a unit (a hit), or None."""
    hit = _cache.read(key)
    if hit is None:
        return None
    meta, payload = hit
    try:
        sizes = _sizes(meta)
        defines = meta["defines"]
        if not (isinstance(defines, list) and all(isinstance(d, str) for d in defines)):
            raise ValueError("bad defines")
    except (KeyError, TypeError, ValueError):
        return None  # intact but not ours to trust (another writer's format): rebuilt
    _bump(cache_hits=1)
    return _Unit(key, payload, frozenset(defines), sizes)


def _nvrtc(
    rendered: RenderedRequests, options: dict[str, object], extra: dict[str, object]
) -> tuple[Any, str, Any]:
    """One NVRTC compile of ``rendered`` to LTO-IR: (the object code, NVRTC's log, the PCH status)."""
    from cuda.core import Program, ProgramOptions

    program = Program(rendered.source, "c++", ProgramOptions(**options, **extra))  # type: ignore[arg-type]
    try:
        log = io.StringIO()
        obj = program.compile("ltoir", name_expressions=tuple(rendered.probes), logs=log)
        return obj, log.getvalue(), program.pch_status
    finally:  # now, not when a traceback that holds it is collected (at exit, cuda.core's teardown
        program.close()  # may already have run: a segfault)


# NVRTC's precompiled header (PCH) of the units' common prefix (PCH_PREFIX: CUB's configuration and
# most of libcu++). A PCH serves only the process that made it: the file holds the address of NVRTC's
# PCH heap, and a compile in another process warns "incompatible precompiled header (PCH) heap
# allocation address" (#20282-D) and parses the headers, slower than without it. So it is not kept
# in the cache: a process makes its own, in a temporary file (the heap, 256 MiB), while compiling
# its second unit (or its first, when it knows more follow: expect_units), and its later units use
# it (a new kernel beyond the DSL's compile: +0.59 s instead of +1.85 s, H200 host). The linked code
# is the same (tests/test_pch.py; benchmarks/sass_corpus.py: all 407 cubins of the host suite). One
# compile at a time uses the heap (the lock). A PCH that cannot be made or read: the unit compiles
# plainly, and so do the process's later units (a unit that fails plainly too raises its own error,
# and the PCH stays).
@dataclass
class _Pch:
    path: str
    state: str = "none"  # "none" (not made), "ready", "off"
    compiles: int = 0


_pch_lock = threading.Lock()
_pchs: dict[str, _Pch] = {}
_pch_expected = 0
_pch_dir: tuple[int, str] | None = None  # (the process that made it, the directory)


def _pch_wanted() -> bool:
    """False when ``$CUDA_COOP_PCH`` is ``0``."""
    return os.environ.get("CUDA_COOP_PCH", "1").strip() != "0"


@contextlib.contextmanager
def expect_units(n: int) -> Iterator[None]:
    """Within the block, this process is about to compile ``n`` units: with two or more, the first
    one already makes the PCH."""
    global _pch_expected
    _pch_expected = n
    try:
        yield
    finally:
        _pch_expected = 0


def _pch_path(name: str) -> str:
    """Where this process keeps its PCH for the options ``name``."""
    global _pch_dir
    if _pch_dir is None or _pch_dir[0] != os.getpid():  # a forked child makes its own
        path = tempfile.mkdtemp(prefix="cuda-coop-pch-")
        _pch_dir = (os.getpid(), path)
        atexit.register(_remove_pch_dir, *_pch_dir)
    return os.path.join(_pch_dir[1], f"{hashlib.sha256(name.encode()).hexdigest()[:16]}.pch")


def _remove_pch_dir(pid: int, path: str) -> None:
    if os.getpid() == pid:
        shutil.rmtree(path, ignore_errors=True)


def _try_nvrtc(
    rendered: RenderedRequests, options: dict[str, object], extra: dict[str, object]
) -> tuple[Any, str, Any]:
    """:func:`_nvrtc` with a PCH option, or ``(None, "", None)`` where it raises (e.g. cuda-core 1.2.2's
    TypeError once it has resized a full PCH heap): the caller then compiles plainly, which raises the
    unit's own error if it has one (the PCH not at fault)."""
    try:
        return _nvrtc(rendered, options, extra)
    except Exception:
        return None, "", None


def _compile_with_pch(rendered: RenderedRequests, options: dict[str, object]) -> Any:
    """Compile a unit with the process's PCH: using it once made, making it at the second unit (or
    the first of an expected batch), plainly otherwise or when it fails."""
    with _pch_lock:
        name = repr(sorted(options.items()))
        pch = _pchs.get(name)
        if pch is None:
            pch = _pchs[name] = _Pch(_pch_path(name))
        pch.compiles += 1
        if pch.state == "ready":
            obj, log, _status = _try_nvrtc(rendered, options, {"use_pch": pch.path})
            if obj is not None and "using precompiled header" in log:
                _bump(pch_uses=1)
                return obj
            obj = obj if obj is not None else _nvrtc(rendered, options, {})[0]
            pch.state = "off"  # unreadable or refused: plain compiles from here on
            return obj
        if pch.state == "none" and (pch.compiles >= 2 or _pch_expected >= 2):
            obj, _log, status = _try_nvrtc(rendered, options, {"create_pch": pch.path})
            obj = obj if obj is not None else _nvrtc(rendered, options, {})[0]
            created = status == "created" and os.path.exists(pch.path)
            pch.state = "ready" if created else "off"
            if created:
                _bump(pch_creates=1)
            return obj
        return _nvrtc(rendered, options, {})[0]


def _compile(
    rendered: RenderedRequests, options: dict[str, object], key: str, glue: bool
) -> tuple[dict[str, object], bytes]:
    src_path = _cache.save_source(key, rendered.source)
    start = time.perf_counter()
    try:
        if glue or not rendered.source.startswith(PCH_PREFIX) or not _pch_wanted():
            obj = _nvrtc(rendered, options, {})[0]
        else:
            obj = _compile_with_pch(rendered, options)
    except Exception as exc:  # cuda.core raises its own NVRTCError carrying the log
        raise CoopCompileError(
            f"NVRTC failed to compile the cuda.coop bundle for {options['arch']}",
            log=str(exc),
            source_path=src_path,
        ) from exc
    finally:
        seconds = time.perf_counter() - start
        _bump(
            **{"glue_compiles": 1, "glue_seconds": seconds}
            if glue
            else {"nvrtc_compiles": 1, "nvrtc_seconds": seconds}
        )
    sizes: dict[str, list[int]] = {}
    for expr, symbol in rendered.probes.items():
        mangled = obj.symbol_mapping[expr]
        m = _PROBE_MANGLED.search(mangled.decode() if isinstance(mangled, bytes) else mangled)
        if m is None:  # pragma: no cover - would mean NVRTC changed its mangling
            raise CoopCompileError("unreadable TempStorage probe", log=str(mangled), source_path=src_path)
        sizes[symbol] = [int(m.group(1)), int(m.group(2))]
    meta: dict[str, object] = {
        "arch": options["arch"],
        "temp_storage": sizes,
        "defines": list(rendered.defines),
    }
    payload = bytes(obj.code)
    _cache.write(key, meta, payload)
    return meta, payload
