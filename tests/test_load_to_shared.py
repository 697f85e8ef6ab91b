# SPDX-License-Identifier: Apache-2.0
"""``coop.block.load_to_shared`` without a GPU: both DSLs compile the test kernels ahead of time for
sm_90a with the provider inlined (0 CALL, 0 LDL/STL), a bulk copy (``UBLKCP``) where the run can be
16-byte aligned and none where it cannot, and the typed errors (a ``dst`` that is not in shared
memory, of another type, a ``src`` in shared memory)."""

from __future__ import annotations

import numpy as np
import pytest
from cuda import coop
from cuda.coop._catalog import CATALOG
from cuda.coop._kinds import Arg, Form
from cuda.coop._primitive import Launch
from cuda.coop._render import INCLUDE_DIR, kernel_prologue, render_glue, render_requests

from . import _staged_kernels as sk

_CASES = sk.cases()


def _bulk_copies(sass: str) -> int:
    return sum(1 for line in sass.splitlines() if "UBLKCP" in line)


def test_catalog_row_and_bundle() -> None:
    assert "load_to_shared" in coop.block.__all__
    with pytest.raises(coop.CoopHostCallError):
        coop.block.load_to_shared(np.zeros(4, np.float32), np.zeros(4, np.float32), 4)
    args = {
        "src": Arg(Form.ARRAY, "src", dtype="float32", memory="global"),
        "dst": Arg(Form.ARRAY, "dst", dtype="float32", memory="shared"),
        "num_items": Arg(Form.SCALAR, "n", dtype="int32"),
    }
    plan = CATALOG["block.load_to_shared"].resolve(args, Launch((128, 1, 1), "unknown"))
    source = render_requests([plan.request]).source  # type: ignore[attr-defined]
    assert "#include <coop/load_to_shared.cuh>\n" in source
    assert "coop_block_load_to_shared<float, 128, 1, 1>" in source
    header = (INCLUDE_DIR / "coop" / "load_to_shared.cuh").read_text()
    assert "cp_async_bulk" in header and "mbarrier_try_wait" in header
    # the kernel's mbarrier is armed once, by its prologue (per block size), not per call
    assert kernel_prologue(plan.request) == "coop_stage_begin_128"  # type: ignore[attr-defined]
    glue = render_glue([plan.request], (), {}).source  # type: ignore[attr-defined]
    assert 'extern "C" __device__ void coop_stage_begin_128()' in glue and "cub" not in glue
    assert "#include <coop/load_to_shared_glue.cuh>\n" in glue
    assert 'extern "C" __device__ ::cuda::std::uint64_t* coop_stage_full();' in header  # the glue's


def _whole_words(case: sk.Case) -> bool:
    """The run's bytes are a multiple of 16 (its start is known only at run time)."""
    return case.num * np.dtype(case.dtype).itemsize % 16 == 0


@pytest.mark.parametrize("case", _CASES, ids=[c.id() for c in _CASES])
def test_numba_aot(case: sk.Case) -> None:
    numba_coop = pytest.importorskip("cuda.coop.numba")
    sig = f"void({case.dtype}[::1], {case.dtype}[::1])"
    report = numba_coop.compile(sk.numba_kernel(case), sig, block=case.block).inspect()
    assert (report.calls, report.local_loads, report.local_stores) == (0, 0, 0)
    # the run's length is a constant: a run whose bytes are not a multiple of 16 has no bulk copy
    assert _bulk_copies(report.sass) == (2 if _whole_words(case) else 0)
    # two block barriers in the prologue (arming the kernel's mbarrier), the kernel's own: none per call
    assert report.sass.count("BAR.SYNC") == 3


def _cute_type(dtype: str):  # type: ignore[no-untyped-def]
    from cuda.coop.cutlass._backend import cutlass_type

    return cutlass_type(dtype)


@pytest.mark.parametrize("case", _CASES, ids=[c.id() for c in _CASES])
def test_cutlass_aot(case: sk.Case) -> None:
    cutlass_coop = pytest.importorskip("cuda.coop.cutlass")
    from cutlass.cute.runtime import make_fake_compact_tensor

    fakes = [make_fake_compact_tensor(_cute_type(case.dtype), (1 << 16,), assumed_align=16) for _ in range(2)]
    report = cutlass_coop.compile(sk.cute_host(case), *fakes).inspect()
    assert (report.calls, report.local_loads, report.local_stores) == (0, 0, 0)
    assert _bulk_copies(report.sass) == (2 if _whole_words(case) else 0)
    # two block barriers in the prologue (arming the kernel's mbarrier), the kernel's own: none per call
    assert report.sass.count("BAR.SYNC") == 3


def test_numba_errors() -> None:
    numba_coop = pytest.importorskip("cuda.coop.numba")
    from numba import cuda

    def global_dst(x, y):  # type: ignore[no-untyped-def]
        coop.block.load_to_shared(x, y, 128)

    with pytest.raises(coop.CoopTypeError, match=r"dst is in global memory .* must be an array in shared"):
        numba_coop.compile(global_dst, "void(float32[::1], float32[::1])", block=128)

    def local_dst(x, y):  # type: ignore[no-untyped-def]
        s = cuda.local.array(128, np.float32)
        coop.block.load_to_shared(x, s, 128)

    with pytest.raises(coop.CoopTypeError, match=r"dst is thread-private"):
        numba_coop.compile(local_dst, "void(float32[::1], float32[::1])", block=128)

    def other_type(x, y):  # type: ignore[no-untyped-def]
        s = cuda.shared.array(128, np.int32)
        coop.block.load_to_shared(x, s, 128)

    with pytest.raises(coop.CoopTypeError, match=r"src has element type float32 .* int32"):
        numba_coop.compile(other_type, "void(float32[::1], float32[::1])", block=128)

    def no_count(x, y):  # type: ignore[no-untyped-def]
        s = cuda.shared.array(128, np.float32)
        coop.block.load_to_shared(x, s)

    with pytest.raises(coop.CoopTypeError, match="num_items"):
        numba_coop.compile(no_count, "void(float32[::1], float32[::1])", block=128)


def test_cutlass_errors() -> None:
    cutlass_coop = pytest.importorskip("cuda.coop.cutlass")
    import cutlass
    from cutlass.cute.runtime import make_fake_compact_tensor

    global_dst, shared_src = sk.cute_error_hosts()
    fakes = [make_fake_compact_tensor(cutlass.Float32, (4096,), assumed_align=16) for _ in range(2)]
    with pytest.raises(coop.CoopTypeError, match=r"dst is in global memory .* must be an array in shared"):
        cutlass_coop.compile(global_dst, *fakes)
    with pytest.raises(coop.CoopTypeError, match=r"src must be in global memory"):
        cutlass_coop.compile(shared_src, *fakes)


def test_numba_aot_before_sm90() -> None:
    """Before sm_90 (no bulk copy, no mbarrier wait): the striped copy and a block barrier a call."""
    numba_coop = pytest.importorskip("cuda.coop.numba")
    case = _CASES[0]
    sig = f"void({case.dtype}[::1], {case.dtype}[::1])"
    report = numba_coop.compile(sk.numba_kernel(case), sig, block=case.block, arch="sm_80").inspect()
    assert (report.calls, report.local_loads, report.local_stores) == (0, 0, 0)
    assert _bulk_copies(report.sass) == 0 and "SYNCS" not in report.sass
    assert report.sass.count("BAR.SYNC") == 3  # one after each call, and the kernel's own
