# SPDX-License-Identifier: Apache-2.0
"""What the MLIR traced so far says about one call's use of a ``coop.TempStorage(auto_sync=True)``
in a CuTe kernel: whether a barrier already separates it from every earlier use of the buffer (then
the library adds none), and whether it sits in a branch on the thread index (then a block barrier
would deadlock).

CuTe traces the kernel in program order, so at each call the ops before it are known and the ops
after it are not: the analysis walks back from the call through its block and the blocks that
enclose it, and gives up (keeps the barrier) in a loop body that it reaches the start of, since the
loop's next iteration may run later uses first. ``tests/test_temp_storage.py`` fails loudly if the
DSL stops emitting the ops named here.
"""

from __future__ import annotations

import re
from typing import Any

from cuda.coop._backend_api import TempStorageUse, site

from . import _cute_hooks

#: The ops that separate two uses of a buffer: the block's full barriers, for calls of either scope
#: (a warp sync may name a part of the warp only: it is not counted).
_BLOCK_BARRIERS = ("nvvm.barrier", "nvvm.barrier0")
_LOOPS = ("scf.for", "scf.while", "scf.parallel")
_KERNELS = ("cuda.kernel", "gpu.func", "func.func", "llvm.func")  # the ops a kernel's body is in
_THREAD_INDEX = re.compile(r"^nvvm\.read\.ptx\.sreg\.(tid|laneid)")


def _name(op: Any) -> str:
    return str(op.operation.name)


def current_block() -> Any:
    """The block the DSL is appending ops to."""
    return _cute_hooks.insertion_block()


def last_op(block: Any) -> Any:
    """The op the DSL appended last to ``block`` (the call just emitted)."""
    ops = block.operations
    return ops[len(ops) - 1].operation


def temp_storage_use(use: TempStorageUse, uses: list[Any], block: Any) -> TempStorageUse:
    """``use`` refined for a call about to be appended to ``block``: ``uses`` are the ops of the
    earlier calls on the buffer (for an exclusive buffer, none: only the call itself, in a loop,
    reuses its slice)."""
    if not use.auto_sync:
        return use
    separated = _separated(block, uses)
    return TempStorageUse(use.sharing, use.auto_sync, separated, _divergent(block))


def _is_barrier(op: Any) -> bool:
    # a full barrier: the named and counted forms (operands) may cover part of the block only
    return _name(op) in _BLOCK_BARRIERS and len(op.operands) == 0


def _contains(op: Any, uses: list[Any]) -> bool:
    if any(op == u for u in uses):
        return True
    return any(_contains(inner, uses) for region in op.regions for b in region for inner in b.operations)


def _separated(block: Any, uses: list[Any]) -> bool:
    while True:
        ops = [op.operation for op in block.operations]
        for op in reversed(ops):
            if _is_barrier(op):
                return True
            if _contains(op, uses):
                return False
        owner = block.owner
        if owner is None or _name(owner) in _KERNELS:
            return True  # the kernel's start: nothing ran before
        if _name(owner) in _LOOPS:
            return False  # the loop's previous iteration may have used it after this point
        # an if (or another single-entry region): what ran before it in the enclosing block
        parent = owner.operation.block
        index = [op.operation for op in parent.operations].index(owner)
        block = _Prefix(parent, index)


class _Prefix:
    """The ops of ``block`` before position ``index``, with the block's owner."""

    def __init__(self, block: Any, index: int) -> None:
        self._block, self._index = block, index

    @property
    def operations(self) -> list[Any]:
        return list(self._block.operations)[: self._index]

    @property
    def owner(self) -> Any:
        return self._block.owner


def _divergent(block: Any) -> str:
    """Which enclosing ``if`` (or loop bound) is computed from the thread index, or "" (CuTe's
    ``scf`` ops carry no source location today: then "an enclosing if or loop")."""
    owner = block.owner
    while owner is not None and _name(owner) not in (*_KERNELS, "gpu.module"):
        conditions = {"scf.if": 1, "scf.for": 3}.get(_name(owner), 0)
        if any(_from_thread_index(v, []) for v in list(owner.operands)[:conditions]):
            found = re.search(r'"([^"]+)":(\d+)', str(owner.location))
            return (
                f"the branch at {site(found.group(1), int(found.group(2)))}"
                if found
                else "an enclosing if or loop"
            )
        owner = owner.parent
    return ""


def _from_thread_index(value: Any, seen: list[Any]) -> bool:
    owner = value.owner
    if not _cute_hooks.is_operation(owner):
        return False  # a block argument (a loop's induction variable): not followed
    op = owner.operation
    if any(op == s for s in seen):
        return False
    seen.append(op)
    if _THREAD_INDEX.match(_name(op)):
        return True
    if _name(op) in ("func.call", "llvm.call"):  # a coop call's result: a collective's, not followed
        return False
    return any(_from_thread_index(v, seen) for v in op.operands)
