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
    ):
        if not hasattr(obj, attr):
            raise CoopBackendError(
                f"numba-cuda changed: {type(obj).__name__}.{attr} is gone; this cuda-coop needs "
                "numba-cuda 0.30.x"
            )
