# SPDX-License-Identifier: Apache-2.0
"""Element types: the one table of names, C++ spellings, sizes and value ranges, and the structured
item types built from them (field lists, laid out as C structs).

Complex numbers (``complex64``, ``complex128``: ``cuda::std::complex<float>`` / ``<double>``) are
element types of their own, made of two parts of a real type. Like field lists they are *structured*
items: rows that take tuples take them (a complex number moves, adds, multiplies and compares for
equality), rows that need an order or the bits of one scalar refuse them."""

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
    kind: str  # "i" signed, "u" unsigned, "f" float, "c" complex, "t" a field list
    fields: tuple[str, ...] = ()
    align: int = 0  # 0: the size (a scalar)
    header: str = ""  # the C++ header that declares ``cxx`` ("": none needed)
    part: str = ""  # a complex number's real and imaginary parts' type
    largest: float = 0.0  # a float's largest finite value (0: not checked, any double fits)

    @property
    def alignment(self) -> int:
        return self.align or self.itemsize

    @property
    def structured(self) -> bool:
        """Made of parts (a field list, or a complex number): taken where a row takes tuples (and
        refused, with the row's advice, where it takes items of one real scalar type only)."""
        return self.kind in "tc"

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
        if self.kind == "c":  # a Python int, float or complex; each part representable in its type
            if isinstance(value, bool) or not isinstance(value, (int, float, complex)):
                raise CoopTypeError(
                    f"{primitive}: {argument} must be a number representable as {self.name} (an int, "
                    f"float or complex), got {value!r} ({type(value).__name__})"
                )
            z = complex(value)
            for part, v in (("real", z.real), ("imag", z.imag)):
                DTYPES[self.part].check_representable(v, primitive=primitive, argument=f"{argument}.{part}")
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
        elif self.largest and _overflows(value, self.largest):
            raise CoopValueError(
                f"{primitive}: {argument}={value!r} overflows {self.name} (largest finite {self.largest:g})"
            )


def _overflows(value: int | float, largest: float) -> bool:
    """A finite number beyond ``largest`` in magnitude (NaN and the infinities fit every float)."""
    try:
        magnitude = abs(float(value))
    except OverflowError:  # an int beyond every double
        return True
    return magnitude != float("inf") and magnitude > largest


_TABLE = (
    DType("int8", "signed char", 1, "i"),
    DType("int16", "short", 2, "i"),
    DType("int32", "int", 4, "i"),
    DType("int64", "long long", 8, "i"),
    DType("uint8", "unsigned char", 1, "u"),
    DType("uint16", "unsigned short", 2, "u"),
    DType("uint32", "unsigned int", 4, "u"),
    DType("uint64", "unsigned long long", 8, "u"),
    DType("float16", "__half", 2, "f", header="cuda_fp16.h", largest=65504.0),
    DType("bfloat16", "__nv_bfloat16", 2, "f", header="cuda_bf16.h", largest=3.3895313892515355e38),
    DType("float32", "float", 4, "f", largest=3.4028234663852886e38),
    DType("float64", "double", 8, "f"),
    # libcu++ declares complex<T> alignas(2 * sizeof(T)) (cuda/std/__complex/vector_support.h): a
    # complex128 is 16-aligned, where Numba's {double, double} is only 8-aligned (see its lowering)
    DType(
        "complex64", "::cuda::std::complex<float>", 8, "c", align=8, header="cuda/std/complex", part="float32"
    ),
    DType(
        "complex128",
        "::cuda::std::complex<double>",
        16,
        "c",
        align=16,
        header="cuda/std/complex",
        part="float64",
    ),
)

DTYPES: dict[str, DType] = {d.name: d for d in _TABLE}

#: The element types of one real scalar (the fields a tuple may have; the keys radix sorts take).
REAL_DTYPES = tuple(name for name, d in DTYPES.items() if not d.structured)


def is_complex(name: str | None) -> bool:
    """``name`` is a complex element type (``complex64``, ``complex128``)."""
    return name in DTYPES and DTYPES[name].kind == "c"


def complex_pair(name: str | None) -> str | None:
    """The part type of a complex number spelled as a field list ``(re, im)``: two fields of one
    float type (``tuple_float32_float32`` -> ``float32``); None for any other type."""
    fields = fields_of(name) if name else ()
    if len(fields) == 2 and fields[0] == fields[1] and fields[0] in DTYPES and DTYPES[fields[0]].kind == "f":
        return fields[0]
    return None


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
    if len(fields) < 2 or any(f not in REAL_DTYPES for f in fields):
        raise CoopTypeError(
            f"a structured item needs two or more fields of {', '.join(REAL_DTYPES)}; got {fields!r}"
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


def run_items(itemsize: int, items_per_thread: int) -> int:
    """The items of one run of ``algorithm="striped_vectors"``: 4, 2 or 1, the largest that divides
    ``items_per_thread`` with the run at most 16 bytes."""
    return next(v for v in (4, 2, 1) if items_per_thread % v == 0 and v * itemsize <= 16)
