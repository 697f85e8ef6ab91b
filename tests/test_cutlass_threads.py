# SPDX-License-Identifier: Apache-2.0
"""``cuda.coop.cutlass.compile`` from several threads at once, and ``compile_many`` (no GPU:
CUTE_DSL_ARCH=sm_90a): the CuTe DSL compiles one function at a time per process (four threads in
plain ``cute.compile`` abort it), so coop's compile serialises; every thread gets its own kernel,
complete and right. ``compile_many`` compiles the new units in worker processes."""

from __future__ import annotations

import threading
from typing import Any

import pytest

pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")

import cuda.coop.cutlass as cutlass_coop  # noqa: E402

from ._cute_kernels import copy_host, fake_tensor, plain_host  # noqa: E402

N = 4 * 1024 * 16


def test_threads_compile_different_kernels_at_once() -> None:
    shapes = [
        ((64, 1, 1), 4, "direct"),
        ((128, 1, 1), 2, "striped"),
        ((96, 1, 1), 8, "vectorize"),
        ((32, 2, 1), 4, "transpose"),
    ]
    jobs = [
        (copy_host("int32", block, items, alg), fake_tensor("int32", N), fake_tensor("int32", N))
        for block, items, alg in shapes
    ]
    results: dict[int, Any] = {}
    errors: list[str] = []
    start = threading.Barrier(len(jobs))

    def work(i: int) -> None:
        host, src, dst = jobs[i]
        try:
            start.wait()
            results[i] = cutlass_coop.compile(host, src, dst)
        except BaseException as exc:  # noqa: BLE001 - reported below, with the thread's index
            errors.append(f"thread {i}: {type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for i, (block, _items, _alg) in enumerate(shapes):
        report = results[i].inspect()
        assert len(report.functions) == 1 and report.calls == 0 and report.local_loads == 0, report.sass
        assert report.thread_bounds == {report.functions[0]: ("maxntid", block)}


def test_compile_many_compiles_the_units_in_workers(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, units_to_workers: list[int]
) -> None:
    """compile_many: traced one after the other, the new units compiled by two worker processes,
    then linked; each function gets its own inlined kernel, the same cubin as ``compile`` of it."""
    from cuda import coop

    monkeypatch.setenv("CUDA_COOP_CACHE_DIR", str(tmp_path))
    shapes = [((64, 1, 1), 4, "transpose"), ((96, 1, 1), 2, "warp_transpose"), ((64, 1, 1), 4, "direct")]
    hosts = [copy_host("int32", block, items, alg) for block, items, alg in shapes]
    plain = plain_host()
    before = coop.compile_stats()
    many = cutlass_coop.compile_many(
        [
            (hosts[0], fake_tensor("int32", N), fake_tensor("int32", N)),
            {"host": hosts[1], "args": (fake_tensor("int32", N), fake_tensor("int32", N))},
            {"host": plain, "args": (fake_tensor("int32", N),)},
            (hosts[2], fake_tensor("int32", N), fake_tensor("int32", N)),
        ],
        processes=2,
    )
    after = coop.compile_stats()
    assert units_to_workers == [2]  # two groups' units: none was compiled while lowering
    assert after.nvrtc_compiles - before.nvrtc_compiles == 2  # two units, in the workers
    assert after.glue_compiles - before.glue_compiles == 3
    assert after.cache_hits - before.cache_hits >= 3  # each function read its unit back
    assert many[2].cubin == b"" and many[2].symbols == ()  # no coop call: compiled plainly
    for compiled, (block, _items, _alg) in zip([many[0], many[1], many[3]], shapes, strict=True):
        report = compiled.inspect()
        assert len(report.functions) == 1 and report.calls == 0 and report.local_loads == 0, report.sass
        assert report.thread_bounds == {report.functions[0]: ("maxntid", block)}
    before = coop.compile_stats()
    again = cutlass_coop.compile(hosts[1], fake_tensor("int32", N), fake_tensor("int32", N))
    assert coop.compile_stats().nvrtc_compiles == before.nvrtc_compiles
    assert again.cubin == many[1].cubin


def test_compile_many_with_jobs_for_two_architectures(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A job's own ``arch`` holds for it: the units of each architecture are planned and compiled
    apart (one unit each), and each function is linked for its own."""
    from cuda import coop

    monkeypatch.setenv("CUDA_COOP_CACHE_DIR", str(tmp_path))
    host = copy_host("int32", (64, 1, 1), 4, "transpose")
    args = (fake_tensor("int32", N), fake_tensor("int32", N))
    before = coop.compile_stats()
    hopper, blackwell = cutlass_coop.compile_many(
        [(host, *args), {"host": host, "args": args, "arch": "sm_100a"}], arch="sm_90a"
    )
    assert coop.compile_stats().nvrtc_compiles - before.nvrtc_compiles == 2
    assert (hopper.arch, blackwell.arch) == ("sm_90a", "sm_100a")
    assert (hopper.inspect().arch, blackwell.inspect().arch) == ("sm_90a", "sm_100a")
    for compiled in (hopper, blackwell):
        report = compiled.inspect()
        assert report.calls == 0 and report.local_loads == 0, report.sass


def test_compile_many_refuses_a_malformed_job_naming_it() -> None:
    from cuda import coop

    host = copy_host("int32", (64, 1, 1), 4, "direct")
    with pytest.raises(coop.CoopTypeError, match="job 1 takes no key 'block'"):
        cutlass_coop.compile_many([(host,), {"host": host, "block": 64}])
    with pytest.raises(coop.CoopTypeError, match="job 0 lacks 'host'"):
        cutlass_coop.compile_many([{"args": ()}])
    with pytest.raises(coop.CoopTypeError, match="job 0 is a str"):
        cutlass_coop.compile_many(["host"])
