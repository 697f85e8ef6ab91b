# SPDX-License-Identifier: Apache-2.0
"""The one declaration of each primitive: parameters, defaults, validation, CUB mapping, docs.

Both backends, the C++ renderer, the host stubs, ``stubs/`` and the API reference read these
declarations; nothing else restates them.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from enum import Enum

from ._algorithms import BlockLoadAlgorithm, BlockStoreAlgorithm
from ._dtypes import dtype_named
from ._errors import CoopLaunchConfigError, CoopTypeError, CoopValueError
from ._requests import BlockTileRequest

_REQUIRED = inspect.Parameter.empty

#: Static shared memory a kernel may declare (bytes); CUB scratch is static.
STATIC_SHARED_LIMIT = 48 * 1024


@dataclass(frozen=True)
class Parameter:
    """One parameter of a kernel-side primitive."""

    name: str
    annotation: str
    doc: str
    default: object = _REQUIRED
    keyword_only: bool = True


@dataclass(frozen=True)
class TilePrimitive:
    """A block-wide tile primitive (load or store) and its CUB counterpart."""

    name: str
    direction: str  # "load" | "store"
    cub_class: str
    cub_method: str
    cub_enum_prefix: str
    algorithms: type[Enum]
    parameters: tuple[Parameter, ...]
    summary: str
    details: str

    @property
    def qualname(self) -> str:
        """Name as written in kernel code, e.g. ``coop.block.load``."""
        return f"coop.block.{self.name}"

    @property
    def scratch_algorithms(self) -> frozenset[str]:
        """Algorithms whose CUB ``TempStorage`` is not empty (they stage through shared memory)."""
        return frozenset({"transpose", "warp_transpose", "warp_transpose_timesliced"})

    @property
    def warp_algorithms(self) -> frozenset[str]:
        """Algorithms that need a thread count that is a multiple of the warp size."""
        return frozenset({"warp_transpose", "warp_transpose_timesliced"})

    def signature(self) -> inspect.Signature:
        """The Python signature of the kernel-side call."""
        params = []
        for p in self.parameters:
            kind = (
                inspect.Parameter.KEYWORD_ONLY if p.keyword_only else inspect.Parameter.POSITIONAL_OR_KEYWORD
            )
            params.append(inspect.Parameter(p.name, kind, default=p.default, annotation=p.annotation))
        return inspect.Signature(params, return_annotation="None")

    def stub(self) -> str:
        """The ``.pyi`` declaration of the kernel-side call (``stubs/`` is generated from it)."""
        params, star = [], False
        for p in self.parameters:
            if p.keyword_only and not star:
                params.append("*")
                star = True
            default = "" if p.default is _REQUIRED else " = ..."
            params.append(f"{p.name}: {p.annotation}{default}")
        return f'def {self.name}({", ".join(params)}) -> None:\n    """{self.summary}"""\n'

    def docstring(self) -> str:
        """Google-style docstring built from the declaration."""
        lines = [self.summary, "", self.details, "", "Args:"]
        for p in self.parameters:
            lines.append(f"    {p.name}: {p.doc}")
        lines += [
            "",
            "Raises:",
            "    CoopTypeError, CoopValueError: at compile time, for arguments that do not fit.",
            "    CoopHostCallError: when called on the host instead of inside a kernel.",
        ]
        return "\n".join(lines)

    def algorithm(self, value: object) -> str:
        """Normalise an algorithm given as enum member or string; CoopValueError if unknown."""
        if isinstance(value, self.algorithms):
            return str(value.value)
        if isinstance(value, str) and not isinstance(value, Enum):
            try:
                return str(self.algorithms(value.lower()).value)
            except ValueError:
                pass
        allowed = ", ".join(repr(a.value) for a in self.algorithms)
        raise CoopValueError(f"{self.qualname}: unknown algorithm={value!r}; allowed: {allowed}")

    def request(
        self,
        *,
        array_dtype: str,
        items_dtype: str,
        items_per_thread: int,
        algorithm: object,
        block_dims: tuple[int, int, int] | None,
        valid_items: object,
        oob_default: object,
        caller_temp_storage: bool,
        scratch_group: int = 0,
    ) -> BlockTileRequest:
        """Validate one call's compile-time facts and return its provider request.

        ``valid_items`` and ``oob_default`` are ``None`` when absent, ``...`` when given as runtime
        values, or the compile-time constant itself. ``scratch_group`` numbers the calling kernel
        among the kernels that share one bundle (it only matters for implicit scratch).
        """
        q = self.qualname
        arg = "src" if self.direction == "load" else "dst"
        if array_dtype != items_dtype:
            raise CoopTypeError(
                f"{q}: {arg} has element type {array_dtype} but items is a ThreadData of "
                f"{items_dtype}; make them the same type"
            )
        dtype = dtype_named(items_dtype)
        alg = self.algorithm(algorithm)
        if block_dims is None:
            raise CoopLaunchConfigError(
                f"{q}: the kernel's block dimensions are unknown. Compile the kernel through the "
                "backend (cuda.coop.numba.jit, or cuda.coop.numba.compile(..., block=...)) so they "
                "come from the launch, or pass threads_per_block= explicitly"
            )
        dims = normalize_block_dims(block_dims, what=f"{q}: threads_per_block")
        threads = dims[0] * dims[1] * dims[2]
        if alg in self.warp_algorithms and threads % 32:
            raise CoopLaunchConfigError(
                f"{q}: algorithm={alg!r} needs a block of a multiple of 32 threads, the block has "
                f"{threads} {dims}; use 'transpose' or a block of 32*k threads"
            )
        tile_bytes = threads * items_per_thread * dtype.itemsize
        # Timesliced exchanges one warp at a time; the others stage the whole tile. (The exact
        # size of every scratch is checked again after the bundle's sizeof probes.)
        whole_tile = self.scratch_algorithms - {"warp_transpose_timesliced"}
        if alg in whole_tile and tile_bytes > STATIC_SHARED_LIMIT:
            raise CoopValueError(
                f"{q}: algorithm={alg!r} stages the whole tile ({tile_bytes} B) through shared "
                f"memory, above the {STATIC_SHARED_LIMIT} B static limit; use 'direct', 'striped' "
                "or 'vectorize', or fewer items per thread"
            )
        if valid_items is not None and valid_items is not ...:
            if isinstance(valid_items, bool) or not isinstance(valid_items, int):
                raise CoopTypeError(f"{q}: valid_items must be an integer, got {valid_items!r}")
            if valid_items < 0:
                raise CoopValueError(
                    f"{q}: valid_items={valid_items} is negative; pass the number of valid items "
                    "of the tile (0 or more)"
                )
        if oob_default is not None:
            if self.direction != "load":
                raise CoopTypeError(f"{q} takes no oob_default")
            if valid_items is None:
                raise CoopValueError(f"{q}: oob_default is given without valid_items; pass both")
            if oob_default is not ...:
                dtype.check_representable(oob_default, primitive=q, argument="oob_default")
        return BlockTileRequest(
            primitive=self.name,
            dtype=dtype.name,
            block_dims=dims,
            items_per_thread=items_per_thread,
            algorithm=alg,
            partial=valid_items is not None,
            oob_default=oob_default is not None,
            caller_temp_storage=caller_temp_storage and alg in self.scratch_algorithms,
            scratch_group=scratch_group if alg in self.scratch_algorithms and not caller_temp_storage else 0,
        )


def normalize_block_dims(dims: object, *, what: str) -> tuple[int, int, int]:
    """Normalise an int or a tuple of 1 to 3 positive ints into ``(x, y, z)``."""
    if isinstance(dims, int) and not isinstance(dims, bool):
        dims = (dims,)
    if not isinstance(dims, tuple) or not 1 <= len(dims) <= 3:
        raise CoopLaunchConfigError(f"{what} must be an int or a tuple of 1 to 3 ints, got {dims!r}")
    if not all(isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in dims):
        raise CoopLaunchConfigError(f"{what} must be positive ints, got {dims!r}")
    full = tuple(dims) + (1,) * (3 - len(dims))
    if full[0] * full[1] * full[2] > 1024:
        raise CoopLaunchConfigError(f"{what}={dims!r} has more than 1024 threads")
    return (full[0], full[1], full[2])


def check_items_per_thread(value: object, *, primitive: str) -> int:
    """Validate a compile-time items-per-thread count."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise CoopTypeError(
            f"{primitive}: items_per_thread must be a compile-time constant int, got {value!r}"
        )
    if not 1 <= value <= 256:
        raise CoopValueError(f"{primitive}: items_per_thread={value} must be in 1..256")
    return value


_ITEMS = Parameter(
    "items", "ThreadData", "the calling thread's items (a ``coop.ThreadData``).", keyword_only=False
)
_OFFSET = Parameter("offset", "int", "element index of the block's tile in the array.", 0)
_TEMP = Parameter(
    "temp_storage",
    "TempStorage | None",
    "caller-owned shared scratch (``coop.TempStorage``); by default the call gets its own.",
    None,
)
_TPB = Parameter(
    "threads_per_block",
    "int | tuple[int, ...] | None",
    "block dimensions, only for kernels compiled outside the backend; a compile-time constant.",
    None,
)

LOAD = TilePrimitive(
    name="load",
    direction="load",
    cub_class="cub::BlockLoad",
    cub_method="Load",
    cub_enum_prefix="cub::BLOCK_LOAD_",
    algorithms=BlockLoadAlgorithm,
    parameters=(
        Parameter(
            "src", "npt.NDArray[Any]", "global-memory array to read (1-D, contiguous).", keyword_only=False
        ),
        _ITEMS,
        _OFFSET,
        Parameter("algorithm", "str | BlockLoadAlgorithm", "a ``BlockLoadAlgorithm`` or its name.", "direct"),
        Parameter(
            "valid_items",
            "int | None",
            "number of valid items in the tile; items past it are not read.",
            None,
        ),
        Parameter(
            "oob_default",
            "int | float | None",
            "value given to items past ``valid_items``; without it they keep their values.",
            None,
        ),
        _TEMP,
        _TPB,
    ),
    summary="Load a tile of ``threads * items_per_thread`` items cooperatively (CUB BlockLoad).",
    details=(
        "All threads of the block must call it. Thread ``t`` receives its items in the blocked "
        "arrangement (striped for ``algorithm='striped'``)."
    ),
)

STORE = TilePrimitive(
    name="store",
    direction="store",
    cub_class="cub::BlockStore",
    cub_method="Store",
    cub_enum_prefix="cub::BLOCK_STORE_",
    algorithms=BlockStoreAlgorithm,
    parameters=(
        Parameter(
            "dst", "npt.NDArray[Any]", "global-memory array to write (1-D, contiguous).", keyword_only=False
        ),
        _ITEMS,
        _OFFSET,
        Parameter(
            "algorithm", "str | BlockStoreAlgorithm", "a ``BlockStoreAlgorithm`` or its name.", "direct"
        ),
        Parameter("valid_items", "int | None", "number of valid items; only those are written.", None),
        _TEMP,
        _TPB,
    ),
    summary="Store a tile of ``threads * items_per_thread`` items cooperatively (CUB BlockStore).",
    details=(
        "All threads of the block must call it. Items are expected in the blocked arrangement "
        "(striped for ``algorithm='striped'``)."
    ),
)

TILE_PRIMITIVES: dict[str, TilePrimitive] = {"load": LOAD, "store": STORE}
