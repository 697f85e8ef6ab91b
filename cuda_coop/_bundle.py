# SPDX-License-Identifier: Apache-2.0
"""Bundle compiler: one translation unit -> one NVRTC call (cuda.core.Program) -> LTO-IR, cached."""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import os
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass

from . import _cache
from ._errors import CoopCompileError, CoopLaunchConfigError, CoopTypeError, CoopValueError
from ._render import RenderedBundle, TempStorageSlot, render_bundle
from ._requests import Request
from ._stats import _bump

_ARCH = re.compile(r"^(sm|compute)_(\d\d+)([af]?)$")
_PROBE_MANGLED = re.compile(r"ILy(\d+)ELy(\d+)EE")


@dataclass(frozen=True)
class Bundle:
    """A compiled bundle: LTO-IR for ``arch`` and the exact size/alignment of each TempStorage."""

    ltoir: bytes
    arch: str
    key: str
    temp_storage: dict[str, tuple[int, int]]
    source_path: str


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
    13.5.37) and the library file loaded (path, size, modification time), so that a toolkit
    install or a swapped library changes it too."""
    try:
        wheel_version = importlib.metadata.version(wheel)
    except importlib.metadata.PackageNotFoundError:
        wheel_version = "no wheel"
    try:
        from cuda.pathfinder import load_nvidia_dynamic_lib

        path = load_nvidia_dynamic_lib(lib).abs_path
        st = os.stat(path)
        where = f"{path}:{st.st_size}:{st.st_mtime_ns}"
    except Exception:  # pathfinder missing or the library found elsewhere: the versions remain
        where = "unknown"
    return f"{lib} {'.'.join(map(str, version))} ({wheel_version}; {where})"


@functools.cache
def nvrtc_version() -> tuple[int, int]:
    """NVRTC's (major, minor) version."""
    from cuda.bindings import nvrtc

    _err, major, minor = nvrtc.nvrtcVersion()
    return (major, minor)


def _nvrtc_identity() -> str:
    return library_identity("nvrtc", "nvidia-cuda-nvrtc", nvrtc_version())


@functools.cache
def _toolchain() -> dict[str, object]:
    """Include paths, the exact NVRTC, the CCCL version and a manifest of the headers: what enters
    every cache key besides the source and the options."""
    from cuda.cccl import get_include_paths

    paths = get_include_paths()
    include = tuple(dict.fromkeys(str(p) for p in (paths.cub, paths.cuda) if p is not None))
    return {
        "include_path": include,
        "cccl": importlib.metadata.version("cuda-cccl"),
        "nvrtc": _nvrtc_identity(),
        "headers": header_manifest(include),
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


def bundle_key(rendered: RenderedBundle, options: dict[str, object]) -> str:
    """The cache key of a bundle: its source, the NVRTC options, the exact NVRTC, the CCCL version
    and a manifest of the headers, and the probes it reads back."""
    tc = _toolchain()
    return _cache.cache_key(
        source=rendered.source,
        options=sorted(options.items()),
        cccl=tc["cccl"],
        nvrtc=tc["nvrtc"],
        headers=tc["headers"],
        probes=sorted(rendered.probes),
    )


def compile_bundle(requests: Sequence[Request], temp_storage: Sequence[TempStorageSlot], arch: str) -> Bundle:
    """Compile ``requests`` into one LTO-IR object for ``arch``, through the disk cache.

    ``temp_storage`` describes each caller-owned ``coop.TempStorage`` (its scratch group and, for an
    exclusive one, the calls that take a slice of it).
    """
    arch = normalize_arch(arch)
    _check_clusters(requests, arch)
    rendered = render_bundle(sorted(set(requests), key=lambda r: r.symbol), temp_storage)
    options = _options(arch)
    key = bundle_key(rendered, options)
    hit = _cached(key)
    if hit is None:
        with _cache.locked(key):
            hit = _cached(key)  # another process may have published it meanwhile
            if hit is None:
                if _cache.exists(key):
                    _bump(cache_rebuilds=1)
                meta, ltoir = _compile(rendered.source, rendered.probes, options, key)
                hit = (_sizes(meta), ltoir, str(meta["source_path"]))
    sizes, ltoir, src_path = hit
    return Bundle(ltoir=ltoir, arch=arch, key=key, temp_storage=sizes, source_path=src_path)


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


def _cached(key: str) -> tuple[dict[str, tuple[int, int]], bytes, str] | None:
    """An intact cache entry's TempStorage sizes, LTO-IR and kept source (a hit), or None."""
    hit = _cache.read(key)
    if hit is None:
        return None
    meta, payload = hit
    try:
        sizes = _sizes(meta)
    except (KeyError, TypeError, ValueError):
        return None  # intact but not ours to trust (another writer's format): rebuilt
    _bump(cache_hits=1)
    kept = _cache.source_path(key)
    return sizes, payload, str(kept) if kept is not None else ""


def _compile(
    source: str, probes: dict[str, str], options: dict[str, object], key: str
) -> tuple[dict[str, object], bytes]:
    from cuda.core import Program, ProgramOptions

    src_path = _cache.save_source(key, source)
    start = time.perf_counter()
    program = None
    try:
        program = Program(source, "c++", ProgramOptions(**options))  # type: ignore[arg-type]
        obj = program.compile("ltoir", name_expressions=tuple(probes))
    except Exception as exc:  # cuda.core raises its own NVRTCError carrying the log
        raise CoopCompileError(
            f"NVRTC failed to compile the cuda.coop bundle for {options['arch']}",
            log=str(exc),
            source_path=src_path,
        ) from exc
    finally:
        _bump(nvrtc_compiles=1, nvrtc_seconds=time.perf_counter() - start)
        if program is not None:  # now, not when a traceback that holds it is collected (at exit,
            program.close()  # cuda.core's teardown may already have run: a segfault)
    sizes: dict[str, list[int]] = {}
    for expr, symbol in probes.items():
        mangled = obj.symbol_mapping[expr]
        m = _PROBE_MANGLED.search(mangled.decode() if isinstance(mangled, bytes) else mangled)
        if m is None:  # pragma: no cover - would mean NVRTC changed its mangling
            raise CoopCompileError("unreadable TempStorage probe", log=str(mangled), source_path=src_path)
        sizes[symbol] = [int(m.group(1)), int(m.group(2))]
    meta: dict[str, object] = {"arch": options["arch"], "temp_storage": sizes}
    payload = bytes(obj.code)
    _cache.write(key, meta, payload)
    return {**meta, "source_path": src_path}, payload
