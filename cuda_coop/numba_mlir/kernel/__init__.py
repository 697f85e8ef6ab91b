# SPDX-License-Identifier: Apache-2.0
"""The numba-cuda-mlir backend's kernel side.

numba-cuda-mlir types kernels with numba-cuda's typing (vendored as ``numba_cuda_mlir.numba_cuda``),
so the prescan, the barrier analysis and the typing of coop calls are the Numba backend's:
``cuda.coop._numba_like``'s, over this package's ``_dsl`` (the vendored types, IR and templates, and
coop's kernel types over them, ``_types``). What differs is this package's own: ``_lowering`` (MLIR,
not llvmlite), ``_operators`` (user operators as MLIR functions) and ``_limits`` (what numba-cuda-mlir
cannot compile yet).
"""
