# SPDX-License-Identifier: Apache-2.0
"""What a kernel's Numba IR says about one call's use of a ``coop.TempStorage(auto_sync=True)``:
whether a barrier already separates it from every earlier use of the buffer (then the library adds
none), and whether it sits in a branch on the thread index (then a block barrier would deadlock).

The call being typed is known through :func:`typing_call` (set by each backend's hooks module
around each of its DSL's call constraints); :class:`Barriers` reads the IR of one DSL. The analysis is
conservative both ways: it drops a barrier only when every path from an earlier use passes one, and
it refuses only where a branch condition is computed from ``cuda.threadIdx``, ``cuda.laneid`` or
``cuda.grid``.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from typing import Any

from cuda.coop._backend_api import TempStorageUse, site

from ._dsl import Dsl
from ._prescan import Prescan

_typing_call: contextvars.ContextVar[tuple[Any, str] | None] = contextvars.ContextVar(
    "cuda_coop_numba_typing_call", default=None
)


@contextlib.contextmanager
def typing_call(func_ir: Any, target: str) -> Iterator[None]:
    """While Numba types the call whose result is variable ``target`` of ``func_ir``."""
    token = _typing_call.set((func_ir, target))
    try:
        yield
    finally:
        _typing_call.reset(token)


class Barriers:
    """The analysis over one DSL's IR (the values of its variables as ``prescan`` folds them)."""

    def __init__(self, dsl: Dsl, prescan: Prescan) -> None:
        self.dsl = dsl
        self.python_value = prescan.python_value

    def call_argument(self, position: int, keyword: str) -> Any:
        """The Python value of an argument of the call being typed (``position`` or ``keyword``),
        folded from the kernel's IR as ``Prescan.python_value`` folds it, or ``...``: for arguments
        the DSL types as runtime values though they are constants of the source
        (``coop.ThreadData(2 * ITEMS)``)."""
        where = _typing_call.get()
        if where is None:
            return ...
        func_ir, target = where
        try:
            call = func_ir.get_definition(target)
        except Exception:
            return ...
        if not (isinstance(call, self.dsl.ir.Expr) and call.op == "call"):
            return ...
        kws = dict(call.kws)
        var = kws[keyword] if keyword in kws else (call.args[position] if position < len(call.args) else None)
        return ... if var is None else self.python_value(func_ir, var)

    def temp_storage_use(
        self, param: str, params: list[str], sharing: str, auto_sync: bool
    ) -> TempStorageUse:
        """The use of the TempStorage passed as ``param`` (of a primitive with parameters ``params``)
        by the call being typed; only options when it is not known."""
        use = TempStorageUse(sharing, auto_sync)
        where = _typing_call.get()
        if not auto_sync or where is None:
            return use
        try:
            return _Kernel(where[0], self).use(where[1], param, params, use)
        except Exception:  # an IR shape the analysis does not know: keep the barrier, check nothing
            return use

    def sources(self) -> tuple[Any, ...]:
        cuda = self.dsl.cuda
        return (cuda.threadIdx, cuda.laneid, cuda.grid)

    def barriers(self) -> tuple[Any, ...]:
        """The calls that separate two uses of a buffer: the block's barriers, for calls of either
        scope. (A ``cuda.syncwarp`` may name a part of the warp only: it is not counted.)"""
        cuda = self.dsl.cuda
        return (cuda.syncthreads, cuda.syncthreads_count, cuda.syncthreads_and, cuda.syncthreads_or)


class _Kernel:
    def __init__(self, func_ir: Any, side: Barriers) -> None:
        self.ir = func_ir
        self.nodes = side.dsl.ir  # the IR's classes
        self.value = side.python_value
        self.blocks = func_ir.blocks
        self.cfg = side.dsl.compute_cfg_from_blocks(self.blocks)
        self.barriers = side.barriers()
        self.sources = side.sources  # read where a branch is met

    def use(self, target: str, param: str, params: list[str], use: TempStorageUse) -> TempStorageUse:
        for label, block in self.blocks.items():
            for i, stmt in enumerate(block.body):
                if isinstance(stmt, self.nodes.Assign) and stmt.target.name == target:
                    var = self._argument(stmt.value, param, params)
                    if var is None:
                        return use
                    # An exclusive buffer gives each call its own slice: only the call itself (run
                    # again, in a loop) reuses it.
                    only = stmt if use.sharing == "exclusive" else None
                    events = _Events(self, self.ir.get_definition(var), only)
                    separated = events.clean_before(label, i)
                    return TempStorageUse(use.sharing, use.auto_sync, separated, self._divergent(label))
        return use

    def _tainted(self) -> set[str]:
        """Variables computed (flow-insensitively) from the thread index."""

        sources = self.sources()
        tainted: set[str] = set()
        changed = True
        while changed:
            changed = False
            for block in self.blocks.values():
                for stmt in block.find_insts(self.nodes.Assign):
                    name = stmt.target.name
                    if name in tainted:
                        continue
                    value = stmt.value
                    if self._is_coop_call(value):  # a collective's result: not followed
                        continue
                    hit = (
                        any(v.name in tainted for v in value.list_vars())
                        if hasattr(value, "list_vars")
                        else False
                    )
                    hit = hit or (isinstance(value, self.nodes.Var) and value.name in tainted)
                    hit = hit or self.value(self.ir, stmt.target) in sources
                    if hit:
                        tainted.add(name)
                        changed = True
        return tainted

    def _divergent(self, label: int) -> str:
        """``the branch at file:line`` on the thread index that block ``label`` depends on, or ""."""

        post = self.cfg.post_dominators()
        tainted = None
        for a, block in self.blocks.items():
            term = block.terminator
            if not isinstance(term, self.nodes.Branch):
                continue
            # `label` depends on the branch at `a` if it post-dominates one successor of `a` but
            # not `a` itself (some path from `a` avoids it).
            dependent = label != a and label not in post[a]
            dependent = dependent and any(label in post[s] for s, _ in self.cfg.successors(a))
            if not dependent:
                continue
            tainted = self._tainted() if tainted is None else tainted
            if term.cond.name in tainted:
                return f"the branch at {site(term.loc.filename, term.loc.line)}"
        return ""

    def _argument(self, call: Any, param: str, params: list[str]) -> Any:
        """The variable a call expression passes as ``param``."""

        if not (isinstance(call, self.nodes.Expr) and call.op == "call"):
            return None
        for name, var in call.kws:
            if name == param:
                return var
        index = params.index(param)
        return call.args[index] if index < len(call.args) else None

    def _is_coop_call(self, value: Any) -> bool:
        is_call = isinstance(value, self.nodes.Expr) and value.op == "call"
        return is_call and getattr(self.value(self.ir, value.func), "__coop_primitive__", None) is not None


class _Events:
    """The barriers and uses of one buffer along the kernel's blocks."""

    def __init__(self, kernel: _Kernel, storage: Any, only: Any) -> None:
        self.kernel, self.storage = kernel, storage
        self.only = only  # the one statement whose uses count (an exclusive buffer's call), or None

    def _is_storage(self, var: Any) -> bool:
        """Whether ``var`` is the buffer (through renames; a phi of two buffers cannot be typed:
        each ``coop.TempStorage()`` call site is a type of its own)."""
        try:
            return self.kernel.ir.get_definition(var) is self.storage
        except KeyError:
            return False

    def _event(self, stmt: Any) -> str:
        """ "barrier", "use" (of the buffer) or "" for one statement."""

        ir = self.kernel.nodes
        if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Expr) and stmt.value.op == "call":
            if self.kernel.value(self.kernel.ir, stmt.value.func) in self.kernel.barriers:
                return "barrier"
        if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Var):
            return ""  # a rename of the buffer is not a use
        if isinstance(stmt, ir.Assign) and stmt.value is self.storage:
            return ""  # its creation
        if self.only is not None and stmt is not self.only:
            return ""
        return "use" if any(self._is_storage(v) for v in stmt.list_vars()) else ""

    def _last(self, stmts: list[Any]) -> str:
        for stmt in reversed(stmts):
            event = self._event(stmt)
            if event:
                return event
        return ""

    def clean_before(self, label: int, index: int) -> bool:
        """No use of the buffer since the last barrier on any path to statement ``index`` of block
        ``label`` (the statement itself is the call)."""
        event = self._last(self.kernel.blocks[label].body[:index])
        return event == "barrier" if event else not self._entry_dirty()[label]

    def _entry_dirty(self) -> dict[int, bool]:
        cfg = self.kernel.cfg
        entry = cfg.entry_point()
        # each block's last event ("barrier", "use" or "": neither), read once
        last = {label: self._last(block.body) for label, block in self.kernel.blocks.items()}
        # A buffer made in this function is clean where the function starts; one passed in (a device
        # helper's argument) may have been used by the caller just before.
        dirty = {label: False for label in self.kernel.blocks}
        dirty[entry] = not isinstance(self.storage, self.kernel.nodes.Expr)
        changed = True
        while changed:  # dirtiness only grows: a fixpoint in at most len(blocks) rounds
            changed = False
            for label in self.kernel.blocks:
                if label == entry or dirty[label]:
                    continue
                exits = (last[p] == "use" if last[p] else dirty[p] for p, _ in cfg.predecessors(label))
                if any(exits):
                    dirty[label], changed = True, True
        return dirty
