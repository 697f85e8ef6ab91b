# SPDX-License-Identifier: Apache-2.0
"""What the two Numba-like backends (``cuda.coop.numba`` over numba-cuda, ``cuda.coop.numba_mlir``
over numba-cuda-mlir) share, written once and imported by both; it imports no DSL.

``_front_door`` is the kernel that specialises per launch block shape (``kernel[grid, block]``,
``configure``, ``prepare``, ``for_block``) and the loop of ``compile_many``; ``_dsl`` names what a
Numba-like DSL gives coop's kernel side (its types, its IR, its typing templates, its hooks); the
kernel side itself (``_types``, ``_prescan``, ``_barriers``, ``_typing``) is written over such a
``Dsl``, each backend making its own from its ``kernel/_dsl.py``.
"""
