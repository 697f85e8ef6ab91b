# SPDX-License-Identifier: Apache-2.0
"""What coop knows of NVSHMEM: the device variables its module initialisation writes (which a coop
link must keep) and the import of nvshmem4py, the optional extra ``cuda-coop[nvshmem]``.

A kernel calls NVSHMEM through nvshmem4py's device API of its DSL (``nvshmem.core.device.numba``,
``.numba_cuda_mlir``, ``.cute``); the DSL collects NVSHMEM's device code as it does for its own
kernels (numba-cuda and numba-cuda-mlir: nvshmem4py's NVRTC shim, a link item whose setup callback
runs ``nvshmem.core.library_init`` when the module loads; CuTe: the device bitcode library named by
each ``cute.extern``), and coop's link takes it beside the CUB bundle. coop writes no transport.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ._errors import CoopBackendError

#: How to install the extra, for error messages.
EXTRA = "pip install 'cuda-coop[nvshmem]'"

#: The device variables NVSHMEM's host library looks up by name in a loaded module or library and
#: writes (``nvshmemx_cumodule_init`` / ``nvshmemx_culibrary_init``, i.e. ``nvshmem.core.module_init``
#: / ``library_init``): its device state (plus the IBGDA and GPUNetIO transports' where the device
#: library has them) and the device library's version. Device code only reads them, so a link with
#: ``-optimize-unused-variables`` (coop's, to drop CUB's unused constants) would fold them to their
#: zero initialisers and delete them; :func:`variables_used_flags` names them to nvJitLink instead.
MODULE_VARIABLES = (
    "nvshmemi_device_state_d",
    "nvshmemi_ibgda_device_state_d",
    "nvshmemi_gpunetio_device_state_d",
    "nvshmemi_device_lib_version_d",
)


def variables_used_flags(options: Iterable[str]) -> list[str]:
    """The nvJitLink option that keeps :data:`MODULE_VARIABLES` in a link with ``options``
    (``-variables-used=...``, which drops every other variable that no device code uses, as
    ``-optimize-unused-variables`` does), or none: a link that keeps unused variables anyway, or names
    its variables itself. Naming variables a link lacks changes nothing (the cubin of a kernel
    without NVSHMEM is the same, byte for byte), so every coop link names them: LTO-IR is opaque, so
    which inputs carry NVSHMEM's device code cannot be read off them."""
    options = list(options)
    if "-optimize-unused-variables" not in options or any(o.startswith("-variables-used") for o in options):
        return []
    return [f"-variables-used={','.join(MODULE_VARIABLES)}"]


def variables_used(used: str | Iterable[str] | None) -> list[str]:
    """A link's ``variables_used`` option (cuda.core ``LinkerOptions``: None, a name or names) with
    :data:`MODULE_VARIABLES` added, for a DSL linker that coop makes drop unused variables."""
    given = [used] if isinstance(used, str) else list(used or ())
    return list(dict.fromkeys([*given, *MODULE_VARIABLES]))


def nvshmem_core() -> Any:
    """``nvshmem.core`` (nvshmem4py's host API).

    Raises:
        CoopBackendError: nvshmem4py (or the NVSHMEM wheel it loads) is not installed; the message
            names the extra.
    """
    try:
        import nvshmem.core
    except ImportError as exc:
        raise CoopBackendError(
            f"NVSHMEM is an optional extra of cuda-coop and is not installed ({exc}); install it with "
            f"{EXTRA} (nvshmem4py and the NVSHMEM wheel)"
        ) from exc
    return nvshmem.core


def library_init(library: int | Callable[[], int]) -> Any:
    """``nvshmem.core.library_init`` of a loaded CUDA library (a ``CUlibrary`` handle, or a function
    that loads one and returns it, called once nvshmem4py is found): what nvshmem4py runs for the
    DSLs' own modules. Returns nvshmem4py's kernel object, for ``nvshmem.core.library_finalize``.

    Raises:
        CoopBackendError: nvshmem4py is not installed (the message names the extra).
    """
    core = nvshmem_core()
    handle = library() if callable(library) else library
    kernel_object = core.NvshmemKernelObject.from_handle(int(handle))
    core.library_init(kernel_object)
    return kernel_object
