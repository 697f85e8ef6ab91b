# SPDX-License-Identifier: Apache-2.0
"""Shared fixtures: an isolated bundle cache per session, the GPU marker's skip rule, and a hang
guard for GPU tests."""

from __future__ import annotations

import faulthandler
import functools
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

# Host tests must not depend on (or pollute) the user's cache; GPU runs may point it elsewhere.
os.environ.setdefault("CUDA_COOP_CACHE_DIR", tempfile.mkdtemp(prefix="cuda-coop-test-cache-"))
# Test grids launch a few blocks on purpose; Numba's low-occupancy advice would be an error here.
os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")


@functools.cache
def gpu_available() -> bool:
    """True when numba-cuda sees a usable GPU."""
    try:
        from numba import cuda

        return bool(cuda.is_available())
    except Exception:
        return False


if not gpu_available():
    # The CuTe DSL compiles without a GPU once it is told the target.
    os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")


@pytest.fixture(scope="session")
def html_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The docs built once per session (warnings are errors) into a temporary folder; the browser
    test leaves its screenshots in it (``_screenshots``)."""
    pytest.importorskip("sphinx", reason="the docs need sphinx (pip install '.[docs]')")
    out = tmp_path_factory.mktemp("docs-html")
    docs = Path(__file__).resolve().parents[1] / "docs"
    build = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(docs), str(out)],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert build.returncode == 0, f"sphinx failed ({build.returncode}):\n{build.stdout}\n{build.stderr}"
    return out


@pytest.fixture
def units_to_workers(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """compile_many with two kernels per group (three kernels: two groups, two worker processes):
    the list of how many units each call handed to the workers."""
    from cuda.coop import _bundle

    monkeypatch.setattr(_bundle, "KERNELS_PER_UNIT", 2)
    given: list[int] = []
    real = _bundle._compile_in_workers

    def spy(units: list[object], *args: object) -> None:
        given.append(len(units))
        real(units, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(_bundle, "_compile_in_workers", spy)
    return given


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    gpu_items = [i for i in items if i.get_closest_marker("gpu")]
    if gpu_items and not gpu_available():
        skip = pytest.mark.skip(reason="needs a CUDA GPU (marker 'gpu'); none is available here")
        for item in gpu_items:
            item.add_marker(skip)


# A GPU test that runs longer than this is taken for a hung kernel: the process prints every
# thread's traceback and exits (under pytest-xdist the worker's crash names the test, and the other
# workers go on), instead of holding the whole run until an outer timeout kills it unreported.
GPU_TEST_LIMIT_S = float(os.environ.get("COOP_GPU_TEST_LIMIT_S", "420"))


@pytest.fixture(autouse=True)
def _gpu_hang_guard(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    if request.node.get_closest_marker("gpu") is None or not gpu_available():
        yield
        return
    faulthandler.dump_traceback_later(GPU_TEST_LIMIT_S, exit=True)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()
