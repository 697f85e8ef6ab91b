# SPDX-License-Identifier: Apache-2.0
"""Activation of the Numba backend: registers typing, lowering and data models, transactionally.

Every catalog row gets the same template (``Typing.primitive_template``, ``cuda.coop._numba_like``);
lowerings are registered per request as calls are typed (``_lowering.impl_key``). Nothing here names
a primitive.
"""

from __future__ import annotations

import importlib
from typing import Any

from cuda.coop._backend_api import CATALOG, CHOICES, Primitive, TempStorage, ThreadData

from . import _numba_hooks

_installed = False


def _install() -> None:
    from cuda.coop._backend_api import AlgorithmEnumMeta
    from cuda.coop._numba_like._barriers import typing_call
    from numba.cuda import types
    from numba.cuda.datamodel import models
    from numba.cuda.extending import lower_builtin, lower_getattr_generic, register_model, typeof_impl
    from numba.cuda.typing.templates import infer_getattr, infer_global

    from .kernel import _lowering
    from .kernel._dsl import TYPING
    from .kernel._types import (
        AlgorithmEnumType,
        AlignedArrayType,
        PythonFunctionType,
        TempStorageType,
        ThreadDataType,
    )

    register_model(ThreadDataType)(models.ArrayModel)
    register_model(AlignedArrayType)(models.ArrayModel)
    register_model(TempStorageType)(models.OpaqueModel)
    register_model(PythonFunctionType)(models.OpaqueModel)
    for prim in CATALOG.values():
        primitive_added(prim)
    TYPING.ThreadDataTemplate.key = ThreadData
    infer_global(ThreadData, types.Function(TYPING.ThreadDataTemplate))
    lower_builtin(ThreadData, types.Any, types.Any)(_lowering.lower_thread_data)
    TYPING.TempStorageTemplate.key = TempStorage
    infer_global(TempStorage, types.Function(TYPING.TempStorageTemplate))
    lower_builtin(TempStorage, types.VarArg(types.Any))(_lowering.lower_temp_storage)
    register_model(AlgorithmEnumType)(models.OpaqueModel)
    infer_getattr(TYPING.AlgorithmMemberTemplate)
    lower_getattr_generic(AlgorithmEnumType)(_lowering.lower_algorithm_member)
    _numba_hooks.float16_constants_as_bits()
    _numba_hooks.drop_unused_variables_in_coop_links()
    _numba_hooks.link_coop_kernels_through_cache()
    _numba_hooks.debug_flags_as_nvrtc()
    _numba_hooks.cache_linked_coop_libraries()
    _numba_hooks.device_functions_ahead_of_time()
    _numba_hooks.helpers_per_kernel()
    _numba_hooks.errors_name_the_call_site(typing_call)
    # Last, as singledispatch registrations cannot be rolled back: our own classes only.
    typeof_impl.register(AlgorithmEnumMeta)(lambda cls, c: AlgorithmEnumType(cls))
    for choices in CHOICES:
        typeof_impl.register(choices.enum)(lambda member, c: types.StringLiteral(member))


def primitive_added(prim: Primitive) -> None:
    """Type calls of a catalog row's stub with the generic template (lowering follows by plan)."""
    from numba.cuda import types
    from numba.cuda.typing.templates import infer_global

    from .kernel import _lowering
    from .kernel._dsl import TYPING

    stub = getattr(importlib.import_module(f"cuda.coop.{prim.scope}"), prim.name)
    template = TYPING.primitive_template(prim, _lowering.impl_key)
    template.key = stub
    infer_global(stub, types.Function(template))


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
