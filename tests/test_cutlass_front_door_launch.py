# SPDX-License-Identifier: Apache-2.0
"""Arrays and prepared launches of CuTe compiled functions, without a GPU: DLPack arrays become the
CuTe tensor compiled for (checked, errors naming the argument), and a prepared launch writes each
argument into the C slot CuTe's host entry reads. The host entry is replaced by a recorder here;
tests/test_cutlass_front_door_gpu.py launches for real."""

import ctypes
from typing import Any

import numpy as np
import pytest

pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")

import cuda.bindings.driver as cuda  # noqa: E402
import cuda.coop.cutlass as cutlass_coop  # noqa: E402
import cutlass  # noqa: E402
import cutlass.cute as cute  # noqa: E402
from cuda import coop  # noqa: E402
from cuda.coop.cutlass import _args, _cute_hooks  # noqa: E402
from cutlass.cute.runtime import make_ptr  # noqa: E402

from ._cute_kernels import launch_args, launch_host  # noqa: E402

N = 4096


@pytest.fixture(scope="module")
def compiled() -> Any:
    return cutlass_coop.compile(launch_host(), *launch_args(N))


@pytest.fixture
def host_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """NumPy arrays stand in for GPU arrays (the checks are the same)."""
    monkeypatch.setattr(_args, "_CUDA_DEVICES", (1, 2, 13))


class Recorder:
    """Stands in for CuTe's host entry: reads each C argument the way the entry would."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int, int, float, int]] = []
        self.result = ctypes.c_int32(0)

    def __call__(self, packed: Any) -> None:
        src_desc, dst, scale, offset, stream = (packed[i] for i in range(5))
        self.calls.append(
            (
                ctypes.c_void_p.from_address(src_desc).value or 0,
                ctypes.c_void_p.from_address(dst).value or 0,
                ctypes.c_int32.from_address(scale).value,
                ctypes.c_float.from_address(offset).value,
                ctypes.c_void_p.from_address(stream).value or 0,
            )
        )


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    rec = Recorder()
    monkeypatch.setattr(_cute_hooks, "executor", lambda compiled: (rec, rec.result, [], None))
    return rec


def _ptr(address: int) -> Any:
    return make_ptr(cutlass.Int32, address, cute.AddressSpace.gmem, assumed_align=16)


def _aligned(n: int, dtype: Any = np.int32) -> np.ndarray:
    raw = np.zeros(n * np.dtype(dtype).itemsize + 64, np.uint8)
    start = -raw.ctypes.data % 64
    return raw[start : start + n * np.dtype(dtype).itemsize].view(dtype)


def test_tensor_pointer_and_stream_parameters_are_recorded_as_compiled(compiled: Any) -> None:
    assert compiled._names == ["src", "dst", "scale", "offset", "stream"]
    assert set(compiled._specs) == {"src", "dst", "stream"}
    spec = compiled._specs["src"]
    assert (spec.shape, spec.stride, spec.align, spec.dynamic) == ((N,), (1,), 16, False)
    assert compiled._specs["dst"] == _args.PointerSpec("dst", cutlass.Int32, cute.AddressSpace.gmem, 16)
    assert compiled._specs["stream"] == _args.StreamSpec("stream")


def test_int_addresses_and_streams_become_cute_pointers_and_streams(compiled: Any) -> None:
    """CuTe would marshal a Python int in a pointer or stream parameter as an Int32 (truncated)."""
    address = 0x7F00_1234_5670
    args, _ = _args.convert(compiled._specs, compiled._names, (None, address, 3, 1.0, 0x7F00_0000_0010), {})
    assert _cute_hooks.pointer_info(args[1]) == (cutlass.Int32, address, 16)
    assert isinstance(args[4], cuda.CUstream) and int(args[4]) == 0x7F00_0000_0010
    with pytest.raises(coop.CoopValueError, match="not aligned to 16 B"):
        _args.convert(compiled._specs, compiled._names, (None, address + 4, 3, 1.0, 0), {})
    with pytest.raises(coop.CoopTypeError, match="'dst' is a pointer"):
        _args.convert(compiled._specs, compiled._names, (None, "here", 3, 1.0, 0), {})


@pytest.mark.usefixtures("host_memory")
def test_prepare_writes_each_argument_into_its_slot(compiled: Any, recorder: Recorder) -> None:
    a, b, out = _aligned(N), _aligned(N), _aligned(N)
    p = compiled.prepare(a, _ptr(out.ctypes.data), 3, 0.5, cuda.CUstream(7))
    p.launch()
    assert recorder.calls[-1] == (a.ctypes.data, out.ctypes.data, 3, 0.5, 7)
    p.launch(b, out.ctypes.data + 64, np.int32(-2), 1.25, 9)
    assert recorder.calls[-1] == (b.ctypes.data, out.ctypes.data + 64, -2, 1.25, 9)
    p.launch(a, dst=_ptr(out.ctypes.data), scale=5, offset=2, stream=cuda.CUstream(0))
    assert recorder.calls[-1] == (a.ctypes.data, out.ctypes.data, 5, 2.0, 0)
    p.launch()  # the last arguments again
    assert recorder.calls[-1] == recorder.calls[-2] and len(recorder.calls) == 4


@pytest.mark.usefixtures("host_memory")
@pytest.mark.parametrize(
    ("slot", "value", "error", "match"),
    [
        (0, np.zeros(N, np.float32), coop.CoopTypeError, "'src' was compiled as Int32.*got Float32"),
        (0, np.zeros((2, N // 2), np.int32), coop.CoopValueError, "'src' was compiled with rank 1"),
        (
            0,
            np.zeros(N + 4, np.int32),
            coop.CoopValueError,
            r"'src' was compiled as Int32\[4096\].*Int32\[4100\]",
        ),
        (0, 7, coop.CoopTypeError, "'src' was compiled as a tensor .*got int"),
        (1, 4, coop.CoopValueError, "'dst': address 0x4 is not aligned to 16 B"),
        (1, "x", coop.CoopTypeError, "'dst' is a pointer"),
        (2, 1.5, coop.CoopTypeError, "'scale' is a Int32, got the float 1.5"),
        (2, "3", coop.CoopTypeError, "'scale' is a Int32, got str"),
        (3, None, coop.CoopTypeError, "'offset' is a Float32, got NoneType"),
        (4, "s", coop.CoopTypeError, "argument 'stream': expected a stream .*got str"),
    ],
)
def test_launch_names_the_argument_that_changed(
    compiled: Any, recorder: Recorder, slot: int, value: Any, error: type, match: str
) -> None:
    a, out = _aligned(N), _aligned(N)
    args = [a, _ptr(out.ctypes.data), 3, 0.5, cuda.CUstream(0)]
    p = compiled.prepare(*args)
    args[slot] = value
    with pytest.raises(error, match=match):
        p.launch(*args)


@pytest.mark.usefixtures("host_memory")
def test_misaligned_array_is_refused(compiled: Any, recorder: Recorder) -> None:
    out = _aligned(N)
    p = compiled.prepare(_aligned(N), _ptr(out.ctypes.data), 1, 0.0, 0)
    shifted = _aligned(N + 1)[1:]
    with pytest.raises(coop.CoopValueError, match="'src': data at .* is not aligned to 16 B"):
        p.launch(shifted, out.ctypes.data, 1, 0.0, 0)


@pytest.mark.usefixtures("host_memory")
def test_launch_needs_all_arguments_or_none(compiled: Any, recorder: Recorder) -> None:
    out = _aligned(N)
    p = compiled.prepare(_aligned(N), _ptr(out.ctypes.data), 1, 0.0, 0)
    with pytest.raises(coop.CoopTypeError, match="missing offset, stream"):
        p.launch(_aligned(N), out.ctypes.data, 1)


def test_arrays_in_host_memory_are_refused_by_name(compiled: Any) -> None:
    with pytest.raises(coop.CoopTypeError, match="argument 'src': the array is not in GPU memory"):
        compiled(np.zeros(N, np.int32), 0, 1, 0.0, 0)


def test_cute_descriptor_starts_with_the_data_pointer() -> None:
    """The private layout a prepared launch rewrites: fails loudly if the DSL changes it."""
    for dynamic in (False, True):
        a = _aligned(N)
        tensor = _cute_hooks.from_dlpack(a, 16, dynamic)
        view = _cute_hooks.descriptor_data_pointer(tensor)
        assert view.value == a.ctypes.data
        view.value = a.ctypes.data + 64  # what launch() writes is what CuTe's entry reads
        assert ctypes.c_void_p.from_address(tensor.__c_pointers__()[0]).value == a.ctypes.data + 64


def test_launch_hooks_present(compiled: Any) -> None:
    from cutlass.base_dsl.jit_executor import JitExecutor

    for name in ("_has_cuda_result", "_cuda_result_addr", "_kernel_ptrs", "capi_func", "cuda_result"):
        assert name in JitExecutor.__init__.__code__.co_names or hasattr(JitExecutor, name), name
    assert callable(compiled.compiled.execution_args.generate_execution_args)
    assert list(compiled.compiled.execution_args.signature.parameters) == compiled._names


def test_cross_compiled_function_says_so() -> None:
    other = cutlass_coop.compile(launch_host(), *launch_args(N), arch="sm_100a")
    with pytest.raises(coop.CoopBackendError, match="compiled ahead of time for an architecture"):
        other.prepare(np.zeros(N, np.int32), 0, 1, 0.0, 0)
