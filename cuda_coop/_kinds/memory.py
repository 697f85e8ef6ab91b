# SPDX-License-Identifier: Apache-2.0
"""The kinds of memory a call is handed: an array in global memory, an array of counters, and
caller-owned shared scratch (``coop.TempStorage``: its options and what a backend knows of a use)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._dtypes import DTYPES, fields_of
from .._errors import CoopTypeError, CoopValueError
from ._common import Arg, Form, Kind, Shape, Slot, _note_records, _supported, records_tag

if TYPE_CHECKING:
    from .._primitive import Resolver

from .._requests import Request


@dataclass(frozen=True)
class GlobalArray(Kind):
    """A 1-D contiguous array in global memory, of the payload's element type; the call reads (or
    writes) the tile that starts ``offset`` elements in (the ``offset`` parameter). For items of a
    structured type it is a tuple of such arrays, one per field (each field read or written by a
    CUB call of its own, at the same offset)."""

    write: bool = False
    offset: str = "offset"

    def check(self, r: Resolver, name: str, arg: Arg, default: object = None) -> None:
        if arg.form is not Form.ARRAY:
            raise CoopTypeError(f"{r.q}: {name} must be {r.array_noun}, got {arg.shown}")
        if arg.problem:
            raise CoopTypeError(f"{r.q}: {name} {arg.problem}")
        self.check_memory(r, name, arg.memory, arg.shown)
        fields = fields_of(arg.dtype) if arg.dtype else ()
        dtype = arg.dtype if arg.dtype in DTYPES or fields else None
        if dtype is None:
            _supported(r, name, arg)
        if dtype != r.dtype:
            have = f"element type {dtype}"
            if fields:
                have = f"{'records' if arg.records else 'a tuple of arrays'} of ({', '.join(fields)})"
            want = f"a ThreadData of {r.dtype}"
            fix = "make them the same type"
            if fields_of(r.dtype):
                held = "a ThreadData of records" if r.records else "a tuple of ThreadData"
                want = f"{held} of ({', '.join(fields_of(r.dtype))})"
                fix = "pass one array per field, of the field's type (Numba: or an array of such records)"
            raise CoopTypeError(f"{r.q}: {name} has {have} but {r.payload_name} is {want}; {fix}")
        if self.write and not arg.writable:
            raise CoopTypeError(f"{r.q}: {name} is read-only ({arg.shown})")
        if arg.stride != 1:
            r.strided[name] = "a runtime stride" if arg.stride is ... else f"stride {arg.stride}"
        r.mark_present(name, self._strided(name) if arg.stride != 1 else None)
        _note_records(r, name, arg)

    @staticmethod
    def _strided(name: str) -> str:
        return f"{name}_strided"

    def check_memory(self, r: Resolver, name: str, memory: str, shown: str = "") -> None:
        """Refuse an array in another memory space (``"shared"``, ``"local"``: thread-private)."""
        if memory == "local":
            raise CoopTypeError(
                f"{r.q}: {name} is a thread-private array (cuda.local.array); it must be {r.array_noun}"
            )
        if memory == "shared":
            raise CoopTypeError(f"{r.q}: {name} must be in global memory, got {shown}")

    def slot(self, req: Request, name: str) -> Slot:
        strided, packed = req.has(self._strided(name)), req.has(records_tag(name))
        return Slot(name, Shape.ARRAY, req.dtype, strided=strided, packed=packed)


@dataclass(frozen=True)
class Counters(Kind):
    """A 1-D contiguous array of counters that the call updates, in shared or global memory, of an
    integer type of ``dtypes`` (CUB's ``CounterT``, recorded), at its ``offset`` parameter."""

    dtypes: tuple[str, ...]
    offset: str = "offset"

    def check(self, r: Resolver, name: str, arg: Arg, default: object = None) -> None:
        allowed = " or ".join(self.dtypes)
        if arg.form is not Form.ARRAY:
            raise CoopTypeError(
                f"{r.q}: {name} must be an array of {allowed} counters in shared or global memory, got "
                f"{arg.shown}"
            )
        if arg.problem:
            raise CoopTypeError(f"{r.q}: {name} {arg.problem}")
        if arg.dtype not in self.dtypes:
            raise CoopTypeError(
                f"{r.q}: {name} must hold {allowed} counters, got {arg.dtype or arg.dtype_shown}"
            )
        if not arg.writable:
            raise CoopTypeError(f"{r.q}: {name} is read-only ({arg.shown})")
        r.record(name, arg.dtype)
        r.mark_present(name)

    def check_memory(self, r: Resolver, name: str, memory: str, shown: str = "") -> None:
        """Refuse thread-private counters: each thread would count only its own samples."""
        if memory == "local":
            raise CoopTypeError(
                f"{r.q}: {name} is a thread-private array (cuda.local.array), so each thread would count "
                "only its own samples; the counters must be in shared memory (cuda.shared.array, zeroed "
                "and followed by cuda.syncthreads()) or in a device array"
            )

    def slot(self, req: Request, name: str) -> Slot:
        return Slot(name, Shape.ARRAY, str(req.option(name)))


#: The request tag of a call whose caller-owned scratch synchronises itself (auto_sync=True).
AUTO_SYNC = "autosync"


TEMP_STORAGE_SHARING = ("shared", "exclusive")


def temp_storage_options(sharing: object = "shared", auto_sync: object = False) -> tuple[str, bool]:
    """Check the compile-time arguments of ``coop.TempStorage(sharing=, auto_sync=)`` (both DSLs)."""
    if sharing not in TEMP_STORAGE_SHARING:
        raise CoopValueError(
            f"coop.TempStorage: sharing={sharing!r} is not one of 'shared' (one buffer the calls reuse, "
            "footprint = the largest) or 'exclusive' (a slice per call, footprint = the sum); it must "
            "be a compile-time constant"
        )
    if not isinstance(auto_sync, bool):
        raise CoopTypeError(
            f"coop.TempStorage: auto_sync must be a compile-time True or False, got {auto_sync!r}"
        )
    return str(sharing), auto_sync


@dataclass(frozen=True)
class TempStorageUse:
    """What a backend knows of one call's use of a ``coop.TempStorage`` (an Arg's value).

    Attributes:
        sharing, auto_sync: the TempStorage's options.
        separated: the backend proved that a block barrier (the user's, or the library's before an
            earlier call) already lies between this call and every earlier use of the buffer on
            every path, or that there is none: ``auto_sync`` adds no barrier here.
        divergent: the branch on the thread index that the call sits in, as a message names it
            (``"the branch at k.py:12"``), if the backend found one ("" if none or not known).
    """

    sharing: str = "shared"
    auto_sync: bool = False
    separated: bool = False
    divergent: str = ""


@dataclass(frozen=True)
class Scratch(Kind):
    """Caller-owned shared scratch (``coop.TempStorage``), or None for the call's own. The Arg's
    value is a :class:`TempStorageUse`; with ``auto_sync`` the call synchronises the block (or
    logical warp) before it uses the scratch, unless the backend proved a barrier is already there;
    a block-scope call that would synchronise inside a branch on the thread index is refused (the
    threads that skip the branch never reach the barrier)."""

    def check(self, r: Resolver, name: str, arg: Arg, default: object = None) -> None:
        if not arg.given:
            return
        if arg.form is not Form.TEMP_STORAGE:
            raise CoopTypeError(f"{r.q}: {name} must be a coop.TempStorage, got {arg.shown}")
        r.caller_temp_storage = True
        use = arg.value if isinstance(arg.value, TempStorageUse) else TempStorageUse()
        if use.auto_sync and use.divergent and r.prim.scope == "block":
            raise CoopValueError(
                f"{r.q}: {name} is a coop.TempStorage(auto_sync=True), whose block barrier this call "
                f"would run inside {use.divergent}, a branch on the thread index: threads that do not "
                "take it never reach the barrier (a deadlock, as a __syncthreads() there would be). "
                "Call the block primitive where every thread of the block reaches it, or use "
                "auto_sync=False and put the barrier where all threads meet"
            )
        if use.auto_sync and not use.separated:
            r.tags.append(AUTO_SYNC)

    def slot(self, req: Request, name: str) -> Slot | None:
        return Slot(name, Shape.SCRATCH) if req.caller_temp_storage else None
