# SPDX-License-Identifier: Apache-2.0
"""The Numba backend's kernel side: what runs while numba-cuda compiles a kernel.

``_dsl`` is numba-cuda as a ``Dsl`` of the kernel side both Numba-like backends share
(``cuda.coop._numba_like``: the prescan, which reads a kernel's IR before typing; the barrier
analysis of a ``coop.TempStorage``'s uses; the typing of a coop call and its plan) and that kernel
side over it; ``_types`` holds the numba-cuda types of ``ThreadData``, ``TempStorage`` and the rest;
``_lowering`` emits the call through the core's slot ladder and attaches the bundle.
"""
