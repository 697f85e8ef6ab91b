# SPDX-License-Identifier: Apache-2.0
"""NVRTC's precompiled header of the units' common prefix, made and used within one process (no GPU)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cuda import coop
from cuda.coop import _bundle
from cuda.coop._render import PCH_PREFIX, RenderedRequests
from cuda.coop._requests import Request

# Three kernels whose units differ (each a new NVRTC compile): the first compiles plainly, the second
# makes the process's PCH while it compiles, the third uses it.
_SCRIPT = r"""
import json, sys
import cuda.coop.numba as numba_coop
from cuda import coop
from tests._kernels import copy_kernel, signature

out = []
for dtype, ipt, algorithm in (("int32", 4, "transpose"), ("float64", 3, "warp_transpose"),
                              ("int16", 8, "striped")):
    compiled = numba_coop.compile(copy_kernel(dtype, ipt, algorithm), signature(dtype), block=96)
    report = compiled.inspect()
    out.append({"sass": report.sass, "registers": sorted(report.registers.values())})
stats = coop.compile_stats()
json.dump({"kernels": out, "creates": stats.pch_creates, "uses": stats.pch_uses,
           "nvrtc": stats.nvrtc_compiles}, sys.stdout)
"""


def _run(tmp_path: Path, name: str, pch: str) -> dict:  # type: ignore[type-arg]
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, CUDA_COOP_CACHE_DIR=str(tmp_path / name), CUDA_COOP_PCH=pch)
    env["PYTHONPATH"] = os.pathsep.join([str(root), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, timeout=600, cwd=root
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_later_units_use_the_process_pch_and_link_the_same_machine_code(tmp_path: Path) -> None:
    """With the PCH, the second unit makes it and the third uses it; the linked kernels' SASS and
    registers are those of plain compiles (``$CUDA_COOP_PCH=0``: none made)."""
    with_pch = _run(tmp_path, "on", "1")
    plain = _run(tmp_path, "off", "0")
    assert with_pch["nvrtc"] == plain["nvrtc"] == 3
    assert (with_pch["creates"], with_pch["uses"]) == (1, 1)  # fails if NVRTC stops saying "using"
    assert (plain["creates"], plain["uses"]) == (0, 0)
    assert with_pch["kernels"] == plain["kernels"]


@pytest.fixture
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache, and no PCH made yet in this process."""
    monkeypatch.setenv("CUDA_COOP_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("CUDA_COOP_PCH", "1")
    monkeypatch.setattr(_bundle, "_pchs", {})
    return tmp_path


def _unit(algorithm: str) -> RenderedRequests:
    from cuda.coop._render import render_requests

    rendered = render_requests([Request("block.load", "int32", (64, 1, 1), 2, (("algorithm", algorithm),))])
    assert rendered.source.startswith(PCH_PREFIX)
    return rendered


def test_a_pch_that_cannot_be_made_leaves_plain_compiles(
    fresh: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = _bundle._nvrtc

    def refuse_pch(rendered, options, extra):  # type: ignore[no-untyped-def]
        if "create_pch" in extra:
            raise TypeError("Expected str, got PCHStatusType")  # cuda-core 1.2.2 after a heap resize
        return real(rendered, options, extra)

    monkeypatch.setattr(_bundle, "_nvrtc", refuse_pch)
    options = _bundle._options("sm_90a")
    before = coop.compile_stats()
    with _bundle.expect_units(2):
        units = [_bundle._unit(_unit(a), options) for a in ("direct", "striped")]
    after = coop.compile_stats()
    assert all(u.ltoir for u in units) and after.nvrtc_compiles - before.nvrtc_compiles == 2
    assert after.pch_creates == before.pch_creates and after.pch_uses == before.pch_uses
    assert [p.state for p in _bundle._pchs.values()] == ["off"]


def test_a_pch_that_cannot_be_read_falls_back_and_turns_off(fresh: Path) -> None:
    options = _bundle._options("sm_90a")
    pch = _bundle._Pch(str(fresh / "missing.pch"), state="ready")
    _bundle._pchs[repr(sorted(options.items()))] = pch
    before = coop.compile_stats()
    unit = _bundle._unit(_unit("vectorize"), options)  # NVRTC: "cannot open precompiled header file"
    assert unit.ltoir and coop.compile_stats().pch_uses == before.pch_uses and pch.state == "off"


def test_glue_and_pch_off_never_make_one(fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUDA_COOP_PCH", "0")
    options = _bundle._options("sm_90a")
    before = coop.compile_stats()
    with _bundle.expect_units(2):
        _bundle._unit(_unit("warp_transpose"), options)
        _bundle._unit(
            RenderedRequests('extern "C" __device__ int coop_glue_probe() { return 1; }\n', {}, ()),
            options,
            glue=True,
        )
    assert coop.compile_stats().pch_creates == before.pch_creates and not _bundle._pchs


def test_a_unit_that_fails_says_its_own_error_and_keeps_the_pch(fresh: Path) -> None:
    options = _bundle._options("sm_90a")
    with _bundle.expect_units(2):
        _bundle._unit(_unit("transpose"), options)  # makes the PCH
    bad = RenderedRequests(PCH_PREFIX + "#error injected by the test\n", {}, ())
    with pytest.raises(coop.CoopCompileError, match="injected by the test"):
        _bundle._unit(bad, options)
    assert [p.state for p in _bundle._pchs.values()] == ["ready"]
    before = coop.compile_stats()
    _bundle._unit(_unit("direct"), options)
    assert coop.compile_stats().pch_uses == before.pch_uses + 1


def test_threads_compiling_at_once_share_the_pch(fresh: Path) -> None:
    """Four threads compiling four new kernels ahead of time: each gets its own kernel, inlined; the
    process makes one PCH and its later units use it (one compile at a time holds its heap)."""
    from concurrent.futures import ThreadPoolExecutor

    import cuda.coop.numba as numba_coop

    from ._kernels import copy_kernel, signature

    cases = [
        ("int32", 4, "transpose"),
        ("float32", 2, "warp_transpose"),
        ("int64", 3, "direct"),
        ("int8", 8, "striped"),
    ]
    before = coop.compile_stats()
    with ThreadPoolExecutor(4) as pool:
        futures = [
            pool.submit(numba_coop.compile, copy_kernel(d, n, a), signature(d), block=64, arch="sm_90a")
            for d, n, a in cases
        ]
        compiled = [f.result() for f in futures]
    after = coop.compile_stats()
    for kernel in compiled:
        report = kernel.inspect()
        assert report.calls == 0 and report.local_loads == 0 and len(report.functions) == 1
    assert len({k.code for k in compiled}) == 4
    assert after.nvrtc_compiles - before.nvrtc_compiles == 4
    assert (after.pch_creates - before.pch_creates, after.pch_uses - before.pch_uses) == (1, 2)
