# SPDX-License-Identifier: Apache-2.0
"""Bundle compiler: one translation unit -> one NVRTC call (cuda.core.Program) -> LTO-IR, cached."""

from __future__ import annotations

import functools
import importlib.metadata
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass

from . import _cache
from ._errors import CoopCompileError, CoopValueError
from ._render import render_bundle
from ._requests import Request
from ._stats import _bump

_ARCH = re.compile(r"^(sm|compute)_(\d+)([af]?)$")
_PROBE_MANGLED = re.compile(r"ILy(\d+)ELy(\d+)EE")


@dataclass(frozen=True)
class Bundle:
    """A compiled bundle: LTO-IR for ``arch`` and the exact size/alignment of each TempStorage."""

    ltoir: bytes
    arch: str
    key: str
    temp_storage: dict[str, tuple[int, int]]
    source_path: str


def normalize_arch(arch: str) -> str:
    """``sm_90a`` / ``compute_90a`` / ``90a`` -> ``sm_90a``; CoopValueError if malformed."""
    text = arch if arch[:1].isalpha() else f"sm_{arch}"
    m = _ARCH.match(text)
    if not m:
        raise CoopValueError(f"arch={arch!r} is not a CUDA architecture such as 'sm_90a' or 'sm_90'")
    return f"sm_{m.group(2)}{m.group(3)}"


@functools.cache
def _toolchain() -> dict[str, object]:
    """Include paths and versions that enter every cache key."""
    from cuda.bindings import nvrtc
    from cuda.cccl import get_include_paths

    paths = get_include_paths()
    err, major, minor = nvrtc.nvrtcVersion()
    return {
        "include_path": tuple(str(p) for p in (paths.cub, paths.cuda) if p is not None),
        "cccl": importlib.metadata.version("cuda-cccl"),
        "nvrtc": f"{major}.{minor}",
    }


def _options(arch: str) -> dict[str, object]:
    tc = _toolchain()
    return {
        "arch": arch,
        "std": "c++17",
        "include_path": tc["include_path"],
        "link_time_optimization": True,
        "relocatable_device_code": True,
    }


def compile_bundle(requests: Sequence[Request], temp_storage: Sequence[int], arch: str) -> Bundle:
    """Compile ``requests`` into one LTO-IR object for ``arch``, through the disk cache.

    ``temp_storage`` gives the scratch group of each caller-owned ``coop.TempStorage``.
    """
    arch = normalize_arch(arch)
    rendered = render_bundle(sorted(set(requests), key=lambda r: r.symbol), temp_storage)
    options = _options(arch)
    tc = _toolchain()
    key = _cache.cache_key(
        source=rendered.source,
        options=sorted(options.items()),
        cccl=tc["cccl"],
        nvrtc=tc["nvrtc"],
        probes=sorted(rendered.probes),
    )
    src_path = _cache.source_path(key)
    hit = _cache.read(key)
    if hit is None:
        with _cache.locked(key):
            hit = _cache.read(key)  # another process may have published it meanwhile
            if hit is None:
                if _cache.exists(key):
                    _bump(cache_rebuilds=1)
                hit = _compile(rendered.source, rendered.probes, options, key, str(src_path))
            else:
                _bump(cache_hits=1)
    else:
        _bump(cache_hits=1)
    meta, payload = hit
    sizes = meta["temp_storage"]
    assert isinstance(sizes, dict)
    return Bundle(
        ltoir=payload,
        arch=arch,
        key=key,
        temp_storage={k: (int(v[0]), int(v[1])) for k, v in sizes.items()},
        source_path=str(src_path),
    )


def _compile(
    source: str, probes: dict[str, str], options: dict[str, object], key: str, src_path: str
) -> tuple[dict[str, object], bytes]:
    from cuda.core import Program, ProgramOptions

    path = _cache.source_path(key)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source)
    start = time.perf_counter()
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
    return meta, payload
