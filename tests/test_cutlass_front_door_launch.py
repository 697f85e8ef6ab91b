# SPDX-License-Identifier: Apache-2.0
"""Arrays, prepared launches and the plain call's call state of CuTe compiled functions, without a
GPU: DLPack arrays become the CuTe tensor compiled for (checked, errors naming the argument), and a
prepared launch (and each thread's call state) writes each argument into the C slot CuTe's host
entry reads, keeping none of the caller's arrays alive. The host entry is replaced by a recorder
here, and NumPy arrays (and NumPy-backed stand-ins of torch tensors) stand in for GPU arrays;
tests/test_cutlass_front_door_gpu.py launches for real."""

import ctypes
import gc
import math
import threading
import weakref
from typing import Any

import numpy as np
import pytest

pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")

import cuda.bindings.driver as cuda  # noqa: E402
import cuda.coop.cutlass as cutlass_coop  # noqa: E402
import cutlass  # noqa: E402
import cutlass.cute as cute  # noqa: E402
from cuda import coop  # noqa: E402
from cuda.coop.cutlass import _args, _cute_hooks, _launch  # noqa: E402
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
    """Stands in for CuTe's host entry: reads each C argument the way the entry would (and the first
    dynamic extent of the tensor's descriptor, in ``extents``)."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int, int, float, int]] = []
        self.extents: list[int] = []
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
        self.extents.append(ctypes.c_int32.from_address(src_desc + 8).value)


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
        (1, -64, coop.CoopValueError, "'dst': -0x40 is not a device address"),
        (2, 1.5, coop.CoopTypeError, "'scale' is a Int32, got the float 1.5"),
        # a C slot would keep the low bits (2**31 became -2**31, 2**40 became 0, before the check)
        (2, 2**31, coop.CoopValueError, r"'scale': 2147483648 does not fit Int32 \(-2147483648 \.\. 2147"),
        (2, np.int64(-(2**40)), coop.CoopValueError, "'scale': -1099511627776 does not fit Int32"),
        (2, "3", coop.CoopTypeError, "'scale' is a Int32, got str"),
        (3, None, coop.CoopTypeError, "'offset' is a Float32, got NoneType"),
        (3, 1e300, coop.CoopValueError, r"'offset': 1e\+300 does not fit Float32"),  # would be inf
        (3, -(10**400), coop.CoopValueError, "'offset': -1000000000000000000000.* does not fit Float32"),
        (4, "s", coop.CoopTypeError, "argument 'stream': expected a stream .*got str"),
        # a C slot would keep the low bits (-1 became 0xFFFF..., 2**64 the default stream)
        (4, -1, coop.CoopValueError, "argument 'stream': a stream handle is not negative, got -1"),
        (4, 1 << 64, coop.CoopValueError, "argument 'stream': a stream handle is a 64-bit pointer"),
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


@pytest.mark.parametrize(
    ("shape", "step", "dynamic"),
    [((N,), 1, False), ((N,), 1, True), ((4, 6), 1, True), ((4, 6), 2, True), ((2, 3, 4), 1, True)],
)
def test_cute_descriptor_is_copied_field_by_field(shape: tuple[int, ...], step: int, dynamic: bool) -> None:
    """The private layout a call state copies and rewrites (data pointer, int32 dynamic extents, int64
    dynamic strides): fails loudly if the DSL changes it."""
    a = _aligned(int(np.prod(shape)) * step)[::step].reshape(shape)
    tensor = _cute_hooks.from_dlpack(a, 16, dynamic)
    layout = _cute_hooks.tensor_layout(tensor)
    buffer = _cute_hooks.descriptor_buffer(len(shape))
    size = _cute_hooks.copy_descriptor(tensor, layout, buffer)
    assert size == _cute_hooks.descriptor_size(sum(layout[4]), sum(layout[5]))
    if not dynamic:
        assert size == 8  # a static layout: the data pointer alone
    assert buffer[0] == a.ctypes.data
    extents = [
        ctypes.c_int32.from_address(ctypes.addressof(buffer) + 8 + 4 * i).value for i in range(sum(layout[4]))
    ]
    assert extents == [s for s, d in zip(shape, layout[4], strict=True) if d]
    del tensor  # the copy is the buffer's own
    assert buffer[0] == a.ctypes.data


def test_launch_hooks_present(compiled: Any) -> None:
    from cutlass.base_dsl.jit_executor import JitExecutor

    for name in ("_has_cuda_result", "_cuda_result_addr", "_kernel_ptrs", "capi_func", "cuda_result"):
        assert name in JitExecutor.__init__.__code__.co_names or hasattr(JitExecutor, name), name
    assert callable(compiled.compiled.execution_args.generate_execution_args)
    assert list(compiled.compiled.execution_args.signature.parameters) == compiled._names
    # what the call state relies on (plain_reentry, cuda_error, the binder over runtime_signature)
    assert hasattr(compiled.compiled, "_pyir_spec") and hasattr(compiled.compiled, "total_added_arguments")
    assert _cute_hooks.plain_reentry(compiled.compiled)
    assert "DSLCudaRuntimeError" in type(_cute_hooks.cuda_error(700)).__name__
    bind = _launch.binder(compiled.compiled)
    assert bind((1, 2), {"offset": 3, "stream": 4, "scale": 5}) == [1, 2, 5, 3, 4]
    with pytest.raises(coop.CoopTypeError, match="missing offset, stream"):
        bind((1, 2, 3), {})
    with pytest.raises(coop.CoopTypeError, match="unexpected argument 'x'"):
        bind((1, 2, 3, 4, 5), {"x": 1})


def test_cross_compiled_function_says_so() -> None:
    other = cutlass_coop.compile(launch_host(), *launch_args(N), arch="sm_100a")
    with pytest.raises(coop.CoopBackendError, match="compiled ahead of time for an architecture"):
        other.prepare(np.zeros(N, np.int32), 0, 1, 0.0, 0)


# --- the plain call's call state --------------------------------------------------------------------


class FakeTorchTensor:
    """What the call state reads of a torch tensor (``dtype``, ``shape``, ``stride()``,
    ``get_device()``, ``requires_grad``, ``data_ptr()``, DLPack), over a NumPy array; its type's
    module says torch, so it takes the torch fast path."""

    __module__ = "torch.fake"

    def __init__(self, array: np.ndarray, requires_grad: bool = False) -> None:
        self.set_(array)
        self.requires_grad = requires_grad

    def set_(self, array: np.ndarray) -> None:
        """Change the tensor in place (torch's ``set_`` / ``resize_`` / ``as_strided_``)."""
        self._a = array
        self.dtype = array.dtype
        self.shape = tuple(array.shape)

    def stride(self) -> tuple[int, ...]:
        return tuple(s // self._a.itemsize for s in self._a.strides)

    def get_device(self) -> int:
        return 0

    def data_ptr(self) -> int:
        return int(self._a.ctypes.data)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self._a.__dlpack_device__()  # type: ignore[no-any-return]

    def __dlpack__(self, stream: Any = None) -> Any:
        if self.requires_grad:
            raise RuntimeError("Can't export tensors that require gradient, use tensor.detach()")
        return self._a.__dlpack__()


@pytest.fixture
def conversions(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The arrays the call states convert in full (``from_dlpack`` and the checks), in order."""
    seen: list[Any] = []
    convert = _args.to_cute_checked

    def counting(value: Any, spec: Any) -> Any:
        seen.append(value)
        return convert(value, spec)

    monkeypatch.setattr(_args, "to_cute_checked", counting)
    return seen


def _fresh(compiled: Any) -> Any:
    """The compiled function with no call state on this thread yet."""
    compiled._local = threading.local()
    return compiled


@pytest.mark.usefixtures("host_memory")
def test_plain_call_launches_through_a_call_state(compiled: Any, recorder: Recorder) -> None:
    f = _fresh(compiled)
    a, b, out = _aligned(N), _aligned(N), _aligned(N)
    assert f(a, out.ctypes.data, 3, 0.5, 7) == 0  # CuTe's call returns the CUDA result, 0
    assert recorder.calls[-1] == (a.ctypes.data, out.ctypes.data, 3, 0.5, 7)
    state = f._local.state
    assert state is not None and state._last is None  # keeps none of the arguments
    f(b, _ptr(out.ctypes.data + 64), np.int32(-2), offset=1.25, stream=cuda.CUstream(9))
    assert recorder.calls[-1] == (b.ctypes.data, out.ctypes.data + 64, -2, 1.25, 9)
    assert f._local.state is state and len(recorder.calls) == 2


@pytest.mark.usefixtures("host_memory")
def test_torch_tensors_like_one_seen_before_are_not_converted_again(
    compiled: Any, recorder: Recorder, conversions: list[Any]
) -> None:
    f = _fresh(compiled)
    out = _aligned(N)
    tensors = [FakeTorchTensor(_aligned(N)) for _ in range(4)]
    for t in tensors:
        f(t, out.ctypes.data, 1, 0.0, 0)
        assert recorder.calls[-1][0] == t.data_ptr()
    assert all(c is tensors[0] for c in conversions)  # the first call's only (prepare and its slot)
    shifted = FakeTorchTensor(_aligned(N + 1)[1:])
    with pytest.raises(coop.CoopValueError, match="'src': data at .* is not aligned to 16 B"):
        f(shifted, out.ctypes.data, 1, 0.0, 0)


@pytest.mark.usefixtures("host_memory")
def test_a_tensor_changed_in_place_is_read_again(compiled: Any, recorder: Recorder) -> None:
    f = _fresh(compiled)
    out = _aligned(N)
    t = FakeTorchTensor(_aligned(N))
    f(t, out.ctypes.data, 1, 0.0, 0)
    moved = _aligned(N)
    t.set_(moved)  # new storage, same layout: the new data pointer
    f(t, out.ctypes.data, 1, 0.0, 0)
    assert recorder.calls[-1][0] == moved.ctypes.data
    t.set_(_aligned(2 * N).reshape(2, N))  # another rank, in place
    with pytest.raises(coop.CoopValueError, match="'src' was compiled with rank 1"):
        f(t, out.ctypes.data, 1, 0.0, 0)
    t.set_(_aligned(N, np.float32))
    with pytest.raises(coop.CoopTypeError, match="'src' was compiled as Int32.*got Float32"):
        f(t, out.ctypes.data, 1, 0.0, 0)
    t.set_(moved)
    t.requires_grad = True  # torch's DLPack export refuses it; so does the call, naming it
    with pytest.raises(
        coop.CoopTypeError, match="argument 'src': the FakeTorchTensor cannot be passed.*gradient"
    ):
        f(t, out.ctypes.data, 1, 0.0, 0)
    t.requires_grad = False
    f(t, out.ctypes.data, 1, 0.0, 0)
    assert recorder.calls[-1][0] == moved.ctypes.data


@pytest.mark.usefixtures("host_memory")
@pytest.mark.parametrize("first", [True, False], ids=["first call", "later call"])
@pytest.mark.parametrize(
    ("slot", "value", "error", "match"),
    [
        (0, np.zeros(N, np.float32), coop.CoopTypeError, "'src' was compiled as Int32.*got Float32"),
        (0, np.zeros((2, N // 2), np.int32), coop.CoopValueError, "'src' was compiled with rank 1"),
        (0, np.zeros(N + 4, np.int32), coop.CoopValueError, r"'src' was compiled as Int32\[4096\]"),
        (1, 4, coop.CoopValueError, "'dst': address 0x4 is not aligned to 16 B"),
        (1, "x", coop.CoopTypeError, "'dst' is a pointer"),
        (2, 1.5, coop.CoopTypeError, "'scale' is a Int32, got the float 1.5"),
        (3, None, coop.CoopTypeError, "'offset' is a Float32, got NoneType"),
        (4, "s", coop.CoopTypeError, "argument 'stream': expected a stream .*got str"),
        (4, -1, coop.CoopValueError, "argument 'stream': a stream handle is not negative, got -1"),
        (4, 1 << 64, coop.CoopValueError, "argument 'stream': a stream handle is a 64-bit pointer"),
    ],
)
def test_plain_call_names_the_wrong_argument(
    compiled: Any, recorder: Recorder, first: bool, slot: int, value: Any, error: type, match: str
) -> None:
    f = _fresh(compiled)
    a, out = _aligned(N), _aligned(N)
    args = [a, out.ctypes.data, 3, 0.5, 0]
    if not first:
        f(*args)
    bad = list(args)
    bad[slot] = value
    with pytest.raises(error, match=match):
        f(*bad)
    f(*args)  # a wrong call leaves the state usable
    assert recorder.calls[-1] == (a.ctypes.data, out.ctypes.data, 3, 0.5, 0)


@pytest.mark.usefixtures("host_memory")
def test_plain_call_takes_float32s_edges(compiled: Any, recorder: Recorder) -> None:
    """Infinities and NaN are float32 values; float32's largest finite value fits; an int converts."""
    f = _fresh(compiled)
    a, out = _aligned(N), _aligned(N)
    for value in (math.inf, -math.inf, 3.4028234663852886e38, 7):
        f(a, out.ctypes.data, 3, value, 0)
        assert recorder.calls[-1][3] == value
    f(a, out.ctypes.data, 3, math.nan, 0)
    assert math.isnan(recorder.calls[-1][3])


@pytest.mark.usefixtures("host_memory")
def test_plain_call_keeps_no_array_alive(compiled: Any, recorder: Recorder) -> None:
    """The call state owns copies of the descriptors: the caller's arrays (and the DLPack capsules
    of their CuTe tensors) are freed when the caller drops them."""
    f = _fresh(compiled)
    out = _aligned(N)
    for make in (_aligned, lambda n: FakeTorchTensor(_aligned(n))):
        first, second = make(N), make(N)
        refs = [weakref.ref(first), weakref.ref(second)]
        f(first, out.ctypes.data, 1, 0.0, 0)
        f(second, out.ctypes.data, 1, 0.0, 0)
        del first, second
        gc.collect()
        assert [r() for r in refs] == [None, None]


@pytest.mark.usefixtures("host_memory")
def test_prepared_launch_keeps_only_its_last_arguments(compiled: Any, recorder: Recorder) -> None:
    out = _aligned(N)
    first, second = _aligned(N), _aligned(N)
    refs = [weakref.ref(first), weakref.ref(second)]
    p = compiled.prepare(first, out.ctypes.data, 1, 0.0, 0)
    p.launch(second, out.ctypes.data, 1, 0.0, 0)
    del first, second
    gc.collect()
    assert refs[0]() is None and refs[1]() is not None  # launch() launches the last ones again
    p.launch()
    assert recorder.calls[-1][0] == refs[1]().ctypes.data  # type: ignore[union-attr]


@pytest.mark.usefixtures("host_memory")
def test_failed_prepared_launch_leaves_the_last_arguments(compiled: Any, recorder: Recorder) -> None:
    out = _aligned(N)
    a = _aligned(N)
    p = compiled.prepare(a, out.ctypes.data, 3, 0.5, 0)
    with pytest.raises(coop.CoopTypeError, match="'offset'"):
        p.launch(_aligned(N), out.ctypes.data + 64, 5, None, 0)
    with pytest.raises(coop.CoopValueError, match="'scale': -2147483649 does not fit Int32"):
        p.launch(_aligned(N), out.ctypes.data + 64, -(2**31) - 1, 0.25, 0)
    p.launch()
    assert recorder.calls[-1] == (a.ctypes.data, out.ctypes.data, 3, 0.5, 0)


@pytest.mark.usefixtures("host_memory")
def test_cute_tensors_pass_as_they_are(compiled: Any, recorder: Recorder, conversions: list[Any]) -> None:
    """A CuTe tensor made by the caller: checked once (while it lives), its descriptor copied."""
    f = _fresh(compiled)
    out = _aligned(N)
    a = _aligned(N)
    tensor = _cute_hooks.from_dlpack(a, 16, False)
    for _ in range(3):
        f(tensor, out.ctypes.data, 1, 0.0, 0)
        assert recorder.calls[-1][0] == a.ctypes.data
    f(_aligned(N), out.ctypes.data, 1, 0.0, 0)  # then an array, then the CuTe tensor again
    f(tensor, out.ctypes.data, 1, 0.0, 0)
    assert recorder.calls[-1][0] == a.ctypes.data
    other = _cute_hooks.from_dlpack(_aligned(N, np.float32), 16, False)
    with pytest.raises(coop.CoopTypeError, match="'src' was compiled as Int32.*got Float32"):
        f(other, out.ctypes.data, 1, 0.0, 0)


def test_each_thread_has_its_own_call_state(compiled: Any, recorder: Recorder, host_memory: None) -> None:
    f = _fresh(compiled)
    out = _aligned(N)
    f(_aligned(N), out.ctypes.data, 1, 0.0, 0)
    states: list[Any] = []

    def call() -> None:
        f(_aligned(N), out.ctypes.data, 2, 0.0, 0)
        states.append(f._local.state)

    worker = threading.Thread(target=call)
    worker.start()
    worker.join()
    assert states and states[0] is not None and states[0] is not f._local.state
    assert [c[2] for c in recorder.calls] == [1, 2]


@pytest.mark.usefixtures("host_memory")
def test_functions_cute_must_call_itself_use_its_call(
    compiled: Any, recorder: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No call state for a function whose calls CuTe checks itself (a specialization record): its
    call goes to CuTe, each argument converted."""
    f = _fresh(compiled)
    monkeypatch.setattr(_cute_hooks, "plain_reentry", lambda compiled: False)
    cute_calls: list[tuple[Any, ...]] = []
    monkeypatch.setattr(f, "compiled", lambda *args: cute_calls.append(args))
    a, out = _aligned(N), _aligned(N)
    f(a, out.ctypes.data, 1, 0.0, 0)
    f(a, out.ctypes.data, 1, 0.0, 0)
    assert f._local.state is None and len(cute_calls) == 2 and not recorder.calls
    assert _cute_hooks.pointer_info(cute_calls[0][1]) == (cutlass.Int32, out.ctypes.data, 16)


@pytest.fixture(scope="module")
def dynamic() -> Any:
    """launch_host compiled for a 1-D int32 tensor of dynamic layout."""
    from cutlass.cute.runtime import make_fake_compact_tensor

    args = list(launch_args(N))
    args[0] = make_fake_compact_tensor(cutlass.Int32, (cute.sym_int32(),), assumed_align=16)
    return cutlass_coop.compile(launch_host(), *args)


@pytest.mark.usefixtures("host_memory")
def test_dynamic_layout_remembers_each_shape(
    dynamic: Any, recorder: Recorder, conversions: list[Any]
) -> None:
    """A dynamic layout's descriptor holds the extent: each shape is converted once, then a tensor
    of a shape seen before takes its remembered descriptor."""
    f = _fresh(dynamic)
    assert f._specs["src"].dynamic
    out = _aligned(4 * N)
    sizes = [N, 2 * N, N, 4 * N, 2 * N, N]
    for n in sizes:
        t = FakeTorchTensor(_aligned(n))
        f(t, out.ctypes.data, 1, 0.0, 0)
        assert recorder.calls[-1][0] == t.data_ptr() and recorder.extents[-1] == n
    assert [c.shape[0] for c in conversions] == [N, N, 2 * N, 4 * N]  # the first call's twice


@pytest.mark.usefixtures("host_memory")
def test_other_dlpack_arrays_are_read_through_a_memory_view(
    compiled: Any, recorder: Recorder, conversions: list[Any]
) -> None:
    """Arrays of other libraries (NumPy here) are keyed through cuda.core's StridedMemoryView: one
    like an array seen before is not converted again."""
    f = _fresh(compiled)
    out = _aligned(N)
    arrays = [_aligned(N) for _ in range(4)]
    for a in arrays:
        f(a, out.ctypes.data, 1, 0.0, 0)
        assert recorder.calls[-1][0] == a.ctypes.data
    assert all(c is arrays[0] for c in conversions)
    with pytest.raises(coop.CoopValueError, match="'src': data at .* is not aligned to 16 B"):
        f(_aligned(N + 1)[1:], out.ctypes.data, 1, 0.0, 0)
