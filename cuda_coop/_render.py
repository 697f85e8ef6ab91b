# SPDX-License-Identifier: Apache-2.0
"""The C++ renderer: the only module that spells C++ (coop's own device algorithms, which CUB lacks,
are C++ headers beside it, ``include/coop/*.cuh``: a unit includes those it needs).

Requests become a translation unit (:func:`render_requests`): for each request an ``extern "C"
__device__`` wrapper around its class, formatted from the request's :class:`~cuda.coop._wrapper.Wrapper`
(which its row computes once, ``Primitive.wrapper``: the class, the C ABI, the method and its arguments);
size and alignment probes of every CUB ``TempStorage`` (read back from NVRTC's lowered name
expressions); and for each user function (operator or comparator) an ``extern "C"`` declaration
(the backend defines it in the kernel) wrapped in a functor that full LTO inlines into CUB's loops.
A wrapper reaches what it shares with the rest of its kernel through accessors, so that a unit does
not depend on the other requests of the kernel. A kernel's glue (:func:`render_glue`, no CUB) defines
them from the probed sizes: one implicit shared scratch buffer per kernel (scratch group) and scope,
one shared buffer per caller-owned ``coop.TempStorage``, the logical warps' slicing of warp scratch
and the mbarrier of ``load_to_shared``.

A row's scope decides how its threads are grouped. ``block``: all threads of the block, one
``TempStorage``, ``__syncthreads()`` before scratch is reused. ``warp``: logical warps of the row's
``LogicalWarp`` width (consecutive threads in row-major order), one ``TempStorage`` slice per logical
warp of the block, ``__syncwarp`` over the logical warp's lanes before a slice is reused, and no
shared memory at all for a class whose ``TempStorage`` is empty (CUB's shuffle specialisations).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ._catalog import CATALOG
from ._dtypes import DTYPES, complex_pair, dtype_named, fields_of, is_complex
from ._kinds import Shape, Slot
from ._operators import BOOL
from ._requests import Request
from ._wrapper import WORD, Body, Scratch, Wrapper, cluster_state, cxx

#: coop's own device code: C++ headers shipped in the package (``include/coop/*.cuh``), on NVRTC's
#: include path (``_bundle``; their bytes are part of the renderer's fingerprint) and included by the
#: benchmarks' C++ peers too. A unit includes each where it needs it, where the renderer once pasted
#: its text (after the unit's precompiled prefix and CUB's headers).
INCLUDE_DIR = Path(__file__).with_name("include")


def coop_headers() -> list[Path]:
    """coop's headers (``include/coop/*.cuh``), sorted by name."""
    return sorted((INCLUDE_DIR / "coop").glob("*.cuh"))


def _include(name: str) -> str:
    return f"#include <coop/{name}>\n"


#: Every unit: the TempStorage probe, the running prefix, the arg-reductions' operator and loop.
_COMMON = _include("common.cuh")
#: The TempStorage probe, a variable template that ``common.cuh`` declares: a name expression
#: ``&coop_probe<sizeof(T), alignof(T)>`` lowers to a name that carries both numbers.
_PROBE = "coop_probe"
#: coop's complex product: on pairs (re, im) of one float, and on complex numbers.
_COMPLEX_PAIRS = _include("complex_multiplies.cuh")
_COMPLEX = _include("complex.cuh")
#: coop's helpers of a scope's rows (the lane mask of a logical warp, cluster reduce and its state, the
#: grid's look-back), in the order a unit includes them.
_SCOPES = {"warp": _include("warp.cuh"), "cluster": _include("cluster.cuh"), "grid": _include("grid.cuh")}
_STRIPED_RUNS = _include("striped_runs.cuh")
#: ``coop.block.load_to_shared``: its class (in a unit) and the kernel's side of it (in the glue: the
#: mbarrier and the prologue that arms it).
_STAGE_GLUE = _include("load_to_shared_glue.cuh")
_STAGE_CLASS = "coop_block_load_to_shared"
#: coop's own class templates (not CUB's), by class name: the header a unit that uses one includes.
_COOP_CLASSES = {_STAGE_CLASS: _include("load_to_shared.cuh")}


#: How every unit of requests begins: CUB's configuration, which brings in most of libcu++ (about three
#: quarters of NVRTC's time on a unit: ``-fdevice-time-trace``), then a first declaration. NVRTC's
#: precompiled header of a translation unit stops at its first token outside a directive, so a PCH
#: made while compiling any unit holds just this prefix and serves every other unit (``_bundle``).
PCH_PREFIX = "#include <cub/config.cuh>\nnamespace coop_pch_stop {}\n"


@dataclass(frozen=True)
class RenderedRequests:
    """A translation unit of requests' wrappers, the name expressions whose lowered names carry its
    probes (the size and alignment of each request's ``TempStorage``), and the ``extern "C"`` symbols
    it defines (the wrappers the kernels call, and the prologues of cluster rows)."""

    source: str
    probes: dict[str, str]  # name expression -> request symbol
    defines: tuple[str, ...]


def kernel_prologue(req: Request) -> str | None:
    """The bundle function a backend calls once at the entry of the kernel (or device function) that
    makes the call ``req``, before any of its code, or None: the cluster rows' state (mbarriers armed
    and published by one cluster barrier)."""
    w = _wrapper(req)
    if w.scope == "cluster":
        return f"coop_cluster_begin_{req.scratch_group}"
    if w.cls == _STAGE_CLASS:
        return _stage_begin(math.prod(req.block_dims))
    return None


def _stage_begin(threads: int) -> str:
    """The prologue of a kernel of ``threads`` threads a block that calls ``coop.block.load_to_shared``
    (one per block size: every kernel of a bundle has its own instance of the mbarrier it arms)."""
    return f"coop_stage_begin_{threads}"


# Every function of the bundle that a kernel calls (request wrappers, prologues, scratch accessors) is
# named with this prefix. A backend declares each one `convergent` in the kernel's IR: a wrapper holds
# barriers and warp collectives, and an optimizer that sees only a plain external call may duplicate it
# into diverged paths. (libNVVM's jump threading did so to a CuTe kernel whose two block sums had an
# `if tid == 0` store between them: each thread ran its own copy of the second sum's barriers and warp
# reduction, and the kernel hung on an H100.)
BUNDLE_SYMBOL_PREFIX = "coop_"


def is_bundle_function(name: str) -> bool:
    """Whether ``name`` is a function of the bundle (what a backend declares ``convergent``)."""
    return name.startswith(BUNDLE_SYMBOL_PREFIX)


def temp_storage_symbol(slot: int, use: int | None = None) -> str:
    """Name of the accessor of caller-owned shared scratch number ``slot`` (its base), or of the slice
    of its ``use``-th call (an exclusive one)."""
    return f"coop_temp_storage_{slot}" if use is None else f"coop_temp_storage_{slot}_use{use}"


@dataclass(frozen=True)
class TempStorageSlot:
    """One caller-owned ``coop.TempStorage`` of a bundle.

    Attributes:
        group: the scratch group (kernel) it belongs to.
        exclusive: each call gets a slice of its own (footprint: the sum of theirs); otherwise the
            calls share it (footprint: the largest).
        uses: with ``exclusive``, the request symbol of each call, in call order.
    """

    group: int
    exclusive: bool = False
    uses: tuple[str, ...] = ()

    def using(self, symbol: str) -> TempStorageSlot:
        return TempStorageSlot(self.group, self.exclusive, (*self.uses, symbol))


def scratch_symbol(scope: str, group: int) -> str:
    """The accessor (in the kernel's glue) of the implicit scratch of a kernel (``group``) for the rows
    of ``scope``; a cluster row's scratch is its block's (the blocks' aggregates travel in the
    kernel's cluster state instead)."""
    return (
        f"coop_block_scratch_{group}"
        if scope in ("block", "cluster", "grid")
        else f"coop_{scope}_scratch_{group}"
    )


def warp_slice_symbol(group: int) -> str:
    """The function (in the kernel's glue) that gives a logical warp its slice of warp scratch."""
    return f"coop_warp_slice_{group}"


def _wrapper(req: Request) -> Wrapper:
    return CATALOG[req.primitive].wrapper(req)


class _Scope:
    """How a scope's threads are grouped, in C++: the block as one group."""

    def __init__(self, w: Wrapper) -> None:
        x, y, z = w.request.block_dims
        self.req = w.request
        self.tid = f"cub::RowMajorTid({x}, {y}, {z})"
        self.threads = x * y * z

    def rank(self) -> str:
        """The calling thread's rank in its group."""
        return f"int({self.tid})"

    def group_threads(self) -> int:
        """The threads of the calling thread's group."""
        return self.threads

    def slice(self, base: str) -> str:
        """The calling group's ``TempStorage`` (an lvalue of the request's ``_storage`` type) in the
        scratch at ``base`` (a ``void*``)."""
        return f"*static_cast<{self.req.symbol}_storage*>({base})"

    def barrier(self) -> str:
        return "__syncthreads();"

    def no_scratch(self, symbol: str) -> tuple[str, str | None]:
        """(statements, the constructor's storage argument or None) of a class that needs no scratch."""
        return "", None

    def broadcast(self, name: str, t: str) -> str:
        """Give the group's first thread's ``name`` to every thread of the group."""
        return (
            f"  __shared__ cub::Uninitialized<{t}> {name}_broadcast;\n"
            f"  if ({self.tid} == 0) {name}_broadcast.Alias() = {name};\n"
            "  __syncthreads();\n"
            f"  {name} = {name}_broadcast.Alias();\n"
            "  __syncthreads();  // a later call's write must not overtake a slow reader\n"
        )


class _WarpScope(_Scope):
    """Logical warps of the row's width: a scratch slice each, warp-level barriers, shuffles."""

    def __init__(self, w: Wrapper) -> None:
        super().__init__(w)
        self.width = w.width
        self.mask = f"coop_warp_mask<{self.width}>()"

    def rank(self) -> str:
        return f"int({self.tid} % {self.width})"

    def group_threads(self) -> int:
        return self.width

    # Every warp request of a kernel slices its scratch the same way, whatever its own TempStorage:
    # in units of the largest TempStorage of the kernel's warp requests, one unit per thread of the
    # narrowest logical warp, a logical warp taking the first unit of its threads'. Warps are not
    # synchronised with each other, so two requests whose slices had their own strides would let one
    # warp's slice overlap another warp's, in use at the same time (a merge sort of pairs beside a sort
    # of one key). The kernel's glue knows the unit and the narrowest warp (``coop_warp_slice_<g>``).
    def slice(self, base: str) -> str:
        slice_ = f"{warp_slice_symbol(self.req.scratch_group)}({base}, {self.tid}, {self.width})"
        return f"*static_cast<{self.req.symbol}_storage*>({slice_})"

    def barrier(self) -> str:
        return f"__syncwarp({self.mask});"

    def no_scratch(self, symbol: str) -> tuple[str, str | None]:
        # CUB's warp classes take a TempStorage&; those that need none have an empty one, which a
        # local stands in for (checked, so that a class that does need scratch cannot get a local).
        storage = f"typename {symbol}_t::TempStorage"
        return (
            f"  static_assert(sizeof({storage}) <= sizeof(int), "
            f'"coop: {symbol} was planned without scratch but its TempStorage is not empty");\n'
            f"  {storage} no_scratch;\n"
        ), "no_scratch"

    def broadcast(self, name: str, t: str) -> str:
        return f"  {name} = cub::ShuffleIndex<{self.width}>({name}, 0, {self.mask});\n"


class _ClusterScope(_Scope):
    """The blocks of a thread-block cluster: each block's threads as in the block scope (its scratch,
    its barriers); a thread's rank counts the threads of the blocks of lower rank in the cluster."""

    def rank(self) -> str:
        return f"int(__clusterRelativeBlockRank() * {self.threads} + {self.tid})"

    def group_threads(self) -> int:
        raise NotImplementedError("coop: a cluster's thread count is the launch's, not known here")


def _scope(w: Wrapper) -> _Scope:
    return {"warp": _WarpScope, "cluster": _ClusterScope}.get(w.scope, _Scope)(w)


def _user_function(symbol: str, dtype: str, result: str) -> str:
    t = cxx(dtype)
    r = "bool" if result == BOOL else cxx(result)
    return (
        f'extern "C" __device__ void {symbol}(void* out, const void* a, const void* b);\n'
        f"struct {symbol}_functor\n"
        "{\n"
        f"  __device__ __forceinline__ {r} operator()(const {t}& a, const {t}& b) const\n"
        "  {\n"
        f"    {r} out;\n"
        f"    {symbol}(&out, &a, &b);\n"
        "    return out;\n"
        "  }\n"
        "};\n"
    )


def _struct(dtype: str) -> str:
    """The C++ definition of a structured item type (its fields ``f0``, ``f1``, ... in order), with
    the field-wise operators of the built-ins that apply to tuples (``+``, ``*``, ``-``, ``==``,
    ``!=``)."""
    d = dtype_named(dtype)
    t = d.cxx
    fields = "".join(f"  {cxx(f)} f{k};\n" for k, f in enumerate(d.fields))
    ops, pair = "", f"(const {t}& a, const {t}& b)"
    for sym in "+*-":
        parts = ", ".join(f"static_cast<{cxx(f)}>(a.f{k} {sym} b.f{k})" for k, f in enumerate(d.fields))
        ops += f"  friend __device__ {t} operator{sym}{pair} {{ return {t}{{{parts}}}; }}\n"
    equal = " && ".join(f"a.f{k} == b.f{k}" for k in range(len(d.fields)))
    ops += f"  friend __device__ bool operator=={pair} {{ return {equal}; }}\n"
    ops += f"  friend __device__ bool operator!={pair} {{ return !(a == b); }}\n"
    return f"struct {t}\n{{\n{fields}{ops}}};\n"


def _abi(slot: Slot) -> str:
    """The C parameters of a slot (a strided array is its pointer, then its stride; items or a value
    of a structured type are one pointer per field, as the kernel holds them: a struct of arrays)."""
    if slot.shape is Shape.INT:
        return f"int {slot.name}_"
    if slot.fields:
        names = [f"{slot.name}_f{k}_" for k in range(len(slot.fields))]  # the stride: {name}stride_
        return ", ".join(f"void* {n}, int {n}stride_" if slot.strided else f"void* {n}" for n in names)
    return f"void* {slot.name}_, int {slot.name}_stride_" if slot.strided else f"void* {slot.name}_"


def _unpack_fields(slot: Slot) -> str:
    """A structured slot as CUB sees it: a local of the struct type (items: an array of structs)
    gathered from the kernel's one array (or value) per field."""
    t, n, local = cxx(slot.dtype), slot.items, slot.name
    out = ""
    for k, f in enumerate(slot.fields):
        ft = cxx(f)
        if slot.shape is Shape.ITEMS:
            out += f"  {ft} (&{local}_f{k})[{n}] = *static_cast<{ft} (*)[{n}]>({local}_f{k}_);\n"
        else:
            out += f"  {ft}& {local}_f{k} = *static_cast<{ft}*>({local}_f{k}_);\n"
    if slot.shape is Shape.VALUE:
        out += f"  {t} {local};\n"
        if not slot.result:  # a result's storage is the call's to fill
            out += "".join(f"  {local}.f{k} = {local}_f{k};\n" for k in range(len(slot.fields)))
        return out
    out += f"  {t} {local}[{n}];\n"
    if not slot.result:
        gather = " ".join(f"{local}[i].f{k} = {local}_f{k}[i];" for k in range(len(slot.fields)))
        out += f"  for (int i = 0; i < {n}; ++i) {{ {gather} }}\n"
    return out


def _pack_fields(slot: Slot) -> str:
    """After the call: a structured slot's struct local scattered back to the kernel's arrays (not
    for items the call only reads: the kernel's keep their values)."""
    if not slot.fields or slot.copy:
        return ""
    local, count = slot.name, len(slot.fields)
    if slot.shape is Shape.VALUE:
        return "".join(f"  {local}_f{k} = {local}.f{k};\n" for k in range(count))
    scatter = " ".join(f"{local}_f{k}[i] = {local}[i].f{k};" for k in range(count))
    return f"  for (int i = 0; i < {slot.items}; ++i) {{ {scatter} }}\n"


def _unpack(slot: Slot) -> str:
    """The C++ local that a slot becomes (named after its parameter or result)."""
    if slot.fields:
        return _unpack_fields(slot)
    t = cxx(slot.dtype) if slot.dtype else ""
    n, local = slot.items, slot.name
    if slot.shape is Shape.ITEMS and slot.copy:  # CUB may rearrange them: it gets a copy
        return (
            f"  const {t} (&{local}_in)[{n}] = *static_cast<const {t} (*)[{n}]>({local}_);\n"
            f"  {t} {local}[{n}];\n"
            f"  for (int i = 0; i < {n}; ++i) {local}[i] = {local}_in[i];\n"
        )
    if slot.shape is Shape.ITEMS:
        return f"  {t} (&{local})[{n}] = *static_cast<{t} (*)[{n}]>({local}_);\n"
    if slot.shape is Shape.VALUE:
        return f"  {t}& {local} = *static_cast<{t}*>({local}_);\n"
    if slot.shape is Shape.ARRAY and slot.strided:  # CUB takes any random-access iterator
        return f"  cuda::strided_iterator<{t}*, int> {local}(static_cast<{t}*>({local}_), {local}_stride_);\n"
    if slot.shape is Shape.ARRAY:
        return f"  {t}* {local} = static_cast<{t}*>({local}_);\n"
    if slot.shape is Shape.INT:
        return f"  const int {local} = {local}_;\n"
    return ""  # SCRATCH: used as is


def _per_field_class(w: Wrapper) -> str:
    """A per-field request's class: only its ``TempStorage``, a union of its fields' (the field calls
    run one after the other, each after a barrier over the group's previous use of the scratch)."""
    members = "".join(f"    typename {sub.symbol}_t::TempStorage f{k};\n" for k, sub in enumerate(w.parts))
    return f"struct {w.symbol}_t\n{{\n  union TempStorage\n  {{\n{members}  }};\n}};\n"


def _per_field_body(w: Wrapper) -> str:
    """A per-field request's wrapper: its fields' wrappers called in field order, each with the
    field's pointers, the slots that all fields share (a count) and the group's slice of the scratch;
    a barrier before each field's use of the scratch (before the first too for the call's own
    scratch or ``auto_sync``, as for any call)."""
    req, slots = w.request, w.slots
    fielded = {s.name for s in slots if s.fields}
    subs = {sub.request.dtype: sub for sub in w.parts}
    scope, body, first = _scope(w), "", ""
    records = [s for s in slots if s.packed and s.shape is not Shape.ARRAY]
    body += "".join(_split_records(s) for s in records)  # structs held as structs: the fields'
    after = "".join(_join_records(s) for s in records)  # calls take one array (or value) per field
    records_named = {s.name for s in records}
    if w.storage:
        own = f"{scratch_symbol(w.scope, req.scratch_group)}()"
        base = "temp_storage_" if w.scratch is Scratch.CALLER else own
        body += f"  void* const coop_slice = &{scope.slice(base)};\n"
        if w.sync:
            first = f"  {scope.barrier()}\n"
    elif w.scratch is Scratch.CALLER:
        body += "  void* const coop_slice = temp_storage_;  // CUB's TempStorage is empty here\n"
    between = f"  {scope.barrier()}  // the next field reuses the scratch\n" if w.storage else ""
    for k, field in enumerate(fields_of(req.dtype)):
        sub = subs[field]
        args = []
        for s in sub.slots:
            if s.shape is Shape.SCRATCH:
                args.append("coop_slice")
                continue
            if s.name in records_named:
                args.append(f"{'&' if s.shape is Shape.VALUE else ''}{s.name}_f{k}")
                continue
            own = f"{s.name}_f{k}_" if s.name in fielded else f"{s.name}_"
            args.append(own + (f", {s.name}_f{k}_stride_" if s.strided else ""))
        body += (between if k else first) + f"  {sub.symbol}({', '.join(args)});\n"
    return body + after


def _split_records(slot: Slot) -> str:
    """Locals of each field of a slot of structs (a per-field request's records), filled from them."""
    t, n, fields = cxx(slot.dtype), slot.items, fields_of(slot.dtype)
    if slot.shape is Shape.VALUE:
        whole = f"*static_cast<const {t}*>({slot.name}_)"
        return "".join(f"  {cxx(f)} {slot.name}_f{k} = ({whole}).f{k};\n" for k, f in enumerate(fields))
    out = f"  {t}* const {slot.name}_structs = static_cast<{t}*>({slot.name}_);\n"
    out += "".join(f"  {cxx(f)} {slot.name}_f{k}[{n}];\n" for k, f in enumerate(fields))
    gather = " ".join(f"{slot.name}_f{k}[i] = {slot.name}_structs[i].f{k};" for k in range(len(fields)))
    return out + f"  for (int i = 0; i < {n}; ++i) {{ {gather} }}\n"


def _join_records(slot: Slot) -> str:
    """A slot of structs written back from its fields' locals (items a call fills; not a value, nor
    items the call only reads)."""
    if slot.shape is not Shape.ITEMS or slot.copy:
        return ""
    n = len(fields_of(slot.dtype))
    scatter = " ".join(f"{slot.name}_structs[i].f{k} = {slot.name}_f{k}[i];" for k in range(n))
    return f"  for (int i = 0; i < {slot.items}; ++i) {{ {scatter} }}\n"


def _format(w: Wrapper, linkage: str = 'extern "C"') -> str:
    """The wrapper ``w`` as C++: an ``extern "C"`` function a kernel calls, or with
    ``linkage="static"`` one only its own unit calls (another unit may define the same)."""
    abi = ", ".join(_abi(s) for s in w.slots)
    body = _BODIES[w.body](w)
    return f"{linkage} __device__ void {w.symbol}({abi})\n{{\n{body}}}\n"


def _runs_body(w: Wrapper) -> str:
    """A load or store in striped runs: coop_striped_runs's method over the call's arguments."""
    req = w.request
    cls = (
        f"coop_striped_runs<{cxx(req.dtype)}, {math.prod(req.block_dims)}, {req.items_per_thread}, {w.runs}>"
    )
    unpack = "".join(_unpack(s) for s in w.slots)
    call = f"  {cls}::{w.method}({_scope(w).rank()}, {', '.join(w.args)});\n"
    if w.full_tile is not None:
        whole = f"{cls}::{w.method}({_scope(w).rank()}, {', '.join(w.args[: w.full_tile[1]])});\n"
        call = _unguarded_full_tile(w, whole, call)
    return unpack + call


def _unguarded_full_tile(w: Wrapper, whole: str, call: str) -> str:
    """``call`` (a guarded move of a partial tile) behind a test of its count: a full tile moves by
    ``whole`` (the method without the count), unguarded, as in CUB's agents."""
    assert w.full_tile is not None
    count = w.full_tile[0]
    tile = _scope(w).group_threads() * w.request.items_per_thread
    partial = "".join(f"  {line}\n" for line in call.splitlines())
    return f"  if ({count} >= {tile})\n  {{\n    {whole}  }}\n  else\n  {{\n{partial}  }}\n"


def _call_body(w: Wrapper) -> str:
    """The class constructed on its scratch, its method called with the wrapper's arguments."""
    req, scope = w.request, _scope(w)
    t, n = cxx(req.dtype), req.items_per_thread
    body = "".join(_unpack(s) for s in w.slots)
    for result, init, items in w.inits:
        if items:
            body += f"  for (int i = 0; i < {items}; ++i) {result}[i] = {init}[i];\n"
        else:
            body += f"  {result} = {init};\n"
    if w.rank:
        body += f"  const int coop_rank = {scope.rank()};\n"
    if w.group_threads:
        body += f"  constexpr int coop_group_threads = {scope.group_threads()};\n"
    body += "".join(w.setup)
    if w.scratch is Scratch.FIELD:  # a per-field request's field: its group's scratch
        storage: str | None = f"*reinterpret_cast<typename {w.symbol}_t::TempStorage*>(temp_storage_)"
    elif w.scratch is Scratch.CALLER:
        storage = scope.slice("temp_storage_")
    elif w.scratch is Scratch.OWN:
        # All implicit scratch of a kernel's scope is one buffer: wait until every thread of the group
        # is done with its previous use (CUB requires a barrier before a TempStorage is reused).
        storage = scope.slice(f"{scratch_symbol(w.scope, req.scratch_group)}()")
    else:
        setup, storage = scope.no_scratch(w.symbol)
        body += setup
    if w.sync:  # the call's own scratch, or coop.TempStorage(auto_sync=True): the barrier is ours
        body += f"  {scope.barrier()}\n"
    callee = f"{w.symbol}_t({', '.join(a for a in (storage, *w.ctor) if a is not None)}).{w.method}"
    assign = f"{w.result} = " if w.result else ""
    call = f"  {assign}{callee}({', '.join(w.args)});\n"
    if w.keep_past is not None:
        # CUB's transposing algorithms exchange the whole tile, so items past the count would come
        # back permuted from other threads: restore the thread's own previous values, as promised.
        items, count = w.keep_past
        call = (
            f"  {t} previous[{n}];\n"
            f"  for (int i = 0; i < {n}; ++i) previous[i] = {items}[i];\n"
            + call
            + f"  const int first = {scope.rank()} * {n};\n"
            f"  for (int i = 0; i < {n}; ++i)\n"
            f"    if (first + i >= {count}) {items}[i] = previous[i];\n"
        )
    if w.full_tile is not None:
        call = _unguarded_full_tile(w, f"{assign}{callee}({', '.join(w.args[: w.full_tile[1]])});\n", call)
    call += "".join(scope.broadcast(result, rt) for result, rt in w.broadcast)
    call += "".join(_pack_fields(s) for s in w.slots)
    return body + call


def _by_group(wrappers: Sequence[Wrapper]) -> dict[int, list[Wrapper]]:
    """``wrappers`` by scratch group (kernel), in group order."""
    groups: dict[int, list[Wrapper]] = {}
    for w in wrappers:
        groups.setdefault(w.request.scratch_group, []).append(w)
    return dict(sorted(groups.items()))


def _cluster_states(wrappers: Sequence[Wrapper]) -> list[str]:
    """Each kernel's (scratch group's) cluster state, sized for the item types of its cluster calls,
    and its prologue (see ``kernel_prologue``)."""
    out = []
    for group, mine in _by_group(wrappers).items():
        blocks = {math.prod(w.request.cluster_dims or (1,)) for w in mine}
        assert len(blocks) == 1, f"the cluster calls of one kernel see one cluster, got {blocks}"
        items = dict.fromkeys(w.template[0] for w in mine)
        state = cluster_state(group)
        out.append(f"using {state} = coop_cluster_state<{blocks.pop()}, {', '.join(items)}>;\n")
        out.append(f'extern "C" __device__ void coop_cluster_begin_{group}()\n{{\n  {state}::begin();\n}}\n')
    return out


def _vector_bytes(words: int) -> int:
    """The alignment of the vector CUB moves ``words`` 4-byte words per thread in: 4 of them where
    they are a multiple of 4, else 2 where even, else 1 (``InternalLoadDirectBlockedVectorized``; a
    store's vector is never larger)."""
    return DTYPES[WORD].itemsize * (4 if words % 4 == 0 else 2 if words % 2 == 0 else 1)


def _words_body(w: Wrapper) -> str:
    """The wrapper of a request whose items move as words (``Body.WORDS``): where every array is
    aligned to the words' vector, the items are packed into words (items the call reads), the word
    request's wrapper moves them, and they are unpacked (items the call writes); elsewhere the other
    request's wrapper moves the items (CUB's vector path needs that alignment too)."""
    req, (words, other) = w.request, (p.request for p in w.parts)
    t, size = cxx(req.dtype), DTYPES[req.dtype].itemsize
    per, bits, unsigned = DTYPES[WORD].itemsize // size, 8 * size, cxx(f"uint{8 * size}")
    slots = w.slots
    align = _vector_bytes(words.items_per_thread)
    aligned = " && ".join(
        f"::cuda::std::is_sufficiently_aligned<{align}>({s.name}_)" for s in slots if s.shape is Shape.ARRAY
    )
    body, setup, after, args = "", "", "", []
    for s in slots:
        if s.shape is not Shape.ITEMS:
            args.append(f"{s.name}_")
            continue
        local = f"{s.name}_words"
        setup += f"    {cxx(WORD)} {local}[{words.items_per_thread}];\n"
        if s.copy:  # items the call only reads: packed, lowest item in the lowest bits (little-endian)
            body += (
                f"  const {t} (&{s.name})[{s.items}] = *static_cast<const {t} (*)[{s.items}]>({s.name}_);\n"
            )
            parts = " | ".join(
                f"static_cast<{cxx(WORD)}>(::cuda::std::bit_cast<{unsigned}>({s.name}[w * {per} + {k}]))"
                f" << {bits * k}"
                for k in range(per)
            )
            setup += f"    for (int w = 0; w < {words.items_per_thread}; ++w)\n      {local}[w] = {parts};\n"
        else:  # items the call writes (a full tile: all of them)
            body += f"  {t} (&{s.name})[{s.items}] = *static_cast<{t} (*)[{s.items}]>({s.name}_);\n"
            after += (
                f"    for (int i = 0; i < {s.items}; ++i)\n"
                f"      {s.name}[i] = ::cuda::std::bit_cast<{t}>(static_cast<{unsigned}>({local}[i / {per}] "
                f">> ({bits} * (i % {per}))));\n"
            )
        args.append(local)
    plain = ", ".join(f"{s.name}_" for s in slots)
    body += (
        f"  if ({aligned})\n  {{  // the items as {words.items_per_thread} words\n{setup}"
        f"    {words.symbol}({', '.join(args)});\n{after}  }}\n"
        f"  else\n  {{\n    {other.symbol}({plain});\n  }}\n"
    )
    return body


#: How each kind of wrapper body is formatted.
_BODIES = {
    Body.CALL: _call_body,
    Body.RUNS: _runs_body,
    Body.FIELDS: _per_field_body,
    Body.WORDS: _words_body,
}


def _dtype_headers(dtypes: Iterable[object]) -> list[str]:
    """The headers that declare a bundle's element types (``cuda_fp16.h``, ``cuda/std/complex``...)."""
    return sorted({dtype_named(d).header for d in dtypes if isinstance(d, str) and d in DTYPES} - {""})


def _complex_preambles(dtypes: Iterable[object]) -> list[str]:
    """coop's complex product, where a bundle has complex numbers or pairs (re, im) of one float."""
    names = {d for d in dtypes if isinstance(d, str)}
    parts = [_COMPLEX_PAIRS] if any(is_complex(d) or complex_pair(d) for d in names) else []
    return parts + ([_COMPLEX] if any(is_complex(d) for d in names) else [])


def render_requests(requests: Sequence[Request]) -> RenderedRequests:
    """Render one translation unit of the wrappers of ``requests`` (deduplicated, in a stable order).

    What a wrapper needs of its kernel it reaches through the kernel's glue (:func:`render_glue`):
    its implicit scratch (``scratch_symbol``), a logical warp's slice of it (``warp_slice_symbol``),
    the mbarrier of ``load_to_shared``; a caller-owned ``coop.TempStorage`` comes as an argument. So
    the unit does not depend on the other requests of the kernel, and a kernel may link units compiled
    for other kernels. Only cluster rows depend on theirs (one state per kernel, sized for the item
    types of all its cluster calls): their unit also defines that state's prologue.
    """
    wrappers = [_wrapper(r) for r in requests]
    # A per-field request's fields are scalar requests of their own (classes and wrappers), declared
    # before the per-field requests that use them.
    split = [w for w in wrappers if w.body is Body.FIELDS]
    plain = [w for w in wrappers if w.body is not Body.FIELDS] + [p for w in split for p in w.parts]
    # A request whose items move as words calls the wrappers of its word request and of the request
    # that moves the items otherwise: declared before it.
    moved = [p for w in plain if w.body is Body.WORDS for p in w.parts]
    plain = list({w.request: w for w in [*moved, *plain]}.values())
    dtypes = {w.request.dtype for w in wrappers} | {v for w in wrappers for _k, v in w.request.options}
    dtypes |= {s.dtype for w in wrappers for s in w.slots if s.dtype}
    structs = sorted(d for d in dtypes if isinstance(d, str) and fields_of(d))  # options may be ints
    dtypes |= {f for d in structs for f in fields_of(d)}
    headers = dict.fromkeys(w.header for w in wrappers)
    if any(s.strided for w in wrappers for s in w.slots):
        headers["cuda/iterator"] = None
    runs = any(w.body is Body.RUNS for w in plain)  # a per-field request's fields among them
    if moved or runs:
        headers["cuda/std/bit"] = None  # items packed into words bit for bit
    headers.update(dict.fromkeys(_dtype_headers(dtypes)))
    headers.update(dict.fromkeys(h for w in wrappers for h in w.headers))
    parts = [PCH_PREFIX, *(f"#include <{h}>\n" for h in headers)]
    parts.append(_COMMON)
    parts += _complex_preambles(dtypes)
    parts += [_struct(d) for d in structs]
    scopes = {w.scope for w in wrappers}
    parts += [text for scope, text in _SCOPES.items() if scope in scopes]
    classes = dict.fromkeys(w.cls for w in wrappers)
    parts += [_COOP_CLASSES[c] for c in classes if c in _COOP_CLASSES]
    parts += [_STRIPED_RUNS] if runs else []
    functions = {symbol: (dtype, result) for w in wrappers for symbol, dtype, result in w.functions}
    parts += [_user_function(symbol, dtype, result) for symbol, (dtype, result) in functions.items()]
    clusters = [w for w in wrappers if w.scope == "cluster"]
    parts += _cluster_states(clusters)
    probes: dict[str, str] = {}
    scratch = [w for w in wrappers if w.storage]
    parts += [f"using {w.symbol}_t = {w.cub_type};\n" for w in plain]
    parts += [_per_field_class(w) for w in split]
    for w in scratch:
        ts = f"{w.symbol}_storage"
        parts.append(f"using {ts} = typename {w.symbol}_t::TempStorage;\n")
        probes[f"&{_PROBE}<sizeof({ts}), alignof({ts})>"] = w.symbol
    implicit = {scratch_symbol(w.scope, w.request.scratch_group) for w in scratch if w.scratch is Scratch.OWN}
    parts += [f'extern "C" __device__ void* {symbol}();\n' for symbol in sorted(implicit)]
    warps = sorted({w.request.scratch_group for w in scratch if w.scope == "warp"})
    parts += [
        f'extern "C" __device__ void* {warp_slice_symbol(g)}(void* base, int tid, int width);\n'
        for g in warps
    ]
    # The wrappers of fields and words only this unit calls are its own (internal): another unit may
    # have the same ones, and a kernel may link both.
    top = set(requests)
    parts += [_format(w) if w.request in top else _format(w, "static") for w in [*plain, *split]]
    defines = [r.symbol for r in requests]
    defines += sorted({f"coop_cluster_begin_{w.request.scratch_group}" for w in clusters})
    return RenderedRequests(source="".join(parts), probes=probes, defines=tuple(defines))


def _round_up(n: int, align: int) -> int:
    return -(-n // align) * align


def _union_layout(members: Iterable[tuple[int, int]]) -> tuple[int, int]:
    """(size, alignment) of a C union of members of these (size, alignment): the largest member,
    rounded up to the largest alignment; a union of none holds one char."""
    members = list(members) or [(1, 1)]
    align = max(a for _s, a in members)
    return _round_up(max(s for s, _a in members), align), align


def _struct_layout(members: Sequence[tuple[int, int]]) -> tuple[list[int], int, int]:
    """(member offsets, size, alignment) of a C struct of members of these (size, alignment), in
    order; a struct of none holds one char (and has no offsets)."""
    offsets, end = [], 0
    for size, align in members:
        end = _round_up(end, align)
        offsets.append(end)
        end += size
    align = max((a for _s, a in members), default=1)
    return offsets, _round_up(max(end, 1), align), align


#: The least alignment of the glue's shared buffers: ptxas merges a thread's neighbouring shared
#: stores into 16-byte ones (``STS.128``) only where their addresses are 16-byte aligned, which it
#: knows from the buffer's offset; a buffer of 4-byte items placed after another of 4100 bytes
#: would lose them (issue 21: a CuTe merge-sort kernel, 140 ``STS.128`` became 560 ``STS``).
_BUFFER_ALIGN = 16


def _bytes(name: str, size: int, align: int) -> str:
    return f"  __shared__ __align__({max(align, _BUFFER_ALIGN)}) unsigned char {name}[{size}];\n"


@dataclass(frozen=True)
class RenderedGlue:
    """A kernel's glue (one translation unit without CUB) and the ``(size, alignment)`` of each
    request's ``TempStorage`` as the kernel lays it out (a warp request's: its slices for the whole
    block)."""

    source: str
    temp_storage: dict[str, tuple[int, int]]


def render_glue(
    requests: Sequence[Request], temp_storage: Sequence[TempStorageSlot], probed: dict[str, tuple[int, int]]
) -> RenderedGlue:
    """Render the shared memory of the kernels of a bundle and its accessors, from the probed
    ``(size, alignment)`` of each request's ``TempStorage``.

    Per kernel (scratch group): one implicit scratch buffer per scope, as large as the largest scratch
    of that scope's calls (one buffer keeps a kernel from paying for another kernel's larger scratch;
    block and warp scratch are apart: a warp may start on its slice while other warps still read the
    block's); the logical warps' slicing of warp scratch (see ``_WarpScope``); each caller-owned
    ``coop.TempStorage`` (shared: as large as the largest of its kernel's caller-scratch calls;
    exclusive: one slice per call, laid out as a C struct); the prologues of ``load_to_shared``.
    """
    wrappers = {r: _wrapper(r) for r in requests}
    scratch = [r for r in requests if r.symbol in probed]
    storage = {r.symbol: probed[r.symbol] for r in scratch}
    slices = []
    for group in sorted({r.scratch_group for r in scratch if wrappers[r].scope == "warp"}):
        warps = [r for r in scratch if wrappers[r].scope == "warp" and r.scratch_group == group]
        unit, align = _union_layout(probed[r.symbol] for r in warps)
        narrowest = min(wrappers[r].width for r in warps)
        for r in warps:
            storage[r.symbol] = (unit * -(-math.prod(r.block_dims) // narrowest), align)
        slices.append(
            f'extern "C" __device__ void* {warp_slice_symbol(group)}(void* base, int tid, int width)\n{{\n'
            f"  struct alignas({align}) unit\n  {{\n    unsigned char bytes[{unit}];\n  }};\n"
            f"  return static_cast<unit*>(base) + (tid / width) * (width / {narrowest});\n"
            "}\n"
        )
    # The kernel's shared variables in the order that one translation unit of the requests and their
    # kernel gave them under numba-cuda (ptxas lays them out in the order of the linked module, and its
    # register allocation can follow the offsets): the mbarrier of load_to_shared, each
    # coop.TempStorage, then the implicit scratch. Each on a 16-byte boundary whatever its order (see
    # ``_bytes``).
    parts: list[str] = []
    staged = sorted({math.prod(r.block_dims) for r in requests if wrappers[r].cls == _STAGE_CLASS})
    if staged:
        parts.append(_STAGE_GLUE)
        parts += [
            f'extern "C" __device__ void {_stage_begin(n)}()\n{{\n  coop_stage_begin<{n}>();\n}}\n'
            for n in staged
        ]
    for slot, ts in enumerate(temp_storage):
        # shared: as large as every caller-storage call of the kernel (footprint = max); exclusive: a
        # slice per call (footprint = sum), each call's accessor giving its own
        if ts.exclusive:
            offsets, size, align = _struct_layout([storage[symbol] for symbol in ts.uses])
        else:
            mine = [r for r in scratch if r.caller_temp_storage and r.scratch_group == ts.group]
            (size, align), offsets = _union_layout(storage[r.symbol] for r in mine), []
        parts.append(
            f'extern "C" __device__ void* {temp_storage_symbol(slot)}()\n{{\n'
            f"{_bytes('storage', size, align)}  return storage;\n}}\n"
        )
        parts += [
            f'extern "C" __device__ void* {temp_storage_symbol(slot, k)}()\n{{\n'
            f"  return static_cast<unsigned char*>({temp_storage_symbol(slot)}()) + {offset};\n}}\n"
            for k, offset in enumerate(offsets)
        ]
    buffers: dict[str, list[Request]] = {}  # by accessor: a cluster row's scratch is its block's
    for r in scratch:
        if not r.caller_temp_storage:
            buffers.setdefault(scratch_symbol(wrappers[r].scope, r.scratch_group), []).append(r)
    for symbol, members in sorted(buffers.items()):
        size, align = _union_layout(storage[r.symbol] for r in members)
        body = f"{_bytes('scratch', size, align)}  return scratch;\n"
        parts.append(f'extern "C" __device__ void* {symbol}()\n{{\n{body}}}\n')
    return RenderedGlue(source="".join(parts + slices), temp_storage=storage)
