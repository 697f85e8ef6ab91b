# SPDX-License-Identifier: Apache-2.0
"""Every numba-cuda internal the Numba backend touches, in one place.

numba-cuda 0.30 has no public API for these; ``tests/test_numba_hooks.py`` fails loudly, naming
the hook, if an upgrade moves one.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from cuda.coop._errors import CoopBackendError
from cuda.coop._session import current
from numba.cuda.core import imputils
from numba.cuda.cudadrv import driver
from numba.cuda.typing import templates

#: Typing and lowering registries that the CUDA target refreshes before each compile.
TYPING_REGISTRY = templates.builtin_registry
LOWERING_REGISTRY = imputils.builtin_registry


def snapshot() -> dict[str, Any]:
    """Record the lengths of the registries the backend appends to, for a rollback."""
    from numba.cuda.models import cuda_data_manager

    return {
        "typing": {n: len(getattr(TYPING_REGISTRY, n)) for n in ("functions", "attributes", "globals")},
        "lowering": {
            n: len(getattr(LOWERING_REGISTRY, n)) for n in ("functions", "getattrs", "casts", "constants")
        },
        "models": set(cuda_data_manager._handlers),
        "linker_options": driver._Linker.__dict__["_get_linker_options"],
        "linker_complete": driver._Linker.__dict__["complete"],
    }


def rollback(snap: dict[str, Any]) -> None:
    """Remove whatever was registered after ``snap`` was taken."""
    from numba.cuda.models import cuda_data_manager

    for name, n in snap["typing"].items():
        del getattr(TYPING_REGISTRY, name)[n:]
    for name, n in snap["lowering"].items():
        del getattr(LOWERING_REGISTRY, name)[n:]
    for key in set(cuda_data_manager._handlers) - snap["models"]:
        del cuda_data_manager._handlers[key]
    driver._Linker._get_linker_options = snap["linker_options"]
    driver._Linker.complete = snap["linker_complete"]


def drop_unused_variables_in_coop_links() -> None:
    """Make numba-cuda's linker pass nvJitLink ``-optimize-unused-variables`` when it links a kernel
    compiled through cuda.coop's front door (a :class:`~cuda.coop._session.Compile` is current).

    numba-cuda 0.30 builds its ``LinkerOptions`` in ``_Linker._get_linker_options`` and offers no
    way to add one. Without the option the cubin keeps ~80 KB of unused CCCL constants and the LTO
    link takes about a third longer (measured: 80 ms -> 59 ms on 2 CPU cores for a load + scan +
    store kernel). Other kernels are linked exactly as before.
    """
    original = driver._Linker.__dict__["_get_linker_options"]
    if getattr(original, "cuda_coop", False):
        return

    def _get_linker_options(self: Any, ptx: bool) -> Any:
        options = original(self, ptx)
        if self._has_ltoir and current() is not None:
            options = dataclasses.replace(options, optimize_unused_variables=True)
        return options

    _get_linker_options.cuda_coop = True  # type: ignore[attr-defined]
    driver._Linker._get_linker_options = _get_linker_options


#: What a cache-linked ``_Linker`` holds as its ``linker`` (numba-cuda reads ``info_log`` after
#: ``complete()``, which needs a truthy ``linker``).
_LINKED_BY_COOP = "cuda.coop link"


def link_coop_kernels_through_cache() -> None:
    """Make numba-cuda's linker hand the link of a kernel compiled through cuda.coop's front door
    to :func:`cuda.coop._link.link_exact`, with the options numba-cuda chose, so that the linked
    cubin comes from the cache when it is there (nvJitLink keeps ~the size of its LTO-IR inputs
    per link; see ``cuda.coop._link``). Other kernels are linked exactly as before.

    numba-cuda 0.30 links in ``_Linker.complete`` over ``_object_codes`` (cuda.core
    ObjectCode objects) with ``_get_linker_options``; ``get_cubin`` then reads ``info_log``.
    """
    from cuda.coop import _link

    original = driver._Linker.__dict__["complete"]
    if getattr(original, "cuda_coop", False):
        return

    def complete(self: Any) -> Any:
        codes = self._object_codes
        if not (self._has_ltoir and current() is not None) or any(
            not isinstance(c.code, bytes) for c in codes
        ):
            return original(self)
        from cuda.core import ObjectCode

        options = self._get_linker_options(ptx=False)
        flags = [o.decode() for o in options.as_bytes("nvjitlink")]
        inputs = [(c.code_type, c.code, str(c.name)) for c in codes]
        cubin = _link.link_exact(inputs, flags, "cubin")
        self.linker, self._info_log, self._error_log = _LINKED_BY_COOP, "", ""
        self._complete = True
        return ObjectCode.from_cubin(cubin, name=options.name)

    complete.cuda_coop = True  # type: ignore[attr-defined]
    driver._Linker.complete = complete


def current_device_arch() -> str:
    """``sm_XY`` of the current CUDA device (needs a driver and a GPU)."""
    from numba import cuda

    major, minor = cuda.get_current_device().compute_capability
    return f"sm_{major}{minor}"


def check() -> None:
    """Raise CoopBackendError naming the first hook that this numba-cuda lacks."""
    from numba.cuda.models import cuda_data_manager

    for obj, attr in (
        (TYPING_REGISTRY, "functions"),
        (TYPING_REGISTRY, "globals"),
        (LOWERING_REGISTRY, "functions"),
        (cuda_data_manager, "_handlers"),
        (driver._Linker, "_get_linker_options"),
        (driver._Linker, "complete"),
        (driver._Linker, "info_log"),
    ):
        if not hasattr(obj, attr):
            raise CoopBackendError(
                f"numba-cuda changed: {type(obj).__name__}.{attr} is gone; this cuda-coop needs "
                "numba-cuda 0.30.x"
            )
