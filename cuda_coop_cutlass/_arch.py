# SPDX-License-Identifier: Apache-2.0
"""The architecture a CuTe compile targets, chosen as CuTe chooses it, without its silent default.

CuTe DSL 4.8 takes ``--gpu-arch`` (the ``GPUArch`` option), else ``CUTE_DSL_ARCH``, else the
compute capability of device 0, else ``sm_100`` even when no GPU is there. The bridge takes
``arch=``, else ``--gpu-arch``, else ``CUTE_DSL_ARCH``, else the current GPU; with none of them it
raises instead of guessing.
"""

from __future__ import annotations

import os

from cuda.coop._backend_api import CoopValueError, normalize_arch

ENV = "CUTE_DSL_ARCH"
_HOW = (
    "pass arch='sm_90a' (or another target) to cuda.coop.cutlass.compile, or set "
    f"{ENV}=sm_90a before CuTe is imported"
)


def known() -> list[str]:
    """The architectures this CuTe DSL compiles for (``sm_80`` ... ``sm_121f``)."""
    import cutlass

    return [a.name for a in cutlass.Arch]


def check(value: object, what: str) -> str:
    """``value`` as a CuTe architecture name (``"90a"`` and ``"compute_90a"`` read as ``"sm_90a"``):
    read as every coop compile reads an architecture (``normalize_arch``), then checked against the
    targets this CuTe DSL knows.

    Raises:
        CoopTypeError: not a string.
        CoopValueError: not an architecture, or not one CuTe DSL compiles for.
    """
    name = normalize_arch(value, what=what)
    names = known()
    if name not in names:
        raise CoopValueError(
            f"{what}={value!r} is not an architecture CuTe DSL compiles for; use one of {', '.join(names)}"
        )
    return name


def current_gpu() -> str | None:
    """The current GPU's architecture as CuTe names it (``sm_90a`` for compute capability 9.0), or
    None when there is no GPU or no driver."""
    try:
        from cuda.core import Device

        cc = Device().compute_capability
    except Exception:
        return None
    return f"sm_{cc.major}{cc.minor}{'a' if cc.major >= 9 else ''}"


def resolve(arch: object = None, option: str = "") -> str:
    """The target: ``arch=``, else the ``--gpu-arch`` option, else ``CUTE_DSL_ARCH``, else the GPU.

    Raises:
        CoopTypeError, CoopValueError: a malformed or unknown architecture (named by where it came
            from), contradicting ``arch=`` and ``--gpu-arch``, or no architecture and no GPU.
    """
    if arch is not None:
        chosen = check(arch, "arch")
        if option and check(option, "--gpu-arch") != chosen:
            raise CoopValueError(
                f"arch={arch!r} contradicts the option --gpu-arch {option}; give one of them"
            )
        return chosen
    if option:
        return check(option, "--gpu-arch")
    env = os.environ.get(ENV, "").strip()
    if env:
        return check(env, ENV)
    gpu = current_gpu()
    if gpu is None:
        raise CoopValueError(f"no GPU here and no target architecture given: {_HOW}")
    return gpu
