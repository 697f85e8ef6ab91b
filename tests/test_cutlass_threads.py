# SPDX-License-Identifier: Apache-2.0
"""``cuda.coop.cutlass.compile`` from several threads at once (no GPU: CUTE_DSL_ARCH=sm_90a): the
CuTe DSL compiles one function at a time per process (four threads in plain ``cute.compile`` abort
it), so coop's compile serialises; every thread gets its own kernel, complete and right."""

from __future__ import annotations

import threading
from typing import Any

import pytest

pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")

import cuda.coop.cutlass as cutlass_coop  # noqa: E402

from ._cute_kernels import copy_host, fake_tensor  # noqa: E402

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
