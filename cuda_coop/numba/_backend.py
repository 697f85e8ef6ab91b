# SPDX-License-Identifier: Apache-2.0
"""Activation of the Numba backend: registers typing, lowering and data models, transactionally."""

from __future__ import annotations

from typing import Any

from cuda.coop import block
from cuda.coop._kernel_api import TempStorage, ThreadData

from . import _numba_hooks

_installed = False


def _install() -> None:
    from numba.cuda import types
    from numba.cuda.datamodel import models
    from numba.cuda.extending import lower_builtin, register_model
    from numba.cuda.typing.templates import infer_global

    from . import _lowering, _typing
    from ._types import TempStorageType, ThreadDataType

    register_model(ThreadDataType)(models.ArrayModel)
    register_model(TempStorageType)(models.OpaqueModel)
    for stub in (block.load, block.store):
        prim = stub.__coop_primitive__  # type: ignore[attr-defined]
        template = _typing.tile_template(prim)
        template.key = stub
        infer_global(stub, types.Function(template))
        lower_builtin(stub, types.VarArg(types.Any))(_lowering.lower_tile(prim))
    _typing.ThreadDataTemplate.key = ThreadData
    infer_global(ThreadData, types.Function(_typing.ThreadDataTemplate))
    lower_builtin(ThreadData, types.Any, types.Any)(_lowering.lower_thread_data)
    _typing.TempStorageTemplate.key = TempStorage
    infer_global(TempStorage, types.Function(_typing.TempStorageTemplate))
    lower_builtin(TempStorage)(_lowering.lower_temp_storage)


def activate() -> None:
    """Register the backend with numba-cuda; on any failure nothing of it stays registered."""
    global _installed
    if _installed:
        return
    _numba_hooks.check()
    snap = _numba_hooks.snapshot()
    try:
        _install()
    except BaseException:
        _numba_hooks.rollback(snap)
        raise
    _installed = True


def intercept(qualname: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[bool, Any]:
    """Numba compiles kernel bodies itself; it never handles a call made from Python."""
    return False, None
