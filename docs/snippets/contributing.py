# SPDX-License-Identifier: Apache-2.0
"""docs/contributing.rst: the catalog row of ``coop.block.reduce``, written out (its family,
``cuda_coop/_catalog/reduce.py``, shares its parameters with ``coop.block.sum``; the doc texts are
elided). The test checks that it is the catalog's row in everything but those texts."""

from cuda.coop._catalog._common import _TEMP, _TPB, BLOCK_REDUCE_ALGORITHMS
from cuda.coop._kinds import Choice, Count, Flag, Operator, Payload
from cuda.coop._primitive import Call, Cub, Param, Primitive, Result

# fmt: off
# doc-start: reduce-row
REDUCE = Primitive(
    scope="block",
    name="reduce",
    family="reduce",
    cub=Cub("cub::BlockReduce", "cub/block/block_reduce.cuh",
            ("T", "BLOCK_DIM_X", "algorithm", "BLOCK_DIM_Y", "BLOCK_DIM_Z")),
    params=(
        Param("x", Payload(scalar=True, scalar_form=True, structured=True),
              "ThreadData | tuple[ThreadData, ...] | Any", "...", keyword_only=False),
        Param("op", Operator(), "str | Callable[[Any, Any], Any]", "...", keyword_only=False),
        Param("num_valid", Count("valid", scalar_payload_only=True), "int | None", "...", None),
        Param("algorithm", Choice(BLOCK_REDUCE_ALGORITHMS), "str | BlockReduceAlgorithm", "...",
              "warp_reductions"),
        Param("broadcast", Flag("bcast"), "bool", "...", False),
        _TEMP, _TPB,
    ),
    call=Call("Reduce", ("x", "op", "num_valid"), returns="result"),
    results=(Result("result", "the block's aggregate.", broadcast="broadcast"),),
    summary="...", details="...", returns_doc="...", returns_annotation="Any",
)
# doc-end: reduce-row
# fmt: on
