# SPDX-License-Identifier: Apache-2.0
"""What an ahead-of-time compile of a kernel with coop calls returns, whichever the DSL."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._errors import CoopTypeError, CoopValueError
from ._sass import CubinReport, inspect_cubin

__all__ = ["CompiledKernel", "kernel_jobs"]


#: One job of a Numba DSL's ``compile_many``: (func, signature, block, the rest of compile's arguments).
KernelJob = tuple[Any, Any, Any, dict[str, Any]]


def kernel_jobs(kernels: Iterable[Mapping[str, Any] | Sequence[Any]]) -> list[KernelJob]:
    """The jobs of a Numba DSL's ``compile_many``, each as ``(func, signature, block, the rest of
    compile's arguments)``: a mapping of ``compile``'s arguments with ``func``, or a ``(func,
    signature, block)`` tuple.

    Raises:
        CoopTypeError: a job that is neither, named by its index.
    """
    jobs = []
    for k, job in enumerate(kernels):
        if isinstance(job, Mapping) and "func" in job:
            given = dict(job)
            jobs.append((given.pop("func"), given.pop("signature", None), given.pop("block", None), given))
        elif isinstance(job, Sequence) and not isinstance(job, (str, bytes)) and len(job) == 3:
            jobs.append((job[0], job[1], job[2], {}))
        else:
            what = "a mapping without 'func'" if isinstance(job, Mapping) else f"a {type(job).__name__}"
            if isinstance(job, Sequence) and not isinstance(job, (str, bytes)):
                what += f" of {len(job)}"
            raise CoopTypeError(
                f"compile_many: kernel {k} is {what}; give a (func, signature, block) tuple or a mapping "
                "of compile's arguments with 'func'"
            )
    return jobs


@dataclass(frozen=True)
class CompiledKernel:
    """The result of :func:`compile`.

    Attributes:
        code: the linked cubin (``output="cubin"``), the linked PTX text as bytes (``"ptx"``),
            or the kernel's own LTO-IR (``"ltoir"``; link it with every object of ``bundle_ltoir``).
        output: which of the three ``code`` is.
        arch: the target, e.g. ``"sm_90a"``.
        block: the block dimensions the coop primitives were specialised for.
        bundle_ltoir: the kernel's CUB bundle as LTO-IR objects, all to be linked with the kernel, in
            this order: the kernel's glue (its shared memory), then units of the primitives'
            wrappers; none if the kernel uses no primitive.
        temp_storage: exact ``(size, alignment)`` of each CUB ``TempStorage`` in the bundle, by
            wrapper symbol (from the bundle's own sizeof/alignof probes).
        cluster: the thread-block cluster the coop primitives were specialised for, or None.
    """

    code: bytes
    output: str
    arch: str
    block: tuple[int, int, int]
    bundle_ltoir: tuple[bytes, ...]
    temp_storage: dict[str, tuple[int, int]]
    cluster: tuple[int, int, int] | None = None

    def inspect(self) -> CubinReport:
        """Registers, shared memory and SASS facts of the cubin (``output="cubin"`` only)."""
        if self.output != "cubin":
            raise CoopValueError(f"inspect() needs output='cubin', this is {self.output!r}")
        return inspect_cubin(self.code)
