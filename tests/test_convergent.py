# SPDX-License-Identifier: Apache-2.0
"""Every backend declares the bundle's functions ``convergent`` in the kernel's IR, so that no
optimizer copies a coop call (its barriers and warp collectives) into diverged paths.

Without it, libNVVM's jump threading copied the second of two block sums with an ``if tid == 0``
store between them into both sides of the branch, in a CuTe kernel whose tiles were unrolled
(``cutlass.range_constexpr``): thread 0 and the other threads ran their own copies of the sum's
barriers and warp reduction, and the kernel hung on an H100 (issue 46, item 1). The GPU grid of
``tests/test_cutlass_strided.py`` runs such kernels (its ``-unrolled`` cases); here, ahead of time,
the IR each backend hands on, and the SASS of that kernel. numba-cuda-mlir below sm_100 translates
through an LLVM 7 bridge that writes no function attributes: a test pins that limit."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from ._numba_family import BACKENDS, front

_DECLARATION = re.compile(r'^declare [^@]*@"?(coop_\w+)"?\(.*$', re.M)


def _coop_declarations(text: str) -> list[str]:
    return [m.group(0) for m in _DECLARATION.finditer(text)]


def _two_sums(backend: str) -> tuple[Any, Any]:
    """A Numba-family kernel of two block sums with a store by thread 0 between them."""
    coop_module, cuda = front(backend)
    from cuda import coop

    def two_sums(x: Any, out: Any) -> None:
        t = cuda.threadIdx.x
        items = coop.ThreadData(3, np.int32)
        coop.block.load(x, items, algorithm="striped")
        s = coop.block.sum(items)
        if t == 0:
            out[0] = s
        coop.block.load(x, items, offset=192, algorithm="striped")
        s2 = coop.block.sum(items)
        if t == 0:
            out[1] = s2

    return coop_module, coop_module.jit(two_sums)


def test_numba_declares_the_bundle_functions_convergent(monkeypatch: pytest.MonkeyPatch) -> None:
    import numba.cuda.cudadrv.nvvm as nvvm

    seen: list[str] = []
    compile_ir = nvvm.compile_ir

    def spy(llvmir: Any, **options: Any) -> Any:
        parts = llvmir if isinstance(llvmir, (list, tuple)) else [llvmir]
        seen.extend(p if isinstance(p, str) else bytes(p).decode(errors="replace") for p in parts)
        return compile_ir(llvmir, **options)

    monkeypatch.setattr(nvvm, "compile_ir", spy)
    coop_module, kernel = _two_sums("numba")
    coop_module.compile(kernel, "void(int32[::1], int32[::1])", block=64, arch="sm_90a")
    declarations = _coop_declarations("\n".join(seen))
    assert len(declarations) == 2, "\n".join(seen)[-4000:]
    assert all(d.rstrip().endswith("convergent") or " convergent" in d for d in declarations), declarations


def test_numba_mlir_declares_the_bundle_functions_convergent(monkeypatch: pytest.MonkeyPatch) -> None:
    """numba-cuda-mlir's modern path (sm_100 and later) hands libNVVM LLVM IR in which the bundle's
    functions are ``convergent``."""
    pytest.importorskip("numba_cuda_mlir", reason="numba-cuda-mlir is not installed")
    import numba_cuda_mlir.mlir_optimization as optimization

    seen: list[str] = []
    prepare = optimization._prepare_llvm_ir  # a rename fails here, loudly

    def spy(*args: Any, **kwargs: Any) -> Any:
        text = prepare(*args, **kwargs)
        seen.append(text.decode(errors="replace") if isinstance(text, bytes) else str(text))
        return text

    monkeypatch.setattr(optimization, "_prepare_llvm_ir", spy)
    coop_module, kernel = _two_sums("numba_mlir")
    coop_module.compile(kernel, "void(int32[::1], int32[::1])", block=64, arch="sm_100a")
    text = "\n".join(seen)
    declarations = _coop_declarations(text)
    groups = dict(re.findall(r"^attributes (#\d+) = \{ (.*) \}$", text, re.M))
    assert len(declarations) == 2, text[-4000:]
    for d in declarations:
        assert "convergent" in groups.get(d.rsplit(" ", 1)[-1], "").split(), (d, groups)


def test_numba_mlir_llvm7_path_drops_function_attributes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Below sm_100, numba-cuda-mlir 0.6 translates the module to NVVM's LLVM 7 dialect with a
    translator of its own that writes no function attributes, so the declarations reach libNVVM
    plain there (docs/numba_mlir.rst, differences). When a release carries them, this fails: then
    drop the limit from the docs."""
    pytest.importorskip("numba_cuda_mlir", reason="numba-cuda-mlir is not installed")
    import numba_cuda_mlir.mlir_optimization as optimization

    seen: list[str] = []
    translate = optimization._call_llvm70_capi  # a rename fails here, loudly

    def spy(module: Any, target_options: Any, gen_lto: bool = False, gen_llvmir: bool = False) -> Any:
        if gen_lto:
            text = translate(module, dict(target_options), gen_lto=False, gen_llvmir=True)
            seen.append(text.decode(errors="replace") if isinstance(text, bytes) else str(text))
        return translate(module, target_options, gen_lto=gen_lto, gen_llvmir=gen_llvmir)

    monkeypatch.setattr(optimization, "_call_llvm70_capi", spy)
    coop_module, kernel = _two_sums("numba_mlir")
    coop_module.compile(kernel, "void(int32[::1], int32[::1])", block=64, arch="sm_90a")
    declarations = _coop_declarations("\n".join(seen))
    assert len(declarations) == 2, seen
    assert not any("#" in d or "convergent" in d for d in declarations), declarations


def test_cutlass_declares_the_bundle_functions_convergent_and_keeps_each_collective_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
    import cuda.coop.cutlass as cutlass_coop
    from cuda.coop.cutlass import _lto

    from . import _strided_cute as sc

    seen: list[str] = []
    kernel_ltoir = _lto.kernel_ltoir

    def spy(llvm_ir: str, *args: Any, **kwargs: Any) -> bytes:
        seen.append(llvm_ir)
        return kernel_ltoir(llvm_ir, *args, **kwargs)

    monkeypatch.setattr(_lto, "kernel_ltoir", spy)
    case = sc.Case("striped", "sum", (64, 1), "int32", dynamic=False, unrolled=True)
    report = cutlass_coop.compile(sc.host(case), *sc.fake_tensors(case), arch="sm_90a").inspect()
    declarations = _coop_declarations("\n".join(seen))
    assert len(declarations) == 2, seen
    groups = dict(re.findall(r"^attributes (#\d+) = \{ (.*) \}$", "\n".join(seen), re.M))
    for d in declarations:
        group = d.rsplit(" ", 1)[-1]
        assert "convergent" in groups.get(group, "").split(), (d, groups)
    # two tiles: two warp reductions and four barriers (3 and 6 when the second sum was copied)
    assert (report.sass.count("REDUX"), report.sass.count("BAR.SYNC")) == (2, 4), report.sass


@pytest.mark.parametrize("backend", BACKENDS)
def test_two_sums_keep_each_collective_once(backend: str) -> None:
    if backend == "numba_mlir":
        pytest.importorskip("numba_cuda_mlir", reason="numba-cuda-mlir is not installed")
    coop_module, kernel = _two_sums(backend)
    report = coop_module.compile(kernel, "void(int32[::1], int32[::1])", block=64, arch="sm_90a").inspect()
    assert (report.sass.count("REDUX"), report.sass.count("BAR.SYNC")) == (2, 4), report.sass
