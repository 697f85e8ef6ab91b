# SPDX-License-Identifier: Apache-2.0
"""The C++ renderer: the only module that spells C++.

A kernel's requests become one translation unit of ``extern "C" __device__`` wrappers around
CUB, plus size/alignment probes of every CUB ``TempStorage`` (read back from NVRTC's lowered
name expressions), plus one implicit shared scratch buffer per scratch group (per kernel), plus
one shared buffer per caller-owned ``coop.TempStorage``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ._dtypes import dtype_named
from ._primitives import TILE_PRIMITIVES
from ._requests import BlockTileRequest

_PROBE = "coop_probe"


@dataclass(frozen=True)
class RenderedBundle:
    """A translation unit and the name expressions whose lowered names carry its probes."""

    source: str
    probes: dict[str, str]  # name expression -> request symbol


def temp_storage_symbol(slot: int) -> str:
    """Name of the accessor of caller-owned shared scratch number ``slot``."""
    return f"coop_temp_storage_{slot}"


def _scratch_name(group: int) -> str:
    return f"coop_scratch_{group}"


def _cub_type(req: BlockTileRequest) -> str:
    prim = TILE_PRIMITIVES[req.primitive]
    x, y, z = req.block_dims
    cxx = dtype_named(req.dtype).cxx
    enum = prim.cub_enum_prefix + req.algorithm.upper()
    return f"{prim.cub_class}<{cxx}, {x}, {req.items_per_thread}, {enum}, {y}, {z}>"


def _render_tile(req: BlockTileRequest) -> str:
    prim = TILE_PRIMITIVES[req.primitive]
    t = dtype_named(req.dtype).cxx
    n = req.items_per_thread
    args = "gmem, thread_items"
    if req.partial:
        args += ", valid_items"
    if req.oob_default:
        args += ", *oob_default"
    storage = f"typename {req.symbol}_t::TempStorage"
    sync = ""
    if req.caller_temp_storage:
        ctor = f"{req.symbol}_t(*reinterpret_cast<{storage}*>(temp))"
    elif req.algorithm in prim.scratch_algorithms:
        # All implicit scratch of the kernel is one buffer: wait until every thread is done
        # with its previous use (CUB requires a barrier before TempStorage is reused).
        ctor = f"{req.symbol}_t(*reinterpret_cast<{storage}*>(&{_scratch_name(req.scratch_group)}))"
        sync = "  __syncthreads();\n"
    else:
        ctor = f"{req.symbol}_t()"
    call = f"  {ctor}.{prim.cub_method}({args});\n"
    if (
        req.primitive == "load"
        and req.partial
        and not req.oob_default
        and req.algorithm in prim.scratch_algorithms
    ):
        # CUB exchanges the whole tile, so items past valid_items would come back permuted from
        # other threads: restore the thread's own previous values, as the contract promises.
        x, y, z = req.block_dims
        call = (
            f"  {t} previous[{n}];\n"
            f"  for (int i = 0; i < {n}; ++i) previous[i] = thread_items[i];\n"
            + call
            + f"  const int first = int(cub::RowMajorTid({x}, {y}, {z})) * {n};\n"
            f"  for (int i = 0; i < {n}; ++i)\n"
            "    if (first + i >= valid_items) thread_items[i] = previous[i];\n"
        )
    return (
        f'extern "C" __device__ void {req.symbol}(void* gmem_, void* items, int valid_items, '
        "const void* oob_default_, void* temp)\n"
        "{\n"
        f"  {t}* gmem = static_cast<{t}*>(gmem_);\n"
        f"  const {t}* oob_default = static_cast<const {t}*>(oob_default_);\n"
        f"  {t} (&thread_items)[{n}] = *static_cast<{t} (*)[{n}]>(items);\n"
        f"{sync}{call}"
        "}\n"
    )


def _union(name: str, requests: Sequence[BlockTileRequest]) -> str:
    members = "".join(f"  typename {r.symbol}_t::TempStorage m{i};\n" for i, r in enumerate(requests))
    return f"union {name} {{\n{members or '  char unused;'}\n}};\n"


def render_bundle(requests: Sequence[BlockTileRequest], temp_storage_slots: int) -> RenderedBundle:
    """Render one translation unit for ``requests`` (already deduplicated and ordered)."""
    includes = ["cub/block/block_load.cuh", "cub/block/block_store.cuh"]
    dtypes = {r.dtype for r in requests}
    if "float16" in dtypes:
        includes.append("cuda_fp16.h")
    if "bfloat16" in dtypes:
        includes.append("cuda_bf16.h")
    parts = [f"#include <{h}>\n" for h in includes]
    parts.append(f"template <unsigned long long Size, unsigned long long Align> __device__ char {_PROBE};\n")
    probes: dict[str, str] = {}
    scratch = [r for r in requests if r.algorithm in TILE_PRIMITIVES[r.primitive].scratch_algorithms]
    for req in requests:
        parts.append(f"using {req.symbol}_t = {_cub_type(req)};\n")
    for req in scratch:
        ts = f"typename {req.symbol}_t::TempStorage"
        probes[f"&{_PROBE}<sizeof({ts}), alignof({ts})>"] = req.symbol
    implicit = [r for r in scratch if not r.caller_temp_storage]
    for group in sorted({r.scratch_group for r in implicit}):
        # A kernel's static shared memory is every __shared__ variable it reaches: one buffer per
        # kernel keeps a kernel from paying for another kernel's larger scratch.
        union = f"coop_scratch_union_{group}"
        parts.append(_union(union, [r for r in implicit if r.scratch_group == group]))
        parts.append(f"static __shared__ {union} {_scratch_name(group)};\n")
    if temp_storage_slots:
        parts.append(_union("coop_temp_storage_union", [r for r in scratch if r.caller_temp_storage]))
    for slot in range(temp_storage_slots):
        parts.append(
            f'extern "C" __device__ void* {temp_storage_symbol(slot)}()\n'
            "{\n"
            "  __shared__ coop_temp_storage_union storage;\n"
            "  return &storage;\n"
            "}\n"
        )
    parts.extend(_render_tile(req) for req in requests)
    return RenderedBundle(source="".join(parts), probes=probes)
