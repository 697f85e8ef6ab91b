# SPDX-License-Identifier: Apache-2.0
"""The numba-cuda internals the backend relies on: fail loudly, naming the hook, if they move."""

from __future__ import annotations

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
    from cuda.coop.numba._lowering import LazyBundle
    from numba.cuda.cudadrv.linkable_code import LTOIR

    assert issubclass(LazyBundle, LTOIR)
    assert isinstance(LTOIR.__dict__.get("data", LTOIR.data), property)  # read at link time


def test_coop_links_drop_unused_variables_and_others_do_not() -> None:
    """The linker-option hook: numba-cuda's _Linker still builds its options in
    _get_linker_options and records LTO input in _has_ltoir; coop compiles add
    -optimize-unused-variables, other links are untouched."""
    from cuda.coop._session import compiling
    from numba.cuda.cudadrv import driver

    linker = driver._Linker(cc=(9, 0, "a"), lto=True)
    assert linker._has_ltoir is False
    linker._has_ltoir = True  # as add_ltoir() does
    assert not linker._get_linker_options(False).optimize_unused_variables
    with compiling((128, 1, 1)):
        assert linker._get_linker_options(False).optimize_unused_variables is True
    assert getattr(driver._Linker.__dict__["_get_linker_options"], "cuda_coop", False)
