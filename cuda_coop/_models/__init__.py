# SPDX-License-Identifier: Apache-2.0
"""Small models of how each primitive moves and combines items, for the documentation's diagrams and
explorers: each explorer steps through one call on a tile small enough to draw (a few threads, a few
items each, warps drawn with ``_core.LANES`` lanes), frame by frame.

The models are NumPy, independent of CUB, and read the catalog's facts where it has them (the load
and store algorithms' arrangements, the choice names); ``tests/test_models.py`` checks each model's
result against the references the GPU tests compare the kernels with, and
``tests/test_models_gpu.py`` against the kernels themselves. ``docs/_ext/coop_explorers.py`` turns the
frames into SVG diagrams and the explorers' JSON.

One module per family of primitives, as the catalog has: ``_core`` (frames, panels, the explorer
and its controls, the tile's arrangements), ``movement`` (load, store, exchange, shuffle),
``reduce_scan`` (reductions, scans, arg-reductions), ``sorting`` (sorts and the data-dependent
primitives), ``cluster_grid`` (a cluster's reduction, a grid scan) and ``explorers`` (the table).
"""

# ruff: noqa: F401  (every import here is re-exported: the names the docs' extension and the tests use)

from __future__ import annotations

from ._core import Explorer, Frame, Panel, _data, _text, option_text, positions
from .cluster_grid import cluster_result, grid_scan_result, look_back
from .explorers import BY_NAME, EXPLORERS
from .movement import exchange_ranks, exchange_result, load_result, shuffle_result, store_result
from .reduce_scan import argmax_result, batched_result, reduce_result, scan_result, warp_scan_result
from .sorting import (
    adjacent_result,
    discontinuity_result,
    histogram_result,
    merge_sort_result,
    radix_sort_result,
    rld_result,
    top_k_result,
)
