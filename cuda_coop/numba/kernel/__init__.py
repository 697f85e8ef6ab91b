# SPDX-License-Identifier: Apache-2.0
"""The Numba backend's kernel side: what runs while numba-cuda compiles a kernel.

``_prescan`` reads a kernel's IR before typing (user operators, constants), ``_typing`` types a coop
call and resolves its plan, ``_barriers`` says how a call uses a ``coop.TempStorage`` from the IR
around it, ``_lowering`` emits the call through the core's slot ladder and attaches the bundle,
``_types`` holds the Numba types of ``ThreadData``, ``TempStorage`` and the rest.
"""
