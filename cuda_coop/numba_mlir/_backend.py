# SPDX-License-Identifier: Apache-2.0
"""Activation of the numba-cuda-mlir backend: typing and lowering of every catalog row, and of
``coop.ThreadData``, in numba-cuda-mlir's extension registries."""

from __future__ import annotations

import importlib
from typing import Any

from cuda.coop._backend_api import CATALOG, Primitive, TempStorage, ThreadData

from . import _ncm_hooks

_installed = False


def _install() -> None:
    from cuda.coop._numba_like._barriers import typing_call
    from numba_cuda_mlir.extending import lower_builtin, refresh_registries, register_model, typing_registry
    from numba_cuda_mlir.models import ArrayModel, OpaqueModel
    from numba_cuda_mlir.numba_cuda import types

    from .kernel import _lowering
    from .kernel._dsl import TYPING
    from .kernel._types import PythonFunctionType, TempStorageType, ThreadDataType

    register_model(ThreadDataType)(ArrayModel)
    register_model(PythonFunctionType)(OpaqueModel)
    register_model(TempStorageType)(_pointer_model())
    for prim in CATALOG.values():
        _add(prim, typing_registry, lower_builtin, types)
    TYPING.ThreadDataTemplate.key = ThreadData
    typing_registry.register_global(ThreadData, types.Function(TYPING.ThreadDataTemplate))
    lower_builtin(ThreadData, types.VarArg(types.Any))(_lowering.lower_thread_data)
    TYPING.TempStorageTemplate.key = TempStorage
    typing_registry.register_global(TempStorage, types.Function(TYPING.TempStorageTemplate))
    lower_builtin(TempStorage, types.VarArg(types.Any))(_lowering.lower_temp_storage)
    _ncm_hooks.errors_name_the_call_site(typing_call)
    _ncm_hooks.drop_unused_variables_in_coop_links()
    _ncm_hooks.nan_aware_not_equal()
    refresh_registries()


def _pointer_model() -> type:
    """A data model holding a generic pointer (``!llvm.ptr``): a TempStorage's base."""
    from numba_cuda_mlir._mlir.dialects import llvm
    from numba_cuda_mlir.models import PrimitiveModel

    class PointerModel(PrimitiveModel):
        def __init__(self, dmm: Any, fe_type: Any) -> None:
            super().__init__(dmm, fe_type, llvm.PointerType.get())

    return PointerModel


def _add(prim: Primitive, typing_registry: Any, lower_builtin: Any, types: Any) -> None:
    from .kernel import _lowering
    from .kernel._dsl import TYPING

    stub = getattr(importlib.import_module(f"cuda.coop.{prim.scope}"), prim.name)
    template = TYPING.primitive_template(prim, None)
    template.key = stub
    _ncm_hooks.GENERICS[stub] = _ncm_hooks.GENERICS.pop(prim.qualname)
    typing_registry.register_global(stub, types.Function(template))
    lower_builtin(stub, types.VarArg(types.Any))(_lowering.lower_call(prim, stub))


def primitive_added(prim: Primitive) -> None:
    from numba_cuda_mlir.extending import lower_builtin, refresh_registries, typing_registry
    from numba_cuda_mlir.numba_cuda import types

    _add(prim, typing_registry, lower_builtin, types)
    refresh_registries()


def activate() -> None:
    """Register the backend with numba-cuda-mlir."""
    global _installed
    if _installed:
        return
    _ncm_hooks.check()
    _install()
    _installed = True


def intercept(qualname: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[bool, Any]:
    """numba-cuda-mlir compiles kernel bodies itself; it never handles a call made from Python."""
    return False, None
