# SPDX-License-Identifier: Apache-2.0
"""Moving tiles between memory and the threads' items: ``coop.block.load``, ``load_to_shared`` and
``store`` (the concepts page)."""

from __future__ import annotations

from .._choices import Choices
from .._kinds import Choice, Count, Payload, SharedTile
from .._primitive import Call, Cub, Param, Primitive
from ._common import (
    _BLOCK_DIMS,
    _DST,
    _OFFSET,
    _OOB_DEFAULT,
    _SRC,
    _SRC_ONE,
    _STORE_VALID,
    _TEMP,
    _TPB,
    _TUPLED,
    BLOCK_LOAD_ALGORITHMS,
    BLOCK_STORE_ALGORITHMS,
)

LOAD = Primitive(
    scope="block",
    name="load",
    family="load_store",
    cub=Cub(
        "cub::BlockLoad",
        "cub/block/block_load.cuh",
        ("T", "BLOCK_DIM_X", "ITEMS_PER_THREAD", "algorithm", *_BLOCK_DIMS[1:]),
    ),
    params=(
        _SRC,
        Param(
            "items",
            Payload(keep_past=("valid_items", "oob_default"), structured=True),
            _TUPLED,
            "the calling thread's items (a ``coop.ThreadData``).",
            keyword_only=False,
        ),
        _OFFSET,
        Param(
            "algorithm",
            Choice(BLOCK_LOAD_ALGORITHMS),
            "str | BlockLoadAlgorithm",
            "a ``BlockLoadAlgorithm`` or its name.",
            "direct",
        ),
        Param(
            "valid_items",
            Count("partial", full_tile=True),
            "int | None",
            "number of valid items in the tile; items past it are not read.",
            None,
        ),
        _OOB_DEFAULT,
        _TEMP,
        _TPB,
    ),
    call=Call("Load", ("src", "items", "valid_items", "oob_default")),
    scratch="algorithm",
    summary="Load a tile of ``threads * items_per_thread`` items cooperatively (CUB BlockLoad).",
    details=(
        "All threads of the block must call it. Thread ``t`` receives its items in the blocked "
        "arrangement (striped for ``algorithm='striped'``, striped in runs for ``'striped_vectors'``: "
        "see ``BlockLoadAlgorithm``)."
    ),
)

LOAD_TO_SHARED = Primitive(
    scope="block",
    name="load_to_shared",
    family="load_store",
    cub=Cub("coop_block_load_to_shared", "cuda/ptx", ("T", *_BLOCK_DIMS)),
    params=(
        _SRC_ONE,
        Param(
            "dst",
            SharedTile(),
            "Any",
            "the shared-memory array to fill (Numba: a ``cuda.shared.array``; CuTe: a tensor in smem), "
            "1-D and contiguous, of the element type of ``src``.",
            keyword_only=False,
        ),
        Param(
            "num_items",
            Count("num_items"),
            "int",
            "how many items to copy: ``src[offset : offset + num_items]`` into ``dst[0 : num_items]`` "
            "(a runtime integer or a constant; at most ``dst``'s length).",
            keyword_only=False,
        ),
        _OFFSET,
        _TPB,
    ),
    call=Call("Load", ("src", "dst", "num_items")),
    scratch=False,
    summary="Copy a contiguous run of items from global into shared memory, the whole block at once "
    "(one bulk copy on sm_90+).",
    details=(
        "All threads of the block must call it; when it returns, every thread of the block sees the "
        "items in ``dst``, in their order in ``src``. On sm_90 and later, with ``src + offset``, "
        "``dst`` and the run's bytes all multiples of 16 bytes, one thread issues one ``cp.async.bulk`` "
        "copy of the whole run, which completes on the kernel's mbarrier that every thread waits on: "
        "the run travels without registers, in one request to the memory system. Otherwise the "
        "block's threads copy it item by item (striped) and meet on the same mbarrier (before sm_90: "
        "at a block barrier). No block barrier runs per call: the copy may start as soon as one thread "
        "reaches the call, so when it overwrites a ``dst`` that threads read before, put a block "
        "barrier between those reads and the call (as before any shared-memory write that other "
        "threads read). The kernel arms its mbarrier once, at its start. Call it before the kernel's "
        "other loads where it can: the copy then enters the memory system first, and loads issued "
        "after the call, whose data is needed later, overlap the work on ``dst`` (a row staged "
        "first and its weights loaded after ran 8% faster than the other order, RMSNorm at 262144 on "
        "the H200). Loads issued before the call stay in flight while the copy runs. "
        "The items are then read from ``dst`` in any order, as often as needed: a row kernel reads "
        "a row of memory once and keeps it in shared memory, not registers, across its reduction. "
        "``dst`` must be in shared memory: CuTe refuses another tensor; Numba refuses a kernel "
        "argument, and a call whose ``dst`` it cannot trace to a ``cuda.shared.array`` is checked "
        "when it runs (a trap). More than 48 KB of shared memory needs a dynamic shared array "
        "(Numba: ``cuda.shared.array(0, dtype)`` and the launch's ``sharedmem``; CuTe: "
        "``cutlass.utils.SmemAllocator`` and the launch's ``smem``)."
    ),
)

STORE = Primitive(
    scope="block",
    name="store",
    family="load_store",
    cub=Cub(
        "cub::BlockStore",
        "cub/block/block_store.cuh",
        ("T", "BLOCK_DIM_X", "ITEMS_PER_THREAD", "algorithm", *_BLOCK_DIMS[1:]),
    ),
    params=(
        _DST,
        Param(
            "items",
            Payload(read_only=True, structured=True),
            _TUPLED,
            "the calling thread's items (a ``coop.ThreadData``; left as they are).",
            keyword_only=False,
        ),
        _OFFSET,
        Param(
            "algorithm",
            Choice(BLOCK_STORE_ALGORITHMS),
            "str | BlockStoreAlgorithm",
            "a ``BlockStoreAlgorithm`` or its name.",
            "direct",
        ),
        _STORE_VALID,
        _TEMP,
        _TPB,
    ),
    call=Call("Store", ("dst", "items", "valid_items")),
    scratch="algorithm",
    summary="Store a tile of ``threads * items_per_thread`` items cooperatively (CUB BlockStore).",
    details=(
        "All threads of the block must call it. Items are expected in the blocked arrangement "
        "(striped for ``algorithm='striped'``, striped in runs for ``'striped_vectors'``: see "
        "``BlockStoreAlgorithm``)."
    ),
)


#: The family's choice tables, their enums exported in this order (after ``_common.CHOICES``).
CHOICES: tuple[Choices, ...] = ()
#: The family's rows, in the order they are documented.
ROWS = (LOAD, LOAD_TO_SHARED, STORE)
