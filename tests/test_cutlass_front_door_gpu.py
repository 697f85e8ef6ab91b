# SPDX-License-Identifier: Apache-2.0
"""CuTe front door on the GPU: the architecture is the GPU's, torch tensors and CuPy arrays launch
directly, and prepared launches rewrite their arguments (fresh random data, poisoned outputs, CUDA
graph capture and replay)."""

from typing import Any

import numpy as np
import pytest

pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")

pytestmark = pytest.mark.gpu

N = 512 * 37


def _torch() -> Any:
    return pytest.importorskip("torch")


def _compiled(n: int = N, dynamic: bool = False) -> Any:
    import cuda.coop.cutlass as cutlass_coop

    from ._cute_kernels import launch_args, launch_host

    args = list(launch_args(n))
    if dynamic:
        from cutlass.cute.runtime import from_dlpack

        args[0] = from_dlpack(_torch().empty(n, dtype=_torch().int32, device="cuda"), assumed_align=16)
        args[0] = args[0].mark_layout_dynamic()
    return cutlass_coop.compile(launch_host(), *args)


def _stream() -> int:
    return int(_torch().cuda.current_stream().cuda_stream)


def _case(n: int = N) -> tuple[Any, Any, int, float]:
    torch = _torch()
    g = torch.Generator(device="cuda").manual_seed(n)
    src = torch.randint(-(2**20), 2**20, (n,), dtype=torch.int32, device="cuda", generator=g)
    dst = torch.full((n,), -123456789, dtype=torch.int32, device="cuda")  # poison
    scale = int(torch.randint(2, 9, (1,), generator=torch.Generator().manual_seed(n)))
    return src, dst, scale, float(scale) + 0.25


def _want(src: Any, scale: int, offset: float) -> Any:
    return src * scale + int(offset)


def _replays_right(graph: Any, src: Any, dst: Any, scale: int, offset: float) -> None:
    """Replay a captured launch three times on new data in ``src`` (poisoned ``dst``): right each time."""
    torch = _torch()
    for k in range(3):
        src.copy_(torch.randint(-(2**20), 2**20, (N,), dtype=torch.int32, device="cuda"))
        dst.fill_(-7 - k)
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(dst, _want(src, scale, offset)), k


def test_arch_is_the_gpus() -> None:
    from cuda.core import Device

    cc = Device().compute_capability
    compiled = _compiled()
    want = f"sm_{cc.major}{cc.minor}{'a' if cc.major >= 9 else ''}"
    assert compiled.arch == compiled.inspect().arch == want


def test_call_with_torch_tensors() -> None:
    torch = _torch()
    compiled = _compiled()
    src, dst, scale, offset = _case()
    compiled(src, dst.data_ptr(), scale, offset, _stream())
    torch.cuda.synchronize()
    assert torch.equal(dst, _want(src, scale, offset))


def test_call_with_cupy_arrays() -> None:
    cp = pytest.importorskip("cupy")
    compiled = _compiled()
    rng = np.random.default_rng(7)
    src = cp.asarray(rng.integers(-(2**20), 2**20, N, dtype=np.int32))
    dst = cp.full(N, -5, dtype=cp.int32)
    compiled(src, dst.data.ptr, 4, 1.5, cp.cuda.get_current_stream().ptr)
    cp.cuda.get_current_stream().synchronize()
    assert cp.array_equal(dst, src * 4 + 1)


def test_wrong_dtype_is_named_on_the_gpu() -> None:
    from cuda import coop

    torch = _torch()
    compiled = _compiled()
    with pytest.raises(coop.CoopTypeError, match="'src' was compiled as Int32.*Float32"):
        compiled(torch.zeros(N, device="cuda"), 0, 1, 0.0, _stream())


def test_prepared_launch_rewrites_every_argument() -> None:
    torch = _torch()
    compiled = _compiled()
    src, dst, scale, offset = _case()
    p = compiled.prepare(src, dst.data_ptr(), scale, offset, _stream())
    p.launch()
    torch.cuda.synchronize()
    assert torch.equal(dst, _want(src, scale, offset))
    for k in range(4):  # new arrays, scalars and pointers each launch
        src2, dst2, scale2, offset2 = _case(N + 0)
        src2 += k
        p.launch(src2, dst2.data_ptr(), scale2 + k, offset2, _stream())
        torch.cuda.synchronize()
        assert torch.equal(dst2, _want(src2, scale2 + k, offset2)), k
    assert torch.equal(dst, _want(src, scale, offset))  # the first output is untouched


def test_prepared_launch_with_cupy_and_torch_mixed() -> None:
    cp = pytest.importorskip("cupy")
    torch = _torch()
    compiled = _compiled()
    src, dst, scale, offset = _case()
    p = compiled.prepare(src, dst.data_ptr(), scale, offset, _stream())
    csrc = cp.asarray(np.random.default_rng(3).integers(-1000, 1000, N, dtype=np.int32))
    cdst = cp.full(N, -9, dtype=cp.int32)
    torch.cuda.synchronize()
    p.launch(csrc, cdst.data.ptr, 2, 0.0, cp.cuda.get_current_stream().ptr)
    cp.cuda.get_current_stream().synchronize()
    assert cp.array_equal(cdst, csrc * 2)


def test_prepared_launch_on_a_dynamic_layout_takes_new_sizes() -> None:
    torch = _torch()
    compiled = _compiled(dynamic=True)
    assert compiled._specs["src"].dynamic
    p = None
    for n in (512 * 5, 512 * 64, 512 * 5):
        src, dst, scale, offset = _case(n)
        if p is None:
            p = compiled.prepare(src, dst.data_ptr(), scale, offset, _stream())
            p.launch()
        else:
            p.launch(src, dst.data_ptr(), scale, offset, _stream())
        torch.cuda.synchronize()
        assert torch.equal(dst, _want(src, scale, offset)), n


def test_prepared_launch_in_a_cuda_graph() -> None:
    torch = _torch()
    compiled = _compiled()
    src, dst, scale, offset = _case()
    p = compiled.prepare(src, dst.data_ptr(), scale, offset, _stream())
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        p.launch(src, dst.data_ptr(), scale, offset, _stream())  # warm up on the capture stream
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        p.launch(src, dst.data_ptr(), scale, offset, _stream())
    _replays_right(graph, src, dst, scale, offset)


def test_linked_cubin_runs_through_cuda_core() -> None:
    """The docs' recipe: the linked cubin's kernel takes what CuTe's kernel takes (a static-layout
    tensor as one pointer, then the pointer and the scalars)."""
    from cuda.core import Device, LaunchConfig, ObjectCode, launch

    torch = _torch()
    compiled = _compiled()
    dev = Device()
    dev.set_current()
    kernel = ObjectCode.from_cubin(compiled.cubin).get_kernel(compiled.inspect().functions[0])
    src, dst, scale, offset = _case()
    stream = dev.create_stream()
    torch.cuda.synchronize()
    args = (np.uint64(src.data_ptr()), np.uint64(dst.data_ptr()), np.int32(scale), np.float32(offset))
    launch(stream, LaunchConfig(grid=N // 512, block=128), kernel, *args)
    stream.sync()
    assert torch.equal(dst, _want(src, scale, offset))


def test_tvm_ffi_call_with_torch_tensors_on_a_torch_stream() -> None:
    """--enable-tvm-ffi: the TVM-FFI entry runs the linked kernel (its CUB load/store) with torch
    tensors on TVM-FFI's environment stream: inside ``tvm_ffi.use_torch_stream(...)``, torch's
    stream (a plain ``torch.cuda.stream(s)`` does not set it, for CuTe's own TVM-FFI functions
    too: measured on the H200)."""
    tvm_ffi = pytest.importorskip("tvm_ffi", reason="apache-tvm-ffi is not installed")
    torch = _torch()
    import cuda.coop.cutlass as cutlass_coop

    from ._cute_kernels import env_stream_copy_args, env_stream_copy_host

    compiled = cutlass_coop.compile(
        env_stream_copy_host(), *env_stream_copy_args(N), options="--enable-tvm-ffi"
    )
    assert compiled.tvm_ffi
    src = torch.randint(-(2**31), 2**31 - 1, (N,), dtype=torch.int32, device="cuda")
    dst = torch.full_like(src, -7)
    compiled(src, dst)  # the first call loads the module (slower than the sleep below: measured)
    torch.cuda.synchronize()
    assert torch.equal(dst, src)
    dst.fill_(-7)
    torch.cuda.synchronize()
    stream, other = torch.cuda.Stream(), torch.cuda.Stream()
    with tvm_ffi.use_torch_stream(torch.cuda.stream(stream)):
        torch.cuda._sleep(1_000_000_000)  # ~0.5 s: the kernel, queued behind it, has not run yet
        compiled(src, dst)
    with torch.cuda.stream(other):  # a stream that does not wait for `stream`
        early = dst.clone()
    other.synchronize()
    assert torch.equal(early, torch.full_like(src, -7)), "the kernel did not run on torch's stream"
    stream.synchronize()
    assert torch.equal(dst, src)


# --- the plain call's call state (issue 47: a call from torch at the cost of a launch) ---------------


def _fresh_call_state(compiled: Any) -> Any:
    import threading

    compiled._local = threading.local()
    return compiled


def test_plain_call_reads_tensors_changed_in_place() -> None:
    """The call state re-reads each tensor's dtype, shape, strides, device and data pointer at
    every call: values written in place, new storage (``set_``) and a resize are all seen."""
    from cuda import coop

    torch = _torch()
    compiled = _fresh_call_state(_compiled())
    src, dst, scale, offset = _case()
    for k in range(3):
        compiled(src, dst, scale, offset, _stream())  # a torch tensor for the pointer: its data
        torch.cuda.synchronize()
        assert torch.equal(dst, _want(src, scale, offset)), k
        src.add_(k + 1)  # in place: same data pointer, new values
    moved = torch.randint(-(2**20), 2**20, (N,), dtype=torch.int32, device="cuda")
    src.set_(moved)  # new storage under the same tensor object
    compiled(src, dst, scale, offset, _stream())
    torch.cuda.synchronize()
    assert torch.equal(dst, _want(moved, scale, offset))
    src.resize_(N // 2)  # another shape in place: refused, naming the argument
    with pytest.raises(coop.CoopValueError, match="'src' was compiled as Int32"):
        compiled(src, dst, scale, offset, _stream())
    src.resize_(N)
    compiled(src, dst, scale + 1, offset, _stream())
    torch.cuda.synchronize()
    assert torch.equal(dst, _want(src, scale + 1, offset))


@pytest.mark.parametrize("case", ["dtype", "stride", "rank", "grad", "host", "misaligned"])
def test_plain_call_names_a_wrong_tensor_after_good_calls(case: str) -> None:
    from cuda import coop

    torch = _torch()
    compiled = _fresh_call_state(_compiled())
    src, dst, scale, offset = _case()
    compiled(src, dst, scale, offset, _stream())
    big = torch.zeros(2 * N + 16, dtype=torch.int32, device="cuda")
    bad, error, match = {
        "dtype": (src.float(), coop.CoopTypeError, "'src' was compiled as Int32.*Float32"),
        "stride": (big[: 2 * N : 2], coop.CoopValueError, r"'src' was compiled as Int32\[.*strides \[2\]"),
        "rank": (src.view(2, N // 2), coop.CoopValueError, "'src' was compiled with rank 1"),
        "grad": (src.float().requires_grad_(), coop.CoopTypeError, "'src'"),
        "host": (src.cpu(), coop.CoopTypeError, "'src': the array is not in GPU memory"),
        "misaligned": (big[1 : N + 1], coop.CoopValueError, "'src': data at .* is not aligned to 16 B"),
    }[case]
    with pytest.raises(error, match=match):
        compiled(bad, dst, scale, offset, _stream())
    dst.fill_(-1)
    compiled(src, dst, scale, offset, _stream())  # the state is still good
    torch.cuda.synchronize()
    assert torch.equal(dst, _want(src, scale, offset))


def test_plain_call_of_a_torch_tensor_like_the_last_converts_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    from cuda.coop.cutlass import _args

    torch = _torch()
    compiled = _fresh_call_state(_compiled())
    seen: list[Any] = []
    convert = _args.to_cute_checked
    monkeypatch.setattr(_args, "to_cute_checked", lambda v, s: seen.append(v) or convert(v, s))
    for k in range(5):
        src, dst, scale, offset = _case()
        src += k
        compiled(src, dst, scale, offset, _stream())
        torch.cuda.synchronize()
        assert torch.equal(dst, _want(src, scale, offset)), k
    assert len(seen) == 2  # the first call's (its state, then its tensor slot)


def test_plain_call_on_a_dynamic_layout_takes_each_size() -> None:
    torch = _torch()
    compiled = _fresh_call_state(_compiled(dynamic=True))
    for n in (512 * 5, 512 * 64, 512 * 5, 512 * 9, 512 * 64):
        src, dst, scale, offset = _case(n)
        compiled(src, dst, scale, offset, _stream())
        torch.cuda.synchronize()
        assert torch.equal(dst, _want(src, scale, offset)), n


def test_plain_call_keeps_no_tensor_alive() -> None:
    """The call state owns copies of the descriptors: tensors the caller drops are freed (their
    DLPack capsules are not held by a cached CuTe tensor)."""
    import gc
    import weakref

    torch = _torch()
    compiled = _fresh_call_state(_compiled())
    src, dst, scale, offset = _case()
    compiled(src, dst, scale, offset, _stream())
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    for _ in range(3):
        tmp = torch.randint(-100, 100, (N,), dtype=torch.int32, device="cuda")
        out = torch.empty_like(tmp)
        refs = [weakref.ref(tmp), weakref.ref(out)]
        compiled(tmp, out, scale, offset, _stream())
        torch.cuda.synchronize()
        assert torch.equal(out, _want(tmp, scale, offset))
        del tmp, out
        gc.collect()
        assert [r() for r in refs] == [None, None]
    assert torch.cuda.memory_allocated() == before
    del src  # the first call's tensor too (the state was made from it)
    gc.collect()
    assert torch.cuda.memory_allocated() < before


def test_plain_call_with_cupy_arrays_again_and_again() -> None:
    cp = pytest.importorskip("cupy")
    compiled = _fresh_call_state(_compiled())
    rng = np.random.default_rng(11)
    stream = cp.cuda.get_current_stream()
    for k in range(3):
        src = cp.asarray(rng.integers(-(2**20), 2**20, N, dtype=np.int32))
        dst = cp.full(N, -5, dtype=cp.int32)
        compiled(src, dst, 4 + k, 1.5, stream.ptr)
        stream.synchronize()
        assert cp.array_equal(dst, src * (4 + k) + 1), k


def test_plain_call_from_threads_on_their_own_streams() -> None:
    import threading

    torch = _torch()
    compiled = _fresh_call_state(_compiled())
    errors: list[BaseException] = []

    def work(seed: int) -> None:
        try:
            stream = torch.cuda.Stream()
            with torch.cuda.stream(stream):
                for k in range(20):
                    src, dst, scale, offset = _case(N)
                    src += seed * 100 + k
                    compiled(src, dst, scale, offset, stream.cuda_stream)
                    stream.synchronize()
                    assert torch.equal(dst, _want(src, scale, offset)), (seed, k)
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_plain_call_in_a_cuda_graph() -> None:
    torch = _torch()
    compiled = _fresh_call_state(_compiled())
    src, dst, scale, offset = _case()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        compiled(src, dst, scale, offset, side.cuda_stream)  # the call state made off the capture
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        compiled(src, dst, scale, offset, torch.cuda.current_stream().cuda_stream)
    _replays_right(graph, src, dst, scale, offset)
