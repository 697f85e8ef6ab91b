# SPDX-License-Identifier: Apache-2.0
"""``coop.TempStorage(sharing=, auto_sync=)`` on both backends: ``"shared"`` is one buffer of the
largest user's size, ``"exclusive"`` a slice per call (the sum); ``auto_sync=True`` puts one block
barrier before each use. Ahead of time here; on the GPU, compute-sanitizer racecheck reports the
race of two calls reusing a shared buffer with no barrier, and none with ``auto_sync=True``."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import cuda.coop.numba as numba_coop
import numpy as np
import pytest
from cuda import coop

try:  # CuTe reads the kernels' annotations from this module's globals
    import cutlass
    import cutlass.cute as cute
except ImportError:  # the Numba tests run without it
    cutlass = cute = None

THREADS = 256


def _numba(sharing: str, auto_sync: bool) -> Any:
    @numba_coop.jit
    def k(src, dst):  # type: ignore[no-untyped-def]
        ts = coop.TempStorage(sharing=sharing, auto_sync=auto_sync)
        items = coop.ThreadData(8, np.int32)
        coop.block.load(src, items, algorithm="transpose", temp_storage=ts)
        out = coop.block.inclusive_sum(items, temp_storage=ts)
        coop.block.store(dst, out, algorithm="warp_transpose", temp_storage=ts)

    return numba_coop.compile(k, "void(int32[::1], int32[::1])", block=THREADS, arch="sm_90a")


def _cute(sharing: str, auto_sync: bool) -> Any:
    pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
    import cuda.coop.cutlass as cutlass_coop

    from ._cute_kernels import fake_tensor

    @cute.kernel
    def k(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        ts = coop.TempStorage(sharing=sharing, auto_sync=auto_sync)
        items = coop.ThreadData(8, cutlass.Int32)
        coop.block.load(src, items, algorithm="transpose", temp_storage=ts)
        out = coop.block.inclusive_sum(items, temp_storage=ts)
        coop.block.store(dst, out, algorithm="warp_transpose", temp_storage=ts)

    @cute.jit
    def host(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        k(src, dst).launch(grid=(1, 1, 1), block=(THREADS, 1, 1))

    n = THREADS * 8
    return cutlass_coop.compile(host, fake_tensor("int32", n), fake_tensor("int32", n))


BUILD = {"numba": _numba, "cute": _cute}


def _barriers(sass: str) -> int:
    return len(re.findall(r"\bBAR\.(?:SYNC|RED|ARV)", sass))


@pytest.mark.parametrize("backend", list(BUILD))
def test_shared_is_the_largest_exclusive_the_sum(backend: str) -> None:
    shared, exclusive = BUILD[backend]("shared", False), BUILD[backend]("exclusive", False)
    sizes = sorted(size for size, _ in shared.temp_storage.values())
    assert len(sizes) == 3
    reserved = (0, 1024)  # sm_90 may lay out its 1 KiB system window in the section
    used = [next(iter(c.inspect().shared_bytes.values())) for c in (shared, exclusive)]
    assert used[0] - max(sizes) in reserved, (used, sizes)
    assert used[1] - sum(sizes) in reserved or sum(sizes) <= used[1] <= sum(sizes) + 64, (used, sizes)


@pytest.mark.parametrize("backend", list(BUILD))
def test_auto_sync_puts_one_barrier_before_each_use(backend: str) -> None:
    plain, synced = BUILD[backend]("shared", False), BUILD[backend]("shared", True)
    report = synced.inspect()
    assert report.calls == 0 and report.local_loads == 0
    assert _barriers(report.sass) == _barriers(plain.inspect().sass) + 3  # three calls use it
    assert all("autosync" in s for s in synced.temp_storage)


@pytest.mark.parametrize("backend", list(BUILD))
def test_an_exclusive_buffer_needs_no_barrier_between_calls(backend: str) -> None:
    exclusive = BUILD[backend]("exclusive", False)
    assert _barriers(exclusive.inspect().sass) == _barriers(BUILD[backend]("shared", False).inspect().sass)


@pytest.mark.parametrize(
    ("sharing", "auto_sync", "error", "message"),
    [
        ("private", False, coop.CoopValueError, "sharing='private' is not one of 'shared'"),
        ("shared", 1, coop.CoopTypeError, "auto_sync must be a compile-time True or False"),
    ],
)
def test_bad_options_are_typed_errors(sharing: str, auto_sync: Any, error: type, message: str) -> None:
    def k(src, dst):  # type: ignore[no-untyped-def]
        ts = coop.TempStorage(sharing=sharing, auto_sync=auto_sync)
        items = coop.ThreadData(4, np.int32)
        coop.block.load(src, items, algorithm="transpose", temp_storage=ts)

    with pytest.raises(error, match=message):
        numba_coop.compile(k, "void(int32[::1], int32[::1])", block=128)


@pytest.mark.gpu
@pytest.mark.parametrize("backend", ["numba", "cute"])
def test_racecheck_sees_the_race_that_auto_sync_removes(backend: str) -> None:
    sanitizer = shutil.which("compute-sanitizer")
    if sanitizer is None:
        pytest.skip("compute-sanitizer is not on PATH")
    hazards = {}
    for auto_sync in (False, True):
        out = subprocess.run(
            [sanitizer, "--tool", "racecheck", "--report-api-errors", "no", sys.executable, "-m",
             "tests._temp_storage_race", backend, str(int(auto_sync))],
            capture_output=True, text=True, timeout=600, cwd=Path(__file__).parent.parent,
            env={**os.environ, "PYTHONWARNINGS": "ignore"},
        )  # fmt: skip
        found = re.search(r"RACECHECK SUMMARY: (\d+) hazard", out.stdout + out.stderr)
        hazards[auto_sync] = int(found.group(1)) if found else 0
        if auto_sync:
            assert "correct" in out.stdout, out.stdout + out.stderr
    assert hazards[False] > 0 and hazards[True] == 0, hazards
