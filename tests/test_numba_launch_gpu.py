# SPDX-License-Identifier: Apache-2.0
"""Launching coop kernels on a GPU, under numba-cuda and numba-cuda-mlir: every array kind (the
DSL's device arrays, CAI and DLPack objects, torch, CuPy) through ``kernel[grid, block]`` (compiled
and planned the first time, the cached plan after) and through a prepared launch; typed errors;
streams; CUDA graph capture and replay; threads.

Three compiled kernels carry the cases (device time is scarce): a coop load/axpb/store, a 2-D
strided copy (C, F and A layouts) and a scalar echo (every scalar kind). Both backends compile the
same source, with its ``cuda`` import changed. Data is fresh random, outputs are poisoned with NaN.
"""

from __future__ import annotations

import enum
import threading
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from cuda import coop

from ._compute_kernels import load
from ._numba_family import BACKENDS, family

pytestmark = pytest.mark.gpu

THREADS, ITEMS = 128, 4
GRID = 5
N = GRID * THREADS * ITEMS


class Color(enum.IntEnum):
    RED = 3
    BLUE = 11


KERNELS = """
from numba import cuda
from cuda import coop
import numpy as np

THREADS, ITEMS = {threads}, {items}


def axpb(x, y, a, b):
    items = coop.ThreadData(ITEMS, np.float32)
    base = cuda.blockIdx.x * THREADS * ITEMS
    coop.block.load(x, items, offset=base, algorithm="striped")
    for i in range(ITEMS):
        items[i] = items[i] * a + b
    coop.block.store(y, items, offset=base, algorithm="striped")


def scale2d(m, out, f):
    i, j = cuda.grid(2)
    if i < m.shape[0] and j < m.shape[1]:
        out[i, j] = m[i, j] * f


def echo(out, i8, u16, f16, c64, flag, pair, color):
    if cuda.threadIdx.x == 0 and cuda.blockIdx.x == 0:
        out[0] = i8
        out[1] = u16
        out[2] = f16
        out[3] = c64.real
        out[4] = c64.imag
        out[5] = 1.0 if flag else 0.0
        out[6] = pair[0]
        out[7] = pair[1]
        out[8] = color + 0  # an IntEnum member has no cast to float; its int value has
"""


class Kernels(dict):  # type: ignore[type-arg]
    """The three kernels of one backend, and its ``cuda`` module."""

    backend: str
    cuda: Any


@pytest.fixture(scope="module", params=BACKENDS)
def kernels(request: pytest.FixtureRequest) -> Kernels:
    jit, cuda, source = family(request.param)
    module = load(f"launch_kernels_{request.param}", source(KERNELS.format(threads=THREADS, items=ITEMS)))
    out = Kernels({name: jit(getattr(module, name)) for name in ("axpb", "scale2d", "echo")})
    out.backend, out.cuda = request.param, cuda
    return out


@pytest.fixture(scope="module")
def torch() -> Any:
    return pytest.importorskip("torch")


# --- array kinds -------------------------------------------------------------------------------------


class CAIOnly:
    """An object known to the launch only by its ``__cuda_array_interface__``."""

    def __init__(self, array: Any) -> None:
        self.array = array

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        return self.array.__cuda_array_interface__  # type: ignore[no-any-return]


class DLPackOnly:
    """An object known to the launch only by ``__dlpack__``."""

    def __init__(self, tensor: Any) -> None:
        self.tensor = tensor

    def __dlpack__(self, **kw: Any) -> Any:
        return self.tensor.__dlpack__(**kw)

    def __dlpack_device__(self) -> Any:
        return self.tensor.__dlpack_device__()


def _maker(kind: str, cuda: Any) -> tuple[Callable[[np.ndarray], Any], Callable[[Any], np.ndarray]]:
    """(host -> device object of ``kind``, device object -> host); ``cuda`` is the DSL's module
    (its device arrays are kind ``"numba"``)."""
    if kind == "numba":
        return cuda.to_device, lambda d: d.copy_to_host()
    if kind == "cai":
        return lambda h: CAIOnly(cuda.to_device(h)), lambda d: d.array.copy_to_host()
    if kind in ("torch", "dlpack"):
        torch = pytest.importorskip("torch")
        to = (
            (lambda h: torch.from_numpy(h).cuda())
            if kind == "torch"
            else lambda h: DLPackOnly(torch.from_numpy(h).cuda())
        )
        back = (lambda d: d.cpu().numpy()) if kind == "torch" else lambda d: d.tensor.cpu().numpy()
        return to, back
    if kind == "cupy":
        cupy = pytest.importorskip("cupy")
        return cupy.asarray, cupy.asnumpy
    raise AssertionError(kind)


KINDS = ["numba", "cai", "torch", "dlpack", "cupy"]


def _data(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, float, float]:
    x = rng.uniform(0.5, 2.0, N).astype(np.float32) * rng.choice([-1, 1], N).astype(np.float32)
    return x, np.full(N, np.nan, np.float32), float(rng.uniform(1.5, 3.0)), float(rng.uniform(-2.0, 2.0))


def _want(x: np.ndarray, a: float, b: float) -> np.ndarray:
    return (x.astype(np.float64) * a + b).astype(np.float32)


def _sync(kernels: Kernels) -> None:
    kernels.cuda.synchronize()


@pytest.mark.parametrize("kind", KINDS)
def test_every_array_kind_first_launch_then_cached_plan(kernels: Kernels, kind: str) -> None:
    """The first launch of a signature compiles and plans it, the next ones take the cached plan
    (nothing goes through the DSL's own launcher: the slow-launch count stays); each result is
    right."""
    axpb = kernels["axpb"]
    to, back = _maker(kind, kernels.cuda)
    rng = np.random.default_rng()
    cache = axpb._launch_cache()
    for rep in range(3):
        x, poison, a, b = _data(rng)
        dx, dy = to(x), to(poison)
        before = cache.slow_launches
        axpb[GRID, THREADS](dx, dy, a, b)
        _sync(kernels)
        np.testing.assert_array_equal(back(dy), _want(x, a, b), err_msg=f"{kind}, launch {rep}")
        if rep or kernels.backend == "numba_mlir":  # numba-cuda: the first launch is Numba's
            assert cache.slow_launches == before, f"{kind}: launch {rep} went through the DSL's launcher"


def test_mixed_kinds_and_host_arrays(kernels: Kernels, torch: Any) -> None:
    """A torch input with a DSL device array output uses one cached plan; a host NumPy output is the
    DSL's to copy in and out (every time)."""
    cuda = kernels.cuda
    axpb = kernels["axpb"]
    rng = np.random.default_rng()
    cache = axpb._launch_cache()
    for rep in range(2):
        x, poison, a, b = _data(rng)
        dy = cuda.to_device(poison)
        before = cache.slow_launches
        axpb[GRID, THREADS](torch.from_numpy(x).cuda(), dy, a, b)
        np.testing.assert_array_equal(dy.copy_to_host(), _want(x, a, b))
        assert rep == 0 or cache.slow_launches == before
        host_out = poison.copy()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the DSL's warning of the implicit copy, on purpose
            axpb[GRID, THREADS](cuda.to_device(x), host_out, a, b)  # the DSL copies host_out back
        np.testing.assert_array_equal(host_out, _want(x, a, b))


def test_prepared_launch_rewrites_arguments_of_every_kind(kernels: Kernels) -> None:
    axpb = kernels["axpb"]
    rng = np.random.default_rng()
    x, poison, a, b = _data(rng)
    to, back = _maker("numba", kernels.cuda)
    dx, dy = to(x), to(poison)
    p = axpb.prepare(GRID, THREADS, dx, dy, a, b)
    _sync(kernels)
    np.testing.assert_array_equal(back(dy), poison, err_msg="prepare() launched")
    p.launch()
    _sync(kernels)
    np.testing.assert_array_equal(back(dy), _want(x, a, b))
    for kind in KINDS:
        try:
            to, back = _maker(kind, kernels.cuda)
        except pytest.skip.Exception:
            continue
        x, poison, a, b = _data(rng)
        dx, dy = to(x), to(poison)
        p.launch(dx, dy, a, b)
        _sync(kernels)
        np.testing.assert_array_equal(back(dy), _want(x, a, b), err_msg=kind)
    # Raw pointers for the arrays: only the data slots change.
    x, poison, a, b = _data(rng)
    nx, ny = cuda_arrays = [_maker("numba", kernels.cuda)[0](h) for h in (x, poison)]
    p.launch(*(int(d.__cuda_array_interface__["data"][0]) for d in cuda_arrays), a, b)
    _sync(kernels)
    np.testing.assert_array_equal(ny.copy_to_host(), _want(x, a, b))
    # The last arguments again, after new data in the same buffers.
    x2 = rng.uniform(1, 2, N).astype(np.float32)
    nx.copy_to_device(x2)
    p.launch()
    _sync(kernels)
    np.testing.assert_array_equal(ny.copy_to_host(), _want(x2, a, b))


def test_prepared_fast_paths_follow_the_arguments(kernels: Kernels, torch: Any) -> None:
    """The per-argument fast paths (the same DSL device array as last time; a torch tensor like the
    last one) never leave a stale slot: interleave them with raw pointers, new objects and new
    shapes."""
    cuda = kernels.cuda
    axpb = kernels["axpb"]
    rng = np.random.default_rng()
    x, poison, a, b = _data(rng)
    dx, dy = cuda.to_device(x), cuda.to_device(poison)
    p = axpb.prepare(GRID, THREADS, dx, dy, a, b)
    other = cuda.to_device(poison)
    p.launch(dx, other.device_ctypes_pointer.value, a, b)  # a raw pointer in dy's slot
    p.launch(dx, dy, a, b)  # dy again: its pointer must be written back
    _sync(kernels)
    np.testing.assert_array_equal(dy.copy_to_host(), _want(x, a, b))
    np.testing.assert_array_equal(other.copy_to_host(), _want(x, a, b))
    for _ in range(3):  # new torch tensors like the last ones: only data pointers move
        x, poison, a, b = _data(rng)
        tx, ty = torch.from_numpy(x).cuda(), torch.from_numpy(poison).cuda()
        p.launch(tx, ty, a, b)
        torch.cuda.synchronize()
        np.testing.assert_array_equal(ty.cpu().numpy(), _want(x, a, b))
    # a strided view has the same dtype and shape but other strides: the full path, refused by layout
    wide = torch.from_numpy(np.repeat(poison, 2)).cuda()[::2]
    with pytest.raises(coop.CoopTypeError, match=r"argument 1 \(y\): layout A"):
        p.launch(tx, wide, a, b)
    with pytest.raises(coop.CoopTypeError, match="requires grad"):
        p.launch(tx.clone().requires_grad_(), ty, a, b)
    p.launch(dx, dy, a, b)  # back to the device arrays of the first launch
    _sync(kernels)
    np.testing.assert_array_equal(dy.copy_to_host(), _want(dx.copy_to_host(), a, b))


TAKE_CASES = ["repeat", "shapes", "alignment", "scalars", "device arrays", "grad", "layouts and dtypes"]


@pytest.mark.parametrize("case", TAKE_CASES)
def test_ordinary_launch_takes_arguments_like_the_last(kernels: Kernels, torch: Any, case: str) -> None:
    """After a launch, ``kernel[grid, block]`` writes arguments like the last ones (a torch tensor of
    the same dtype, shape, strides, device and alignment; the same device array of the DSL's; a
    scalar of the same type) without reading them in full. Each case interleaves such launches with
    ones that must key another plan (new tensors, longer ones, misaligned views, other scalar types,
    the DSL's device arrays, other layouts and dtypes): every result is right, and a tensor that
    requires grad is still refused."""
    cuda = kernels.cuda
    axpb, scale2d = kernels["axpb"], kernels["scale2d"]
    rng = np.random.default_rng()
    cache = axpb._launch_cache()

    def check(tx: Any, ty: Any, a: Any, b: Any, what: str) -> None:
        axpb[GRID, THREADS](tx, ty, a, b)
        torch.cuda.synchronize()
        got = ty.cpu().numpy() if isinstance(ty, torch.Tensor) else ty.copy_to_host()
        x = tx.cpu().numpy() if isinstance(tx, torch.Tensor) else tx.copy_to_host()
        np.testing.assert_array_equal(got[:N], _want(x[:N], float(a), float(b)), err_msg=f"{case}: {what}")

    def fresh(n: int = N, shift: int = 0) -> tuple[Any, Any, float, float]:
        x, _, a, b = _data(rng)
        x = np.resize(x, n + shift).astype(np.float32)
        tx = torch.from_numpy(x).cuda()[shift:]  # shift 1: 4 bytes past an aligned allocation
        return tx, torch.full((n,), float("nan"), device="cuda"), a, b

    for what in ("first", "second"):
        check(*fresh(), what)
    tx, ty, a, b = fresh()
    if case == "repeat":
        before = cache.slow_launches
        for what in ("new tensors", "new tensors again"):
            check(*fresh(), what)
        for what in ("the same tensors", "the same again"):
            ty.fill_(float("nan"))
            check(tx, ty, a, b, what)
        assert cache.slow_launches == before
    elif case == "shapes":
        check(*fresh(2 * N), "longer tensors")
        check(*fresh(), "as long as before")
        check(*fresh(3 * N), "longer again")
    elif case == "alignment":
        check(*fresh(shift=1), "a misaligned input")
        check(*fresh(), "aligned again")
        check(*fresh(shift=1), "misaligned again")
    elif case == "scalars":
        check(tx, ty, np.float64(a), b, "a NumPy float64 scalar: another key, the same value")
        ty.fill_(float("nan"))
        check(tx, ty, a, b, "a float again")
    elif case == "device arrays":
        poison = np.full(N, np.nan, np.float32)
        dx, dy = cuda.to_device(rng.uniform(-2, 2, N).astype(np.float32)), cuda.to_device(poison)
        for what in ("device arrays", "the same device arrays", "a tensor and a device array"):
            dy.copy_to_device(poison)
            check(tx if what.startswith("a tensor") else dx, dy, a, b, what)
        check(*fresh(), "tensors after device arrays")
    elif case == "grad":
        grad = r"argument 0 \(\w+\): it requires grad; pass x.detach"  # coop's own refusal, by name
        for _ in range(2):  # the second time the key is known: still refused (torch 2.11 would export it)
            with pytest.raises(coop.CoopTypeError, match=grad):
                axpb[GRID, THREADS](tx.clone().requires_grad_(), ty, a, b)
        check(*fresh(), "after the refusal")
    else:
        f = float(rng.uniform(2, 3))
        for dtype in (np.float32, np.float64, np.float32):
            base = torch.from_numpy(rng.uniform(1, 2, (70, 90)).astype(dtype)).cuda()
            for view in (base, base.t(), base, base[::2, 1::3]):
                out = torch.full(view.shape, float("nan"), device="cuda", dtype=base.dtype)
                scale2d[(8, 8), (16, 16)](view, out, f)
                torch.cuda.synchronize()
                want = (view.cpu().numpy().astype(np.float64) * f).astype(dtype)
                what = f"{dtype.__name__} {view.stride()}"
                np.testing.assert_array_equal(out.cpu().numpy(), want, err_msg=what)


def test_prepared_typed_errors_leave_the_slots(kernels: Kernels, torch: Any) -> None:
    axpb = kernels["axpb"]
    rng = np.random.default_rng()
    x, poison, a, b = _data(rng)
    tx, ty = torch.from_numpy(x).cuda(), torch.from_numpy(poison).cuda()
    p = axpb.prepare(GRID, THREADS, tx, ty, a, b)
    bad = [
        (
            (tx.double(), ty, a, b),
            coop.CoopTypeError,
            "argument 0 (x): dtype float64, the kernel takes float32",
        ),
        ((tx, ty.reshape(2, -1), a, b), coop.CoopTypeError, "argument 1 (y): 2-D, the kernel takes 1-D"),
        ((torch.cat([tx, tx])[::2], ty, a, b), coop.CoopTypeError, "argument 0 (x): layout A"),
        ((tx.cpu(), ty, a, b), coop.CoopValueError, "argument 0 (x): it is in host memory"),
        ((tx.clone().requires_grad_(), ty, a, b), coop.CoopTypeError, "argument 0 (x): it requires grad"),
        ((tx, ty, tx, b), coop.CoopTypeError, "argument 2 (a): got Tensor, the kernel takes float64"),
        ((x, ty, a, b), coop.CoopTypeError, "argument 0 (x): a NumPy array is in host memory"),
        ((tx, ty, a), coop.CoopTypeError, "takes 4 arguments (x, y, a, b), got 3"),
    ]
    for args, error, match in bad:
        with pytest.raises(error) as info:
            p.launch(*args)
        assert match in str(info.value), str(info.value)
    p.launch()  # the prepared arguments are intact
    torch.cuda.synchronize()
    np.testing.assert_array_equal(ty.cpu().numpy(), _want(x, a, b))
    with pytest.raises(coop.CoopValueError, match="argument 0 .x.: it is in host memory"):
        axpb.prepare(GRID, THREADS, tx.cpu(), ty, a, b)


def _streams(torch: Any, cuda: Any) -> dict[str, Any]:
    from cuda.core import Device

    numba_stream = cuda.stream()
    return {
        "torch": torch.cuda.Stream(),
        "numba": numba_stream,
        "int": int(numba_stream.handle),
        "cuda.core": Device().create_stream(),
    }


def _sync_stream(stream: Any, cuda: Any) -> None:
    if isinstance(stream, int):
        cuda.external_stream(stream).synchronize()
    else:
        stream.synchronize() if hasattr(stream, "synchronize") else stream.sync()


def test_streams(kernels: Kernels, torch: Any) -> None:
    """Ordinary and prepared launches on torch, the DSL's, int and cuda.core streams, and on
    torch's current stream per launch."""
    axpb = kernels["axpb"]
    rng = np.random.default_rng()
    for name, stream in _streams(torch, kernels.cuda).items():
        for how in ("ordinary", "prepared"):
            for _ in range(2):  # the first ordinary launch compiles (numba-cuda: its own), the second plans
                x, poison, a, b = _data(rng)
                tx, ty = torch.from_numpy(x).cuda(), torch.from_numpy(poison).cuda()
                torch.cuda.synchronize()
                if how == "ordinary":
                    axpb[GRID, THREADS, stream](tx, ty, a, b)
                else:
                    axpb.prepare(GRID, THREADS, tx, ty, a, b, stream=stream).launch()
                _sync_stream(stream, kernels.cuda)
                np.testing.assert_array_equal(ty.cpu().numpy(), _want(x, a, b), err_msg=f"{name} {how}")
    s = torch.cuda.Stream()
    x, poison, a, b = _data(rng)
    tx, ty = torch.from_numpy(x).cuda(), torch.from_numpy(poison).cuda()
    p = axpb.prepare(GRID, THREADS, tx, ty, a, b)
    torch.cuda.synchronize()
    with torch.cuda.stream(s):
        p.launch(stream=torch.cuda.current_stream())
    s.synchronize()
    np.testing.assert_array_equal(ty.cpu().numpy(), _want(x, a, b))


def test_cuda_graph_capture_and_replay(kernels: Kernels, torch: Any) -> None:
    axpb = kernels["axpb"]
    rng = np.random.default_rng()
    x, poison, a, b = _data(rng)
    tx, ty = torch.from_numpy(x).cuda(), torch.from_numpy(poison).cuda()
    tz = torch.full_like(ty, float("nan"))
    s = torch.cuda.Stream()
    p = axpb.prepare(GRID, THREADS, tx, ty, a, b, stream=s)
    axpb[GRID, THREADS, s](tx, tz, a, b)  # warm: the ordinary launch's plan exists before capture
    axpb[GRID, THREADS, s](tx, tz, a, b)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, stream=s):
        p.launch(tx, ty, a, b)
        axpb[GRID, THREADS, torch.cuda.current_stream()](ty, tz, a, b)  # z = a * (a x + b) + b
    for _ in range(3):
        x = rng.uniform(0.5, 2.0, N).astype(np.float32)
        tx.copy_(torch.from_numpy(x))
        ty.fill_(float("nan"))
        tz.fill_(float("nan"))
        g.replay()
        torch.cuda.synchronize()
        y = _want(x, a, b)
        np.testing.assert_array_equal(ty.cpu().numpy(), y)
        np.testing.assert_array_equal(tz.cpu().numpy(), _want(y, a, b))


def test_launches_from_threads(kernels: Kernels) -> None:
    """Threads launching one kernel concurrently each get their own parameter buffers."""
    cuda = kernels.cuda
    axpb = kernels["axpb"]
    failures: list[str] = []

    def work(seed: int) -> None:
        rng = np.random.default_rng(seed)
        stream = cuda.stream()
        p = None
        for i in range(20):
            x, poison, a, b = _data(rng)
            dx, dy = cuda.to_device(x, stream=stream), cuda.to_device(poison, stream=stream)
            if i % 2:
                axpb[GRID, THREADS, stream](dx, dy, a, b)
            else:
                p = p or axpb.prepare(GRID, THREADS, dx, dy, a, b, stream=stream)
                p.launch(dx, dy, a, b)
            got = dy.copy_to_host(stream=stream)
            stream.synchronize()
            if not np.array_equal(got, _want(x, a, b)):
                failures.append(f"thread {seed}, launch {i}")

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures


@pytest.mark.parametrize("layout", ["C", "F", "A"])
def test_strided_layouts(kernels: Kernels, torch: Any, layout: str) -> None:
    """2-D arrays of each layout (the DSL compiles one kernel per layout); the plan passes their
    strides; a prepared 'A' kernel takes any layout."""
    scale2d = kernels["scale2d"]
    rng = np.random.default_rng()
    base = torch.from_numpy(rng.uniform(1, 2, (70, 90)).astype(np.float32)).cuda()
    view = {"C": base, "F": base.t(), "A": base[::2, 1::3]}[layout]
    f = float(rng.uniform(2, 3))
    for _ in range(2):
        out = torch.full(view.shape, float("nan"), device="cuda").t().contiguous().t()  # F-ordered output
        scale2d[(8, 8), (16, 16)](view, out, f)
        torch.cuda.synchronize()
        np.testing.assert_array_equal(
            out.cpu().numpy(), (view.cpu().numpy().astype(np.float64) * f).astype(np.float32)
        )
    if layout == "A":
        p = scale2d.prepare((8, 8), (16, 16), view, out, f)
        for other in (base, base.t(), base[1::3, ::2]):
            dst = torch.full(other.shape[::-1], float("nan"), device="cuda").t()  # F-ordered, as prepared
            p.launch(other, dst, f)
            torch.cuda.synchronize()
            np.testing.assert_array_equal(
                dst.cpu().numpy(), (other.cpu().numpy().astype(np.float64) * f).astype(np.float32)
            )


def test_scalar_kinds(kernels: Kernels) -> None:
    cuda = kernels.cuda
    echo = kernels["echo"]
    rng = np.random.default_rng()

    def values() -> tuple[Any, ...]:
        return (
            np.int8(rng.integers(-128, 0)),
            np.uint16(rng.integers(40000, 65535)),
            np.float16(rng.uniform(-4, 4)),
            np.complex64(complex(rng.uniform(1, 2), rng.uniform(-2, -1))),
            bool(rng.integers(0, 2)),
            (int(rng.integers(-(2**40), 2**40)), float(rng.uniform(-1, 1))),
            Color.BLUE if rng.integers(0, 2) else Color.RED,
        )

    def want(v: tuple[Any, ...]) -> list[float]:
        i8, u16, f16, c64, flag, pair, color = v
        return [
            float(i8),
            float(u16),
            float(f16),
            float(c64.real),
            float(c64.imag),
            float(flag),
            float(pair[0]),
            pair[1],
            float(color),
        ]

    cache = echo._launch_cache()
    out = cuda.to_device(np.full(9, np.nan))
    for rep in range(3):
        v = values()
        before = cache.slow_launches
        echo[1, 32](out, *v)
        assert out.copy_to_host().tolist() == want(v), rep
        assert rep == 0 or cache.slow_launches == before
        assert kernels.backend == "numba" or cache.slow_launches == before
    p = echo.prepare(1, 32, out, *values())
    for _ in range(3):
        v = values()
        p.launch(out, *v)
        assert out.copy_to_host().tolist() == want(v)
    with pytest.raises(coop.CoopValueError, match=r"argument 1 \(i8\): 300 does not fit"):
        p.launch(out, 300, *values()[1:])
    with pytest.raises(coop.CoopTypeError, match=r"argument 7 \(color\): got a int, the kernel takes"):
        p.launch(out, *values()[:6], 3)
