# SPDX-License-Identifier: Apache-2.0
"""The row type of the catalog: one declaration per primitive, from which the host stub, its
signature and docstring, the ``.pyi`` stub, the validation, the request, the C ABI and the C++
wrapper are all derived."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from ._choices import WIDEST_RUNS, Choices
from ._dims import check_cluster_blocks
from ._dtypes import DTYPES, dtype_named, fields_of, run_items
from ._errors import CoopLaunchConfigError, CoopTypeError, CoopValueError, current_call_site
from ._kinds import (
    AUTO_SYNC,
    Arg,
    Choice,
    Count,
    Form,
    Kind,
    LogicalWarp,
    Payload,
    Shape,
    Slot,
    indexed_dtype,
    records_tag,
)
from ._operators import UserFunction
from ._requests import Request
from ._wrapper import FIELD, WORD, Body, Scratch, Wrapper, cluster_state

REQUIRED = inspect.Parameter.empty

#: Static shared memory a kernel may declare (bytes); CUB scratch is static.
STATIC_SHARED_LIMIT = 48 * 1024


@dataclass(frozen=True)
class Param:
    """One parameter of a kernel-side primitive.

    Attributes:
        name: as written in kernel code.
        kind: what it is (see ``_kinds``).
        annotation: its type in the ``.pyi`` stub.
        doc: one line for the docstring.
        default: the default (``REQUIRED`` when it has none).
        keyword_only: must be passed by keyword.
        excludes: parameters that cannot be given (or set) together with this one.
        requires: parameters that must be given when this one is.
    """

    name: str
    kind: Kind
    annotation: str
    doc: str
    default: object = REQUIRED
    keyword_only: bool = True
    excludes: tuple[str, ...] = ()
    requires: tuple[str, ...] = ()


@dataclass(frozen=True)
class Result:
    """A value the primitive returns.

    Attributes:
        name: its name in the C++ call and the docs.
        doc: one line for the docstring.
        like_payload: the payload's shape (a ThreadData, or a scalar for a scalar payload);
            otherwise one value of the element type.
        when: a Flag parameter that asks for it, or a Choice parameter one of whose ``options``
            does (always returned when None).
        options: with ``when`` naming a Choice, the options that return it.
        dtype: its element type when it is not the payload's (``"int32"`` flags).
        init: a parameter whose value the result starts as (CUB leaves some items of the result
            unwritten: those keep it instead of being undefined).
        broadcast: a Flag parameter that gives it to every thread (CUB defines it in thread 0).
        spread: a LogicalWarp parameter: the result is a ThreadData of the payload's items spread
            over the logical warp's lanes (``ceil(items / width)`` items per thread).
        items: a Constant parameter: the result is a ThreadData of that many items per thread (not
            the payload's; a run-length decode's window).
        indexed: one value of the payload's element type paired with an int32 index, the struct
            ``(value, index)`` (an arg-reduction's); the kernel sees a tuple.
    """

    name: str
    doc: str
    like_payload: bool = False
    when: str | None = None
    broadcast: str | None = None
    spread: str | None = None
    options: tuple[str, ...] = ()
    dtype: str | None = None
    init: str | None = None
    items: str | None = None
    indexed: bool = False


@dataclass(frozen=True)
class When:
    """A request that chose ``option`` for the Choice parameter ``param``: ``When("algorithm",
    "match")``."""

    param: str
    option: str

    def holds(self, req: Request) -> bool:
        """Whether ``req`` chose this option."""
        return req.option(self.param) == self.option


@dataclass(frozen=True)
class Given:
    """A request with the optional input whose kind marks ``tag`` present: ``Given("scattered")``."""

    tag: str

    def holds(self, req: Request) -> bool:
        """Whether ``req`` has the input."""
        return req.has(self.tag)


@dataclass(frozen=True)
class Cub:
    """The CUB class: its name, header and template parameters in CUB's order, each named:
    ``T``, ``BLOCK_DIM_X``/``Y``/``Z``, ``ITEMS_PER_THREAD``, a parameter of a template kind, or a
    name of ``fixed`` (a template argument that coop does not expose, given as C++ text so that the
    ones after it can be named). ``classes`` give another class for a Choice's option
    (``((When("algorithm", "match"), Cub("cub::BlockRadixRankMatch", ...)),)``), where CUB spells an
    algorithm as a class of its own with its own template parameters, or for a request with an optional
    input (``Given(tag)``) that coop's own class serves (``coop_block_scatter``: an exchange's count)."""

    cls: str
    header: str
    template: tuple[str, ...]
    fixed: tuple[tuple[str, str], ...] = ()
    classes: tuple[tuple[When | Given, Cub], ...] = ()


@dataclass(frozen=True)
class Call:
    """The C++ call: the method (``"{mode}"`` names a Choice whose option is the method, ``"{name}"`` a
    Flag's ``method`` text where it is set), its arguments by parameter or result name (absent optional
    ones are left out: that selects CUB's overload), and the result that receives the method's return
    value. An argument that is not a name is C++ passed as is (``"coop_arg_best<true>{}"``). ``ctor``
    names the arguments passed to the class's constructor after its ``TempStorage`` (absent optional
    ones left out, which chooses CUB's constructor overload; a result there is an output reference the
    constructor fills), for classes that take their input when constructed (``cub::BlockRunLengthDecode``
    takes the runs). Where the method or the arguments depend on the request in a way this cannot
    say, the row's ``wrap`` hook returns the request's ``Call``."""

    method: str
    args: tuple[str, ...]
    returns: str | None = None
    ctor: tuple[str, ...] = ()


@dataclass(frozen=True)
class Launch:
    """What the backend knows of the kernel's launch when it resolves a call.

    Attributes:
        block_dims: exact block dims, or None when unknown.
        unknown: what to tell the user when they stay unknown (after "<primitive>: ").
        where: appended to messages about the launch (e.g. " of kernel 'k'").
        array_noun: what the DSL calls a global-memory array, for messages.
        scratch_group: the kernel's number among the kernels of one bundle.
        cluster_dims: the launch's thread-block cluster, or None for a launch without one.
        no_cluster: how to launch with a cluster in this DSL (for the message of a cluster row in a
            kernel launched without one).
    """

    block_dims: tuple[int, int, int] | None
    unknown: str
    where: str = ""
    array_noun: str = "a device array in global memory"
    scratch_group: int = 0
    cluster_dims: tuple[int, int, int] | None = None
    no_cluster: str = "launch the kernel with a thread-block cluster"


@dataclass(frozen=True)
class Plan:
    """A resolved call: its request, the wrapper's slots in ABI order, the returned results and the
    user functions (operators, comparators) the backend must define, by symbol."""

    primitive: Primitive
    request: Request
    slots: tuple[Slot, ...]
    returns: tuple[Slot, ...]
    operators: Mapping[str, UserFunction]
    where: str = ""  # the call's file:line in the kernel source, when the backend knows it
    records: str = ""  # the payload's record type (NumPy records), as the backend names it


class Resolver:
    """The state of one call being resolved; kinds read and record through it."""

    def __init__(self, prim: Primitive, launch: Launch) -> None:
        self.prim = prim
        self.q = prim.qualname
        self.block_dims = launch.block_dims
        self.launch_where = launch.where
        self.array_noun = launch.array_noun
        self.payload_name = prim.payload.name
        self.dtype = ""
        self.n = 0
        self.scalar = False
        self.options: list[tuple[str, str]] = []
        self.tags: list[str] = []
        self.present: set[str] = set()
        self.operators: dict[str, UserFunction] = {}
        self.caller_temp_storage = False
        self.constants: dict[str, int] = {}  # compile-time values of runtime-capable parameters
        self.strided: dict[str, str] = {}  # arrays given as strided views: their stride, for messages
        self.auto: set[str] = set()  # the choices the call gave as "auto", for messages
        self.records = ""  # the payload's record type (NumPy records), as the backend names it

    def set_payload(self, dtype: str, n: int, *, scalar: bool) -> None:
        """Record the payload's element type and items per thread."""
        self.dtype, self.n, self.scalar = dtype, n, scalar
        if scalar:
            self.tags.append("scalar")

    def record(self, name: str, value: str) -> None:
        """Record a compile-time value of parameter ``name``."""
        self.options.append((name, value))

    def mark_present(self, name: str, tag: str | None = None) -> None:
        """Record that an optional input is given (or a flag set), with its symbol tag."""
        self.present.add(name)
        if tag:
            self.tags.append(tag)

    def option(self, name: str) -> str | None:
        return dict(self.options).get(name)

    def shown(self, name: str) -> str:
        """``name=value`` of a recorded choice as the call wrote it (``"auto"`` named with its option)."""
        value = self.option(name)
        return f"{name}='auto' ({value!r})" if name in self.auto else f"{name}={value!r}"

    @property
    def threads(self) -> int:
        assert self.block_dims is not None
        x, y, z = self.block_dims
        return x * y * z

    def check_tile_fits(self, name: str, value: str) -> None:
        """CoopValueError unless the whole tile fits the static shared-memory limit (for an option
        that stages it there); checked before any C++ exists."""
        tile_bytes = self.threads * self.n * dtype_named(self.dtype).itemsize
        if tile_bytes > STATIC_SHARED_LIMIT:
            raise CoopValueError(
                f"{self.q}: {name}={value!r} stages the whole tile ({tile_bytes} B) through shared "
                f"memory, above the {STATIC_SHARED_LIMIT} B static limit; use fewer items per thread, "
                "a smaller block or another " + name
            )


@dataclass(frozen=True)
class Primitive:
    """One catalog row.

    Attributes:
        scope: ``"block"``, ``"warp"``, ``"cluster"`` or ``"grid"``.
        name: the function's name in its scope (``"load"``).
        cub: the CUB class.
        params: the parameters, in signature order; exactly one is the :class:`Payload`.
        call: the C++ call.
        summary, details: the docstring's first line and paragraph.
        results: what it returns (one value, or a tuple when several are asked for).
        scratch: True when the CUB class always needs ``TempStorage``; the name of a Choice
            parameter when its option decides; False when never.
        check: a hook for the rules a table cannot say (runs after the parameters are checked).
        wrap: a hook that returns the call of a request (``wrap(row, request) -> Call``) where it is not
            ``call`` for every request: another method for an optional argument given, another order
            of arguments for a choice's option, a C++ expression built from the request.
        returns_doc: the docstring's ``Returns`` text (None: returns nothing).
        returns_annotation: the return type in the ``.pyi`` stub.
        family: the catalog module the row is declared in (``"load_store"``, ``"reduce"``, ``"warp"``,
            ...: ``cuda_coop/_catalog/<family>.py``), which also places it in the documented order;
            ``""`` for a row added at run time (``_kernel_api.add``).
    """

    scope: str
    name: str
    cub: Cub
    params: tuple[Param, ...]
    call: Call
    summary: str
    details: str
    results: tuple[Result, ...] = ()
    scratch: bool | str = True
    check: Callable[[Resolver], None] | None = None
    wrap: Callable[[Primitive, Request], Call] | None = None
    returns_doc: str | None = None
    returns_annotation: str = "None"
    family: str = ""
    _by_name: dict[str, Param] = field(init=False, repr=False, compare=False)
    _wrappers: dict[Request, Wrapper] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_name", {p.name: p for p in self.params})
        object.__setattr__(self, "_wrappers", {})
        payloads = [p for p in self.params if isinstance(p.kind, Payload)]
        assert len(payloads) == 1, f"{self.qualname}: one Payload parameter, got {len(payloads)}"
        known = set(self._by_name) | {r.name for r in self.results}
        named = (*self.call.args, *self.call.ctor, self.call.returns or "")
        unknown = [n for n in named if n.isidentifier() and n not in known]
        assert not unknown, f"{self.qualname}: the call names no parameter or result {unknown}"
        tags = {getattr(p.kind, "tag", None) for p in self.params}
        for when, _c in self.cub.classes:
            if isinstance(when, Given):
                assert when.tag in tags, f"{self.qualname}: no parameter marks {when}"
                continue
            options = {o.value for o in self.choices()[when.param].options}
            assert when.option in options, f"{self.qualname}: {when}"

    @property
    def key(self) -> str:
        """The catalog key, ``"block.load"``."""
        return f"{self.scope}.{self.name}"

    @property
    def qualname(self) -> str:
        """Name as written in kernel code, e.g. ``coop.block.load``."""
        return f"coop.{self.key}"

    @property
    def payload(self) -> Param:
        return next(p for p in self.params if isinstance(p.kind, Payload))

    def param(self, name: str) -> Param:
        return self._by_name[name]

    def choices(self) -> dict[str, Choices]:
        """The Choice parameters and their option tables."""
        return {p.name: p.kind.choices for p in self.params if isinstance(p.kind, Choice)}

    # --- the Python surface ----------------------------------------------------------------------

    def signature(self) -> inspect.Signature:
        """The Python signature of the kernel-side call."""
        params = [
            inspect.Parameter(
                p.name,
                inspect.Parameter.KEYWORD_ONLY if p.keyword_only else inspect.Parameter.POSITIONAL_OR_KEYWORD,
                default=p.default,
                annotation=p.annotation,
            )
            for p in self.params
        ]
        return inspect.Signature(params, return_annotation=self.returns_annotation)

    def bind(self, args: tuple[object, ...], kwargs: Mapping[str, object]) -> dict[str, object]:
        """Bind a call's arguments (of any representation) to parameter names; CoopTypeError for
        a call that does not fit the signature. Parameters not given are absent from the result."""
        positional = sum(1 for p in self.params if not p.keyword_only)
        if len(args) > positional:
            raise CoopTypeError(
                f"{self.qualname} takes {positional} positional arguments; pass the others by keyword"
            )
        try:
            return dict(self.signature().bind(*args, **kwargs).arguments)
        except TypeError as exc:
            raise CoopTypeError(f"{self.qualname}: {exc}") from None

    def stub(self) -> str:
        """The ``.pyi`` declaration of the kernel-side call."""
        params, star = [], False
        for p in self.params:
            if p.keyword_only and not star:
                params.append("*")
                star = True
            default = "" if p.default is REQUIRED else " = ..."
            params.append(f"{p.name}: {p.annotation}{default}")
        return (
            f'def {self.name}({", ".join(params)}) -> {self.returns_annotation}:\n    """{self.summary}"""\n'
        )

    def docstring(self) -> str:
        """Google-style docstring built from the declaration."""
        lines = [self.summary, "", self.details, "", "Args:"]
        lines += [f"    {p.name}: {p.doc}" for p in self.params]
        if self.returns_doc:
            lines += ["", "Returns:", f"    {self.returns_doc}"]
        lines += [
            "",
            "Raises:",
            "    CoopTypeError, CoopValueError, CoopLaunchConfigError: at compile time, for arguments "
            "that do not fit.",
            "    CoopHostCallError: when called on the host instead of inside a kernel.",
        ]
        return "\n".join(lines)

    # --- resolution -----------------------------------------------------------------------------

    def cub_class(self, req: Request) -> Cub:
        """The CUB class of ``req``: the row's, or another for the Choice option or the optional input
        that names one."""
        for when, cub in self.cub.classes:
            if when.holds(req):
                return cub
        return self.cub

    def needs_scratch(self, options: Mapping[str, str]) -> bool:
        """Whether the CUB class needs shared ``TempStorage`` for these choices."""
        if isinstance(self.scratch, bool):
            return self.scratch
        choices = self.choices()[self.scratch]
        return choices[options[self.scratch]].scratch

    def resolve(self, args: Mapping[str, Arg], launch: Launch) -> Plan:
        """Validate one call from what the backend knows of its arguments and launch, and plan it.

        Raises:
            CoopTypeError, CoopValueError, CoopLaunchConfigError: for a call that does not fit,
                with a message naming the primitive, the argument and what is allowed.
        """
        r = Resolver(self, launch)
        absent = Arg(Form.ABSENT)
        payload = self.payload
        payload.kind.check(r, payload.name, args.get(payload.name, absent))
        for p in self.params:
            if p is payload:
                continue
            p.kind.check(r, p.name, args.get(p.name, absent), p.default)
        self._check_combinations(r)
        if r.block_dims is None:
            raise CoopLaunchConfigError(f"{self.qualname}: {launch.unknown}")
        for p in self.params:
            p.kind.check_launch(r, p.name)
        self._check_options(r)
        cluster = self._check_cluster(launch) if self.scope == "cluster" else None
        if self.check is not None:
            self.check(r)
        options = dict(r.options)
        scratch = self.needs_scratch(options)
        request = Request(
            primitive=self.key,
            dtype=r.dtype,
            block_dims=r.block_dims,
            items_per_thread=r.n,
            options=tuple(r.options),
            tags=tuple(t for t in r.tags if t != AUTO_SYNC or (scratch and r.caller_temp_storage)),
            caller_temp_storage=scratch and r.caller_temp_storage,
            scratch_group=launch.scratch_group if scratch else 0,
            cluster_dims=cluster,
        )
        wrapper = self.wrapper(request)
        return Plan(
            self, request, wrapper.slots, wrapper.returns, dict(r.operators), current_call_site(), r.records
        )

    def _check_cluster(self, launch: Launch) -> tuple[int, int, int]:
        """The launch's cluster dims, for a row of the cluster scope; CoopLaunchConfigError for a
        launch without a cluster or with one larger than any GPU allows."""
        dims = launch.cluster_dims
        if dims is None:
            raise CoopLaunchConfigError(
                f"{self.qualname} combines the blocks of a thread-block cluster, and the "
                f"launch{launch.where} has none; {launch.no_cluster}"
            )
        return check_cluster_blocks(dims, f"{self.qualname}: a cluster of {dims}")

    def _check_combinations(self, r: Resolver) -> None:
        for p in self.params:
            for other in p.requires:
                if p.name in r.present and other not in r.present:
                    raise CoopValueError(f"{r.q}: {p.name} is given without {other}; pass both")
            for other in p.excludes:
                if p.name in r.present and other in r.present:
                    raise CoopValueError(
                        f"{r.q}: {p.name} and {other} cannot be used together; pass one of them"
                    )
        for name, choices in self.choices().items():
            chosen = choices[r.option(name)]  # type: ignore[index]
            for needed in sorted({u for o in choices.options for u in o.uses}):
                if needed in chosen.uses and needed not in r.present:
                    raise CoopValueError(f"{r.q}: {name}={chosen.value!r} needs {needed}=")
                if needed not in chosen.uses and needed in r.present:
                    users = ", ".join(repr(o.value) for o in choices.options if needed in o.uses)
                    raise CoopValueError(f"{r.q}: {needed} is only for {name} {users}, not {chosen.value!r}")
            for allowed in sorted({a for o in choices.options for a in o.allows}):
                if allowed not in chosen.allows and allowed in r.present:
                    users = " or ".join(repr(o.value) for o in choices.options if allowed in o.allows)
                    raise CoopValueError(
                        f"{r.q}: {allowed} is only for {name}={users}, not {name}={chosen.value!r}"
                    )

    def _check_options(self, r: Resolver) -> None:
        for name, choices in self.choices().items():
            option = choices[r.option(name)]  # type: ignore[index]
            if option.whole_warps and r.threads % 32:
                others = ", ".join(repr(o.value) for o in choices.options if not o.whole_warps)
                raise CoopLaunchConfigError(
                    f"{r.q}: {r.shown(name)} needs a block of a multiple of 32 threads, the block "
                    f"has {r.threads} {r.block_dims}; use a block of 32*k threads or another {name} "
                    f"({others})"
                )
            if option.one_dimensional and r.block_dims[1:] != (1, 1):
                others = ", ".join(repr(o.value) for o in choices.options if not o.one_dimensional)
                raise CoopLaunchConfigError(
                    f"{r.q}: {r.shown(name)} needs a 1-D block, the block is {r.block_dims}; "
                    f"launch block=({r.threads}, 1, 1) or use another {name} ({others})"
                )
            if (
                option.runs == WIDEST_RUNS
                and r.dtype
                and len({run_items(DTYPES[f].itemsize, r.n) for f in fields_of(r.dtype)}) > 1
            ):
                others = ", ".join(repr(o.value) for o in choices.options if o.runs != WIDEST_RUNS)
                lengths = ", ".join(f"{f}: {run_items(DTYPES[f].itemsize, r.n)}" for f in fields_of(r.dtype))
                raise CoopTypeError(
                    f"{r.q}: {r.shown(name)} moves each field of {r.payload_name} ({r.dtype}) in "
                    f"runs of up to 16 bytes, and at {r.n} items a thread its fields' runs differ ({lengths} "
                    f"items), so their items would not line up; use another {name} ({others}), or one call "
                    "per field"
                )
            if option.stages_tile:
                r.check_tile_fits(name, option.value)
            for array, stride in r.strided.items():
                if option.contiguous:
                    others = ", ".join(repr(o.value) for o in choices.options if not o.contiguous)
                    raise CoopValueError(
                        f"{r.q}: {array} is a strided view ({stride}), and {r.shown(name)} needs "
                        f"a contiguous one; use {name} {others} (one strided access per item), or pass a "
                        "view with unit stride"
                    )

    def given(self, req: Request, name: str) -> bool:
        """Whether parameter or result ``name`` takes part in ``req`` (optional ones by their tag)."""
        for res in self.results:
            if res.name == name:
                if res.when is None:
                    return True
                if res.options:
                    return req.option(res.when) in res.options
                return req.has(self._tag(res.when))  # type: ignore[arg-type]
        tag = self._tag(name)
        return tag is None or req.has(tag)

    def _tag(self, name: str) -> str | None:
        return getattr(self._by_name[name].kind, "tag", None)

    def wrapper(self, req: Request) -> Wrapper:
        """The wrapper of ``req`` (computed once per request): what the renderer formats."""
        found = self._wrappers.get(req)
        if found is None:
            found = self._wrappers[req] = build_wrapper(self, req)
        return found

    def slots(self, req: Request) -> tuple[tuple[Slot, ...], tuple[Slot, ...]]:
        """The C ABI of ``req``'s wrapper (its slots, in order) and the slots of what it returns.
        Backends build the call from these, the renderer unpacks them: the ABI is in one place."""
        slots = [
            slot
            for p in self.params
            if hasattr(p.kind, "slot") and (slot := p.kind.slot(req, p.name)) is not None
        ]
        returns = []
        scalar = req.has("scalar")
        scalar_form = scalar and getattr(self.payload.kind, "scalar_form", False)
        records = req.has(records_tag(self.payload.name))  # results of its type are records too
        for res in self.results:
            if not self.given(req, res.name):
                continue
            dtype = indexed_dtype(req.dtype) if res.indexed else res.dtype or req.dtype
            if res.items is not None:
                slot = Slot(res.name, Shape.ITEMS, dtype, int(str(req.option(res.items))), result=True)
            elif res.spread is not None:
                width = int(req.option(res.spread))  # type: ignore[arg-type]
                items = -(-req.items_per_thread // width)
                slot = Slot(res.name, Shape.ITEMS, dtype, items, result=True)
            elif res.like_payload and scalar_form:  # CUB returns one value through a T&
                slot = Slot(res.name, Shape.VALUE, dtype, 1, result=True, scalar=True)
            elif res.like_payload:
                slot = Slot(res.name, Shape.ITEMS, dtype, req.items_per_thread, result=True, scalar=scalar)
            else:
                slot = Slot(res.name, Shape.VALUE, dtype, 1, result=True, scalar=True)
            if records and dtype == req.dtype:
                slot = replace(slot, packed=True)
            slots.append(slot)
            returns.append(slot)
        return tuple(slots), tuple(returns)


def check_items_per_thread(value: object, *, primitive: str) -> int:
    """Validate a compile-time items-per-thread count."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise CoopTypeError(
            f"{primitive}: items_per_thread must be a compile-time constant int, got {value!r}"
        )
    if not 1 <= value <= 256:
        raise CoopValueError(f"{primitive}: items_per_thread={value} must be in 1..256")
    return value


# --- the wrapper of a request ----------------------------------------------------------------------


def build_wrapper(prim: Primitive, req: Request) -> Wrapper:
    """The wrapper of ``req``, a request of ``prim`` (:meth:`Primitive.wrapper` keeps it): from the
    row's class and call (or its ``wrap`` hook's) and the kinds of its parameters, every C++ text the
    renderer needs; it looks nothing up in the row."""
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
    in_runs = [o.runs for o in options.values() if o.runs]
    if in_runs:
        runs = in_runs[0] if in_runs[0] > 0 else run_items(DTYPES[req.dtype].itemsize, req.items_per_thread)
        full_tile = _full_tile(prim, req, options, named)
        return replace(w, body=Body.RUNS, runs=runs, method=call.method, args=args, full_tile=full_tile)
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
            (res.name, dtype_named(next(s.dtype for s in slots if s.name == res.name)).cxx)
            for res in prim.results
            if res.broadcast and prim.given(req, res.name) and prim.given(req, res.broadcast)
        ),
    )


def _template_arg(prim: Primitive, req: Request, name: str) -> str:
    x, y, z = req.block_dims
    fixed = {
        "T": dtype_named(req.dtype).cxx,
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
        return dtype_named(indexed_dtype(req.dtype)).cxx
    if name in fixed:
        return fixed[name]
    fixed_here = dict(prim.cub_class(req).fixed)
    if name in fixed_here:
        return fixed_here[name]
    text = prim.param(name).kind.template_arg(req, name, prim.given(req, name))
    if text is None:
        raise AssertionError(f"{prim.qualname}: template parameter {name!r} is neither fixed nor a choice")
    return text


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
