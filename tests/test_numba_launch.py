# SPDX-License-Identifier: Apache-2.0
"""Launch marshalling without a GPU: the parameter layout against numba-cuda's own, argument
readers, streams, the prepared launch's slot rewrites and typed errors (driver call faked), and
bad launch configurations."""

from __future__ import annotations

import enum
import pickle
import struct
import types as pytypes
from typing import Any

import numpy as np
import pytest
from cuda import coop
from cuda.coop import _args as A
from cuda.coop._launch import Layout
from cuda.coop._prepared import PreparedLaunch
from cuda.coop._streams import stream_handle
from cuda.coop.numba.host import _marshal as M
from numba.cuda import types

from ._launch_fakes import fake_prepared

F32_C = types.Array(types.float32, 1, "C")


class CAI:
    """A device array known only by its ``__cuda_array_interface__`` (a class property)."""

    def __init__(
        self, ptr: int, shape: tuple[int, ...], dtype: str = "float32", strides: Any = None, **kw: Any
    ):
        self.desc = {"shape": shape, "typestr": np.dtype(dtype).str, "data": (ptr, False), "strides": strides}
        self.desc.update(version=3, **kw)

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        return self.desc


class Color(enum.IntEnum):
    RED = 3


class FakeNumbaArray:
    """What numba-cuda's ``_prepare_args`` reads of a device array (its strided-memory-view shim)."""

    __cuda_memory__ = True

    def __init__(self, ptr: int, shape: tuple[int, ...], strides: tuple[int, ...], dtype: str) -> None:
        from numba.cuda.cudadrv.devicearray import _StridedLayoutShim, _StridedMemoryViewShim

        layout = _StridedLayoutShim(
            strides_in_bytes=strides, is_contiguous_c=False, is_contiguous_f=False, is_contiguous_any=False
        )
        self._strided_memory_view_shim = _StridedMemoryViewShim(
            ptr=ptr, shape=shape, dtype=np.dtype(dtype), size=int(np.prod(shape)), _layout=layout
        )


def _numba_params(ty: Any, value: Any) -> bytes:
    """The kernel parameters numba-cuda 0.30 builds for ``value`` of type ``ty``, as 8-byte slots."""
    import ctypes

    from numba.cuda.dispatcher import _Kernel

    host = pytypes.SimpleNamespace(extensions=[])
    host._prepare_args = lambda *a: _Kernel._prepare_args(host, *a)
    args: list[Any] = []
    _Kernel._prepare_args(host, ty, value, 0, [], args)
    out = b""
    for a in args:
        if isinstance(a, bool):
            raw = bytes([a])
        elif isinstance(a, int):
            raw = struct.pack("<q" if a < 2**63 else "<Q", a)
        else:
            raw = bytes(memoryview(a).cast("B")) if not isinstance(a, ctypes._SimpleCData) else bytes(a)
        out += raw.ljust(8, b"\0")
    return out


def _ours(ty: Any, value: Any) -> bytes:
    layout = Layout([M.spec(ty)])
    buf = bytearray(8 * layout.slots)
    _, values = M.read_args([value])
    layout.pack_into(buf, 0, *values)
    return bytes(buf)


PARAM_CASES = [
    (types.int8, -7),
    (types.uint16, 65000),
    (types.int32, -123456),
    (types.uint32, 4000000000),
    (types.int64, -(2**40)),
    (types.uint64, 2**63 + 5),
    (types.float16, 1.5),
    (types.float32, -2.25),
    (types.float64, 1e300),
    (types.complex64, 1.5 - 2j),
    (types.complex128, -3.25 + 4.5j),
    (types.boolean, True),
    (types.boolean, False),
    (types.UniTuple(types.int64, 3), (5, -6, 7)),
    (types.Tuple((types.int32, types.float64)), (9, 0.5)),
]


@pytest.mark.parametrize(("ty", "value"), PARAM_CASES, ids=lambda v: str(v))
def test_scalar_parameters_match_numba(ty: Any, value: Any) -> None:
    assert _ours(ty, value) == _numba_params(ty, value)


@pytest.mark.parametrize(
    ("shape", "strides", "layout"),
    [
        ((4096,), (4,), "C"),
        ((10, 3), (12, 4), "C"),
        ((10, 3), (4, 40), "F"),
        ((10, 2), (24, 8), "A"),
        ((), (), "C"),
    ],
)
def test_array_parameters_match_numba(shape: tuple[int, ...], strides: tuple[int, ...], layout: str) -> None:
    ty = types.Array(types.float32, len(shape), layout)
    ptr = 0x7F00_0000_1000
    want = _numba_params(ty, FakeNumbaArray(ptr, shape, strides, "float32"))
    assert _ours(ty, CAI(ptr, shape, strides=strides)) == want
    keys, _ = M.read_args([CAI(ptr, shape, strides=strides)])
    assert keys[0][2:4] == (len(shape), layout)


def test_enum_and_pointer_parameters() -> None:
    enum_ty = types.IntEnumMember(Color, types.int64)
    assert _ours(enum_ty, Color.RED) == _numba_params(enum_ty, Color.RED)
    assert _ours(types.CPointer(types.float32), 0xDEAD_BEEF) == _numba_params(
        types.CPointer(types.float32), 0xDEAD_BEEF
    )


@pytest.mark.parametrize(
    ("shape", "strides", "want"),
    [
        ((5,), (8,), "C"),
        ((5,), (16,), "A"),
        ((2, 3), (24, 8), "C"),
        ((2, 3), (8, 16), "F"),
        ((2, 3), (48, 16), "A"),
        ((1, 3), (999, 8), "C"),  # extent-1 dims do not count
        ((3, 1), (8, 999), "C"),
        ((4, 3), (0, 8), "A"),  # broadcast
        ((0, 3), (0, 0), "C"),
    ],
)
def test_layout_of(shape: tuple[int, ...], strides: tuple[int, ...], want: str) -> None:
    assert A.layout_of(shape, strides, 8) == want


def test_readers_by_type() -> None:
    from numba.cuda.cudadrv.devicearray import DeviceNDArray

    assert M.reader_for(int) is M.READERS[int]
    assert M.reader_for(np.float32)(np.float32(2))[0] == ("scalar", np.float32)  # type: ignore[misc]
    assert M.reader_for(np.complex64)(np.complex64(1 + 2j))[1] == (1.0, 2.0)  # type: ignore[misc]
    assert M.reader_for(Color)(Color.RED) == (("scalar", Color), (3,))  # type: ignore[misc]
    assert M.reader_for(np.ndarray) is None  # host memory: Numba's own path
    assert M.reader_for(DeviceNDArray) is M._read_numba
    assert M.reader_for(CAI) == M.MARSHAL.read_cai

    class Instance:  # the interface as an instance attribute
        pass

    obj = Instance()
    obj.__cuda_array_interface__ = CAI(0x1000, (3,), "int16").desc  # type: ignore[attr-defined]
    keys, values = M.read_args([obj])
    assert keys[0][:4] == ("cai", np.dtype("int16"), 1, "C") and values == [0, 0, 3, 2, 0x1000, 3, 2]
    with pytest.raises(A.Unsupported, match="host memory"):
        M.read_args([np.zeros(3)])
    with pytest.raises(A.Unsupported, match="list is not a GPU array"):
        M.read_args([[1, 2]])


def test_cai_keys_carry_readonly_and_mask() -> None:
    keys, _ = M.read_args([CAI(0x10, (3,), data=(0x10, True)), CAI(0x10, (3,), mask=object())])
    assert keys[0][5] is True and keys[1][6] and "mask" in keys[1][6]


class CoreStream:
    def __cuda_stream__(self) -> tuple[int, int]:
        return (0, 0xABC)


@pytest.mark.parametrize(
    ("stream", "handle"),
    [
        (None, 0),
        (0, 0),
        (0x1234, 0x1234),
        (CoreStream(), 0xABC),
        (pytypes.SimpleNamespace(cuda_stream=77), 77),  # torch.cuda.Stream
        (pytypes.SimpleNamespace(ptr=88), 88),  # cupy.cuda.Stream
    ],
    ids=["none", "zero", "int", "cuda_stream_protocol", "torch", "cupy"],
)
def test_stream_handles(stream: Any, handle: int) -> None:
    assert stream_handle(stream) == handle


def test_numba_stream_handle() -> None:
    from cuda.bindings import driver
    from numba.cuda.cudadrv.driver import Stream

    assert stream_handle(Stream(driver.CUstream(0x55))) == 0x55
    assert stream_handle(driver.CUstream(0x66)) == 0x66  # the CuTe front door's stream slots take these


@pytest.mark.parametrize(
    ("stream", "error", "match"),
    [
        ("s", coop.CoopTypeError, "expected a stream"),
        (-1, coop.CoopValueError, "not negative"),
        (1 << 64, coop.CoopValueError, "a stream handle is a 64-bit pointer, got 0x10000000000000000"),
        (True, coop.CoopTypeError, "expected a stream"),
    ],
)
def test_bad_streams(stream: Any, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        stream_handle(stream, what="k: stream")


# --- the prepared launch, with the driver call faked -----------------------------------------------


def _prepared(
    argtypes: list[Any], names: str, stream: int = 0
) -> tuple[PreparedLaunch, list[tuple[Any, ...]]]:
    return fake_prepared([M.spec(t) for t in argtypes], names, M.MARSHAL, stream, what="axpb")


def _slots(p: PreparedLaunch) -> list[int]:
    return list(p._params.buffer)


def test_prepared_launch_rewrites_only_argument_slots() -> None:
    p, calls = _prepared([F32_C, F32_C, types.int32, types.float32], "xyna", stream=0x99)
    rng = np.random.default_rng()
    n, a = int(rng.integers(1, 1 << 20)), float(np.float32(rng.standard_normal()))
    p.set_args([CAI(0x1000, (n,)), CAI(0x2000, (n,)), n, a])
    a_bits = struct.unpack("<I", struct.pack("<f", a))[0]
    assert _slots(p) == [0, 0, n, 4, 0x1000, n, 4, 0, 0, n, 4, 0x2000, n, 4, n, a_bits]
    p.launch()
    f, gx, gy, gz, bx, by, bz, shmem, stream, params, extra = calls[-1]
    assert (f, gx, gy, gz, bx, by, bz, shmem, int(stream), extra) == ("F", 8, 1, 1, 128, 1, 1, 0, 0x99, 0)
    assert params == p._params.address
    p.launch(CAI(0x3000, (100,)), 0x4000, 7, 1)  # an int for an array: only its data pointer
    assert _slots(p) == [0, 0, 100, 4, 0x3000, 100, 4, 0, 0, n, 4, 0x4000, n, 4, 7, 0x3F800000]
    p.launch(stream=CoreStream())
    assert int(calls[-1][8]) == 0xABC and int(calls[0][8]) == 0x99
    assert len(calls) == 3


def test_prepared_scalars_tuples_enums() -> None:
    argtypes = [
        types.complex64,
        types.boolean,
        types.UniTuple(types.int64, 2),
        types.IntEnumMember(Color, types.int64),
    ]
    p, _ = _prepared(argtypes, "cbte")
    p.set_args([1 + 2j, True, (5, -6), Color.RED])
    assert _slots(p) == [0x3F800000, 0x40000000, 1, 5, 2**64 - 6, 3]
    p.launch(np.complex64(2 - 1j), np.bool_(False), (np.int64(1), 2), Color.RED)
    assert _slots(p) == [0x40000000, 0xBF800000, 0, 1, 2, 3]


BAD_ARGS = [
    (0, CAI(0x1, (4,), "float64"), coop.CoopTypeError, "dtype float64, the kernel takes float32"),
    (0, CAI(0x1, (4, 2)), coop.CoopTypeError, "2-D, the kernel takes 1-D"),
    (
        0,
        CAI(0x1, (4,), strides=(8,)),
        coop.CoopTypeError,
        "layout A, the kernel was compiled for C-contiguous",
    ),
    (0, 1.5, coop.CoopTypeError, "got a float, the kernel takes a float32 1-D C-layout array"),
    (0, -0x1000, coop.CoopValueError, "-0x1000 is not a device address"),  # a slot keeps the low bits
    (0, 1 << 64, coop.CoopValueError, "0x10000000000000000 is not a device address"),
    (0, np.zeros(4, np.float32), coop.CoopTypeError, "host memory; copy it to the GPU"),
    (0, CAI(0x1, (4,), data=(0x1, True)), coop.CoopValueError, "read-only"),
    (0, CAI(0x1, (4,), mask=object()), coop.CoopTypeError, "mask"),
    (1, 1.5, coop.CoopTypeError, "got float, the kernel takes int32"),
    (1, 2**40, coop.CoopValueError, "does not fit the kernel's int32"),
    (1, CAI(0x1, (1,)), coop.CoopTypeError, "got CAI, the kernel takes int32"),
    (1, Color.RED, coop.CoopTypeError, "got Color"),
    (2, 1, coop.CoopTypeError, "got int, the kernel takes bool"),
    (3, (1, 2.5), coop.CoopTypeError, "member 1: got a float, the kernel takes int64"),
    (3, (1, 2, 3), coop.CoopTypeError, "got a tuple of (a int, a int, a int)"),
]


@pytest.mark.parametrize("value", [1e300, -3.5e38, np.float64(1e39)])
def test_prepared_float32_past_its_range_is_a_typed_error(value: Any) -> None:
    """``struct`` raises OverflowError (not struct.error) for a float past float32's range: named too,
    and the launch changes no slot."""
    p, calls = _prepared([F32_C, types.float32], "xa")
    p.set_args([CAI(0x1000, (4,)), 1.5])
    before = _slots(p)
    with pytest.raises(
        coop.CoopValueError, match=r"axpb: argument 1 \(a\): .* does not fit the kernel's float32"
    ):
        p.launch(CAI(0x2000, (4,)), value)
    assert _slots(p) == before and not calls
    p.launch(CAI(0x2000, (4,)), 3.4e38)  # float32's largest finite magnitude fits
    assert len(calls) == 1


@pytest.mark.parametrize(("pos", "value", "error", "match"), BAD_ARGS, ids=[m for *_, m in BAD_ARGS])
def test_prepared_typed_errors_name_the_argument(
    pos: int, value: Any, error: type[Exception], match: str
) -> None:
    p, calls = _prepared(
        [F32_C, types.int32, types.boolean, types.UniTuple(types.int64, 2)], ["x", "n", "flag", "t"]
    )
    good = [CAI(0x1000, (4,)), 4, True, (1, 2)]
    p.set_args(good)
    before = _slots(p)
    args = list(good)
    args[0] = CAI(0x2000, (8,))  # a good rewrite before the bad one: undone when the launch raises
    args[pos] = value
    with pytest.raises(error) as info:
        p.launch(*args)
    name = ["x", "n", "flag", "t"][pos]
    assert f"axpb: argument {pos} ({name}): " in str(info.value) and match in str(info.value)
    assert isinstance(info.value, coop.CoopError)
    assert _slots(p) == before and not calls


def test_prepared_wrong_count() -> None:
    p, _ = _prepared([F32_C, types.int32], "xn")
    with pytest.raises(coop.CoopTypeError, match=r"takes 2 arguments \(x, n\), got 1"):
        p.launch(CAI(0x1, (4,)))


# --- launch configurations (no GPU reached) ----------------------------------------------------------


def _kernel() -> Any:
    import cuda.coop.numba as numba_coop

    def axpb(x, y, n, a):  # type: ignore[no-untyped-def]
        pass

    return numba_coop.jit(axpb)


@pytest.mark.parametrize(
    ("config", "error", "match"),
    [
        ((0, 128), coop.CoopLaunchConfigError, "axpb: grid must be positive"),
        ((1.5, 128), coop.CoopLaunchConfigError, "axpb: grid must be an int or a tuple"),
        (((1, 2, 3, 4), 128), coop.CoopLaunchConfigError, "axpb: grid must be an int or a tuple"),
        ((1, 0), coop.CoopLaunchConfigError, "axpb: block must be positive"),
        ((1, 2048), coop.CoopLaunchConfigError, "more than 1024 threads"),
        ((1, 128, "s"), coop.CoopTypeError, "axpb: stream: expected a stream"),
        ((1, 128, 0, -1), coop.CoopLaunchConfigError, "dynamic shared memory must be >= 0"),
        ((1, 128, 0, 1.0), coop.CoopLaunchConfigError, "dynamic shared memory must be an int"),
    ],
)
def test_bad_launch_configs(config: tuple[Any, ...], error: type[Exception], match: str) -> None:
    k = _kernel()
    with pytest.raises(error, match=match):
        k[config]
    with pytest.raises(error, match=match):
        k.prepare(
            *config[:2],
            CAI(1, (4,)),
            CAI(2, (4,)),
            4,
            1.0,
            stream=(config + (0,))[2],
            shared_mem=(config + (0, 0))[3],
        )


def test_configured_launches_are_cached() -> None:
    k = _kernel()
    assert k[4, 128] is k[4, 128] and k[4, 128] is not k[4, 64]
    assert k[[4], [128]] is not k[[4], [128]]  # unhashable: built each time


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        (
            (CAI(1, (4,)), CAI(2, (4,)), 4),
            coop.CoopTypeError,
            r"takes the kernel's 4 arguments \(x, y, n, a\), got 3",
        ),
        (
            (CAI(1, (4,)), np.zeros(4, np.float32), 4, 1.0),
            coop.CoopTypeError,
            r"argument 1 \(y\): a NumPy array",
        ),
        (
            (CAI(1, (4,)), CAI(2, (4,), mask=object()), 4, 1.0),
            coop.CoopTypeError,
            r"argument 1 \(y\): it has a mask",
        ),
        ((CAI(1, (4,)), [1.0], 4, 1.0), coop.CoopTypeError, r"argument 1 \(y\): list is not a GPU array"),
    ],
)
def test_prepare_rejects_arguments_before_compiling(
    args: tuple[Any, ...], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        _kernel().prepare(4, 128, *args)


# --- numba-cuda internals the launch path uses ---------------------------------------------------------


def test_numba_internals_are_where_the_launch_path_expects() -> None:
    """A numba-cuda upgrade that moves one of these fails here, naming it."""
    from numba import cuda
    from numba.cuda.codegen import CUDACodeLibrary
    from numba.cuda.cudadrv.devicearray import DeviceNDArray
    from numba.cuda.cudadrv.driver import CudaAPIError, CudaPythonFunction
    from numba.cuda.dispatcher import _Kernel

    def k(x):  # type: ignore[no-untyped-def]
        pass

    disp = cuda.jit(k)
    for name in ("overloads", "typeof_pyval", "_can_compile", "typingctx", "targetoptions", "compile"):
        assert hasattr(disp, name), f"CUDADispatcher.{name}"
    assert hasattr(disp.typingctx, "can_convert"), "typing context can_convert"
    assert "extensions" in disp.targetoptions, "targetoptions['extensions']"
    assert hasattr(_Kernel, "bind") and hasattr(_Kernel, "argument_types"), "_Kernel.bind / argument_types"
    import inspect

    init = inspect.getsource(_Kernel.__init__)
    assert "self.cooperative" in init and "self.debug" in init, "_Kernel.cooperative / debug"
    assert hasattr(CUDACodeLibrary, "get_cufunc"), "CUDACodeLibrary.get_cufunc"
    assert "handle" in CudaPythonFunction.__slots__, "CudaPythonFunction.handle"
    assert "_numba_type_" in dir(DeviceNDArray) and "device_ctypes_pointer" in dir(DeviceNDArray)
    assert CudaAPIError(1, "x")


# --- arrays whose data is aligned ---------------------------------------------------------------


def test_array_keys_say_whether_data_is_aligned() -> None:
    rng = np.random.default_rng()
    base = int(rng.integers(1, 1 << 30)) * A.ALIGN
    for off, want in ((0, True), (4, False), (8, False), (A.ALIGN, True)):
        keys, _ = M.read_args([CAI(base + off, (3,)), 1.5, (CAI(base, (2,)),)])
        assert A.aligned(keys[0]) is want
        assert not A.aligned(keys[1]) and not A.aligned(keys[2])  # a scalar, a tuple: never


def test_aligned_array_type_is_an_array_of_its_own() -> None:
    from cuda.coop.numba.kernel._types import AlignedArrayType

    a = AlignedArrayType(types.float32, 1, "C")
    assert isinstance(a, types.Array) and a != F32_C and hash(a) != hash(F32_C)
    assert (a.dtype, a.ndim, a.layout, a.mutable, a.align) == (types.float32, 1, "C", True, 16)
    assert str(a) == "array(float32, 1d, C, align 16)"
    assert repr(a) == "AlignedArrayType(float32, 1, 'C', False, align=16)" and repr(a) != repr(F32_C)
    assert AlignedArrayType(types.float32, 1, "C", readonly=True) != a
    assert a.copy(layout="A") == types.Array(types.float32, 1, "A")  # a view of it is a plain array
    assert pickle.loads(pickle.dumps(a)) == a  # Numba's on-disk cache pickles signatures


def test_prepared_aligned_kernel_refuses_misaligned_data() -> None:
    from cuda.coop.numba.kernel._types import AlignedArrayType

    p, calls = _prepared([AlignedArrayType(types.float32, 1, "C"), types.int32], "xn")
    p.set_args([CAI(0x1000, (4,)), 4])
    before = _slots(p)
    for bad in (0x2004, CAI(0x3008, (4,))):
        with pytest.raises(coop.CoopValueError, match=r"argument 0 \(x\): its data is not 16-byte aligned"):
            p.launch(bad, 4)
        assert _slots(p) == before and not calls
    p.launch(0x2010, 5)
    assert _slots(p)[4] == 0x2010 and len(calls) == 1
    p.launch(CAI(0x4000, (6,)), 6)
    assert _slots(p)[4] == 0x4000 and len(calls) == 2


def test_numba_own_compiles_of_a_block_dispatcher_know_the_block() -> None:
    """numba-cuda's own compile of a ``for_block`` dispatcher (a launch through it with new argument
    types) runs inside the kernel's compile context; one coop started runs as it is."""
    from cuda.coop._backend_api import compiling, current
    from cuda.coop.numba import _numba_hooks

    seen = []

    class Disp:
        def _compile_for_args(self, *args: Any) -> str:
            seen.append(current())
            return "compiled"

    d = Disp()
    _numba_hooks.compile_in(d, lambda: compiling((64, 2, 1)))
    assert d._compile_for_args(1, 2) == "compiled" and seen[-1].block_dims == (64, 2, 1)
    with compiling((32, 1, 1)):
        d._compile_for_args()
    assert seen[-1].block_dims == (32, 1, 1)
    assert current() is None


# --- kernel[grid, block]: arguments like the last launch's ----------------------------------------


class _Dtype:
    is_complex = False


class FakeTensor:
    """What :meth:`BoundPlan.take` reads of a torch tensor (the fake torch module's ``Tensor``)."""

    dtype = _Dtype()

    def __init__(self, ptr: int, shape: tuple[int, ...], strides: tuple[int, ...], grad: bool = False):
        self.ptr, self.shape, self.strides, self.requires_grad = ptr, shape, strides, grad

    def stride(self) -> tuple[int, ...]:
        return self.strides

    def get_device(self) -> int:
        return 0

    def data_ptr(self) -> int:
        return self.ptr


class OwnArray:
    """A stand-in for the DSL's own device array (its marshal says so)."""


@pytest.fixture
def fake_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(__import__("sys").modules, "torch", pytypes.SimpleNamespace(Tensor=FakeTensor))


def _bound(specs: list[Any], calls: list[tuple[Any, ...]], context: int = 7) -> Any:
    from cuda.coop._launch import BoundPlan

    marshal = A.Marshal(M.MARSHAL.abi, own_array=(lambda kind: kind is OwnArray, lambda a: None))
    plan = pytypes.SimpleNamespace(
        what="k",
        layout=Layout([M.spec(t) for t in specs]),
        function="F",
        driver_launch=lambda *call: calls.append(call) or (0,),
        marshal=marshal,
        launch_error=lambda err, what: RuntimeError(what),
        context=context,
        allow_shared=lambda shmem: None,
    )
    return BoundPlan(plan)  # type: ignore[arg-type]


@pytest.mark.usefixtures("fake_torch")
def test_bound_plan_takes_arguments_like_the_ones_it_noted() -> None:
    """``take`` writes only a data pointer for a tensor like the noted one, nothing for the same own
    array, a scalar of the same type packed; anything that would key another plan (shape, strides,
    alignment, grad, a subclass, another own array, another scalar type, a value that does not fit)
    is not taken."""
    calls: list[tuple[Any, ...]] = []
    bp = _bound([F32_C, F32_C, types.int32], calls)
    data = M.MARSHAL.abi.data_slots[0]
    t, own = FakeTensor(0x1000, (64,), (1,)), OwnArray()
    assert not bp.take(t, own, 3)  # nothing noted yet
    bp.remember([t, own, 3])
    slots = Layout([M.spec(F32_C)]).slots
    assert bp.take(FakeTensor(0x2000, (64,), (1,)), own, 5)
    assert bp.buffer[data] == 0x2000 and bp.buffer[2 * slots] == 5
    unlike = [
        (FakeTensor(0x2000, (65,), (1,)), own, 5),  # shape
        (FakeTensor(0x2000, (64,), (2,)), own, 5),  # strides
        (FakeTensor(0x2004, (64,), (1,)), own, 5),  # misaligned: another plan's key
        (FakeTensor(0x2000, (64,), (1,), grad=True), own, 5),
        (type("Sub", (FakeTensor,), {})(0x2000, (64,), (1,)), own, 5),
        (t, OwnArray(), 5),
        (t, own, 5.0),
        (t, own, np.int32(5)),
        (t, own, 2**40),
    ]
    for args in unlike:
        assert not bp.take(*args), args
    bp.launch_written((2, 1, 1), (128, 1, 1), 0, 0x99)
    assert calls[-1] == ("F", 2, 1, 1, 128, 1, 1, 0, 0x99, bp.address, 0)
    bp.remember([FakeTensor(0x3004, (64,), (1,)), t, 1])  # now a misaligned tensor and a tensor
    assert bp.take(FakeTensor(0x4004, (64,), (1,)), FakeTensor(0x5000, (64,), (1,)), 2)
    assert not bp.take(FakeTensor(0x4000, (64,), (1,)), t, 2)  # aligned now: the aligned plan's
    assert not bp.take(t, own, 2)
    del own  # a dead weak reference is nothing's
    bp.remember([t, OwnArray(), 1])
    assert not bp.take(t, None, 1)


@pytest.mark.usefixtures("fake_torch")
def test_configured_launch_tries_the_recent_plans(monkeypatch: pytest.MonkeyPatch) -> None:
    """``kernel[grid, block]`` launches through the most recent plan that takes the arguments in the
    current context; plans of another context, or of another argument count, are not tried."""
    from cuda.coop import _launch

    k = _kernel()
    launch = k[3, 128]
    calls: list[tuple[Any, ...]] = []
    f32, f64 = (
        _bound([F32_C, types.int32], calls),
        _bound([types.Array(types.float64, 1, "C"), types.int32], calls),
    )
    monkeypatch.setattr(_launch, "current_context", lambda: 7)
    t32, t64 = FakeTensor(0x1000, (8,), (1,)), FakeTensor(0x2000, (8,), (1,))
    t64.dtype = _Dtype()  # another dtype object: another plan
    assert not launch.take((t32, 1))
    for plan, t, isz in ((f32, t32, 4), (f64, t64, 8)):
        launch.launch_plan(plan, (t, 1), [*M.MARSHAL.abi.values(t.ptr, 8, isz, (8,), (isz,)), 1])
    assert launch._local.recent == [f64, f32] and len(calls) == 2
    assert launch.take((t32, 2)) and calls[-1][:4] == ("F", 3, 1, 1) and launch._local.recent[0] is f32
    assert launch.take((t64, 3)) and launch._local.recent[0] is f64
    assert not launch.take((t64,))
    monkeypatch.setattr(_launch, "current_context", lambda: 8)
    assert not launch.take((t64, 3))
    assert len(calls) == 4


class FakeTorchTensor(FakeTensor):
    """A 1-D contiguous float32 tensor as ``Marshal.read_torch`` reads it too."""

    itemsize = 4

    def __init__(self, ptr: int, n: int, grad: bool = False) -> None:
        super().__init__(ptr, (n,), (1,), grad)

    def is_contiguous(self) -> bool:
        return True

    def is_conj(self) -> bool:
        return False

    def is_neg(self) -> bool:
        return False

    def numel(self) -> int:
        return self.shape[0]


@pytest.fixture
def fake_torch_tensors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(__import__("sys").modules, "torch", pytypes.SimpleNamespace(Tensor=FakeTorchTensor))


@pytest.mark.usefixtures("fake_torch_tensors")
def test_ordinary_launch_path_takes_then_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """``kernel[grid, block](...)`` end to end with a faked driver: the first launch keys its
    arguments and launches the cached plan, the next ones like them are taken (only pointers and
    scalars written), a scalar of another type keys another plan, a tensor that requires grad is
    refused by name (never taken, never handed to the DSL's launch)."""
    from cuda.coop import _launch
    from cuda.coop.numba.host import _dispatcher as D

    for module in (_launch, D):
        monkeypatch.setattr(module, "current_context", lambda: 7)
    slow: list[tuple[Any, ...]] = []
    monkeypatch.setattr(D._Launch, "_numba", lambda self, args, key: slow.append(args))
    k = _kernel()
    launch = k[3, 128]
    calls: list[tuple[Any, ...]] = []
    specs = [F32_C, F32_C, types.int64, types.float64]
    plans = k._launch_cache().plans()

    def plan_for(*args: Any) -> Any:
        bp = _bound(specs, calls)
        plans[(launch._dims, 7, M.read_args(args)[0])] = bp
        return bp

    t = [FakeTorchTensor(0x10000 * (i + 1), 512) for i in range(6)]
    first = plan_for(t[0], t[1], 5, 1.5)
    data = [o + M.MARSHAL.abi.data_slots[0] for o in first.plan.layout.offsets[:2]]
    scalars = first.plan.layout.offsets[2:]
    launch(t[0], t[1], 5, 1.5)
    assert len(calls) == 1 and launch._local.recent == [first]
    k[3, 128](t[2], t[3], 6, 2.5)  # taken: the same configuration's launch, new pointers and scalars
    assert len(calls) == 2 and [first.buffer[d] for d in data] == [t[2].ptr, t[3].ptr]
    assert first.buffer[scalars[0]] == 6 and struct.pack("<Q", first.buffer[scalars[1]]) == struct.pack(
        "<d", 2.5
    )
    other = plan_for(t[2], t[3], np.int64(6), 2.5)
    launch(t[2], t[3], np.int64(7), 2.5)  # another scalar type: another key, another plan
    assert len(calls) == 3 and launch._local.recent == [other, first] and other.buffer[scalars[0]] == 7
    launch(t[4], t[5], 8, 0.5)  # taken by the first plan again
    assert len(calls) == 4 and launch._local.recent[0] is first and first.buffer[data[0]] == t[4].ptr
    grad = (FakeTorchTensor(0x90000, 512, grad=True), t[5], 8, 0.5)
    with pytest.raises(coop.CoopTypeError, match=r"argument 0 \(x\): it requires grad; pass x.detach\(\)"):
        launch(*grad)  # refused by name, never taken, never handed to the DSL's launch
    assert len(calls) == 4 and not slow
    plans[(launch._dims, 7, M.read_args([t[0], t[1], 5, 1.5])[0])] = None  # a key only the DSL launches
    launch(FakeTorchTensor(0xA0000, 512), t[1], 5, 1.5)  # like the first plan's: taken all the same
    assert len(calls) == 5
