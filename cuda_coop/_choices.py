# SPDX-License-Identifier: Apache-2.0
"""Compile-time choices (algorithms, exchange modes): one table each, from which the public enum,
the C++ spelling, the validation and the docs are derived."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum, EnumMeta


class AlgorithmEnumMeta(EnumMeta):
    """Metaclass of the choice enums: lets a DSL recognise them and treat members as the
    compile-time constants they are (``coop.BlockLoadAlgorithm.VECTORIZE`` inside a kernel)."""


#: :attr:`Option.runs` for the widest runs of up to 16 bytes (the item size decides their length).
WIDEST_RUNS = -1


@dataclass(frozen=True)
class Option:
    """One value of a choice.

    Attributes:
        value: the name users write (``"warp_transpose"``).
        cxx: its C++ spelling (an enumerator, or a method name for exchange modes).
        doc: one line for the docs.
        scratch: the CUB class needs shared ``TempStorage`` with this option.
        whole_warps: the block must be a whole number of warps.
        one_dimensional: the block must be 1-D (``block=(n, 1, 1)``).
        stages_tile: the whole tile passes through shared memory (its size is checked against the
            static limit before any C++ is compiled).
        uses: optional parameters that this option needs (present iff chosen: exchange's ranks).
        allows: optional parameters that may be given only with this option (or another option that
            allows them): discontinuity's ``tile_successor`` with tail flags.
        arrangement: how the items end up (or are expected) per thread: ``"blocked"``,
            ``"striped"`` or ``"warp_striped"`` (load and store algorithms, for the docs).
        contiguous: the array must have unit stride (the option vectorizes, or transposes for
            coalesced access); a strided view is refused with it.
        words: set (to the option that moves the items otherwise, ``"direct"``), a full tile of
            items narrower than 4 bytes that fill whole words moves as 4-byte words, vectorized, where
            the array is aligned to the vector, and as the named option does elsewhere (the
            renderer's word path: CUB vectorizes words to 16-byte accesses, where it moves 2-byte
            items 8 bytes at a time at most and stores ``__half`` / ``__nv_bfloat16`` one by one).
        runs: the option moves each thread's items through the renderer's runs path, in runs of
            consecutive items striped over the threads: ``runs`` items each (``striped``: 1, CUB's
            striped arrangement, with coop's block-uniform exit from a partial tile's loop), or with
            :data:`WIDEST_RUNS` the widest runs of up to 16 bytes, each one vector access where the
            array is aligned to it (:func:`cuda.coop._dtypes.run_items`; a tuple's fields must then
            make runs of one length); 0: not by the runs path.
    """

    value: str
    cxx: str
    doc: str
    scratch: bool = False
    whole_warps: bool = False
    one_dimensional: bool = False
    stages_tile: bool = False
    uses: tuple[str, ...] = ()
    allows: tuple[str, ...] = ()
    arrangement: str = "blocked"
    contiguous: bool = False
    words: str = ""
    runs: int = 0


#: The name that stands for a table's measured best option (:attr:`Choices.auto`).
AUTO = "auto"


@dataclass(frozen=True)
class Choices:
    """A closed set of options, exposed as a ``str`` enum named ``enum_name`` in ``cuda.coop``.

    Attributes:
        auto: where set, the option that the name ``"auto"`` (and the enum's ``AUTO``) stands for:
            the one measured fastest wherever it applies, resolved when the call is checked (a
            request never holds ``"auto"``); ``auto_doc`` says why, for the docs.
    """

    enum_name: str
    doc: str
    options: tuple[Option, ...]
    auto: str = ""
    auto_doc: str = ""
    enum: type[Enum] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        assert not self.auto or any(o.value == self.auto for o in self.options), self.auto
        classdict = AlgorithmEnumMeta.__prepare__(self.enum_name, (str, Enum))
        if self.auto:
            classdict[AUTO.upper()] = AUTO
        for o in self.options:
            classdict[o.value.upper()] = o.value
        classdict["__doc__"] = self.doc
        classdict["__module__"] = "cuda.coop"
        object.__setattr__(self, "enum", AlgorithmEnumMeta(self.enum_name, (str, Enum), classdict))

    def __getitem__(self, value: str) -> Option:
        return next(o for o in self.options if o.value == value)

    def _name(self, value: object) -> str | None:
        """The lower-case name a member of this enum or a string spells; None for anything else (a
        member of another enum among them)."""
        if isinstance(value, Enum):
            return str(value.value) if isinstance(value, self.enum) else None
        return value.lower() if isinstance(value, str) else None

    def normalize(self, value: object) -> str | None:
        """The option's name for a member of this enum or a (case-insensitive) name, ``"auto"`` as
        the option it stands for; None if it is neither (a member of another enum is not accepted)."""
        low = self._name(value)
        if low == AUTO and self.auto:
            return self.auto
        return low if any(o.value == low for o in self.options) else None

    def names_auto(self, value: object) -> bool:
        """Whether ``value`` is this table's ``"auto"`` (for messages that say what the call wrote)."""
        return bool(self.auto) and self._name(value) == AUTO

    def allowed(self) -> str:
        """The options, quoted, for messages."""
        return ", ".join([repr(AUTO)] * bool(self.auto) + [repr(o.value) for o in self.options])
