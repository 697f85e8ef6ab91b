# SPDX-License-Identifier: Apache-2.0
"""The cluster scope (sm_90+): every ``coop.cluster`` row (the clusters page)."""

from __future__ import annotations

from .._choices import Choices
from .._kinds import Choice, IndexArrangement
from .._primitive import Call, Cub, Param, Primitive, Result
from ._common import _BLOCK_DIMS, _OP, _TEMP, _TPB, BLOCK_REDUCE_ALGORITHMS, ITEM_ARRANGEMENTS
from .reduce import _INDICES, _X_REDUCE, _arg_call, _arg_x

# Not one CUB class: coop's own class template (the renderer writes it into the bundle) runs CUB's
# BlockReduce in each block of the thread-block cluster, then each block pushes its aggregate into
# every block's shared memory (distributed shared memory) and every thread folds them in block-rank
# order; the kernel's prologue (``kernel_prologue`` in the renderer) arms the state they share.

_CLUSTER_TEMPLATE = ("BLOCK_DIM_X", "algorithm", *_BLOCK_DIMS[1:], "CLUSTER_BLOCKS", "CLUSTER_STATE")
_CLUSTER_CUB = Cub("coop_cluster_reduce", "cub/block/block_reduce.cuh", ("T", *_CLUSTER_TEMPLATE))
_CLUSTER_ALG = Param(
    "algorithm",
    Choice(BLOCK_REDUCE_ALGORITHMS),
    "str | BlockReduceAlgorithm",
    "the ``BlockReduceAlgorithm`` (or its name) of the reduction within each block.",
    "warp_reductions",
)
_CLUSTER_RESULT = (Result("result", "the cluster's aggregate."),)
_CLUSTER_DETAILS = (
    "All threads of every block of the cluster must call it, in the same order as the kernel's other "
    "cluster calls, in a kernel launched with a thread-block cluster (sm_90 or later; the cluster dims "
    "come from the launch, as the block dims do). Each block reduces its items with CUB's BlockReduce; "
    "then each block's aggregate is pushed into every block's shared memory (distributed shared memory, "
    "st.async completing the receiver's mbarrier) and every thread folds the blocks' aggregates in "
    "block-rank order, so every thread of every block gets the same value. No cluster barrier per call: "
    "the kernel's one cluster barrier is at its start (in a device helper, at the helper's)."
)
_CLUSTER_RETURNS = "the cluster's aggregate, in every thread of every block of the cluster."


def _cluster_reduce(name: str, call: Call, summary: str, details: str = "") -> Primitive:
    params = (_X_REDUCE, _OP) if "op" in call.args else (_X_REDUCE,)
    return Primitive(
        scope="cluster",
        name=name,
        family="cluster",
        cub=_CLUSTER_CUB,
        params=(*params, _CLUSTER_ALG, _TEMP, _TPB),
        call=call,
        results=_CLUSTER_RESULT,
        summary=summary,
        details=_CLUSTER_DETAILS + details,
        returns_doc=_CLUSTER_RETURNS,
        returns_annotation="Any",
    )


CLUSTER_SUM = _cluster_reduce(
    "sum",
    Call("Sum", ("x",), returns="result"),
    "Sum the items of every block of the thread-block cluster (CUB BlockReduce in each block, then the "
    "blocks' sums over distributed shared memory).",
)
CLUSTER_REDUCE = _cluster_reduce(
    "reduce",
    Call("Reduce", ("x", "op"), returns="result"),
    "Reduce the items of every block of the thread-block cluster with an operator.",
    " The operator must be associative; ``algorithm='raking_commutative_only'`` also needs it "
    "commutative within each block.",
)


_CLUSTER_ARRANGEMENT = Param(
    "arrangement",
    IndexArrangement(ITEM_ARRANGEMENTS, runs=True),
    "str | ItemArrangement",
    "how each block's items sit in its part of the cluster's tile, for their default indices: "
    "``'blocked'`` (thread ``t``'s item ``i`` is at ``t*N + i`` of its block's part), ``'striped'`` "
    "(``t + i*T``, as a ``striped`` load of the block's part leaves them) or ``'striped_vectors'`` "
    "(in runs, as a ``striped_vectors`` load leaves them; ``'auto'``: as a load with "
    "``algorithm='auto'``); not with ``indices``.",
    "blocked",
)


def _cluster_arg(name: str, best: str) -> Primitive:
    return Primitive(
        scope="cluster",
        name=name,
        family="cluster",
        cub=Cub("coop_cluster_reduce", "cub/block/block_reduce.cuh", ("INDEXED_T", *_CLUSTER_TEMPLATE)),
        params=(
            _arg_x(best, "thread", arranged=True),
            _INDICES,
            _CLUSTER_ARRANGEMENT,
            _CLUSTER_ALG,
            _TEMP,
            _TPB,
        ),
        call=_arg_call(best, None),
        results=(Result("result", "the (value, index) pair.", indexed=True),),
        summary=f"The cluster's {best} item and its index (a reduction of (value, index) pairs over the "
        "blocks of the thread-block cluster).",
        details=_CLUSTER_DETAILS
        + " An item's index is its ``indices`` entry when given, else its position in the cluster's tile: "
        "the blocks' tiles one after the other in block-rank order, each in the arrangement "
        "``arrangement`` names (the block's rank in the cluster times the block's items, plus, blocked, "
        "the thread's rank times the items per thread plus the item, or, striped, the thread's rank plus "
        "the item times the block's threads). Ties go to the smallest index and a NaN wins over every "
        "number, as for "
        "``coop.block." + name + "``. The items have one scalar type; the index is an int32.",
        returns_doc="a tuple ``(value, index)``: the value of the element type and its int32 index, in "
        "every thread of every block of the cluster.",
        returns_annotation="tuple[Any, Any]",
    )


CLUSTER_ARGMAX = _cluster_arg("argmax", "largest")
CLUSTER_ARGMIN = _cluster_arg("argmin", "smallest")


#: The family's choice tables, their enums exported in this order (after ``_common.CHOICES``).
CHOICES: tuple[Choices, ...] = ()
#: The family's rows, in the order they are documented.
ROWS = (CLUSTER_SUM, CLUSTER_REDUCE, CLUSTER_ARGMAX, CLUSTER_ARGMIN)
