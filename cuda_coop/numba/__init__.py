# SPDX-License-Identifier: Apache-2.0
"""cuda.coop.numba: the Numba backend and its qualified namespace (``numba_coop``).

Importing it activates the backend (``cuda.coop.register("numba")``) unless the environment
variable ``CUDA_COOP_NO_AUTOREGISTER`` is set to ``1``. It exposes the same
kernel-side primitives as ``cuda.coop`` plus the Numba entry points :func:`jit` and
:func:`compile`.
"""

from __future__ import annotations

from cuda.coop._backend_api import CoopBackendError, PreparedLaunch, export_namespace, register_on_import

try:
    import numba.cuda  # noqa: F401
except ImportError as _exc:
    raise CoopBackendError(
        f"cuda.coop.numba needs numba-cuda, which cannot be imported ({_exc}); install it with "
        "pip install 'cuda-coop[numba]'"
    ) from _exc

from .host._aot import CompiledKernel, compile, compile_many
from .host._dispatcher import CoopKernel, jit

register_on_import("numba")

__all__ = [
    "jit",
    "compile",
    "compile_many",
    "CoopKernel",
    "CompiledKernel",
    "PreparedLaunch",
    *export_namespace(globals()),
]
