# SPDX-License-Identifier: Apache-2.0
"""What a request's wrapper is: a frozen :class:`Wrapper` that its row computes once from the request
and the row's parameter kinds (:meth:`~cuda.coop._primitive.Primitive.wrapper`): the class and its
template arguments, the C ABI (slots), the method, its arguments and constructor arguments as C++,
the scratch it uses, the scope's grouping, and the wrappers it calls instead of a class (a per-field
call, items moved as words). The renderer (``_render``) only formats a ``Wrapper``; it looks nothing
up in the row.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ._dtypes import dtype_named
from ._kinds import Slot
from ._requests import Request


class Body(Enum):
    """How a wrapper does its work."""

    CALL = "call"  # constructs the class and calls its method
    RUNS = "runs"  # calls coop_striped_runs's static method (an option with ``runs``): ``runs`` items a run
    FIELDS = "fields"  # calls its parts, one per field type of its structured items
    WORDS = "words"  # calls its first part (items packed into words) where aligned, else its second


class Scratch(Enum):
    """Where the class's ``TempStorage`` comes from."""

    NONE = "none"  # none is needed (a warp class gets an empty local)
    OWN = "own"  # the kernel's implicit scratch of the row's scope
    CALLER = "caller"  # a caller-owned coop.TempStorage, passed in
    FIELD = "field"  # a per-field call's field: its group's slice, passed in


@dataclass(frozen=True)
class Wrapper:
    """One request's wrapper, ready to format.

    Attributes:
        request: the request (its symbol names the wrapper, its block dims the group's threads).
        body: how the wrapper does its work.
        scope: the row's scope (``"block"``, ``"warp"``, ``"cluster"``, ``"grid"``).
        width: the logical warp width of a warp row (0 for the others).
        cls: the class (CUB's, or coop's); ``template``: its template arguments, as C++; ``header``:
            the header that declares it.
        slots: the C ABI, in order; ``returns``: the slots of what the call returns.
        storage: the class has a ``TempStorage`` to size (its probe) and to place.
        scratch: where that ``TempStorage`` is placed; ``sync``: a barrier over the group first.
        inits: results that start as a parameter's value: (result, parameter, items; 0 for a value).
        rank, group_threads: the call's C++ reads ``coop_rank`` / ``coop_group_threads``.
        setup: C++ statements the arguments need first (a kind's own).
        ctor: the constructor's arguments after its ``TempStorage``; ``method``, ``args``: the call.
        result: the local that takes the method's return value.
        full_tile: (the count, how many of ``args`` an unguarded call keeps) where a full tile moves
            unguarded, as in CUB's agents.
        keep_past: (the items, the count): items past the count keep their previous values.
        broadcast: results given to every thread of the group: (result, its C++ type).
        headers: what the row's parameter kinds need included.
        runs: the items of a run (``Body.RUNS``).
        functions: user functions the unit declares: (symbol, argument type, result).
        parts: the wrappers it calls (``FIELDS``: one per field type, in field order; ``WORDS``: the
            call over words, then the call over the items).
    """

    request: Request
    body: Body
    scope: str
    width: int
    cls: str
    template: tuple[str, ...]
    header: str
    slots: tuple[Slot, ...]
    returns: tuple[Slot, ...]
    storage: bool
    scratch: Scratch
    sync: bool = False
    inits: tuple[tuple[str, str, int], ...] = ()
    rank: bool = False
    group_threads: bool = False
    setup: tuple[str, ...] = ()
    ctor: tuple[str, ...] = ()
    method: str = ""
    args: tuple[str, ...] = ()
    result: str | None = None
    full_tile: tuple[str, int] | None = None
    keep_past: tuple[str, str] | None = None
    broadcast: tuple[tuple[str, str], ...] = ()
    headers: tuple[str, ...] = ()
    runs: int = 0
    functions: tuple[tuple[str, str, str], ...] = ()
    parts: tuple[Wrapper, ...] = ()

    @property
    def symbol(self) -> str:
        return self.request.symbol

    @property
    def cub_type(self) -> str:
        """The class's type, ``cub::BlockLoad<float, 128, ...>``."""
        return f"{self.cls}<{', '.join(self.template)}>"


#: What a vectorizing load or store moves items narrower than it as (:func:`_word_requests`).
WORD = "uint32"
#: The tag of a per-field request's field: its scratch pointer is its group's own TempStorage,
#: sliced (and synchronised) by the per-field request's wrapper.
FIELD = "field"


def cxx(dtype: str) -> str:
    return dtype_named(dtype).cxx


def cluster_state(group: int) -> str:
    """The kernel's (scratch group's) cluster state type."""
    return f"coop_cluster_state_{group}"
