# SPDX-License-Identifier: Apache-2.0
"""cuda.coop.cutlass: the CUTLASS CuTe DSL backend and its qualified namespace (``cutlass_coop``).

Importing it activates the backend (``cuda.coop.register("cutlass")``) unless the environment
variable ``CUDA_COOP_NO_AUTOREGISTER`` is ``1``. Inside ``@cute.kernel`` code, ``coop.ThreadData``
is a 1-D register tensor, ``coop.block.load/store`` take CuTe global-memory tensors or pointers,
the computing primitives return register tensors or CuTe scalars, and ``op=`` may be a Python or
``@cute.jit`` function; the ``@cute.jit`` function that launches such kernels is compiled with
:func:`compile`.
"""

from __future__ import annotations

from cuda.coop._backend_api import export_namespace, register_on_import

from ._bridge import CompiledCuteFunction, compile, compile_many
from ._launch import PreparedLaunch
from ._payload import as_thread_data, from_ssa, to_ssa

register_on_import("cutlass")

__all__ = [
    "compile",
    "compile_many",
    "CompiledCuteFunction",
    "PreparedLaunch",
    "as_thread_data",
    "to_ssa",
    "from_ssa",
    *export_namespace(globals()),
]
