# SPDX-License-Identifier: Apache-2.0
"""How a coop call uses a ``coop.TempStorage``, from the kernel's IR: not yet on numba-cuda-mlir."""

from __future__ import annotations

from typing import Any

from cuda.coop._backend_api import CoopBackendError, TempStorageUse


def temp_storage_use(name: str, names: list[str], sharing: str, auto_sync: bool) -> TempStorageUse:
    raise CoopBackendError(
        "coop.TempStorage is not yet supported by the numba-cuda-mlir backend; leave temp_storage= out "
        "(each call then has scratch of its own), or compile the kernel with cuda.coop.numba"
    )


def typing_call() -> Any:
    return None
