# SPDX-License-Identifier: Apache-2.0
"""cuda.coop.numba_mlir: the numba-cuda-mlir backend and its qualified namespace.

Importing it activates the backend (``cuda.coop.register("numba_mlir")``) unless
``CUDA_COOP_NO_AUTOREGISTER=1``. The kernels are those of ``cuda.coop.numba`` with
``from numba_cuda_mlir import cuda``; :func:`jit` compiles them per launch block shape, :func:`compile`
ahead of time for a named architecture (no GPU needed), :func:`compile_many` a list of them with
their new CUB code compiled in parallel processes.
"""

from __future__ import annotations

from cuda.coop._backend_api import CoopBackendError, PreparedLaunch, export_namespace, register_on_import

try:
    import numba_cuda_mlir  # noqa: F401
except ImportError as _exc:
    raise CoopBackendError(
        f"cuda.coop.numba_mlir needs numba-cuda-mlir, which cannot be imported ({_exc}); install it with "
        "pip install 'cuda-coop[numba-mlir]'"
    ) from _exc

from ._aot import compile, compile_many
from ._dispatcher import CoopKernel, jit

register_on_import("numba_mlir")

__all__ = ["jit", "compile", "compile_many", "CoopKernel", "PreparedLaunch", *export_namespace(globals())]
