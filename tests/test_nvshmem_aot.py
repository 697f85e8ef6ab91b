# SPDX-License-Identifier: Apache-2.0
"""NVSHMEM device calls beside coop calls, without a GPU (issue 49): a kernel calling
``coop.block.sum`` and nvshmem4py's ``p`` / ``my_pe`` / ``n_pes`` compiles ahead of time on each
backend, NVSHMEM's device code linked beside the CUB bundle; the providers are inlined, and the
device variables NVSHMEM's module initialisation writes survive the link. Without nvshmem4py (the
``nvshmem`` extra), what coop does with NVSHMEM raises a typed error naming the extra.

The compile tests skip where nvshmem4py (or the DSL) is not installed: CI without the extra."""

from __future__ import annotations

import re
import sys
from typing import Any

import pytest
from cuda import coop
from cuda.coop import _nvshmem
from cuda.coop._sass import _sections, _symbols

from ._nvshmem_kernels import BLOCKS, THREADS, cute_host, numba_kernel, numba_mlir_kernel
from .test_doc_snippets import _load  # docs/snippets/beyond_one_gpu*.py: docs/beyond_one_gpu.rst shows them

ARCH = "sm_90a"
SIG = "void(float32[::1], float32[::1])"
_REASON = "nvshmem4py is not installed (pip install '.[nvshmem]')"


def _device_api(dsl: str, api: str) -> None:
    """Skip unless the DSL and nvshmem4py's device API for it import."""
    pytest.importorskip(dsl, reason=f"{dsl} is not installed")
    pytest.importorskip(f"nvshmem.core.device.{api}", reason=_REASON)


def _check_linked(cubin: bytes, report: coop.CubinReport) -> None:
    """coop's providers inlined, NVSHMEM's put in the kernel, its module variables kept."""
    assert report.arch == ARCH
    assert not report.leftover_symbols, report.leftover_symbols
    assert "nvshmemi_transfer_rma_p" in report.sass  # NVSHMEM's device code is linked in
    # every CALL left is NVSHMEM's own (a subroutine it keeps out of line, or a transport's system
    # call), none a coop provider's
    calls = [ln for ln in report.sass.splitlines() if re.search(r"\bCALL\b", ln)]
    assert all("coop_" not in ln for ln in calls)
    # the device state nvshmem.core.library_init writes: -optimize-unused-variables would have folded
    # it to zeros and deleted it (the kernel would read PE 0 of 0 PEs, the init fail to find it)
    symbols = set(_symbols(_sections(cubin)))
    assert {"nvshmemi_device_state_d", "nvshmemi_device_lib_version_d"} <= symbols


def test_numba_kernel_links_nvshmem_beside_the_bundle() -> None:
    _device_api("numba.cuda", "numba")
    import cuda.coop.numba as numba_coop

    compiled = numba_coop.compile(numba_kernel(), SIG, block=THREADS, arch=ARCH)
    report = compiled.inspect()
    _check_linked(compiled.code, report)
    assert compiled.bundle_ltoir and report.local_loads == report.local_stores == 0


def test_numba_mlir_kernel_links_nvshmem_beside_the_bundle() -> None:
    _device_api("numba_cuda_mlir", "numba_cuda_mlir")
    import cuda.coop.numba_mlir as ncoop

    compiled = ncoop.compile(numba_mlir_kernel(), SIG, block=THREADS, arch=ARCH)
    report = compiled.inspect()
    _check_linked(compiled.code, report)
    assert compiled.bundle_ltoir and report.local_loads == report.local_stores == 0


@pytest.fixture
def bitcode_for_the_target(monkeypatch: pytest.MonkeyPatch) -> None:
    """nvshmem4py 0.4.1's CuTe bindings pick NVSHMEM's device bitcode for the current GPU when a
    kernel is traced (``find_device_bitcode_library()``), and find none on a machine without one;
    here it is the target's, through the same nvshmem4py function given the arch."""
    _device_api("cutlass.cute", "cute")
    from nvshmem.bindings.device.cute import _bitcode
    from nvshmem.core import find_device_bitcode_library

    monkeypatch.setattr(_bitcode, "_device_bitcode_path", lambda: find_device_bitcode_library(arch=ARCH))


def test_cute_kernel_links_nvshmem_bitcode_beside_the_bundle(bitcode_for_the_target: None) -> None:
    """CuTe names NVSHMEM's bitcode in the module's link-libraries; coop's full-LTO route adds it to
    libNVVM beside the kernel (only what the kernel calls is linked), then links the bundle."""
    import cuda.coop.cutlass as cutlass_coop
    import cutlass
    from cutlass.cute.runtime import make_fake_compact_tensor

    x = make_fake_compact_tensor(cutlass.Float32, (THREADS * BLOCKS,), assumed_align=16)
    out = make_fake_compact_tensor(cutlass.Float32, (BLOCKS,), assumed_align=16)
    compiled = cutlass_coop.compile(cute_host(), x, out, arch=ARCH)
    _check_linked(compiled.cubin, compiled.inspect())


def test_nvshmem_variables_are_named_to_every_dropping_link() -> None:
    """A link that drops unused variables names NVSHMEM's module variables as used; one that keeps
    them, or names its own, is left as it is."""
    flags = _nvshmem.variables_used_flags(["-arch=sm_90a", "-lto", "-optimize-unused-variables"])
    assert flags == [f"-variables-used={','.join(_nvshmem.MODULE_VARIABLES)}"]
    assert _nvshmem.variables_used_flags(["-arch=sm_90a", "-lto"]) == []
    assert _nvshmem.variables_used_flags(["-optimize-unused-variables", "-variables-used=x"]) == []
    assert _nvshmem.variables_used("x") == ["x", *_nvshmem.MODULE_VARIABLES]
    assert _nvshmem.variables_used(None) == list(_nvshmem.MODULE_VARIABLES)


@pytest.fixture
def without_nvshmem(monkeypatch: pytest.MonkeyPatch) -> None:
    """nvshmem4py as absent as when the extra is not installed."""
    for name in [m for m in sys.modules if m == "nvshmem" or m.startswith("nvshmem.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "nvshmem", None)  # import nvshmem -> ModuleNotFoundError


def test_without_the_extra_the_error_names_it(without_nvshmem: None) -> None:
    with pytest.raises(coop.CoopBackendError, match=re.escape("pip install 'cuda-coop[nvshmem]'")):
        _nvshmem.library_init(lambda: pytest.fail("loaded a library without nvshmem4py"))


def test_without_the_extra_cute_nvshmem_init_names_it(without_nvshmem: None) -> None:
    pytest.importorskip("cutlass.cute", reason="nvidia-cutlass-dsl is not installed")
    from cuda.coop.cutlass import CompiledCuteFunction

    compiled: Any = CompiledCuteFunction(compiled=None, cubin=b"", arch=ARCH, symbols=())
    with pytest.raises(coop.CoopBackendError, match=re.escape("cuda-coop[nvshmem]")):
        compiled.nvshmem_init()


def test_the_docs_numba_kernel_compiles_with_nvshmem() -> None:
    _device_api("numba.cuda", "numba")
    import cuda.coop.numba as numba_coop

    snippet = _load("beyond_one_gpu")
    for kernel, signature, options in snippet.NVSHMEM_NUMBA:
        compiled = numba_coop.compile(kernel, signature, **options)
        _check_linked(compiled.code, compiled.inspect())
    compiled = snippet.compile_ahead_of_time()
    _check_linked(compiled.code, compiled.inspect())


def test_the_docs_cute_kernel_compiles_with_nvshmem(bitcode_for_the_target: None) -> None:
    import cuda.coop.cutlass as cutlass_coop

    for host, make_args in _load("beyond_one_gpu_cutlass").NVSHMEM_CUTE:
        compiled = cutlass_coop.compile(host, *make_args(), arch=ARCH)
        _check_linked(compiled.cubin, compiled.inspect())
