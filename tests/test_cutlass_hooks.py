# SPDX-License-Identifier: Apache-2.0
"""The CuTe DSL internals the CUTLASS backend relies on: fail loudly, naming the hook, if they move."""

import pytest

pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")

from cuda import coop  # noqa: E402
from cuda.coop.cutlass import _cute_hooks  # noqa: E402


def test_hooks_present() -> None:
    _cute_hooks.check()


def test_missing_hook_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    import cutlass.cute as cute

    monkeypatch.delattr(cute, "_get_launch_facts")
    with pytest.raises(coop.CoopBackendError, match="_get_launch_facts is gone"):
        _cute_hooks.check()


def test_not_tracing_means_not_handled() -> None:
    from cuda.coop.cutlass import _backend

    assert _cute_hooks.launch_block_dims() is None
    assert _backend.intercept("coop.block.load", (), {}) == (False, None)
    with pytest.raises(coop.CoopHostCallError):
        coop.block.load(None, None)


def test_cutlass_type_names_round_trip() -> None:
    import cutlass
    from cuda.coop._dtypes import REAL_DTYPES
    from cuda.coop.cutlass._backend import cutlass_type, dtype_name

    for name in REAL_DTYPES:
        assert dtype_name(cutlass_type(name)) == name
    assert dtype_name(cutlass.Boolean) is None
    for name in ("complex64", "complex128"):  # CuTe DSL 4.8 has none: the (re, im) pair instead
        with pytest.raises(coop.CoopTypeError, match="CuTe DSL has no complex numeric type"):
            cutlass_type(name)
