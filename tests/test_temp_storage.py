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
def test_auto_sync_puts_one_barrier_between_uses(backend: str) -> None:
    """load, inclusive_sum, store on one buffer: a barrier before the second and the third use, none
    before the first (nothing ran before it)."""
    plain, synced = BUILD[backend]("shared", False), BUILD[backend]("shared", True)
    report = synced.inspect()
    assert report.calls == 0 and report.local_loads == 0
    assert _barriers(report.sass) == _barriers(plain.inspect().sass) + 2
    assert _synced(synced) == {"load": False, "inclusive_sum": True, "store": True}


def _synced(compiled: Any) -> dict[str, bool]:
    """Which calls (by primitive name) put a barrier before their use of the caller's buffer."""
    out: dict[str, bool] = {}
    for symbol in compiled.temp_storage:
        name = re.match(r"coop_(?:block|warp)_([a-z_]+?)_(?:u?int|float|bfloat)", symbol)
        assert name is not None, symbol
        out[name.group(1)] = out.get(name.group(1), False) or "_autosync" in symbol
    return out


# Kernels of one shape per backend: which calls must synchronise, by where the user's barriers and
# loops are. The Numba and CuTe bodies are the same program.
def _numba_variant(variant: str) -> Any:
    from numba import cuda

    sharing = "exclusive" if variant.startswith("exclusive") else "shared"

    def straight(src, dst, n):  # type: ignore[no-untyped-def]
        ts = coop.TempStorage(sharing=sharing, auto_sync=True)
        items = coop.ThreadData(4, np.int32)
        coop.block.load(src, items, algorithm="transpose", temp_storage=ts)
        out = coop.block.inclusive_sum(items, temp_storage=ts)
        cuda.syncthreads()  # the user's barrier: the store needs none of ours
        coop.block.store(dst, out, algorithm="transpose", temp_storage=ts)

    def loop(src, dst, n):  # type: ignore[no-untyped-def]
        ts = coop.TempStorage(sharing=sharing, auto_sync=True)
        items = coop.ThreadData(4, np.int32)
        for i in range(n):  # the load follows the previous iteration's store
            coop.block.load(src, items, offset=i * 512, algorithm="transpose", temp_storage=ts)
            coop.block.store(dst, items, offset=i * 512, algorithm="transpose", temp_storage=ts)

    def loop_synced(src, dst, n):  # type: ignore[no-untyped-def]
        ts = coop.TempStorage(sharing=sharing, auto_sync=True)
        items = coop.ThreadData(4, np.int32)
        for i in range(n):
            cuda.syncthreads()
            coop.block.load(src, items, offset=i * 512, algorithm="transpose", temp_storage=ts)
            coop.block.store(dst, items, offset=i * 512, algorithm="transpose", temp_storage=ts)

    def after_if(src, dst, n):  # type: ignore[no-untyped-def]
        ts = coop.TempStorage(sharing=sharing, auto_sync=True)
        items = coop.ThreadData(4, np.int32)
        if n > 3:  # block-uniform: allowed; the store after it may follow the load
            coop.block.load(src, items, algorithm="transpose", temp_storage=ts)
        coop.block.store(dst, items, algorithm="transpose", temp_storage=ts)

    body = {"straight": straight, "loop": loop, "loop_synced": loop_synced, "after_if": after_if}
    return numba_coop.compile(
        body[variant.removeprefix("exclusive_")], "void(int32[::1], int32[::1], int32)", block=128
    )


def _cute_variant(variant: str) -> Any:
    pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
    import cuda.coop.cutlass as cutlass_coop

    from ._cute_kernels import fake_tensor

    sharing = "exclusive" if variant.startswith("exclusive") else "shared"
    body = variant.removeprefix("exclusive_")

    @cute.kernel
    def k(src: cute.Tensor, dst: cute.Tensor, n: cutlass.Int32):  # type: ignore[no-untyped-def]
        ts = coop.TempStorage(sharing=sharing, auto_sync=True)
        items = coop.ThreadData(4, cutlass.Int32)
        if cutlass.const_expr(body == "straight"):
            coop.block.load(src, items, algorithm="transpose", temp_storage=ts)
            out = coop.block.inclusive_sum(items, temp_storage=ts)
            cute.arch.sync_threads()
            coop.block.store(dst, out, algorithm="transpose", temp_storage=ts)
        if cutlass.const_expr(body == "loop"):
            for i in cutlass.range(n):
                coop.block.load(src, items, offset=i * 512, algorithm="transpose", temp_storage=ts)
                coop.block.store(dst, items, offset=i * 512, algorithm="transpose", temp_storage=ts)
        if cutlass.const_expr(body == "loop_synced"):
            for i in cutlass.range(n):
                cute.arch.sync_threads()
                coop.block.load(src, items, offset=i * 512, algorithm="transpose", temp_storage=ts)
                coop.block.store(dst, items, offset=i * 512, algorithm="transpose", temp_storage=ts)
        if cutlass.const_expr(body == "after_if"):
            if n > 3:
                coop.block.load(src, items, algorithm="transpose", temp_storage=ts)
            coop.block.store(dst, items, algorithm="transpose", temp_storage=ts)

    @cute.jit
    def host(src: cute.Tensor, dst: cute.Tensor, n: cutlass.Int32):  # type: ignore[no-untyped-def]
        k(src, dst, n).launch(grid=(1, 1, 1), block=(128, 1, 1))

    fake = [fake_tensor("int32", 4096) for _ in range(2)]
    return cutlass_coop.compile(host, *fake, cutlass.Int32(2))


VARIANT = {"numba": _numba_variant, "cute": _cute_variant}


@pytest.mark.parametrize(
    ("variant", "want"),
    [
        ("straight", {"load": False, "inclusive_sum": True, "store": False}),
        ("loop", {"load": True, "store": True}),
        ("loop_synced", {"load": False, "store": True}),
        ("after_if", {"load": False, "store": True}),
        # a slice per call: only a call that runs again (in a loop) reuses its own
        ("exclusive_straight", {"load": False, "inclusive_sum": False, "store": False}),
        ("exclusive_loop", {"load": True, "store": True}),
    ],
)
@pytest.mark.parametrize("backend", list(VARIANT))
def test_auto_sync_skips_the_barrier_a_path_already_has(
    backend: str, variant: str, want: dict[str, bool]
) -> None:
    compiled = VARIANT[backend](variant)
    assert _synced(compiled) == want
    report = compiled.inspect()
    assert report.calls == 0 and report.local_loads == 0


def test_a_helper_that_takes_the_buffer_keeps_its_barrier() -> None:
    """In a device helper the buffer comes from the caller, who may just have used it."""
    from numba import cuda

    @cuda.jit(device=True)
    def store_it(dst, items, ts):  # type: ignore[no-untyped-def]
        coop.block.store(dst, items, algorithm="transpose", temp_storage=ts)

    def k(src, dst):  # type: ignore[no-untyped-def]
        ts = coop.TempStorage(auto_sync=True)
        items = coop.ThreadData(4, np.int32)
        coop.block.load(src, items, algorithm="transpose", temp_storage=ts)
        store_it(dst, items, ts)

    compiled = numba_coop.compile(k, "void(int32[::1], int32[::1])", block=128)
    assert _synced(compiled) == {"load": False, "store": True}


def _divergent_numba() -> None:
    from numba import cuda

    def k(src, dst):  # type: ignore[no-untyped-def]
        ts = coop.TempStorage(auto_sync=True)
        items = coop.ThreadData(4, np.int32)
        lane = cuda.threadIdx.x % 32
        if lane < 16:
            coop.block.load(src, items, algorithm="transpose", temp_storage=ts)

    numba_coop.compile(k, "void(int32[::1], int32[::1])", block=128)


def _divergent_cute() -> None:
    pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
    import cuda.coop.cutlass as cutlass_coop

    from ._cute_kernels import fake_tensor

    @cute.kernel
    def k(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        ts = coop.TempStorage(auto_sync=True)
        items = coop.ThreadData(4, cutlass.Int32)
        t, _, _ = cute.arch.thread_idx()
        if t % 32 < 16:
            coop.block.load(src, items, algorithm="transpose", temp_storage=ts)

    @cute.jit
    def host(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        k(src, dst).launch(grid=(1, 1, 1), block=(128, 1, 1))

    cutlass_coop.compile(host, fake_tensor("int32", 512), fake_tensor("int32", 512))


@pytest.mark.parametrize("backend", ["numba", "cute"])
def test_an_auto_sync_barrier_in_a_branch_on_the_thread_index_is_refused(backend: str) -> None:
    where = r"the branch at \S*test_temp_storage.py:\d+" if backend == "numba" else "an enclosing if or loop"
    message = (
        rf"test_temp_storage.py:\d+: coop.block.load: temp_storage is a coop.TempStorage\(auto_sync=True\), "
        rf"whose block barrier this call would run inside {where}, a branch on the thread index"
    )
    with pytest.raises(coop.CoopValueError, match=message):
        {"numba": _divergent_numba, "cute": _divergent_cute}[backend]()


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


def test_a_syncwarp_of_the_users_does_not_count_as_a_barrier() -> None:
    """A warp sync may name part of the warp: the library keeps its own barrier after it."""
    from numba import cuda

    def k(src, dst):  # type: ignore[no-untyped-def]
        ts = coop.TempStorage(auto_sync=True)
        items = coop.ThreadData(4, np.int32)
        coop.block.load(src, items, algorithm="transpose", temp_storage=ts)
        cuda.syncwarp()
        coop.block.store(dst, items, algorithm="transpose", temp_storage=ts)

    compiled = numba_coop.compile(k, "void(int32[::1], int32[::1])", block=128)
    assert _synced(compiled) == {"load": False, "store": True}
