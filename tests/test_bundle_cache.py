# SPDX-License-Identifier: Apache-2.0
"""The bundle compiler and its disk cache (NVRTC, no GPU)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from cuda import coop
from cuda.coop import _bundle, _cache
from cuda.coop._render import RenderedBundle
from cuda.coop._requests import Request

REQS = [
    Request("block.load", "int32", (128, 1, 1), 4, (("algorithm", "transpose"),)),
    Request("block.store", "int32", (128, 1, 1), 4, (("algorithm", "warp_transpose"),), ("partial",)),
]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CUDA_COOP_CACHE_DIR", str(tmp_path))
    return tmp_path


def _delta(before: coop.CompileStats) -> tuple[int, int, int]:
    now = coop.compile_stats()
    return (
        now.nvrtc_compiles - before.nvrtc_compiles,
        now.cache_hits - before.cache_hits,
        now.cache_rebuilds - before.cache_rebuilds,
    )


def test_one_nvrtc_call_cold_none_warm(cache: Path) -> None:
    before = coop.compile_stats()
    cold = _bundle.compile_bundle(REQS, (), "sm_90a")
    assert _delta(before) == (1, 0, 0)
    before = coop.compile_stats()
    warm = _bundle.compile_bundle(list(reversed(REQS)), (), "sm_90a")  # order does not matter
    assert _delta(before) == (0, 1, 0)
    assert warm == cold and cold.ltoir and cold.arch == "sm_90a"
    assert Path(cold.source_path).read_text().count('extern "C"') == 2


def test_temp_storage_probes_are_exact(cache: Path) -> None:
    sizes = _bundle.compile_bundle(REQS, (), "sm_90").temp_storage
    load, store = (sizes[r.symbol] for r in REQS)
    for size, align in (load, store):
        assert size >= 128 * 4 * 4 and align in (4, 8, 16)  # the whole tile, padded


def test_arch_is_part_of_the_key(cache: Path) -> None:
    a = _bundle.compile_bundle(REQS[:1], (), "sm_90")
    b = _bundle.compile_bundle(REQS[:1], (), "compute_90a")
    assert a.key != b.key and b.arch == "sm_90a"
    with pytest.raises(coop.CoopValueError, match="not a CUDA architecture"):
        _bundle.compile_bundle(REQS[:1], (), "hopper")


@pytest.mark.parametrize("damage", ["truncate", "garbage", "flip"])
def test_corrupt_entry_is_rebuilt(cache: Path, damage: str) -> None:
    good = _bundle.compile_bundle(REQS[:1], (), "sm_90")
    entry = next((cache / "bundles").glob("*.bin"))
    blob = entry.read_bytes()
    entry.write_bytes(
        {
            "truncate": blob[: len(blob) // 2],
            "garbage": b"\0" * 64,
            "flip": blob[:-1] + bytes([blob[-1] ^ 0xFF]),
        }[damage]
    )
    before = coop.compile_stats()
    again = _bundle.compile_bundle(REQS[:1], (), "sm_90")
    assert _delta(before) == (1, 0, 1)
    assert again.ltoir == good.ltoir


def test_failed_compile_raises_with_log_and_source_and_leaves_no_state(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        _bundle, "render_bundle", lambda reqs, slots: RenderedBundle("this is not C++;\n", {})
    )
    with pytest.raises(coop.CoopCompileError) as info:
        _bundle.compile_bundle(REQS[:1], (), "sm_90")
    assert "error" in info.value.log and Path(info.value.source_path).read_text() == "this is not C++;\n"
    assert isinstance(info.value, RuntimeError) and info.value.source_path in str(info.value)
    assert not list(cache.glob("bundles/*.bin"))  # nothing was published
    monkeypatch.undo()
    monkeypatch.setenv("CUDA_COOP_CACHE_DIR", str(cache))
    assert _bundle.compile_bundle(REQS[:1], (), "sm_90").ltoir


def test_cache_dir_default_and_override(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CUDA_COOP_CACHE_DIR", str(tmp_path / "x"))
    assert _cache.cache_dir() == tmp_path / "x"
    monkeypatch.delenv("CUDA_COOP_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    if sys.platform.startswith("linux"):
        assert _cache.cache_dir() == tmp_path / "xdg" / "cuda-coop"


def test_key_is_stable_and_versioned() -> None:
    k = _cache.cache_key(source="a", options=[("arch", "sm_90")])
    assert k == _cache.cache_key(options=[("arch", "sm_90")], source="a")
    assert k != _cache.cache_key(source="a", options=[("arch", "sm_90a")])
    assert len(k) == 64


_WORKER = """
import sys
from cuda import coop
from cuda.coop import _bundle
from cuda.coop._requests import Request
req = Request("block.load", "int64", (96, 1, 1), 3, (("algorithm", "transpose"),), ("partial", "oob"))
_bundle.compile_bundle([req], (), "sm_90")
print(coop.compile_stats().nvrtc_compiles)
"""


def test_concurrent_processes_compile_once(cache: Path) -> None:
    env = {**os.environ, "CUDA_COOP_CACHE_DIR": str(cache)}
    procs = [
        subprocess.Popen([sys.executable, "-c", _WORKER], env=env, stdout=subprocess.PIPE, text=True)
        for _ in range(3)
    ]
    counts = [int(p.communicate()[0]) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert sum(counts) == 1, counts
    assert len(list((cache / "bundles").glob("*.bin"))) == 1
    assert not list((cache / "bundles").glob("*.tmp"))


@pytest.mark.parametrize("nvrtc", [(13, 0), (13, 4), (13, 5), (14, 0)])
def test_default_device_only_for_an_nvrtc_that_needs_it(
    nvrtc: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 21: ``-default-device`` (which makes a ``__device__`` variable, kept by ``-rdc`` and read
    by every link, of each ``static constexpr`` member the headers instantiate) only for an NVRTC
    that needs it for CCCL's unannotated device lambdas."""
    monkeypatch.setattr(_bundle, "nvrtc_version", lambda: nvrtc)
    options = _bundle._options("sm_90a")
    assert options["link_time_optimization"] is True and options["relocatable_device_code"] is True
    assert options.get("device_as_default_execution_space", False) is (nvrtc < (13, 5))
