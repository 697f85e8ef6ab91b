# SPDX-License-Identifier: Apache-2.0
"""``coop.cluster`` without a GPU: both DSLs compile the cluster test kernels ahead of time for
sm_90a with every provider inlined (0 CALL, 0 LDL/STL), the wrapper is specialised for the launch's
cluster, and the typed errors: a launch without a cluster, more than 16 blocks, a grid that is not a
multiple of the cluster, a target before sm_90."""

from __future__ import annotations

from pathlib import Path

import pytest
from cuda import coop
from cuda.coop._catalog import CATALOG
from cuda.coop._dims import normalize_cluster_dims
from cuda.coop._kinds import Arg, Form
from cuda.coop._primitive import Launch
from cuda.coop._render import kernel_prologue, render_requests

from . import _cluster_kernels as ck

_SIG = (
    "void(int32[::1], float32[::1], int64[::1], int32[::1], float32[::1], float32[::1], int32[::1], "
    "float32[::1], int32[::1], int32[::1], int64[::1])"
)
_TYPES = (
    "int32",
    "float32",
    "int64",
    "int32",
    "float32",
    "float32",
    "int32",
    "float32",
    "int32",
    "int32",
    "int64",
)
_CONFIGS = [ck.Config(2, (128, 1, 1), 4), ck.Config(16, (5, 7, 2), 1)]


def _plan(cluster: tuple[int, int, int] | None, name: str = "cluster.sum") -> object:
    x = Arg(Form.THREAD_DATA, "ThreadData(4, float32)", dtype="float32", items=4)
    return CATALOG[name].resolve(
        {"x": x}, Launch((128, 1, 1), "unknown", cluster_dims=cluster, no_cluster="fix it")
    )


def test_cluster_namespace() -> None:
    assert coop.cluster.__all__ == ["sum", "reduce", "argmax", "argmin"]
    with pytest.raises(coop.CoopHostCallError):
        coop.cluster.sum(1.0)


def test_request_is_specialised_for_the_cluster() -> None:
    plan = _plan((4, 1, 1))
    assert plan.request.cluster_dims == (4, 1, 1)  # type: ignore[attr-defined]
    assert plan.request.symbol.endswith("_c4x1x1")  # type: ignore[attr-defined]
    source = render_requests([plan.request]).source  # type: ignore[attr-defined]
    assert "#include <coop/cluster.cuh>\n" in source and ", 4, coop_cluster_state_0>" in source
    # the kernel's state, sized for its item types, and its prologue
    assert "using coop_cluster_state_0 = coop_cluster_state<4, float>;" in source
    assert 'extern "C" __device__ void coop_cluster_begin_0()' in source
    assert kernel_prologue(plan.request) == "coop_cluster_begin_0"  # type: ignore[attr-defined]
    block = CATALOG["block.sum"].resolve(
        {"x": Arg(Form.THREAD_DATA, "t", dtype="float32", items=4)},
        Launch((128, 1, 1), "u", cluster_dims=(4, 1, 1)),
    )
    assert block.request.cluster_dims is None  # a block row is the same whatever the cluster
    assert "coop_cluster_reduce" not in render_requests([block.request]).source
    assert kernel_prologue(block.request) is None  # type: ignore[attr-defined]


@pytest.mark.parametrize(("arrangement", "index"), [
    (None, "coop_rank * 4 + x_at"),
    ("blocked", "coop_rank * 4 + x_at"),
    ("striped", "coop_rank / 128 * 512 + coop_rank % 128 + 128 * x_at"),
])  # fmt: skip
def test_cluster_argmax_default_indices_by_arrangement(arrangement: str | None, index: str) -> None:
    """A cluster's default indices: its blocks' parts one after the other, each blocked or striped
    over its block (``coop_rank`` is the block's rank times its threads plus the thread's)."""
    args = {"x": Arg(Form.THREAD_DATA, "ThreadData(4, float32)", dtype="float32", items=4)}
    if arrangement is not None:
        args["arrangement"] = Arg(Form.CONSTANT, repr(arrangement), value=arrangement)
    plan = CATALOG["cluster.argmax"].resolve(args, Launch((128, 1, 1), "unknown", cluster_dims=(4, 1, 1)))
    source = render_requests([plan.request]).source  # type: ignore[attr-defined]
    assert f"x_pair{{x_best, {index}}}" in source, source


def _one_cluster_barrier_first(sass: str) -> None:
    """The kernel's cluster calls (five in the test kernels) share one cluster barrier, at the start
    of the kernel (the prologue), before its first global load."""
    assert sass.count("UCGABAR_ARV") == 1 and sass.count("UCGABAR_WAIT") == 1, sass.count("UCGABAR")
    assert sass.index("UCGABAR_WAIT") < sass.index("LDG"), "the cluster barrier is not at the kernel's start"
    assert "SYNCS" in sass  # the mbarriers: arrivals on the blocks' and the waits on the block's own


def test_launch_without_a_cluster() -> None:
    with pytest.raises(coop.CoopLaunchConfigError, match="launch has none; fix it"):
        _plan(None)


@pytest.mark.parametrize("dims", [17, (4, 4, 2), (0, 1), "2", (1, 2, 3, 4)])
def test_bad_cluster_dims(dims: object) -> None:
    with pytest.raises(coop.CoopLaunchConfigError, match="cluster"):
        normalize_cluster_dims(dims, what="k: cluster")


@pytest.mark.parametrize("cfg", _CONFIGS, ids=[c.id() for c in _CONFIGS])
def test_numba_aot(cfg: ck.Config) -> None:
    numba_coop = pytest.importorskip("cuda.coop.numba")
    compiled = numba_coop.compile(ck.numba_kernel(cfg), _SIG, block=cfg.block, cluster=cfg.cluster)
    assert compiled.cluster == (cfg.cluster, 1, 1)
    report = compiled.inspect()
    assert (report.calls, report.local_loads, report.local_stores) == (0, 0, 0)
    _one_cluster_barrier_first(report.sass)


def test_numba_errors() -> None:
    numba_coop = pytest.importorskip("cuda.coop.numba")
    kernel = ck.numba_kernel(_CONFIGS[0])
    with pytest.raises(coop.CoopLaunchConfigError, match=r"coop\.cluster\.sum .* has none; .*cluster="):
        numba_coop.compile(kernel, _SIG, block=128)
    with pytest.raises(coop.CoopLaunchConfigError, match="from sm_90 on; the kernel is built for sm_80"):
        numba_coop.compile(kernel, _SIG, block=128, cluster=2, arch="sm_80")
    with pytest.raises(coop.CoopLaunchConfigError, match="has 32 blocks"):
        numba_coop.compile(kernel, _SIG, block=128, cluster=(4, 4, 2))
    jitted = numba_coop.jit(kernel)
    with pytest.raises(
        coop.CoopLaunchConfigError, match=r"grid \(5, 1, 1\) is not a multiple of the cluster"
    ):
        jitted.configure(5, 128, cluster=2)


def _fakes() -> list[object]:
    import cutlass
    from cutlass.cute.runtime import make_fake_compact_tensor

    types = {"int32": cutlass.Int32, "float32": cutlass.Float32, "int64": cutlass.Int64}
    return [make_fake_compact_tensor(types[t], (4096,), assumed_align=16) for t in _TYPES]


@pytest.mark.parametrize("cfg", _CONFIGS, ids=[c.id() for c in _CONFIGS])
def test_cutlass_aot(cfg: ck.Config) -> None:
    cutlass_coop = pytest.importorskip("cuda.coop.cutlass")
    report = cutlass_coop.compile(ck.cute_host(cfg), *_fakes()).inspect()
    assert (report.calls, report.local_loads, report.local_stores) == (0, 0, 0)
    _one_cluster_barrier_first(report.sass)


def test_cutlass_launch_without_a_cluster() -> None:
    cutlass_coop = pytest.importorskip("cuda.coop.cutlass")
    with pytest.raises(
        coop.CoopLaunchConfigError, match=r"has none; launch it with kernel\(\.\.\.\)\.launch\("
    ):
        cutlass_coop.compile(ck.cute_host_without_cluster(), _fakes()[1])


_LOOP = ck.Config(4, ck.dims((5, 7, 2)), 2)


def test_numba_loop_aot() -> None:
    """Several calls at one site, and a device helper's: one cluster barrier for the kernel's calls,
    one for the helper's (its prologue runs at its entry), all inlined."""
    numba_coop = pytest.importorskip("cuda.coop.numba")
    sig = "void(int32[::1], float32[::1], int32[::1], float32[::1], int32[::1])"
    report = numba_coop.compile(ck.loop_numba_kernel(_LOOP), sig, block=_LOOP.block, cluster=4).inspect()
    assert (report.calls, report.local_loads, report.local_stores) == (0, 0, 0)
    assert report.sass.count("UCGABAR_ARV") == 2


def test_cutlass_loop_aot() -> None:
    cutlass_coop = pytest.importorskip("cuda.coop.cutlass")
    import cutlass
    from cutlass.cute.runtime import make_fake_compact_tensor

    types = (cutlass.Int32, cutlass.Float32, cutlass.Int32, cutlass.Float32)
    fakes = [make_fake_compact_tensor(t, (4096,), assumed_align=16) for t in types]
    report = cutlass_coop.compile(ck.loop_cute_host(_LOOP), *fakes).inspect()
    assert (report.calls, report.local_loads, report.local_stores) == (0, 0, 0)
    assert report.sass.count("UCGABAR_ARV") == 1


def _cluster_softmax():  # type: ignore[no-untyped-def]
    """Softmax of rows of 16 x 1024 x 16 float32 over a cluster of 16 (rows.py's design)."""
    import math

    import numpy as np
    from numba import cuda

    def kernel(x, y):  # type: ignore[no-untyped-def]
        b = cuda.blockIdx.x
        offset = (b // 16) * 262144 + (b % 16) * 16384
        xs = coop.ThreadData(16, np.float32)
        coop.block.load(x, xs, offset=offset, algorithm="striped")
        top = xs[0]
        for i in range(1, 16):
            top = max(top, xs[i])
        top = coop.cluster.reduce(top, "max")
        part = np.float32(0.0)
        for i in range(16):
            xs[i] = math.exp(xs[i] - top)
            part += xs[i]
        inv = np.float32(1.0) / coop.cluster.sum(part)
        for i in range(16):
            xs[i] = xs[i] * inv
        coop.block.store(y, xs, offset=offset, algorithm="striped")

    return kernel


def test_numba_cluster_call_costs_no_registers_over_a_block_call() -> None:
    """The pushes of a cluster call run a loop of a trip count known at compile time: with a loop
    from the thread's index, NVVM unrolled it by a guess and the copies' addresses were live at once
    (41 registers for this kernel, one block of 1024 threads per SM instead of two; CuTe's 32)."""
    import cuda.coop.numba as numba_coop

    sig = "void(float32[::1], float32[::1])"
    jitted = numba_coop.jit(fastmath=True)(_cluster_softmax())
    clustered = numba_coop.compile(jitted, sig, block=1024, cluster=16).inspect()
    assert clustered.calls == 0 and clustered.local_loads == 0 and clustered.local_stores == 0
    assert max(clustered.registers.values()) <= 32, clustered.registers


def test_cluster_units_stay_with_their_kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cluster row's unit holds its kernel's cluster state (sized for the item types of all of the
    kernel's cluster calls) and prologue: it is not indexed, so another kernel with cluster calls
    compiles its own; a kernel with the same requests reads the same unit back."""
    from cuda.coop import _bundle

    monkeypatch.setenv("CUDA_COOP_CACHE_DIR", str(tmp_path))
    cluster = _plan((4, 1, 1)).request  # type: ignore[attr-defined]
    block = (
        CATALOG["block.sum"]
        .resolve({"x": Arg(Form.THREAD_DATA, "t", dtype="float32", items=4)}, Launch((128, 1, 1), "u"))
        .request
    )
    before = coop.compile_stats().nvrtc_compiles
    first = _bundle.compile_bundle([cluster, block], (), "sm_90a")
    assert coop.compile_stats().nvrtc_compiles - before == 1
    again = _bundle.compile_bundle([block, cluster], (), "sm_90a")  # the same kernel: its entry
    other = _bundle.compile_bundle([cluster], (), "sm_90a")  # another kernel: not from the index
    assert again == first and coop.compile_stats().nvrtc_compiles - before == 2
    assert other.keys[1] != first.keys[1]
