# SPDX-License-Identifier: Apache-2.0
"""The kinds of compile-time arguments: a choice among named options, a flag, a constant int, the
block's dimensions and the width of a logical warp."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

from .._choices import Choices
from .._dims import is_int, normalize_block_dims
from .._errors import CoopLaunchConfigError, CoopTypeError, CoopValueError
from ._common import Arg, Form, Kind

if TYPE_CHECKING:
    from .._primitive import Resolver

from .._requests import Request


@dataclass(frozen=True)
class Choice(Kind):
    """A compile-time choice among ``choices`` (a string or a member of its enum)."""

    choices: Choices

    def check(self, r: Resolver, name: str, arg: Arg, default: object = None) -> None:
        value = default if arg.form is Form.ABSENT else arg.value
        if arg.form not in (Form.ABSENT, Form.CONSTANT):
            raise CoopTypeError(
                f"{r.q}: {name} must be a compile-time constant (a string or "
                f"coop.{self.choices.enum_name}), got {arg.shown}"
            )
        option = self.choices.normalize(value)
        if option is None and isinstance(value, Enum):
            member = f"{r.q}: {name}={type(value).__name__}.{value.name}"
            if self.choices.normalize(value.value):
                raise CoopValueError(
                    f"{member} is another primitive's choice; pass coop.{self.choices.enum_name}."
                    f"{value.name} or {value.value!r}"
                )
            raise CoopValueError(f"{member} is not one of {self.choices.allowed()}")
        if option is None:
            raise CoopValueError(f"{r.q}: unknown {name}={value!r}; allowed: {self.choices.allowed()}")
        if self.choices.names_auto(value):
            r.auto.add(name)  # for messages: the call wrote "auto"
        r.record(name, option)

    def template_arg(self, req: Request, name: str, given: bool) -> str | None:
        return self.choices[str(req.option(name))].cxx


@dataclass(frozen=True)
class IndexArrangement(Choice):
    """How an arg-reduction's default indices number the items (``blocked``, ``striped`` or, where
    ``runs``, ``striped_vectors``: the arrangement of the load that gave them); with ``indices``
    given it has nothing to arrange."""

    indices: str = "indices"
    runs: bool = False  # the row numbers items in striped runs (a block's striped_vectors load)

    def check(self, r: Resolver, name: str, arg: Arg, default: object = None) -> None:
        super().check(r, name, arg, default)
        if arg.given and self.indices in r.present:
            raise CoopValueError(
                f"{r.q}: {name}= arranges the default indices, and {self.indices}= gives them; pass "
                f"one of the two"
            )
        if not self.runs and r.option(name) == "striped_vectors":
            others = ", ".join(repr(o.value) for o in self.choices.options if o.value != "striped_vectors")
            raise CoopValueError(
                f"{r.q}: {name}={arg.value!r} numbers the items as a block's striped_vectors load leaves "
                f"them (runs striped over a block's threads), and {r.q} numbers a logical warp's items "
                f"(a warp load leaves them blocked or striped); use {others}"
            )


@dataclass(frozen=True)
class Flag(Kind):
    """A compile-time ``True``/``False``; when set, ``tag`` is part of the request, and ``method``
    is the text it puts into the call's method name (``"Sort{descending}"`` -> ``SortDescending``;
    CUB spells some options as methods of their own)."""

    tag: str
    method: str = ""
    whole_warps: bool = False  # set, it needs a block of whole hardware warps (it names every lane)

    def check(self, r: Resolver, name: str, arg: Arg, default: object = None) -> None:
        value = default if arg.form is Form.ABSENT else arg.value
        if not isinstance(value, bool) or arg.form not in (Form.ABSENT, Form.CONSTANT):
            raise CoopTypeError(
                f"{r.q}: {name} must be a compile-time constant True or False, got {arg.shown}"
            )
        if value:
            r.mark_present(name, self.tag)

    def template_arg(self, req: Request, name: str, given: bool) -> str | None:
        return "true" if req.has(self.tag) else "false"

    def method_text(self, req: Request) -> str | None:
        return self.method if req.has(self.tag) else ""

    def check_launch(self, r: Resolver, name: str) -> None:
        if self.whole_warps and name in r.present and r.threads % HARDWARE_WARP:
            raise CoopLaunchConfigError(
                f"{r.q}: {name}=True synchronises all {HARDWARE_WARP} lanes of the hardware warp, and the "
                f"block has {r.threads} {r.block_dims}{r.launch_where}, whose last hardware warp is "
                f"partial; pass {name}=False or launch {HARDWARE_WARP}*k threads"
            )


@dataclass(frozen=True)
class BlockShape(Kind):
    """Block dimensions given explicitly, a compile-time int or tuple (else from the launch)."""

    def check(self, r: Resolver, name: str, arg: Arg, default: object = None) -> None:
        if not arg.given:
            return
        value = arg.value
        ok = arg.form is Form.CONSTANT and (
            is_int(value) or (isinstance(value, tuple) and all(is_int(v) for v in value))
        )
        if not ok:
            raise CoopTypeError(
                f"{r.q}: {name} must be a compile-time constant int or tuple, got {arg.shown}"
            )
        dims = normalize_block_dims(value, what=f"{r.q}: {name}")
        if r.block_dims is not None and r.block_dims != dims:
            raise CoopLaunchConfigError(
                f"{r.q}: {name}={value!r} contradicts the launch's block {r.block_dims}{r.launch_where}"
            )
        r.block_dims = dims


#: The logical warp widths CUB's warp primitives take (powers of two up to the hardware warp).
WARP_WIDTHS = (1, 2, 4, 8, 16, 32)


HARDWARE_WARP = 32


@dataclass(frozen=True)
class LogicalWarp(Kind):
    """The width of the logical warps a warp primitive works on: a compile-time int of
    ``WARP_WIDTHS`` (no slot; a template argument). The block is split into consecutive logical
    warps of that many threads (in row-major thread order), so its thread count must be a multiple
    of it."""

    def check(self, r: Resolver, name: str, arg: Arg, default: object = None) -> None:
        value = default if arg.form is Form.ABSENT else arg.value
        if arg.form not in (Form.ABSENT, Form.CONSTANT) or not is_int(value):
            raise CoopTypeError(
                f"{r.q}: {name} must be a compile-time constant int "
                f"({', '.join(map(str, WARP_WIDTHS))}), got {arg.shown}"
            )
        if value not in WARP_WIDTHS:
            raise CoopValueError(
                f"{r.q}: {name}={value} is not a logical warp width; allowed: "
                f"{', '.join(map(str, WARP_WIDTHS))}"
            )
        r.record(name, str(value))

    def check_launch(self, r: Resolver, name: str) -> None:
        width = int(r.option(name))  # type: ignore[arg-type]
        if r.threads % width:
            raise CoopLaunchConfigError(
                f"{r.q}: {name}={width} needs a block of a multiple of {width} threads, the block has "
                f"{r.threads} {r.block_dims}{r.launch_where}; use a block of {width}*k threads or a "
                f"{name} that divides {r.threads}"
            )

    def template_arg(self, req: Request, name: str, given: bool) -> str | None:
        return str(req.option(name))


@dataclass(frozen=True)
class Constant(Kind):
    """A compile-time int among ``values`` (no slot; a template argument of the CUB class, such as
    BlockRadixSort's ``RADIX_BITS``)."""

    values: Sequence[int]

    def check(self, r: Resolver, name: str, arg: Arg, default: object = None) -> None:
        value = default if arg.form is Form.ABSENT else arg.value
        allowed = f"{self.values[0]}..{self.values[-1]}"
        if arg.form not in (Form.ABSENT, Form.CONSTANT) or not is_int(value):
            raise CoopTypeError(
                f"{r.q}: {name} must be a compile-time constant int ({allowed}), got {arg.shown}"
            )
        if value not in self.values:
            raise CoopValueError(f"{r.q}: {name}={value} is out of range; allowed: {allowed}")
        r.record(name, str(value))

    def template_arg(self, req: Request, name: str, given: bool) -> str | None:
        return str(req.option(name))
