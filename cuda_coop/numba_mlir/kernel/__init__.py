# SPDX-License-Identifier: Apache-2.0
"""The numba-cuda-mlir backend's kernel side.

numba-cuda-mlir types kernels with numba-cuda's typing (vendored as ``numba_cuda_mlir.numba_cuda``),
so the typing of coop calls is the Numba backend's own source (``cuda_coop/numba/kernel/_types.py``,
``_typing.py``), run here over this package's ``_dsl`` (the vendored types and templates): this
package's folder comes first on its path, the Numba backend's kernel folder second. What differs is
this package's own: ``_dsl`` (the DSL's names, the plan hand-off), ``_lowering`` (MLIR, not
llvmlite) and ``_barriers``.
"""

from __future__ import annotations

import os

# the Numba backend's kernel folder, by path: importing its package would need numba-cuda
__path__.append(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "numba", "kernel"))  # noqa: F821
