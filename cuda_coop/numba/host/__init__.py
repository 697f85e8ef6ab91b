# SPDX-License-Identifier: Apache-2.0
"""The Numba backend's host side: what runs before a kernel is compiled and when it is launched.

``_dispatcher`` is ``cuda.coop.numba.jit`` (one compile per block shape), ``_launch`` the launch path
and ``PreparedLaunch``, ``_marshal`` reads kernel arguments (NumPy, torch, CuPy, DLPack,
``__cuda_array_interface__``), ``_aot`` is ``cuda.coop.numba.compile`` (ahead of time, no GPU
needed), ``_options`` checks the options both take.
"""
