# SPDX-License-Identifier: Apache-2.0
"""The numba-cuda internals the backend relies on: fail loudly, naming the hook, if they move."""

from __future__ import annotations

import numpy as np
import pytest
from cuda import coop
from cuda.coop.numba import _numba_hooks


def test_hooks_present() -> None:
    _numba_hooks.check()


def test_snapshot_and_rollback_round_trip() -> None:
    from numba.cuda.typing.templates import AbstractTemplate, infer

    snap = _numba_hooks.snapshot()

    @infer
    class Probe(AbstractTemplate):
        key = "coop-hook-probe"

    assert _numba_hooks.snapshot() != snap
    _numba_hooks.rollback(snap)
    assert _numba_hooks.snapshot() == snap


def test_missing_hook_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(_numba_hooks.TYPING_REGISTRY, "globals")
    with pytest.raises(coop.CoopBackendError, match="Registry.globals is gone"):
        _numba_hooks.check()


def test_lazy_bundle_is_a_numba_linkable() -> None:
    from cuda.coop.numba._numba_hooks import LazyBundle
    from numba.cuda.cudadrv.linkable_code import LTOIR

    assert issubclass(LazyBundle, LTOIR)
    assert isinstance(LTOIR.__dict__.get("data", LTOIR.data), property)  # read at link time


def test_coop_links_drop_unused_variables_and_others_do_not() -> None:
    """The linker-option hook: numba-cuda's _Linker still builds its options in
    _get_linker_options and records LTO input in _has_ltoir; coop compiles add
    -optimize-unused-variables (keeping NVSHMEM's module variables), other links are untouched."""
    from cuda.coop._session import compiling
    from numba.cuda.cudadrv import driver

    linker = driver._Linker(cc=(9, 0, "a"), lto=True)
    assert linker._has_ltoir is False
    linker._has_ltoir = True  # as add_ltoir() does
    assert not linker._get_linker_options(False).optimize_unused_variables
    with compiling((128, 1, 1)):
        options = linker._get_linker_options(False)
        assert options.optimize_unused_variables is True
        # NVSHMEM's module variables, which only its host library writes, are kept (tests/test_nvshmem_aot.py)
        assert "nvshmemi_device_state_d" in options.variables_used
    assert getattr(driver._Linker.__dict__["_get_linker_options"], "cuda_coop", False)


def test_coop_debug_info_flags_use_nvrtc_behaviour() -> None:
    """numba-cuda still writes its debug-info module flags in DIBuilder._set_module_flags; under a
    coop compile they carry NVRTC's merge behaviour (1), elsewhere numba-cuda's own (2)."""
    import llvmlite.ir as ir
    from cuda.coop._session import compiling
    from numba.cuda import debuginfo

    def flags() -> str:
        module = ir.Module()
        builder = debuginfo.DIBuilder.__new__(debuginfo.DIBuilder)
        builder.module = module
        debuginfo.DIBuilder._set_module_flags(builder)
        return str(module)

    plain = flags()
    assert (
        '!{ i32 2, !"Debug Info Version", i32 3 }' in plain and '!{ i32 2, !"Dwarf Version", i32 4 }' in plain
    )
    with compiling((128, 1, 1)):
        coop_flags = flags()
    assert '!{ i32 1, !"Debug Info Version", i32 3 }' in coop_flags
    assert '!{ i32 1, !"Dwarf Version", i32 4 }' in coop_flags


def test_aot_compiles_see_the_named_arch_as_the_current_device() -> None:
    from cuda.coop._session import compiling
    from numba.cuda import dispatcher

    with compiling((128, 1, 1), "sm_100a"):
        assert dispatcher.get_current_device().compute_capability == (10, 0, "a")
    assert _numba_hooks.compute_capability("sm_90") == (9, 0)


def test_cache_entries_are_keyed_by_block_shape() -> None:
    from numba import cuda

    def kernel(x):  # type: ignore[no-untyped-def]
        x[0] = 1

    disp = cuda.jit(lto=True)(kernel)
    _numba_hooks.cache_per_block(disp, (64, 2, 1))
    disp._configure_cache_for_launch_config(None)  # what numba-cuda does before each compile
    assert disp._cache._launch_config_key == ("cuda.coop block", (64, 2, 1))


HALF_THREE = np.float16(3)  # a module-level float16 constant, as numba-cuda 0.30 mis-lowers it


def test_float16_constants_lower_as_their_bits() -> None:
    """With the backend active, a float16 global constant lowers as its IEEE half bits (0x4200 for
    3.0), in plain kernels too; numba-cuda 0.30 alone emits ``i16 3.0`` (ERROR_INVALID_IR)."""
    import cuda.coop.numba  # noqa: F401  (activates the backend)
    from numba import cuda

    def k(dst):  # type: ignore[no-untyped-def]
        dst[0] = HALF_THREE

    ptx, _ = cuda.compile_ptx(k, "void(float16[::1])", cc=(9, 0))
    assert f"mov.u16 \t%rs1, {0x4200};" in ptx or f", {0x4200};" in ptx, ptx


def test_calls_of_one_primitive_with_different_plans_lower_each_with_its_own() -> None:
    """The plan-carrying template relies on Numba calling ``generic`` then ``get_impl_key`` for one
    call before typing the next: three reductions of one kernel, each of another type, must lower
    each to its own request (a swapped plan would call one wrapper with another's argument types)."""
    from cuda import coop
    from numba import cuda, types

    def kernel(a, b, c, out):  # type: ignore[no-untyped-def]
        i = cuda.threadIdx.x
        x = coop.block.reduce(a[i], "sum", threads_per_block=64)
        y = coop.block.reduce(b[i], "max", threads_per_block=64)
        z = coop.block.reduce(c[i], "min", threads_per_block=64)
        if i == 0:
            out[0] = x + y + z

    sig = (types.float32[::1], types.int64[::1], types.uint8[::1], types.float64[::1])
    codes, _ = cuda.compile_all(kernel, sig, device=False, abi="numba", output="ltoir", cc=(9, 0))
    requests = codes[1].session.requests
    assert [(r.primitive, r.dtype, dict(r.options)["op"]) for r in requests] == [
        ("block.reduce", "float32", "sum"),
        ("block.reduce", "int64", "max"),
        ("block.reduce", "uint8", "min"),
    ]
    assert codes[1].session.finalize("sm_90").objects  # the three wrappers compile as lowered
