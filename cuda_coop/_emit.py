# SPDX-License-Identifier: Apache-2.0
"""One planned call emitted into a kernel: the C-ABI slot ladder, once for every backend.

A plan (``Primitive.resolve``) lists its slots; each becomes one or more arguments of the bundle's
``extern "C"`` wrapper: a ``void*`` per pointer (one per field of a struct type), an ``int`` per
count, and for a strided array its pointer then its stride in items. This module walks the slots;
the backend's :class:`KernelAdapter` says how its DSL spells each thing (an absent argument, an
array's tile, a register array, a spilled scalar, a call). The adapter's methods are the whole of
what differs between DSLs here.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable, Mapping
from typing import Any, ClassVar

from ._errors import CoopError
from ._kinds import Shape
from ._primitive import Plan
from ._render import kernel_prologue
from ._session import TraceSession

__all__ = ["KernelAdapter", "emit_call"]


class KernelAdapter(ABC):
    """How one DSL spells the values of one call being emitted (one instance per call).

    ``v`` below is an argument as the backend handed it to :func:`emit_call` (its own spelling:
    Numba's (type, LLVM value) pair, CuTe's traced value); ``None`` is a parameter the primitive does
    not have. Pointers (``Ptr``) are whatever the backend's :meth:`extern_call` takes as a ``void*``.
    """

    #: the backend's name; keys the session's once-per-function records
    name: ClassVar[str]

    @abstractmethod
    def function_key(self) -> Hashable:
        """The function being emitted into (the kernel, or a device function): its prologue is
        called once."""

    @abstractmethod
    def absent(self, v: Any) -> bool:
        """The caller did not give this optional parameter."""

    @abstractmethod
    def members(self, v: Any) -> list[Any] | None:
        """A tuple argument's members (spelt as ``v`` is), or None if ``v`` is not a tuple."""

    @abstractmethod
    def is_items(self, v: Any) -> bool:
        """``v`` is a register array (a ``coop.ThreadData`` or the DSL's own)."""

    @abstractmethod
    def index(self, v: Any) -> Any:
        """An array's item offset (``None``: the primitive has none, i.e. 0) as the DSL's index."""

    @abstractmethod
    def array_tile(self, v: Any, offset: Any, strided: bool) -> tuple[Any, Any]:
        """A global or shared array: the pointer to its item ``offset`` and, for a ``strided`` slot,
        its stride in items (1 if contiguous); the pointer may carry what the DSL knows of its
        alignment."""

    @abstractmethod
    def items_pointer(self, v: Any) -> Any:
        """A register array's storage."""

    @abstractmethod
    def value_pointer(self, v: Any, dtype: str) -> Any:
        """A scalar, a constant or a record, copied to thread-private storage laid out and aligned as
        ``dtype``'s C type."""

    @abstractmethod
    def new_items(self, dtype: str, items: int) -> tuple[Any, Any]:
        """Fresh thread-private storage for ``items`` items of ``dtype`` (a result): (storage, its
        pointer)."""

    @abstractmethod
    def int32(self, v: Any) -> Any:
        """A count (or a stride, which may be a Python int) as the C ABI's ``int``."""

    @abstractmethod
    def scratch(self, v: Any) -> tuple[int | None, Any]:
        """A ``coop.TempStorage``: its slot in the session (None where the backend knows it is a
        shared one, whose base every call uses) and its base pointer."""

    @abstractmethod
    def call_pointer(self, symbol: str) -> Any:
        """Emit ``ptr @symbol()`` (the accessor of an exclusive scratch slice) and return its result."""

    @abstractmethod
    def call_at_entry(self, symbol: str) -> None:
        """Emit ``void @symbol()`` at the entry of the function being emitted into."""

    @abstractmethod
    def define_operator(self, op: Any) -> None:
        """Define the user operator ``op`` (a ``UserFunction``) as ``void op.symbol(R*, const T*,
        const T*)`` in the module being emitted (once per module)."""

    @abstractmethod
    def extern_call(self, symbol: str, args: list[Any], is_int: list[bool]) -> None:
        """Emit ``void @symbol(args...)``; ``is_int`` marks the ``int`` arguments, the others are
        pointers."""

    @abstractmethod
    def result(self, slot: Any, storage: Any, records: str) -> Any:
        """A result slot's storage (a list of them for a struct type's fields) as the kernel sees it:
        a register array, a scalar (item 0), a record, or a tuple of the fields'."""

    @abstractmethod
    def returns(self, results: list[Any]) -> Any:
        """What the call returns: nothing, its one result, or a tuple of them."""


def emit_call(plan: Plan, session: TraceSession, values: Mapping[str, Any], adapter: KernelAdapter) -> Any:
    """Emit ``plan``'s call: record its request in ``session``, call the kernel prologue it needs
    once at the function's entry, define its operators, pass every slot through the C ABI, call the
    wrapper and return its results. ``values`` maps the primitive's parameter names to the
    arguments, as the adapter spells them."""
    prim, request = plan.primitive, plan.request
    symbol = session.add(request, plan.where)
    prologue = kernel_prologue(request)
    if prologue is not None and session.first((adapter.name, "prologue", adapter.function_key(), prologue)):
        adapter.call_at_entry(prologue)
    for op in plan.operators.values():
        try:
            adapter.define_operator(op)
        except CoopError as exc:
            raise exc.at(plan.where) from None
    pointers: dict[str, list[Any]] = {}  # one per field (one for a slot of a plain type)
    strides: dict[str, list[Any]] = {}
    storages: dict[str, Any] = {}
    for slot in plan.slots:
        v = values.get(slot.name)
        fields = slot.fields or (slot.dtype,)
        if slot.shape is Shape.ARRAY:
            offset = adapter.index(values.get(prim.param(slot.name).kind.offset))  # type: ignore[union-attr]
            arrays = adapter.members(v) if slot.fields else [v]
            tiles = [adapter.array_tile(a, offset, slot.strided) for a in arrays]  # type: ignore[union-attr]
            pointers[slot.name] = [p for p, _ in tiles]
            strides[slot.name] = [s for _, s in tiles]
            continue
        if slot.result:
            made = [adapter.new_items(f, slot.items) for f in fields]
            storages[slot.name] = [s for s, _ in made] if slot.fields else made[0][0]
            pointers[slot.name] = [p for _, p in made]
        elif slot.shape is Shape.INT:
            pointers[slot.name] = [adapter.int32(v)]
        elif slot.shape is Shape.SCRATCH:
            where, base = adapter.scratch(v)  # an exclusive one's slot: this call gets a slice of it
            own = None if where is None else session.use_temp_storage(where, request)
            pointers[slot.name] = [base if own is None else adapter.call_pointer(own)]
        elif slot.fallback is not None and adapter.absent(v):
            pointers[slot.name] = pointers[slot.fallback]
        elif slot.fields:  # items of a struct type, as the kernel holds them
            members = adapter.members(v)
            if members is None:  # one number for every field
                pointers[slot.name] = [adapter.value_pointer(v, f) for f in fields]
            elif all(adapter.is_items(m) for m in members):
                pointers[slot.name] = [adapter.items_pointer(m) for m in members]
            else:
                pointers[slot.name] = [
                    adapter.value_pointer(m, f) for m, f in zip(members, fields, strict=True)
                ]
        elif adapter.is_items(v):
            pointers[slot.name] = [adapter.items_pointer(v)]
        else:  # a scalar, a constant or a record, in thread-private memory
            pointers[slot.name] = [adapter.value_pointer(v, slot.dtype)]
    args: list[Any] = []
    is_int: list[bool] = []
    for slot in plan.slots:  # a strided array is its pointer, then its stride
        for k, pointer in enumerate(pointers[slot.name]):
            args.append(pointer)
            is_int.append(slot.shape is Shape.INT)
            if slot.strided:
                args.append(adapter.int32(strides[slot.name][k]))
                is_int.append(True)
    adapter.extern_call(symbol, args, is_int)
    return adapter.returns([adapter.result(s, storages[s.name], plan.records) for s in plan.returns])
