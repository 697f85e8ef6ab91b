# SPDX-License-Identifier: Apache-2.0
"""Misuse inside Numba kernels raises typed errors at compile time, before any C++ exists."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import cuda.coop.numba as numba_coop
import numpy as np
import pytest
from cuda import coop
from numba import cuda

from ._kernels import copy_kernel


@pytest.fixture(autouse=True)
def no_cxx_compiled() -> Iterator[None]:
    before = coop.compile_stats().nvrtc_compiles
    yield
    assert coop.compile_stats().nvrtc_compiles == before, "an error surfaced only after NVRTC ran"


def _compile(
    kernel: Callable[..., None], sig: str = "void(int32[::1], int32[::1])", block: Any = 128
) -> None:
    numba_coop.compile(kernel, sig, block=block)


def test_dtype_mismatch_between_array_and_thread_data() -> None:
    def k(src, dst):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(4, np.float32)
        coop.block.load(src, items)

    with pytest.raises(
        coop.CoopTypeError, match="src has element type int32 but items is a ThreadData of float32"
    ):
        _compile(k)


def test_unknown_algorithm() -> None:
    with pytest.raises(coop.CoopValueError, match="unknown algorithm='fastest'; allowed: 'auto', 'direct'"):
        _compile(copy_kernel(algorithm="fastest"))


def test_items_per_thread_must_be_a_constant() -> None:
    def k(src, dst):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(src.size, np.int32)
        coop.block.load(src, items)

    with pytest.raises(coop.CoopTypeError, match="items_per_thread must be a compile-time constant int"):
        _compile(k)


ITEMS = 4


def test_items_per_thread_known_only_at_run_time_says_what_is_accepted() -> None:
    """(Arithmetic of constants is folded: tests/test_numba_aot.py.)"""

    def runtime(src, dst):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(src.shape[0] * 2, np.int32)
        coop.block.load(src, items)

    with pytest.raises(coop.CoopTypeError, match=r"or arithmetic of them \(2 \* ITEMS\); got int64"):
        _compile(runtime)


def test_compile_without_block_explains_block() -> None:
    def k(src, dst):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(4, np.int32)
        coop.block.load(src, items)

    with pytest.raises(coop.CoopTypeError, match=r"numba_coop.compile needs block="):
        numba_coop.compile(k, "void(int32[::1], int32[::1])")  # type: ignore[call-arg]


def test_negative_valid_items() -> None:
    with pytest.raises(coop.CoopValueError, match="valid_items=-1 is negative"):
        _compile(copy_kernel(valid_items=-1))


def test_oob_default_not_representable() -> None:
    with pytest.raises(
        coop.CoopValueError, match=r"oob_default=300 is outside the range of int8 \[-128, 127\]"
    ):
        _compile(copy_kernel("int8", valid_items=5, oob_default=300), "void(int8[::1], int8[::1])")


def test_block_dims_unknown_in_plain_cuda_jit() -> None:
    with pytest.raises(coop.CoopLaunchConfigError, match="pass threads_per_block= explicitly"):
        cuda.compile_all(
            copy_kernel(),
            "void(int32[::1], int32[::1])",
            device=False,
            abi="numba",
            output="ltoir",
            cc=(9, 0),
        )


def test_threads_per_block_contradicting_the_launch() -> None:
    with pytest.raises(coop.CoopLaunchConfigError, match=r"contradicts the launch's block \(128, 1, 1\)"):
        _compile(copy_kernel(threads_per_block=256))


def test_threads_per_block_must_be_constant() -> None:
    def k(src, dst):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(4, np.int32)
        coop.block.load(src, items, threads_per_block=src.size)

    with pytest.raises(coop.CoopTypeError, match="threads_per_block must be a compile-time constant"):
        cuda.compile_all(
            k, "void(int32[::1], int32[::1])", device=False, abi="numba", output="ltoir", cc=(9, 0)
        )


def test_warp_algorithm_needs_whole_warps() -> None:
    with pytest.raises(coop.CoopLaunchConfigError, match="multiple of 32 threads, the block has 48"):
        _compile(copy_kernel(algorithm="warp_transpose"), block=48)


def test_scratch_over_the_static_shared_limit() -> None:
    with pytest.raises(coop.CoopValueError, match=r"\(65536 B\).*static limit"):
        _compile(copy_kernel(ipt=16, algorithm="transpose"), block=1024)


def test_items_must_be_thread_data() -> None:
    def k(src, dst):  # type: ignore[no-untyped-def]
        items = cuda.local.array(4, np.int32)
        coop.block.load(src, items)

    with pytest.raises(coop.CoopTypeError, match="items must be a coop.ThreadData"):
        _compile(k)


def test_src_must_be_1d_contiguous() -> None:
    with pytest.raises(coop.CoopTypeError, match="src must be a 1-D C-contiguous array"):
        _compile(copy_kernel(), "void(int32[:, ::1], int32[::1])")
    with pytest.raises(coop.CoopTypeError, match="src must be a 1-D C-contiguous array"):
        _compile(copy_kernel(), "void(int32[:], int32[::1])")


def test_keyword_only_arguments() -> None:
    def k(src, dst):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(4, np.int32)
        coop.block.load(src, items, 0)

    with pytest.raises(coop.CoopTypeError, match="takes 2 positional arguments"):
        _compile(k)


def test_unknown_keyword() -> None:
    with pytest.raises(coop.CoopTypeError, match="unexpected keyword argument 'valid'"):
        _compile(copy_kernel(valid=3))


def test_unsupported_thread_data_dtype() -> None:
    def k(src, dst):  # type: ignore[no-untyped-def]
        coop.ThreadData(4, np.bool_)

    with pytest.raises(coop.CoopTypeError, match="bool, which is not supported"):
        _compile(k)


def test_temp_storage_takes_its_two_options_only() -> None:
    def size(src, dst):  # type: ignore[no-untyped-def]
        coop.TempStorage(128)

    with pytest.raises(coop.CoopValueError, match=r"coop.TempStorage: sharing=128 is not one of 'shared'"):
        _compile(size)

    def unknown(src, dst):  # type: ignore[no-untyped-def]
        coop.TempStorage(bytes=128)

    with pytest.raises(coop.CoopTypeError, match=r"coop.TempStorage: .*unexpected keyword argument 'bytes'"):
        _compile(unknown)


def test_unknown_output_and_arch() -> None:
    with pytest.raises(coop.CoopValueError, match="output='sass'"):
        numba_coop.compile(copy_kernel(), "void(int32[::1], int32[::1])", block=128, output="sass")
    with pytest.raises(coop.CoopValueError, match="arch='volta'"):
        numba_coop.compile(copy_kernel(), "void(int32[::1], int32[::1])", block=128, arch="volta")


def test_jit_rejects_device_functions() -> None:
    with pytest.raises(TypeError, match="device functions"):
        numba_coop.jit(device=True)


def test_histogram_counters_in_a_thread_local_array_are_refused() -> None:
    """Numba's types do not say where an array lives; a cuda.local.array made in the kernel is
    found in its IR (each thread would count only its own samples, with no atomics)."""

    def k(src, dst):  # type: ignore[no-untyped-def]
        x = coop.ThreadData(4, np.uint8)
        coop.block.load(src, x)
        c = cuda.local.array(8, np.uint32)
        coop.block.histogram(x, c, bins=8)
        dst[0] = c[0]

    with pytest.raises(coop.CoopTypeError, match=r"counters is a thread-private array \(cuda.local.array\)"):
        _compile(k, "void(uint8[::1], uint32[::1])")


def test_a_thread_local_array_where_global_memory_is_needed() -> None:
    def k(src, dst):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(4, np.int32)
        tmp = cuda.local.array(512, np.int32)
        coop.block.load(tmp, items)
        coop.block.store(dst, items)

    with pytest.raises(coop.CoopTypeError, match=r"src is a thread-private array \(cuda.local.array\)"):
        _compile(k)


def _line_of(func: Any, text: str) -> str:
    import inspect
    import os

    lines, first = inspect.getsourcelines(func)
    line = first + next(i for i, ln in enumerate(lines) if text in ln)
    return f"{os.path.relpath(inspect.getsourcefile(func))}:{line}"  # type: ignore[arg-type]


def test_errors_name_the_kernel_line_first_with_a_short_traceback() -> None:
    import traceback

    def k(src, dst):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(4, np.int32)
        coop.block.load(src, items, algorithm="fastest")  # the bad call

    with pytest.raises(coop.CoopValueError) as info:
        _compile(k)
    where = _line_of(k, "the bad call")
    assert str(info.value).startswith(f"{where}: coop.block.load: unknown algorithm='fastest'")
    assert info.value.where == where
    frames = traceback.extract_tb(info.value.__traceback__)
    numba_frames = [f for f in frames if "numba_cuda" in f.filename or "site-packages/numba/" in f.filename]
    assert not numba_frames, frames
    assert len(frames) <= 4, frames


def test_launch_config_errors_name_the_line_too() -> None:
    def k(src, dst):  # type: ignore[no-untyped-def]
        dst[0] = coop.warp.sum(src[0])  # width 32 on 48 threads

    with pytest.raises(coop.CoopLaunchConfigError, match=r"^tests/test_numba_errors.py:\d+: coop.warp.sum: "):
        _compile(k, "void(int32[::1], int32[::1])", block=48)
