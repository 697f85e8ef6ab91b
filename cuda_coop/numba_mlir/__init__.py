# SPDX-License-Identifier: Apache-2.0
"""cuda.coop.numba_mlir: the numba-cuda-mlir backend and its qualified namespace.

Work in progress (branch numba-mlir): ahead-of-time compile of block and warp primitives on
scalar element types.
"""

from __future__ import annotations

from cuda.coop._backend_api import CoopBackendError, export_namespace, register_on_import

try:
    import numba_cuda_mlir  # noqa: F401
except ImportError as _exc:
    raise CoopBackendError(
        f"cuda.coop.numba_mlir needs numba-cuda-mlir, which cannot be imported ({_exc}); install it with "
        "pip install 'cuda-coop[numba-mlir]'"
    ) from _exc

from ._aot import compile

register_on_import("numba_mlir")

__all__ = ["compile", *export_namespace(globals())]
