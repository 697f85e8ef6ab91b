# SPDX-License-Identifier: Apache-2.0
"""What a request's wrapper is, computed once from its row and the row's parameter kinds
(:meth:`Primitive.wrapper`): the class and its template arguments, the C ABI (slots), the method,
its arguments and constructor arguments as C++, the scratch it uses, the scope's grouping, and the
wrappers it calls instead of a class (a per-field call, items moved as words). The renderer
(``_render``) only formats a :class:`Wrapper`; it looks nothing up in the row.

A row says its call in :class:`~cuda.coop._primitive.Call` (method, arguments, constructor arguments,
the result that takes the return value); a row whose call depends on the request in a way a table
cannot say gives a ``wrap(prim, req)`` hook that returns the request's ``Call`` (as NVIDIA Warp's
``dispatch_func`` returns a built-in's arguments).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import TYPE_CHECKING

from ._dtypes import DTYPES, dtype_named, fields_of
from ._kinds import AUTO_SYNC, Count, LogicalWarp, Payload, Shape, Slot, indexed_dtype
from ._requests import Request

if TYPE_CHECKING:
    from ._primitive import Primitive


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


def run_items(itemsize: int, items_per_thread: int) -> int:
    """The items of one run of ``algorithm="striped_vectors"``: 4, 2 or 1, the largest that divides
    ``items_per_thread`` with the run at most 16 bytes."""
    return next(v for v in (4, 2, 1) if items_per_thread % v == 0 and v * itemsize <= 16)


def build(prim: Primitive, req: Request) -> Wrapper:
    """The wrapper of ``req``, a request of ``prim``."""
    slots, returns = prim.slots(req)
    options = {k: c[str(req.option(k))] for k, c in prim.choices().items()}
    cub = prim.cub_class(req)
    width = next((int(str(req.option(p.name))) for p in prim.params if isinstance(p.kind, LogicalWarp)), 0)
    storage = prim.needs_scratch(dict(req.options))
    if req.has(FIELD) and req.caller_temp_storage:
        scratch = Scratch.FIELD
    elif req.caller_temp_storage:
        scratch = Scratch.CALLER
    else:
        scratch = Scratch.OWN if storage else Scratch.NONE
    sync = scratch is Scratch.OWN or (scratch is Scratch.CALLER and req.has(AUTO_SYNC))
    functions = [
        (symbol, dtype, result)
        for p in prim.params
        for symbol, (dtype, result) in p.kind.user_functions(req, p.name).items()
    ]
    w = Wrapper(
        req,
        Body.CALL,
        prim.scope,
        width,
        cub.cls,
        tuple(_template_arg(prim, req, n) for n in cub.template),
        cub.header,
        slots,
        returns,
        storage,
        scratch,
        sync,
        headers=tuple(h for p in prim.params for h in p.kind.headers),
        functions=tuple(functions),
    )
    if fields_of(req.dtype) and any(s.shape is Shape.ARRAY and s.fields for s in slots):
        parts = tuple(prim.wrapper(sub) for sub in field_requests(req, storage))
        return replace(w, body=Body.FIELDS, parts=parts)
    moved = _word_requests(req, options, slots)
    if moved is not None:
        parts = (prim.wrapper(moved[0]), prim.wrapper(moved[1]))
        return replace(w, body=Body.WORDS, parts=parts)
    call = prim.wrap(prim, req) if prim.wrap is not None else prim.call
    named = _arguments(prim, req, call.args)
    args = tuple(text for _, text, _ in named)
    if any(o.runs for o in options.values()):
        runs = run_items(DTYPES[req.dtype].itemsize, req.items_per_thread)
        return replace(w, body=Body.RUNS, runs=runs, method=call.method, args=args)
    names = {k: o.cxx for k, o in options.items()}
    names.update({p.name: t for p in prim.params if (t := p.kind.method_text(req)) is not None})
    ctor = _arguments(prim, req, call.ctor)
    payload = prim.payload
    keep = payload.kind.keep_past if isinstance(payload.kind, Payload) else None
    kept = keep is not None and storage and prim.given(req, keep[0]) and not prim.given(req, keep[1])
    return replace(
        w,
        inits=tuple(
            (
                res.name,
                res.init,
                next(s.items * (s.shape is Shape.ITEMS) for s in slots if s.name == res.init),
            )
            for res in prim.results
            if res.init is not None and prim.given(req, res.name)
        ),
        rank=any(p.kind.uses_rank(req) for p in prim.params),
        group_threads=any(p.kind.uses_group_threads(req) for p in prim.params),
        setup=tuple(setup for _, _, setup in (*named, *ctor) if setup),
        ctor=tuple(text for _, text, _ in ctor),
        method=call.method.format(**names),
        args=args,
        result=call.returns,
        full_tile=_full_tile(prim, req, options, named),
        keep_past=(payload.name, keep[0]) if kept else None,  # type: ignore[index]
        broadcast=tuple(
            (res.name, cxx(next(s.dtype for s in slots if s.name == res.name)))
            for res in prim.results
            if res.broadcast and prim.given(req, res.name) and prim.given(req, res.broadcast)
        ),
    )


def _template_arg(prim: Primitive, req: Request, name: str) -> str:
    x, y, z = req.block_dims
    fixed = {
        "T": cxx(req.dtype),
        "BLOCK_DIM_X": str(x),
        "BLOCK_DIM_Y": str(y),
        "BLOCK_DIM_Z": str(z),
        "ITEMS_PER_THREAD": str(req.items_per_thread),
    }
    if req.cluster_dims is not None:
        cx, cy, cz = req.cluster_dims
        fixed["CLUSTER_BLOCKS"] = str(cx * cy * cz)
        fixed["CLUSTER_STATE"] = cluster_state(req.scratch_group)
    if name == "INDEXED_T":  # an item paired with its index (of an arg-reduction: scalar items)
        return cxx(indexed_dtype(req.dtype))
    if name in fixed:
        return fixed[name]
    fixed_here = dict(prim.cub_class(req).fixed)
    if name in fixed_here:
        return fixed_here[name]
    text = prim.param(name).kind.template_arg(req, name, prim.given(req, name))
    if text is None:
        raise AssertionError(f"{prim.qualname}: template parameter {name!r} is neither fixed nor a choice")
    return text


def cluster_state(group: int) -> str:
    """The kernel's (scratch group's) cluster state type."""
    return f"coop_cluster_state_{group}"


def _arguments(prim: Primitive, req: Request, names: Sequence[str]) -> list[tuple[str, str, str]]:
    """(name, C++ text, C++ statements it needs first) of each argument that takes part: a slot's local
    (a result's fresh storage; for an absent argument with a fallback, the backend passed the
    fallback's value in the slot), the kind's own C++, or for an absent one the kind's stand-in
    (later arguments keep their positions). An argument that is no name is C++ passed as is."""
    results = {r.name for r in prim.results}
    out = []
    for name in names:
        if not name.isidentifier():
            out.append((name, name, ""))
            continue
        kind = prim.param(name).kind if name not in results else None
        if not prim.given(req, name):
            absent = kind.absent_arg(req) if kind is not None else None
            if absent is not None:
                out.append((name, absent, ""))
            continue
        setup, text = kind.call_arg(req, name) if kind is not None else ("", name)
        out.append((name, text, setup))
    return out


def _full_tile(
    prim: Primitive, req: Request, options: dict, named: Sequence[tuple[str, str, str]]
) -> tuple[str, int] | None:
    """(the count's C++, the arguments the unguarded call keeps) where ``req``'s call has a given
    count whose kind moves a full tile unguarded (``Count.full_tile``: it and the arguments after it
    are left out); None otherwise, and for an algorithm that moves a full tile by another route
    (``vectorize``: unguarded it needs an aligned array, guarded it reads item by item)."""
    if any(o.words for o in options.values()):
        return None
    kinds = {p.name: p.kind for p in prim.params}
    for k, (name, text, _) in enumerate(named):
        kind = kinds.get(name)
        if isinstance(kind, Count) and kind.full_tile:
            return text, k
    return None


def field_requests(req: Request, storage: bool) -> list[Request]:
    """The scalar request of each field of a per-field request (equal field types share one). A
    field's call gets its group's slice of the request's scratch from the request's wrapper, so that
    the fields' calls use the same bytes of the same group whatever their types (a warp's slices
    of different field types would otherwise overlap other warps' slices)."""
    scratch = storage or req.caller_temp_storage
    tags = tuple(t for t in req.tags if t != AUTO_SYNC) + (FIELD,)
    return list(
        dict.fromkeys(
            replace(req, dtype=f, tags=tags, caller_temp_storage=scratch) for f in fields_of(req.dtype)
        )
    )


def _word_requests(req: Request, options: dict, slots: Sequence[Slot]) -> tuple[Request, Request] | None:
    """For a request whose items move as words, the same call over 4-byte words and the call that
    moves the items where the array is not aligned to the words' vector; None for any other request.

    A request's items move as words where its algorithm says so (``Option.words``: ``vectorize``,
    which names ``direct`` for the other case) and it has scalar items narrower than a word that fill
    whole words, a full tile of a contiguous array. CUB vectorizes 4-byte words to 16-byte accesses
    (two ``LDG.E.128`` for 16 bfloat16 items), but narrower items by their own size: 2-byte items
    load 8 bytes at a time at most, and a ``__half`` or ``__nv_bfloat16`` store is not vectorized at
    all (``CubVector`` of them is a plain struct of 2-byte alignment): 16 ``STG.E.U16`` per thread,
    each warp store spread over 1 KB."""
    choice = next((k for k, o in options.items() if o.words), None)
    d, word = DTYPES.get(req.dtype), DTYPES[WORD].itemsize
    if choice is None or d is None or d.structured or d.itemsize >= word:
        return None
    if req.items_per_thread * d.itemsize % word:
        return None
    if any(s.shape not in (Shape.ARRAY, Shape.ITEMS) or s.strided or s.packed for s in slots):
        return None  # a partial tile (a count, a default), a strided array, records (or scratch)
    count = req.items_per_thread * d.itemsize // word
    other = tuple((k, options[choice].words if k == choice else v) for k, v in req.options)
    return replace(req, dtype=WORD, items_per_thread=count), replace(req, options=other)
