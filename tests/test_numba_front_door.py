# SPDX-License-Identifier: Apache-2.0
"""``cuda.coop.numba.jit`` / ``compile`` take what ``numba.cuda.jit`` takes (ahead of time, no GPU)."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import cuda.coop.numba as numba_coop
import numpy as np
import pytest
from cuda import coop
from cuda.coop._sass import _sections, disassemble
from numba import cuda

SIG = "void(float32[::1], float32[::1])"
THIS_FILE = os.path.basename(__file__)


def _copy(src, dst):  # type: ignore[no-untyped-def]
    items = coop.ThreadData(4, np.float32)
    coop.block.load(src, items, offset=cuda.blockIdx.x * 512)
    for i in range(4):
        items[i] = items[i] / (items[i] + np.float32(1.0))
    coop.block.store(dst, items, offset=cuda.blockIdx.x * 512)


def _section_names(cubin: bytes) -> set[str]:
    return {name for name, *_ in _sections(cubin)}


def _code(compiled: numba_coop.CompiledKernel) -> bytes:
    """The machine code of a cubin, without names (each compile of a function numbers its symbol)."""
    return b"".join(
        data for name, _type, data, _link in _sections(compiled.code) if name.startswith(".text.")
    )


def _line_info(cubin: bytes) -> str:
    return disassemble(cubin, ["-gi"])  # SASS with the source lines it came from


def test_lineinfo_reaches_the_cubin_and_calls_stay_inlined() -> None:
    plain = numba_coop.compile(_copy, SIG, block=128)
    lined = numba_coop.compile(numba_coop.jit(lineinfo=True)(_copy), SIG, block=128)
    assert THIS_FILE not in _line_info(plain.code)
    assert THIS_FILE in _line_info(lined.code)  # the kernel's own source lines
    # the same code: calls (the division's slow path) as without, no provider left, no local memory
    report = lined.inspect()
    assert report.calls == plain.inspect().calls and not report.leftover_symbols
    assert report.local_loads == report.local_stores == 0


@pytest.mark.parametrize("opt", [False, True])
def test_debug_links_with_dwarf(opt: bool) -> None:
    kernel = numba_coop.jit(debug=True, opt=opt)(_copy)
    with pytest.warns(Warning, match="debug=True with opt=True") if opt else _no_warning():  # numba-cuda's
        compiled = numba_coop.compile(kernel, SIG, block=128)
    assert ".debug_info" in _section_names(compiled.code)
    assert ".debug_info" not in _section_names(numba_coop.compile(_copy, SIG, block=128).code)


class _no_warning:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def test_kernel_options_hold_in_compile() -> None:
    plain = _code(numba_coop.compile(_copy, SIG, block=128))
    fast = _code(numba_coop.compile(_copy, SIG, block=128, fastmath=True))
    inherited = _code(numba_coop.compile(numba_coop.jit(fastmath=True)(_copy), SIG, block=128))
    assert fast != plain  # fastmath changes the division
    assert inherited == fast
    # an option given to compile overrides the kernel's
    assert (
        _code(numba_coop.compile(numba_coop.jit(fastmath=True)(_copy), SIG, block=128, fastmath=False))
        == plain
    )


def _normalise(src, dst):  # type: ignore[no-untyped-def]
    """A row of 64 x 32 float32 items in registers, scaled by its sum of squares (RMSNorm's form):
    more than 32 registers a thread unless capped."""
    items = coop.ThreadData(32, np.float32)
    base = cuda.blockIdx.x * 64 * 32
    coop.block.load(src, items, offset=base, algorithm="striped")
    part = np.float32(0.0)
    for i in range(32):
        part += items[i] * items[i]
    scale = np.float32(1.0) / (coop.block.sum(part, broadcast=True) + np.float32(1.0))
    for i in range(32):
        items[i] = items[i] * scale
    coop.block.store(dst, items, offset=base, algorithm="striped")


def test_max_registers_caps_the_linked_kernel() -> None:
    free = numba_coop.compile(_normalise, SIG, block=64).inspect()
    assert max(free.registers.values()) > 32  # the cap below bites
    for kernel, extra in (
        (numba_coop.jit(max_registers=32)(_normalise), {}),
        (_normalise, {"max_registers": 32}),
    ):
        report = numba_coop.compile(kernel, SIG, block=64, **extra).inspect()
        assert report.registers and all(n <= 32 for n in report.registers.values()), report.registers
        # no default launch bounds: ptxas would ignore the cap under them
        assert not report.thread_bounds


def test_launch_bounds_with_min_blocks_fit_that_many_blocks() -> None:
    report = numba_coop.compile(_normalise, SIG, block=1024, launch_bounds=(1024, 2)).inspect()
    assert max(report.registers.values()) <= 32  # 2 blocks of 1024 threads in 65536 registers


@pytest.mark.parametrize("where", ["jit", "compile", "both"])
def test_max_registers_with_launch_bounds_is_refused(where: str) -> None:
    opts = {"max_registers": 32, "launch_bounds": 64}
    jit_opts = opts if where == "jit" else {"max_registers": 32} if where == "both" else {}
    compile_opts = opts if where == "compile" else {"launch_bounds": 64} if where == "both" else {}
    with pytest.raises(
        coop.CoopValueError, match=r"max_registers=32 has no effect on a kernel with launch_bounds=64"
    ):
        kernel = numba_coop.jit(**jit_opts)(_normalise)
        numba_coop.compile(kernel, SIG, block=64, **compile_opts)


@pytest.mark.parametrize(
    ("options", "error", "named"),
    [
        ({"cache": True}, coop.CoopTypeError, "cache="),
        ({"shared_memory_carveout": "MaxL1"}, coop.CoopTypeError, "shared_memory_carveout="),
        ({"fastmaths": True}, coop.CoopTypeError, "fastmaths="),
        ({"lto": False}, coop.CoopValueError, "lto=False"),
        ({"device": True}, coop.CoopTypeError, "device=True"),
    ],
)
def test_compile_rejects_options_by_name(options: dict[str, object], error: type, named: str) -> None:
    with pytest.raises(error, match=named):
        numba_coop.compile(_copy, SIG, block=128, **options)


@pytest.mark.parametrize(
    ("options", "error", "named"),
    [
        ({"fastmaths": True}, coop.CoopTypeError, "fastmaths="),
        ({"lto": False}, coop.CoopValueError, "lto=False"),
        ({"device": True}, coop.CoopTypeError, "device=True"),
    ],
)
def test_jit_rejects_options_by_name(options: dict[str, object], error: type, named: str) -> None:
    with pytest.raises(error, match=named):
        numba_coop.jit(**options)(_copy)


def test_inline_cannot_be_honoured_ahead_of_time() -> None:
    with pytest.raises(coop.CoopTypeError, match="inline='always'"):
        numba_coop.compile(numba_coop.jit(inline="always")(_copy), SIG, block=128)
    assert numba_coop.compile(numba_coop.jit(inline="never")(_copy), SIG, block=128).arch == "sm_90a"


def test_launch_only_options_of_the_kernel_do_not_stop_compile() -> None:
    kernel = numba_coop.jit(cache=True, shared_memory_carveout="MaxL1", fastmath=True)(_copy)
    assert _code(numba_coop.compile(kernel, SIG, block=128)) == _code(
        numba_coop.compile(_copy, SIG, block=128, fastmath=True)
    )


def test_explicit_signature() -> None:
    kernel = numba_coop.jit(SIG)(_copy)
    assert isinstance(kernel, numba_coop.CoopKernel) and kernel.signatures == (SIG,)
    assert _code(numba_coop.compile(kernel, block=128)) == _code(numba_coop.compile(_copy, SIG, block=128))
    both = numba_coop.jit([SIG, "void(float64[::1], float64[::1])"], lineinfo=True)(_copy)
    assert len(both.signatures) == 2 and both.options == {"lineinfo": True}
    with pytest.raises(coop.CoopTypeError, match="signature is required"):
        numba_coop.compile(both, block=128)
    with pytest.raises(coop.CoopTypeError, match="list of signatures"):
        numba_coop.jit([SIG, 3])


def test_float16_arithmetic_with_numba_device_functions() -> None:
    """cuda.fp16 functions and math on float16 are numba-cuda device functions plus a CUDA C++
    file it compiles: both reach the link."""

    def kernel(src, dst):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(4, np.float16)
        coop.block.load(src, items, offset=cuda.blockIdx.x * 512)
        for i in range(4):
            items[i] = cuda.fp16.hsqrt(items[i]) + math.sin(items[i]) * np.float16(2.0)
        coop.block.store(dst, items, offset=cuda.blockIdx.x * 512)

    report = numba_coop.compile(kernel, "void(float16[::1], float16[::1])", block=128).inspect()
    assert report.calls == 0


@cuda.jit(device=True)
def _twice(x):  # type: ignore[no-untyped-def]
    return x + x


def test_device_function_helpers_compile_ahead_of_time() -> None:
    def kernel(src, dst):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(4, np.float32)
        coop.block.load(src, items, offset=cuda.blockIdx.x * 512)
        for i in range(4):
            items[i] = _twice(items[i])
        coop.block.store(dst, items, offset=cuda.blockIdx.x * 512)

    for arch in ("sm_90a", "sm_100a"):
        compiled = numba_coop.compile(kernel, SIG, block=128, arch=arch)
        assert compiled.inspect().arch == arch and compiled.inspect().calls == 0


def test_link_option_files_reach_the_link(tmp_path: Path) -> None:
    source = tmp_path / "thrice.cu"
    source.write_text(
        'extern "C" __device__ int coop_test_thrice(float* out, float x) { *out = 3.0f * x; return 0; }\n'
    )
    thrice = cuda.declare_device("coop_test_thrice", "float32(float32)")

    def kernel(src, dst):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(4, np.float32)
        coop.block.load(src, items, offset=cuda.blockIdx.x * 512)
        for i in range(4):
            items[i] = thrice(items[i])
        coop.block.store(dst, items, offset=cuda.blockIdx.x * 512)

    with pytest.raises(coop.CoopCompileError, match="coop_test_thrice"):
        numba_coop.compile(kernel, SIG, block=128)
    report = numba_coop.compile(numba_coop.jit(link=[str(source)])(kernel), SIG, block=128).inspect()
    assert report.calls == 0


@pytest.mark.parametrize(
    ("arch", "error", "match"),
    [
        ("sm_9", coop.CoopValueError, "arch='sm_9' is not a CUDA architecture"),
        (90, coop.CoopTypeError, "did you mean arch='sm_90a'"),
        ("hopper", coop.CoopValueError, "arch='hopper'"),
    ],
)
def test_bad_arch_is_a_typed_error(arch: object, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        numba_coop.compile(_copy, SIG, block=128, arch=arch)  # type: ignore[arg-type]


def test_numpy_ints_as_block() -> None:
    a = numba_coop.compile(_copy, SIG, block=np.int64(128))
    b = numba_coop.compile(_copy, SIG, block=(np.int32(128), np.int16(1)))
    assert a.block == b.block == (128, 1, 1) and _code(a) == _code(b)
    with pytest.raises(coop.CoopLaunchConfigError, match="positive ints"):
        numba_coop.compile(_copy, SIG, block=(np.float32(128.0),))


def test_import_without_numba_is_a_typed_error() -> None:
    code = textwrap.dedent(
        """
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("numba", "llvmlite"):
                    raise ModuleNotFoundError(f"No module named {name!r}")
        sys.meta_path.insert(0, Block())
        try:
            import cuda.coop.numba
        except Exception as exc:
            print(type(exc).__name__, "|", exc)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.startswith("CoopBackendError |") and "pip install 'cuda-coop[numba]'" in out
