# SPDX-License-Identifier: Apache-2.0
"""Element types: the one table of names, C++ spellings, sizes and value ranges, and the structured
item types built from them (field lists, laid out as C structs)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ._errors import CoopTypeError, CoopValueError


@dataclass(frozen=True)
class DType:
    """An element type a primitive can move: its canonical name, C++ type, size and alignment; a
    structured item (a field list) also has its fields' types, in order."""

    name: str
    cxx: str
    itemsize: int
    kind: str  # "i" signed, "u" unsigned, "f" float, "t" a field list
    fields: tuple[str, ...] = ()
    align: int = 0  # 0: the size (a scalar)

    @property
    def alignment(self) -> int:
        return self.align or self.itemsize

    def check_representable(self, value: object, *, primitive: str, argument: str) -> None:
        """Raise CoopValueError unless ``value`` is exactly representable in this type (for a field
        list: a tuple of one value per field, each representable in its field's type)."""
        if self.fields:
            if not isinstance(value, tuple) or len(value) != len(self.fields):
                raise CoopTypeError(
                    f"{primitive}: {argument} must be a tuple of {len(self.fields)} values "
                    f"({', '.join(self.fields)}), got {value!r}"
                )
            for k, (field, v) in enumerate(zip(self.fields, value, strict=True)):
                DTYPES[field].check_representable(v, primitive=primitive, argument=f"{argument}[{k}]")
            return
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise CoopTypeError(
                f"{primitive}: {argument} must be a number representable as {self.name}, "
                f"got {value!r} ({type(value).__name__})"
            )
        if self.kind in "iu":
            if isinstance(value, float) and not value.is_integer():
                raise CoopValueError(
                    f"{primitive}: {argument}={value!r} is not an integer and cannot be stored in {self.name}"
                )
            bits = 8 * self.itemsize
            lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if self.kind == "i" else (0, (1 << bits) - 1)
            if not lo <= int(value) <= hi:
                raise CoopValueError(
                    f"{primitive}: {argument}={value!r} is outside the range of {self.name} "
                    f"[{lo}, {hi}]; pass a value in range"
                )
        elif self.itemsize == 2 and self.name == "float16" and abs(float(value)) > 65504.0:
            if value == value and abs(float(value)) != float("inf"):
                raise CoopValueError(
                    f"{primitive}: {argument}={value!r} overflows float16 (largest finite 65504)"
                )


_TABLE = (
    DType("int8", "signed char", 1, "i"),
    DType("int16", "short", 2, "i"),
    DType("int32", "int", 4, "i"),
    DType("int64", "long long", 8, "i"),
    DType("uint8", "unsigned char", 1, "u"),
    DType("uint16", "unsigned short", 2, "u"),
    DType("uint32", "unsigned int", 4, "u"),
    DType("uint64", "unsigned long long", 8, "u"),
    DType("float16", "__half", 2, "f"),
    DType("bfloat16", "__nv_bfloat16", 2, "f"),
    DType("float32", "float", 4, "f"),
    DType("float64", "double", 8, "f"),
)

DTYPES: dict[str, DType] = {d.name: d for d in _TABLE}


def supported_name(name: str | None, *, shown: object, primitive: str, argument: str) -> str:
    """``name`` if it is a supported element type, else (also for None: no element type)
    CoopTypeError naming the primitive, the argument and the type as the DSL showed it."""
    if name is None or name not in DTYPES:
        raise CoopTypeError(
            f"{primitive}: {argument} has element type {shown}, which is not supported; "
            f"supported: {', '.join(DTYPES)}"
        )
    return name


#: How the canonical name of a field list starts: ``tuple_float32_int32`` (scalar names have no
#: underscore, so the fields read back unambiguously, and the name is a C identifier).
TUPLE_PREFIX = "tuple_"


def tuple_name(fields: Sequence[str | None]) -> str | None:
    """The canonical name of the field list ``fields`` (scalar type names, as a backend read them;
    None where a field has no supported type: then None)."""
    return TUPLE_PREFIX + "_".join(fields) if all(fields) else None  # type: ignore[arg-type]


def tuple_dtype(fields: tuple[str, ...] | list[str]) -> DType:
    """The structured item type of ``fields`` (scalar element types, in order; at least two), laid
    out as a C struct of them (``f0``, ``f1``, ...): its name, C++ struct name, size, alignment."""
    fields = tuple(fields)
    if len(fields) < 2 or any(f not in DTYPES for f in fields):
        raise CoopTypeError(
            f"a structured item needs two or more fields of {', '.join(DTYPES)}; got {fields!r}"
        )
    offsets = field_offsets(fields)
    align = max(DTYPES[f].itemsize for f in fields)
    end = offsets[-1] + DTYPES[fields[-1]].itemsize
    name = str(tuple_name(fields))
    return DType(name, f"coop_{name}", -(-end // align) * align, "t", fields, align)


def field_offsets(fields: Sequence[str]) -> tuple[int, ...]:
    """The byte offset of each field (scalar types) in the C struct of ``fields``: each at the next
    multiple of its size (a scalar's alignment), as C lays them out."""
    out, end = [], 0
    for f in fields:
        size = DTYPES[f].itemsize
        out.append(-(-end // size) * size)
        end = out[-1] + size
    return tuple(out)


def fields_of(name: str) -> tuple[str, ...]:
    """The field types of a structured item type's name; () for a scalar type."""
    return tuple(name.removeprefix(TUPLE_PREFIX).split("_")) if name.startswith(TUPLE_PREFIX) else ()


def dtype_named(name: str) -> DType:
    """The DType called ``name`` (numpy spelling, or a field list's canonical name), or
    CoopTypeError listing the supported ones."""
    if name.startswith(TUPLE_PREFIX):
        return tuple_dtype(fields_of(name))
    try:
        return DTYPES[name]
    except KeyError:
        raise CoopTypeError(f"unsupported element type {name!r}; supported: {', '.join(DTYPES)}") from None
