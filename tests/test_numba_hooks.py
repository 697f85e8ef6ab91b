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
