# SPDX-License-Identifier: Apache-2.0
"""Launch dimensions: a block's and a thread-block cluster's ``(x, y, z)`` from what a user writes,
with the limits GPUs set; and what counts as an integer there. Below the catalog's kinds and the
primitives, which both check launch shapes (no import of either)."""

from __future__ import annotations

import operator

from ._errors import CoopLaunchConfigError

__all__ = [
    "MAX_CLUSTER_BLOCKS",
    "PORTABLE_CLUSTER_BLOCKS",
    "check_cluster_blocks",
    "is_int",
    "normalize_block_dims",
    "normalize_cluster_dims",
]

#: Blocks a thread-block cluster may have: 8 on every GPU that has clusters (portable), up to 16 where
#: the GPU allows non-portable sizes (H100, H200: the launch opts in).
PORTABLE_CLUSTER_BLOCKS = 8
MAX_CLUSTER_BLOCKS = 16


def is_int(value: object) -> bool:
    """A Python or NumPy integer (anything with ``__index__``), not a bool (nor NumPy's)."""
    kind = type(value)
    return hasattr(kind, "__index__") and not issubclass(kind, bool) and kind.__name__ != "bool_"


def _dims3(dims: object, what: str, allowed: str) -> tuple[int, int, int]:
    """An int or a tuple/list of 1 to 3 positive ints (Python or NumPy integers) as ``(x, y, z)``."""
    if is_int(dims):
        dims = (dims,)
    if not isinstance(dims, (tuple, list)) or not 1 <= len(dims) <= 3:
        raise CoopLaunchConfigError(f"{what} must be {allowed}, got {dims!r}")
    if not all(is_int(d) and operator.index(d) > 0 for d in dims):
        raise CoopLaunchConfigError(f"{what} must be positive ints, got {dims!r}")
    full = tuple(operator.index(d) for d in dims) + (1,) * (3 - len(dims))
    return (full[0], full[1], full[2])


def normalize_block_dims(dims: object, *, what: str) -> tuple[int, int, int]:
    """Normalise an int or a tuple/list of 1 to 3 positive ints (Python or NumPy integers) into
    ``(x, y, z)``."""
    full = _dims3(dims, what, "an int or a tuple of 1 to 3 ints")
    if full[0] * full[1] * full[2] > 1024:
        raise CoopLaunchConfigError(f"{what}={dims!r} has more than 1024 threads")
    return full


def normalize_cluster_dims(dims: object, *, what: str) -> tuple[int, int, int] | None:
    """Normalise a thread-block cluster (None: no cluster; an int or a tuple/list of 1 to 3 positive
    ints) into ``(x, y, z)``; at most :data:`MAX_CLUSTER_BLOCKS` blocks."""
    if dims is None:
        return None
    return check_cluster_blocks(
        _dims3(dims, what, "None, an int or a tuple of 1 to 3 ints"), f"{what}={dims!r}"
    )


def check_cluster_blocks(dims: tuple[int, int, int], what: str) -> tuple[int, int, int]:
    """``dims``, or CoopLaunchConfigError (``what`` names the cluster) when it has more blocks than
    any GPU allows in a cluster."""
    blocks = dims[0] * dims[1] * dims[2]
    if blocks > MAX_CLUSTER_BLOCKS:
        raise CoopLaunchConfigError(
            f"{what} has {blocks} blocks; GPUs allow at most {PORTABLE_CLUSTER_BLOCKS} (portable) or "
            f"{MAX_CLUSTER_BLOCKS} (H100/H200, non-portable)"
        )
    return dims
