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
from cuda.coop._catalog import CATALOG
from cuda.coop._kinds import Arg, Form
from cuda.coop._primitive import Launch
from cuda.coop._render import RenderedRequests
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


def _req(algorithm: str, dtype: str = "int32") -> Request:
    return Request("block.load", dtype, (128, 1, 1), 4, (("algorithm", algorithm),))


def test_one_nvrtc_call_cold_none_warm(cache: Path) -> None:
    before = coop.compile_stats()
    cold = _bundle.compile_bundle(REQS, (), "sm_90a")
    assert _delta(before) == (1, 0, 0)
    before = coop.compile_stats()
    warm = _bundle.compile_bundle(list(reversed(REQS)), (), "sm_90a")  # order does not matter
    assert _delta(before) == (0, 2, 0)  # the unit and the glue
    assert warm == cold and len(cold.objects) == 2 and cold.arch == "sm_90a"
    glue, unit = (_cache.source_path(k).read_text() for k in cold.keys)  # type: ignore[union-attr]
    assert unit.count('extern "C" __device__ void coop_block_') == 2 and "cub/" in unit
    assert "coop_block_scratch_0()" in glue and "cub" not in glue


def test_requests_compiled_in_other_kernels_need_no_nvrtc(cache: Path) -> None:
    """A kernel whose requests were all compiled before, in other kernels, links their units: no
    NVRTC call parses CUB (its glue is compiled, without CUB), and the link inlines them as ever."""
    a, b, c = _req("transpose"), _req("warp_transpose", "int64"), _req("direct", "float32")
    first = _bundle.compile_bundle([a, b], (), "sm_90a")
    second = _bundle.compile_bundle([c], (), "sm_90a")
    before = coop.compile_stats()
    mixed = _bundle.compile_bundle([c, a], (), "sm_90a")
    assert _delta(before)[0] == 0 and coop.compile_stats().glue_compiles > before.glue_compiles
    assert sorted(mixed.keys[1:]) == sorted((first.keys[1], second.keys[1]))  # the glue first
    assert mixed.temp_storage[a.symbol] == first.temp_storage[a.symbol]
    assert len(mixed.objects) == 3 and mixed.keys[0] not in (first.keys[0], second.keys[0])


def test_the_index_is_keyed_by_the_renderer(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An index entry maps a request's symbol to the unit that defines it: another cuda-coop, whose
    renderer may write other C++ for the same symbol, must not find it (nor the kernel's entry)."""
    a, b = _req("transpose"), _req("direct", "float32")
    _bundle.compile_bundle([a, b], (), "sm_90a")
    before = coop.compile_stats()
    _bundle.compile_bundle([a], (), "sm_90a")
    assert _delta(before)[0] == 0
    monkeypatch.setattr(_bundle, "renderer_fingerprint", lambda: "another renderer")
    before = coop.compile_stats()
    _bundle.compile_bundle([a], (), "sm_90a")
    assert _delta(before)[0] == 1


def test_a_kernel_links_at_most_max_units(cache: Path) -> None:
    reqs = [_req(alg) for alg in ("transpose", "warp_transpose", "direct", "striped")]
    units = [_bundle.compile_bundle([r], (), "sm_90a").keys[1] for r in reqs]
    before = coop.compile_stats()
    every = _bundle.compile_bundle(reqs, (), "sm_90a")
    assert _delta(before)[0] == 1  # the requests past the first MAX_UNITS - 1 units, in a new one
    assert len(every.objects) == _bundle.BUNDLE_PARTS and len(set(every.keys)) == _bundle.BUNDLE_PARTS
    assert set(every.keys[1:3]) <= set(units) and every.keys[3] not in units
    assert every.part(_bundle.BUNDLE_PARTS) == every.part(_bundle.BUNDLE_PARTS + 1)  # empty objects
    before = coop.compile_stats()
    assert _bundle.compile_bundle(reqs, (), "sm_90a") == every  # warm: the same units
    assert _delta(before) == (0, _bundle.BUNDLE_PARTS, 0)


def test_temp_storage_probes_are_exact(cache: Path) -> None:
    sizes = _bundle.compile_bundle(REQS, (), "sm_90").temp_storage
    load, store = (sizes[r.symbol] for r in REQS)
    for size, align in (load, store):
        assert size >= 128 * 4 * 4 and align in (4, 8, 16)  # the whole tile, padded


def test_arch_is_part_of_the_key(cache: Path) -> None:
    a = _bundle.compile_bundle(REQS[:1], (), "sm_90")
    b = _bundle.compile_bundle(REQS[:1], (), "compute_90a")
    assert a.keys != b.keys and b.arch == "sm_90a"
    with pytest.raises(coop.CoopValueError, match="not a CUDA architecture"):
        _bundle.compile_bundle(REQS[:1], (), "hopper")


@pytest.mark.parametrize("damage", ["truncate", "garbage", "flip"])
def test_corrupt_entry_is_rebuilt(cache: Path, damage: str) -> None:
    good = _bundle.compile_bundle(REQS[:1], (), "sm_90")
    entry = cache / "bundles" / f"{good.keys[1]}.bin"  # the unit
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
    assert _delta(before) == (1, 1, 1)  # the unit rebuilt, the glue read back
    assert again == good


def test_failed_compile_raises_with_log_and_source_and_leaves_no_state(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        _bundle, "render_requests", lambda reqs: RenderedRequests("this is not C++;\n", {}, ())
    )
    with pytest.raises(coop.CoopCompileError) as info:
        _bundle.compile_bundle(REQS[:1], (), "sm_90")
    assert "error" in info.value.log and Path(info.value.source_path).read_text() == "this is not C++;\n"
    assert isinstance(info.value, RuntimeError) and info.value.source_path in str(info.value)
    assert not list(cache.glob("bundles/*.bin"))  # nothing was published
    monkeypatch.undo()
    monkeypatch.setenv("CUDA_COOP_CACHE_DIR", str(cache))
    assert _bundle.compile_bundle(REQS[:1], (), "sm_90").objects


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
    assert len(list((cache / "bundles").glob("*.bin"))) == 4  # the unit, the glue, two index entries
    assert not list((cache / "bundles").glob("*.tmp"))


@pytest.mark.parametrize("nvrtc", [(13, 0), (13, 4), (13, 5), (14, 0)])
def test_default_device_only_for_an_nvrtc_that_needs_it(
    nvrtc: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 21: ``-default-device`` (which makes a ``__device__`` variable, kept by ``-rdc`` and read
    by every link, of each ``static constexpr`` member the headers instantiate) only for an NVRTC
    that needs it for CCCL's unannotated device lambdas."""
    _bundle._toolchain()  # cached with the real NVRTC's identity first: later keys must not name this one
    monkeypatch.setattr(_bundle, "nvrtc_version", lambda: nvrtc)
    options = _bundle._options("sm_90a")
    assert options["link_time_optimization"] is True and options["relocatable_device_code"] is True
    assert options.get("device_as_default_execution_space", False) is (nvrtc < (13, 5))


def test_prefetch_compiles_the_units_of_many_kernels_in_workers(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """prefetch plans the kernels in order (with one kernel per group, the second reuses the unit
    planned for the first's request), compiles the units in two worker processes, and indexes them:
    each kernel's compile then reads its units back, with no NVRTC call."""
    monkeypatch.setattr(_bundle, "KERNELS_PER_UNIT", 1)
    a, b, c = _req("transpose"), _req("warp_transpose", "int64"), _req("direct", "float32")
    assert _bundle.prefetch([[a, b], [a, c], [a, b]], "sm_90a", processes=2) == 2
    before = coop.compile_stats()
    first = _bundle.compile_bundle([a, b], (), "sm_90a")
    second = _bundle.compile_bundle([c, a], (), "sm_90a")
    assert _delta(before)[0] == 0
    assert first.keys[1] in second.keys and len(second.objects) == 3  # the glue and both units
    assert _bundle.prefetch([[a, b], [c, a]], "sm_90a", processes=2) == 0  # all in the cache


def test_prefetch_compiles_a_groups_new_requests_in_one_unit(cache: Path) -> None:
    """Consecutive kernels' requests that no unit defines are one unit (one NVRTC call); a request
    compiled before comes from its unit; a kernel's cluster rows are a unit of its own."""
    old = _req("striped")
    seen = _bundle.compile_bundle([old], (), "sm_90a").keys[1]
    a, b, c = _req("transpose"), _req("warp_transpose", "int64"), _req("direct", "float32")
    rows = (
        CATALOG["cluster.sum"]
        .resolve(
            {"x": Arg(Form.THREAD_DATA, "ThreadData(4, float32)", dtype="float32", items=4)},
            Launch((128, 1, 1), "unknown", cluster_dims=(2, 1, 1)),
        )
        .request
    )
    kernels = [[a, b], [c, old], [a, c], [b, rows]]
    assert _bundle.prefetch(kernels, "sm_90a", processes=2) == 2  # the group's unit, the cluster unit
    before = coop.compile_stats()
    bundles = [_bundle.compile_bundle(k, (), "sm_90a") for k in kernels]
    assert _delta(before)[0] == 0
    shared = bundles[0].keys[1]
    assert [len(b.keys) for b in bundles] == [2, 3, 2, 3]
    assert bundles[1].keys[1:] in ((shared, seen), (seen, shared)) and bundles[2].keys[1] == shared
    assert bundles[3].keys[1] == shared and bundles[3].keys[2] not in (shared, seen)
    for r in (a, b, c):  # indexed: a later kernel with one of them links the group's unit
        assert _bundle._indexed(r.symbol, _bundle._options("sm_90a"))[0] == shared
    before = coop.compile_stats()
    assert _bundle.compile_bundle([c], (), "sm_90a").keys[1] == shared
    assert _delta(before)[0] == 0


def test_prefetch_groups_are_balanced_and_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_bundle, "KERNELS_PER_UNIT", 5)
    assert _bundle._groups(list(range(20)), 16) == [list(range(k, k + 5)) for k in range(0, 20, 5)]
    assert _bundle._groups(list(range(20)), 2) == [list(range(10)), list(range(10, 20))]
    assert _bundle._groups(list(range(7)), 16) == [list(range(4)), list(range(4, 7))]
    assert _bundle._groups(list(range(3)), 16) == [[0, 1, 2]]
    assert _bundle._groups([], 4) == []


def test_a_failed_worker_leaves_each_kernel_to_compile_its_own(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_bundle, "KERNELS_PER_UNIT", 1)
    monkeypatch.setattr(sys, "executable", "/bin/false")
    with pytest.warns(RuntimeWarning, match="a worker compiling units failed"):
        _bundle.prefetch([[_req("transpose")], [_req("striped")]], "sm_90a", processes=2)
    monkeypatch.undo()
    monkeypatch.setenv("CUDA_COOP_CACHE_DIR", str(cache))
    before = coop.compile_stats()
    assert _bundle.compile_bundle([_req("transpose")], (), "sm_90a").objects
    assert _delta(before)[0] == 1


_PARENT_WITH_ITS_OWN_NVRTC = """
import ctypes, sys
ctypes.CDLL(sys.argv[1])  # this process's NVRTC: a file no search of a worker would find
from cuda import coop
from cuda.coop import _bundle
from cuda.coop._requests import Request

def req(algorithm, dtype):
    return Request("block.load", dtype, (128, 1, 1), 4, (("algorithm", algorithm),))

_bundle.KERNELS_PER_UNIT = 1
kernels = [[req("transpose", "int32")], [req("striped", "int64")]]
assert sys.argv[1] in _bundle._toolchain()["nvrtc"]
print(_bundle.prefetch(kernels, "sm_90a", processes=2))
before = coop.compile_stats().nvrtc_compiles
for k in kernels:
    _bundle.compile_bundle(k, (), "sm_90a")
print(coop.compile_stats().nvrtc_compiles - before)
"""


def test_unit_workers_use_this_process_nvrtc(cache: Path, tmp_path: Path) -> None:
    """A process whose NVRTC is not the one a fresh process would find (another toolkit first on
    the loader's path, a library another package loaded) gives its file to the unit workers, which
    load it: their units' keys name this process's NVRTC, and its kernels link them (the H200 host's
    numba-cuda-mlir compile_many compiled every kernel's unit again, 24 NVRTC calls for 4 units)."""
    from cuda.pathfinder import load_nvidia_dynamic_lib

    found = Path(load_nvidia_dynamic_lib("nvrtc").abs_path)
    other = tmp_path / "elsewhere"
    other.mkdir()
    for lib in found.parent.glob("libnvrtc*"):  # the library and its builtins, at another path
        try:
            os.link(lib, other / lib.name)
        except OSError:
            import shutil

            shutil.copy2(lib, other / lib.name)
    out = subprocess.run(
        [sys.executable, "-c", _PARENT_WITH_ITS_OWN_NVRTC, str(other / found.name)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.split() == ["2", "0"], out.stderr  # two units by the workers, none again


def test_a_unit_worker_with_another_nvrtc_counts_as_failed(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_bundle, "KERNELS_PER_UNIT", 1)
    tc = dict(_bundle._toolchain())
    monkeypatch.setattr(_bundle, "_toolchain", lambda: {**tc, "nvrtc": "nvrtc 13.5 (another)"})
    with pytest.warns(RuntimeWarning, match=r"failed \(it used nvrtc 13\.5 \(13.*this process uses nvrtc 13"):
        _bundle.prefetch([[_req("transpose")], [_req("striped")]], "sm_90a", processes=2)
    before = coop.compile_stats()
    assert _bundle.compile_bundle([_req("transpose")], (), "sm_90a").objects
    assert _delta(before)[0] == 1  # the worker's unit is keyed by its NVRTC: this process compiles its own
