# SPDX-License-Identifier: Apache-2.0
"""Bad input to every kernel-side primitive, on both backends: one table, each row a call that must
fail while the kernel is typed (Numba) or traced (CuTe), before any C++ is compiled, with the
error class and a message that names the argument.

The call text is the same in both DSLs; ``{F32}``/``{I32}``/... stand for each DSL's type names.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from cuda import coop

E = coop.CoopTypeError
V = coop.CoopValueError
H = coop.CoopHostCallError

ROWS: list[tuple[str, str, type[Exception], str]] = [
    # exchange
    ("exchange-unknown-mode", "coop.block.exchange(items, 'sideways')", V, "unknown mode='sideways'"),
    ("exchange-scatter-needs-ranks", "coop.block.exchange(items, 'scatter_to_blocked')", V,
     "mode='scatter_to_blocked' needs ranks="),
    ("exchange-ranks-not-for-mode", "coop.block.exchange(items, 'blocked_to_striped', ranks=ranks)", V,
     "ranks is only for mode"),
    ("exchange-ranks-type", "coop.block.exchange(items, 'scatter_to_blocked', ranks=items)", E,
     "ranks must be a ThreadData of int32, got float32"),
    ("exchange-ranks-count", "coop.block.exchange(items, 'scatter_to_blocked', ranks=two)", V,
     "ranks has 2 items per thread, items has 4"),
    ("exchange-flags-type", "coop.block.exchange(items, FLAGGED, ranks=ranks, valid_flags=items)",
     E, "valid_flags must be a ThreadData of int8 or"),
    ("exchange-flagged-time-sliced",
     "coop.block.exchange(items, FLAGGED, ranks=ranks, valid_flags=flags, warp_time_slicing=True)",
     V, "warp_time_slicing=True is not available for mode='scatter_to_striped_flagged'"),
    ("exchange-count-blocked", "coop.block.exchange(items, 'scatter_to_blocked', ranks=ranks, valid_items=4)",
     V, "valid_items is only for mode='scatter_to_striped' or 'scatter_to_striped_guarded' or"),
    ("exchange-count-time-sliced",
     "coop.block.exchange(items, SCATTER, ranks=ranks, valid_items=4, warp_time_slicing=True)", V,
     "valid_items and warp_time_slicing cannot be used together"),
    ("exchange-count-float", "coop.block.exchange(items, SCATTER, ranks=ranks, valid_items=s)", E,
     "valid_items must be an integer, got "),
    ("exchange-count-negative", "coop.block.exchange(items, SCATTER, ranks=ranks, valid_items=-1)", V,
     "valid_items=-1 is negative"),
    ("exchange-out-dtype", "coop.block.exchange(items, 'blocked_to_striped', out=ints)", E,
     "out has element type int32 but items is a ThreadData of float32"),
    ("exchange-time-slicing-runtime",
     "coop.block.exchange(items, 'blocked_to_striped', warp_time_slicing=flag)", E,
     "warp_time_slicing must be a compile-time constant True or False"),
    ("exchange-mode-missing", "coop.block.exchange(items)", E, "missing a required argument: 'mode'"),
    # sum / reduce
    ("sum-num-valid-needs-scalar", "coop.block.sum(items, num_valid=5)", V, "num_valid needs a scalar x"),
    ("sum-num-valid-negative", "coop.block.sum(s, num_valid=-1)", V, "num_valid=-1 is negative"),
    ("sum-num-valid-float", "coop.block.sum(s, num_valid=s)", E, "num_valid must be an integer"),
    ("sum-broadcast-not-bool", "coop.block.sum(items, broadcast=1)", E,
     "broadcast must be a compile-time constant True or False"),
    ("sum-unknown-algorithm", "coop.block.sum(items, algorithm='fast')", V, "unknown algorithm='fast'"),
    ("sum-array", "coop.block.sum(src)", E,
     "x must be a coop.ThreadData created in the kernel or a typed scalar"),
    ("sum-temp-storage", "coop.block.sum(items, temp_storage=3)", E,
     "temp_storage must be a coop.TempStorage"),
    ("sum-unknown-keyword", "coop.block.sum(items, num=3)", E, "unexpected keyword argument 'num'"),
    ("reduce-unknown-op", "coop.block.reduce(items, 'avg')", V, "unknown op='avg'"),
    ("reduce-bit-and-on-float", "coop.block.reduce(items, 'bit_and')", E,
     "op='bit_and' needs an integer element type, x is float32"),
    ("reduce-op-number", "coop.block.reduce(items, 3)", E, "op must be a built-in operator name"),
    ("reduce-missing-op", "coop.block.reduce(items)", E, "missing a required argument: 'op'"),
    # scans
    ("scan-aggregate-and-prefix", "coop.block.inclusive_sum(items, block_aggregate=True, prefix_op=one)", V,
     "block_aggregate and prefix_op cannot be used together"),
    ("scan-prefix-shape", "coop.block.exclusive_sum(items, prefix_op=items)", E,
     "prefix_op must be a coop.ThreadData of one float32 item"),
    ("scan-prefix-dtype", "coop.block.inclusive_sum(ints, prefix_op=one)", E,
     "prefix_op must be a coop.ThreadData of one int32 item"),
    ("scan-initial-and-prefix",
     "coop.block.inclusive_scan(items, 'max', initial_value=1.0, prefix_op=one)", V,
     "initial_value and prefix_op cannot be used together"),
    ("scan-initial-not-a-number", "coop.block.exclusive_scan(items, 'max', initial_value='a')", E,
     "initial_value must be a number"),
    ("scan-initial-out-of-range", "coop.block.exclusive_scan(i8, 'max', initial_value=300)", V,
     "initial_value=300 is outside the range of int8"),
    ("scan-reduce-algorithm", "coop.block.exclusive_scan(items, 'max', algorithm='warp_reductions')", V,
     "unknown algorithm='warp_reductions'"),
    ("scan-positional-flag", "coop.block.inclusive_sum(items, True)", E, "takes 1 positional arguments"),
    ("scan-xor-on-float", "coop.block.inclusive_scan(items, 'bit_xor')", E, "op='bit_xor' needs an integer"),
    # load / store / ThreadData
    ("load-to-shared-global-dst", "coop.block.load_to_shared(src, dst, 128)", E,
     "dst is in global memory ("),
    ("load-to-shared-thread-data-dst", "coop.block.load_to_shared(src, items, 128)", E,
     "dst must be an array in shared memory"),
    ("load-to-shared-num-items-missing", "coop.block.load_to_shared(src, items)", E,
     "missing a required argument: 'num_items'"),
    ("load-negative-offset", "coop.block.load(src, items, offset=-1)", V, "offset=-1 is negative"),
    ("load-offset-float", "coop.block.load(src, items, offset=s)", E, "offset must be an integer"),
    ("load-oob-without-valid", "coop.block.load(src, items, oob_default=0.0)", V,
     "oob_default is given without valid_items"),
    ("store-unknown-algorithm", "coop.block.store(dst, items, algorithm='fastest')", V,
     "unknown algorithm='fastest'"),
    ("thread-data-too-many", "coop.ThreadData(300, {F32})", V, "items_per_thread=300 must be in 1..256"),
    ("temp-storage-sharing", "coop.TempStorage(sharing='private')", V,
     "coop.TempStorage: sharing='private' is not one of 'shared'"),
    ("temp-storage-auto-sync", "coop.TempStorage(auto_sync=1)", E,
     "coop.TempStorage: auto_sync must be a compile-time True or False"),
    ("temp-storage-unknown", "coop.TempStorage(size=128)", E,
     "coop.TempStorage: got an unexpected keyword argument 'size'"),
    # constants that are wrong for their parameter's type (issue 9)
    ("load-oob-not-integral", "coop.block.load(isrc, ints, valid_items=3, oob_default=1.5)", V,
     "oob_default=1.5 is not an integer and cannot be stored in int32"),
    ("scan-initial-overflows-half", "coop.block.exclusive_scan(h16, 'max', initial_value=1e10)", V,
     "initial_value=10000000000.0 overflows float16"),
    ("load-oob-overflows-half", "coop.block.load(hsrc, h16, valid_items=3, oob_default=1e10)", V,
     "oob_default=10000000000.0 overflows float16"),
    ("load-oob-complex", "coop.block.load(src, items, valid_items=3, oob_default=1j)", E,
     "oob_default must be a number"),
    ("load-valid-items-too-large", "coop.block.load(src, items, valid_items=2**32 + 5)", V,
     "valid_items=4294967301 does not fit CUB's int"),
    ("load-valid-items-beyond-64-bits", "coop.block.load(src, items, valid_items=2**64)", V,
     "valid_items=18446744073709551616 does not fit CUB's int"),
    ("load-another-primitives-algorithm",
     "coop.block.load(src, items, algorithm=coop.BlockStoreAlgorithm.TRANSPOSE)", V,
     "algorithm=BlockStoreAlgorithm.TRANSPOSE is another primitive's choice"),
    # warp primitives
    ("warp-width-not-a-warp", "coop.warp.sum(items, threads_in_warp=3)", V,
     "threads_in_warp=3 is not a logical warp width; allowed: 1, 2, 4, 8, 16, 32"),
    ("warp-width-runtime", "coop.warp.reduce(s, 'max', threads_in_warp=s)", E,
     "threads_in_warp must be a compile-time constant int"),
    ("warp-sum-valid-needs-scalar", "coop.warp.sum(items, valid_items=3)", V, "valid_items needs a scalar x"),
    ("warp-sum-temp-storage", "coop.warp.sum(items, temp_storage=3)", E,
     "temp_storage must be a coop.TempStorage"),
    ("warp-reduce-unknown-op", "coop.warp.reduce(s, 'avg')", V, "unknown op='avg'"),
    ("warp-reduce-broadcast-not-bool", "coop.warp.reduce(s, 'max', broadcast=1)", E,
     "broadcast must be a compile-time constant True or False"),
    ("warp-scan-thread-data", "coop.warp.inclusive_sum(items)", E,
     "coop.warp.inclusive_sum: x must be a typed scalar (CUB takes one value per thread here"),
    ("warp-scan-initial-out-of-range", "coop.warp.exclusive_scan(i8[0], 'max', initial_value=300)", V,
     "initial_value=300 is outside the range of int8"),
    ("warp-scan-valid-float", "coop.warp.inclusive_scan(s, 'max', valid_items=s)", E,
     "valid_items must be an integer"),
    ("warp-scan-aggregate-runtime", "coop.warp.exclusive_sum(s, warp_aggregate=flag)", E,
     "warp_aggregate must be a compile-time constant True or False"),
    ("warp-scan-xor-on-float", "coop.warp.inclusive_scan(s, 'bit_xor')", E, "op='bit_xor' needs an integer"),
    ("warp-broadcast-lane-float", "coop.warp.broadcast(s, s)", E, "src_lane must be an integer"),
    ("warp-broadcast-missing-lane", "coop.warp.broadcast(s)", E, "missing a required argument: 'src_lane'"),
    ("warp-load-block-algorithm", "coop.warp.load(src, items, algorithm='warp_transpose')", V,
     "unknown algorithm='warp_transpose'"),
    ("warp-load-block-enum", "coop.warp.load(src, items, algorithm=coop.BlockLoadAlgorithm.DIRECT)", V,
     "algorithm=BlockLoadAlgorithm.DIRECT is another primitive's choice; pass coop.WarpLoadAlgorithm.DIRECT"),
    ("warp-load-oob-without-valid", "coop.warp.load(src, items, oob_default=0.0)", V,
     "oob_default is given without valid_items"),
    ("warp-store-dtype", "coop.warp.store(dst, ints)", E,
     "dst has element type float32 but items is a ThreadData of int32"),
    ("warp-store-negative-offset", "coop.warp.store(dst, items, offset=-4)", V, "offset=-4 is negative"),
    ("warp-exchange-unknown-mode", "coop.warp.exchange(items, 'scatter_to_blocked')", V,
     "unknown mode='scatter_to_blocked'"),
    ("warp-exchange-needs-ranks", "coop.warp.exchange(items, 'scatter_to_striped')", V,
     "mode='scatter_to_striped' needs ranks="),
    ("warp-exchange-shuffle-square",
     "coop.warp.exchange(items, 'blocked_to_striped', algorithm='shuffle')", V,
     "algorithm='shuffle' needs items_per_thread == threads_in_warp, got 4 items and threads_in_warp=32"),
    ("warp-exchange-shuffle-scatter",
     "coop.warp.exchange(items, SCATTER, ranks=ranks, algorithm='shuffle', threads_in_warp=4)", V,
     "algorithm='shuffle' has no mode='scatter_to_striped'"),
    ("warp-exchange-ranks-type", "coop.warp.exchange(items, 'scatter_to_striped', ranks=items)", E,
     "ranks must be a ThreadData of int32, got float32"),
    ("warp-sort-unknown-comparator", "coop.warp.merge_sort(items, 'max')", V,
     "unknown op='max'; built-in comparators (and their other spellings): "
     "'less' (\"<\", operator.lt, np.less), 'greater' (\">\", operator.gt, np.greater); or pass a function"),
    ("warp-sort-comparator-number", "coop.warp.merge_sort(items, 1)", E,
     "op must be a built-in comparator name ('less', 'greater') or a function"),
    ("warp-sort-missing-op", "coop.warp.merge_sort(items)", E, "missing a required argument: 'op'"),
    ("warp-sort-scalar-keys", "coop.warp.merge_sort(s, 'less')", E,
     "keys must be a coop.ThreadData created in the kernel"),
    ("warp-sort-values-count", "coop.warp.merge_sort(ints, 'less', values=two)", V,
     "values has 2 items per thread, keys has 4"),
    ("warp-sort-values-array", "coop.warp.merge_sort(items, 'less', values=src)", E,
     "values must be a coop.ThreadData created in the kernel"),
    ("warp-sort-oob-without-valid", "coop.warp.merge_sort(items, 'less', oob_default=1e9)", V,
     "oob_default is given without valid_items"),
    ("warp-sort-oob-out-of-range", "coop.warp.merge_sort(i8, 'less', valid_items=3, oob_default=300)", V,
     "oob_default=300 is outside the range of int8"),
    ("warp-sort-valid-float", "coop.warp.merge_sort(items, 'less', valid_items=s)", E,
     "valid_items must be an integer"),
    ("warp-sort-width", "coop.warp.merge_sort(items, 'less', threads_in_warp=12)", V,
     "threads_in_warp=12 is not a logical warp width"),
    ("warp-head-sum-flag-float", "coop.warp.head_segmented_sum(s, s)", E,
     "head_flag must be a flag, a boolean or an integer (nonzero means set), got "),
    ("warp-tail-reduce-thread-data", "coop.warp.tail_segmented_reduce(items, 1, 'max')", E,
     "x must be a typed scalar"),
    ("warp-head-reduce-missing-op", "coop.warp.head_segmented_reduce(s, flag)", E,
     "missing a required argument: 'op'"),
    ("warp-tail-reduce-unknown-op", "coop.warp.tail_segmented_reduce(s, flag, 'avg')", V, "unknown op='avg'"),
    ("warp-batched-scalar", "coop.warp.batched_sum(s)", E,
     "x must be a coop.ThreadData created in the kernel"),
    ("warp-batched-arrangement", "coop.warp.batched_sum(items, arrangement='diagonal')", V,
     "unknown arrangement='diagonal'"),
    ("warp-batched-bit-or-on-float", "coop.warp.batched_reduce(items, 'bit_or')", E,
     "op='bit_or' needs an integer element type"),
    ("warp-batched-sync-runtime", "coop.warp.batched_sum(items, sync_physical_warp=flag)", E,
     "sync_physical_warp must be a compile-time constant True or False"),
    ("warp-sort-tile-too-large", "coop.warp.merge_sort(big, 'less')", V,
     "the sort stages the block's tiles through shared memory (128 threads x 128 items x 4 B = 65536 B), "
     "above the 49152 B static limit"),
    # sorting and data-dependent primitives (issue 10)
    ("merge-sort-unknown-comparator", "coop.block.merge_sort(items, 'sum')", V,
     "unknown op='sum'; built-in comparators (and their other spellings): "
     "'less' (\"<\", operator.lt, np.less), 'greater' (\">\", operator.gt, np.greater); or pass a function"),
    ("merge-sort-comparator-number", "coop.block.merge_sort(items, 2)", E,
     "op must be a built-in comparator name ('less', 'greater') or a function"),
    ("merge-sort-missing-op", "coop.block.merge_sort(items)", E, "missing a required argument: 'op'"),
    ("merge-sort-scalar-keys", "coop.block.merge_sort(s, 'less')", E,
     "keys must be a coop.ThreadData created in the kernel"),
    ("merge-sort-values-count", "coop.block.merge_sort(items, 'less', values=two)", V,
     "values has 2 items per thread, keys has 4"),
    ("merge-sort-values-array", "coop.block.merge_sort(items, 'less', values=src)", E,
     "values must be a coop.ThreadData created in the kernel"),
    ("merge-sort-oob-without-valid", "coop.block.merge_sort(items, 'less', oob_default=1e9)", V,
     "oob_default is given without valid_items"),
    ("merge-sort-oob-out-of-range", "coop.block.merge_sort(i8, 'less', valid_items=3, oob_default=-300)", V,
     "oob_default=-300 is outside the range of int8"),
    ("merge-sort-valid-float", "coop.block.merge_sort(items, 'less', valid_items=s)", E,
     "valid_items must be an integer"),
    ("merge-sort-stable-runtime", "coop.block.merge_sort(items, 'less', stable=flag)", E,
     "stable must be a compile-time constant True or False"),
    ("merge-sort-tile-too-large", "coop.block.merge_sort(big, 'less')", V,
     "the sort stages the block's tiles through shared memory (128 threads x 128 items x 4 B = 65536 B), "
     "above the 49152 B static limit"),
    ("rld-no-runs", "coop.block.run_length_decode(items, decoded_items_per_thread=4)", V,
     "pass run_lengths (each run's length) or run_offsets (each run's start)"),
    ("rld-lengths-and-offsets",
     "coop.block.run_length_decode(items, "
     "decoded_items_per_thread=4, run_lengths=ints, run_offsets=ranks)", V,
     "run_lengths and run_offsets cannot be used together"),
    ("rld-lengths-float", "coop.block.run_length_decode(ints, "
     "decoded_items_per_thread=4, run_lengths=items)", E,
     "run_lengths must be a ThreadData of int32 or uint32"),
    ("rld-lengths-count", "coop.block.run_length_decode(items, "
     "decoded_items_per_thread=2, run_lengths=two)", V,
     "run_lengths has 2 items per thread, run_values has 4"),
    ("rld-missing-window", "coop.block.run_length_decode(items, run_lengths=ints)", E,
     "missing a required argument: 'decoded_items_per_thread'"),
    ("rld-window-runtime", "coop.block.run_length_decode(items, "
     "decoded_items_per_thread=ints[0], run_lengths=ints)",
     E, "decoded_items_per_thread must be a compile-time constant int"),
    ("rld-window-zero", "coop.block.run_length_decode(items, "
     "decoded_items_per_thread=0, run_lengths=ints)", V,
     "decoded_items_per_thread=0 is out of range"),
    ("rld-from-negative",
     "coop.block.run_length_decode(items, "
     "decoded_items_per_thread=4, run_lengths=ints, from_decoded_offset=-2)",
     V, "from_decoded_offset=-2 is negative"),
    ("rld-from-float",
     "coop.block.run_length_decode(items, "
     "decoded_items_per_thread=4, run_lengths=ints, from_decoded_offset=s)",
     E, "from_decoded_offset must be an integer"),
    ("rld-relative-runtime",
     "coop.block.run_length_decode(items, "
     "decoded_items_per_thread=4, run_lengths=ints, relative_offsets=flag)",
     E, "relative_offsets must be a compile-time constant True or False"),
    ("rld-values-scalar", "coop.block.run_length_decode(s, decoded_items_per_thread=4, run_lengths=ints)", E,
     "run_values must be a coop.ThreadData created in the kernel"),
    ("rld-offsets-float", "coop.block.run_length_decode(big, decoded_items_per_thread=4, run_offsets=big)", E,
     "run_offsets must be a ThreadData of int32"),
    ("radix-rank-signed-keys", "coop.block.radix_rank(ints, begin_bit=0, num_bits=4)", E,
     "keys must be a ThreadData of an unsigned integer type (the keys' bits), got int32"),
    ("radix-rank-missing-num-bits", "coop.block.radix_rank(flags, begin_bit=0)", E,
     "missing a required argument: 'num_bits'"),
    ("radix-rank-missing-begin", "coop.block.radix_rank(flags, num_bits=4)", E,
     "missing a required argument: 'begin_bit'"),
    ("radix-rank-num-bits-runtime", "coop.block.radix_rank(flags, begin_bit=0, num_bits=ints[0])", E,
     "num_bits must be a compile-time constant int (1..8)"),
    ("radix-rank-num-bits-range", "coop.block.radix_rank(flags, begin_bit=0, num_bits=9)", V,
     "num_bits=9 is out of range; allowed: 1..8"),
    ("radix-rank-past-key", "coop.block.radix_rank(flags, begin_bit=6, num_bits=3)", V,
     "begin_bit=6 with num_bits=3 reaches past the key's 8 bits (uint8); pass begin_bit <= 5"),
    ("radix-rank-begin-float", "coop.block.radix_rank(flags, begin_bit=s, num_bits=3)", E,
     "begin_bit must be an integer"),
    ("radix-rank-begin-negative", "coop.block.radix_rank(flags, begin_bit=-1, num_bits=3)", V,
     "begin_bit=-1 is negative"),
    ("radix-rank-algorithm", "coop.block.radix_rank(flags, begin_bit=0, num_bits=3, algorithm='onesweep')", V,
     "unknown algorithm='onesweep'"),
    ("radix-rank-descending-runtime",
     "coop.block.radix_rank(flags, begin_bit=0, num_bits=3, descending=flag)", E,
     "descending must be a compile-time constant True or False"),
    ("radix-rank-counters", "coop.block.radix_rank(flags, begin_bit=0, num_bits=8)", V,
     "num_bits=8 needs 66048 B of digit counters for 128 threads"),
    ("radix-sort-values-count", "coop.block.radix_sort(items, values=two)", V,
     "values has 2 items per thread, keys has 4"),
    ("radix-sort-values-array", "coop.block.radix_sort(items, values=src)", E,
     "values must be a coop.ThreadData"),
    ("radix-sort-scalar", "coop.block.radix_sort(s)", E, "keys must be a coop.ThreadData"),
    ("radix-sort-begin-past-key", "coop.block.radix_sort(i8, begin_bit=8)", V,
     "begin_bit=8 is past the key's 8 bits (int8)"),
    ("radix-sort-end-past-key", "coop.block.radix_sort(items, end_bit=33)", V,
     "end_bit=33 is outside the key's 32 bits (float32)"),
    ("radix-sort-empty-range", "coop.block.radix_sort(items, begin_bit=8, end_bit=8)", V,
     "begin_bit=8 is not below end_bit=8"),
    ("radix-sort-bits-float", "coop.block.radix_sort(items, begin_bit=s)", E, "begin_bit must be an integer"),
    ("radix-sort-radix-bits", "coop.block.radix_sort(items, radix_bits=9)", V,
     "radix_bits=9 is out of range; allowed: 1..8"),
    ("radix-sort-radix-bits-runtime", "coop.block.radix_sort(ints, radix_bits=ints[0])", E,
     "radix_bits must be a compile-time constant int"),
    ("radix-sort-counters", "coop.block.radix_sort(items, radix_bits=8)", V,
     "radix_bits=8 needs 66048 B of digit counters for 128 threads"),
    ("radix-sort-descending-runtime", "coop.block.radix_sort(items, descending=flag)", E,
     "descending must be a compile-time constant True or False"),
    ("radix-sort-output", "coop.block.radix_sort(items, output='warp_striped')", V,
     "unknown output='warp_striped'"),
    ("adjacent-successor-on-left", "coop.block.adjacent_difference(items, tile_successor=s)", V,
     "tile_successor is only for direction='right'"),
    ("adjacent-predecessor-on-right",
     "coop.block.adjacent_difference(items, direction='right', tile_predecessor=s)", V,
     "tile_predecessor is only for direction='left'"),
    ("adjacent-successor-partial",
     "coop.block.adjacent_difference(items, direction='right', tile_successor=s, valid_items=3)", V,
     "tile_successor and valid_items cannot be used together"),
    ("adjacent-unknown-op", "coop.block.adjacent_difference(items, op='divide')", V, "unknown op='divide'"),
    ("adjacent-unknown-direction", "coop.block.adjacent_difference(items, direction='up')", V,
     "unknown direction='up'"),
    ("adjacent-predecessor-out-of-range", "coop.block.adjacent_difference(i8, tile_predecessor=300)", V,
     "tile_predecessor=300 is outside the range of int8"),
    ("reduce-subtract-not-associative", "coop.block.reduce(items, 'subtract')", V, "unknown op='subtract'"),
    ("reduce-subtract-spelled", "coop.block.reduce(items, '-')", V,
     "op='-' spells the built-in 'subtract', which is not one of op's built-in operators: 'sum' (\"+\""),
    ("reduce-comparator-spelled", "coop.block.reduce(items, '<')", V, "op='<' spells the built-in 'less'"),
    ("sort-operator-spelled", "coop.block.merge_sort(items, '+')", V,
     "op='+' spells the built-in 'sum', which is not one of op's built-in comparators: 'less' (\"<\""),
    ("discontinuity-unknown-flags", "coop.block.discontinuity(items, flags='edges')", V,
     "unknown flags='edges'; allowed: 'heads', 'tails', 'heads_and_tails'"),
    ("discontinuity-successor-on-heads", "coop.block.discontinuity(items, tile_successor=s)", V,
     "tile_successor is only for flags='tails' or 'heads_and_tails', not flags='heads'"),
    ("discontinuity-predecessor-on-tails",
     "coop.block.discontinuity(items, flags='tails', tile_predecessor=s)", V,
     "tile_predecessor is only for flags='heads' or 'heads_and_tails', not flags='tails'"),
    ("discontinuity-arithmetic-op", "coop.block.discontinuity(items, op='sum')", V,
     "unknown op='sum'; built-in comparators (and their other spellings): 'not_equal' (\"!=\", "),
    ("discontinuity-op-number", "coop.block.discontinuity(items, op=3)", E,
     "op must be a built-in comparator name ('not_equal', 'equal', 'less', 'greater') or a function"),
    ("discontinuity-scalar", "coop.block.discontinuity(s)", E, "items must be a coop.ThreadData"),
    ("discontinuity-predecessor-out-of-range", "coop.block.discontinuity(i8, tile_predecessor=300)", V,
     "tile_predecessor=300 is outside the range of int8"),
    ("shuffle-unknown-mode", "coop.block.shuffle(s, mode='left')", V,
     "unknown mode='left'; allowed: 'offset', 'rotate', 'up', 'down'"),
    ("shuffle-offset-thread-data", "coop.block.shuffle(items, distance=2)", E,
     "mode='offset' moves one value per thread; x must be a typed scalar"),
    ("shuffle-up-scalar", "coop.block.shuffle(s, mode='up')", E,
     "mode='up' moves the items of a blocked tile; x must be a coop.ThreadData"),
    ("shuffle-distance-on-up", "coop.block.shuffle(items, mode='up', distance=2)", V,
     "distance is only for mode='offset' or 'rotate', not mode='up'"),
    ("shuffle-suffix-on-down", "coop.block.shuffle(items, mode='down', block_suffix=True)", V,
     "block_suffix is only for mode='up', not mode='down'"),
    ("shuffle-rotate-negative", "coop.block.shuffle(s, mode='rotate', distance=-1)", V,
     "distance=-1 is outside 0..127; mode='rotate' takes a distance below the block's 128 threads"),
    ("shuffle-distance-float", "coop.block.shuffle(s, distance=s)", E, "distance must be an integer"),
    ("histogram-float-samples", "coop.block.histogram(items, isrc, bins=16)", E,
     "samples must be a ThreadData of an integer type (bin numbers), got float32"),
    ("histogram-float-counters", "coop.block.histogram(ints, src, bins=16)", E,
     "counters must hold int32 or uint32 or uint64 counters, got float32"),
    ("histogram-thread-data-counters", "coop.block.histogram(ints, ranks, bins=16)", E,
     "counters must be an array of int32 or uint32 or uint64 counters in shared or global memory"),
    ("histogram-bins-missing", "coop.block.histogram(ints, isrc)", E, "missing a required argument: 'bins'"),
    ("histogram-bins-zero", "coop.block.histogram(ints, isrc, bins=0)", V,
     "bins=0 is out of range; allowed: 1..65536"),
    ("histogram-bins-runtime", "coop.block.histogram(ints, isrc, bins=ints[0])", E,
     "bins must be a compile-time constant int"),
    ("histogram-sort-too-many-bins", "coop.block.histogram(ints, isrc, bins=8192, algorithm='sort')", V,
     "algorithm='sort' keeps 65536 B of run bounds for bins=8192"),
    ("histogram-unknown-algorithm", "coop.block.histogram(ints, isrc, bins=16, algorithm='radix')", V,
     "unknown algorithm='radix'; allowed: 'atomic', 'sort'"),
    ("histogram-init-runtime", "coop.block.histogram(ints, isrc, bins=16, init=flag)", E,
     "init must be a compile-time constant True or False"),
    ("histogram-negative-offset", "coop.block.histogram(ints, isrc, bins=16, offset=-1)", V,
     "offset=-1 is negative"),
    ("shuffle-prefix-runtime", "coop.block.shuffle(items, mode='down', block_prefix=flag)", E,
     "block_prefix must be a compile-time constant True or False"),
    ("top-k-missing-k", "coop.block.top_k(items)", E, "missing a required argument: 'k'"),
    ("top-k-float-k", "coop.block.top_k(items, s)", E, "k must be an integer"),
    ("top-k-negative-k", "coop.block.top_k(items, -1)", V, "k=-1 is negative"),
    ("top-k-largest-runtime", "coop.block.top_k(items, 3, largest=flag)", E,
     "largest must be a compile-time constant True or False"),
    ("top-k-values-count", "coop.block.top_k(items, 3, values=two)", V,
     "values has 2 items per thread, keys has 4"),
    ("top-k-valid-float", "coop.block.top_k(items, 3, valid_items=s)", E, "valid_items must be an integer"),
    ("top-k-keys-scalar", "coop.block.top_k(s, 3)", E,
     "keys must be a coop.ThreadData created in the kernel"),
    ("top-k-tile-too-big", "coop.block.top_k(big, 3)", V,
     "the selected items are gathered through a tile in shared memory (128 threads x 128 items x 4 B"),
    # structured items (tuples)
    ("tuple-unequal-items", "coop.block.exchange((items, two), 'blocked_to_striped')", E,
     "have [2, 4] items"),
    ("tuple-builtin-max", "coop.block.reduce((items, ints), 'max')", E,
     "only some built-in operators apply to tuples, field by field"),
    ("tuple-radix-sort-keys", "coop.block.radix_sort((items, ints))", E,
     "keys is a tuple of (float32, int32) items"),
    ("tuple-top-k-keys", "coop.block.top_k((items, ints), 3)", E, "pass further fields as values="),
    ("tuple-histogram-samples", "coop.block.histogram((ints, ints), isrc, bins=16)", E,
     "samples are bin indices of one integer type"),
    ("tuple-load-one-array", "coop.block.load(src, (items, ints))", E,
     "src has element type float32 but items is a tuple of ThreadData of (float32, int32); pass one "
     "array per field, of the field's type"),
    ("tuple-store-field-types", "coop.block.store((src, src), (items, ints))", E,
     "dst has a tuple of arrays of (float32, float32) but items is a tuple of ThreadData of "
     "(float32, int32)"),
    ("warp-load-auto", "coop.warp.load(src, items, algorithm='auto', threads_in_warp=8)", V,
     "unknown algorithm='auto'; allowed: 'direct', 'striped', 'vectorize', 'transpose'"),
    ("warp-argmax-runs", "coop.warp.argmax(items, arrangement=RUNS, threads_in_warp=8)", V,
     "arrangement='striped_vectors' numbers the items as a block's striped_vectors load leaves them"),
    ("warp-argmax-auto", "coop.warp.argmax(items, arrangement='auto', threads_in_warp=8)", V,
     "arrangement='auto' numbers the items as a block's striped_vectors load leaves them"),
    ("argmax-auto-and-indices", "coop.block.argmax(items, indices=ints, arrangement='auto')", V,
     "arrangement= arranges the default indices, and indices= gives them"),
    ("warp-load-striped-vectors", "coop.warp.load(src, items, algorithm=RUNS, threads_in_warp=8)",
     V, "unknown algorithm='striped_vectors'"),
    ("tuple-arrays-scalar-items", "coop.block.load((src, isrc), items)", E,
     "src has a tuple of arrays of (float32, int32) but items is a ThreadData of float32"),
    ("tuple-oob-default-arity",
     "coop.block.load((src, isrc), (items, ints), valid_items=5, oob_default=(1, 2, 3))", E,
     "oob_default must be a tuple of 2 values"),
    ("tuple-oob-default-one-not-int",
     "coop.block.load((src, isrc), (items, ints), valid_items=5, oob_default=1.5)", V,
     "oob_default=1.5 is not an integer and cannot be stored in int32"),
    ("tuple-warp-load-one-array", "coop.warp.load(src, (items, ints), threads_in_warp=8)", E,
     "src has element type float32 but items is a tuple of ThreadData of (float32, int32)"),
    ("tuple-nested", "coop.block.reduce(((items, ints), items), 'sum')", E,
     "a tuple of tuples: structured items are one flat tuple"),
    ("tuple-values-count", "coop.block.merge_sort(items, 'less', values=(two, two))", V,
     "values has 2 items per thread, keys has 4"),
    ("tuple-warp-shuffle-exchange",
     "coop.warp.exchange((items, ints), 'blocked_to_striped', algorithm='shuffle', threads_in_warp=4)", E,
     "algorithm='shuffle' moves each item with one __shfl_xor_sync"),
    # argmax / argmin
    ("argmax-tuple", "coop.block.argmax((items, ints))", E, "x is a tuple of (float32, int32) items"),
    ("argmax-indices-float", "coop.block.argmax(items, indices=items)", E,
     "indices must be a coop.ThreadData of 4 int32 items"),
    ("argmax-indices-count", "coop.block.argmax(items, indices=two)", E,
     "indices must be a coop.ThreadData of 4 int32 items"),
    ("argmax-scalar-indices-float", "coop.block.argmax(s, indices=s)", E, "indices must be an integer"),
    ("argmin-num-valid-needs-scalar", "coop.block.argmin(items, num_valid=5)", V,
     "num_valid needs a scalar x"),
    ("argmin-broadcast-not-bool", "coop.block.argmin(items, broadcast=1)", E,
     "broadcast must be a compile-time constant True or False"),
    ("warp-argmax-valid-needs-scalar", "coop.warp.argmax(items, valid_items=3)", V,
     "valid_items needs a scalar x"),
    ("warp-argmin-width", "coop.warp.argmin(s, threads_in_warp=3)", V, "threads_in_warp=3 is not a logical"),
    ("warp-argmax-indices-array", "coop.warp.argmax(items, indices=src)", E,
     "indices must be a coop.ThreadData of 4 int32 items"),
    ("argmax-arrangement-unknown", "coop.block.argmax(items, arrangement='warp_striped')", V,
     "unknown arrangement='warp_striped'; allowed: "),
    ("argmax-arrangement-and-indices", "coop.block.argmax(items, indices=ints, arrangement='striped')", V,
     "arrangement= arranges the default indices, and indices= gives them; pass one of the two"),
    ("warp-argmin-arrangement-runtime", "coop.warp.argmin(items, arrangement=s, threads_in_warp=8)", E,
     "arrangement must be a compile-time constant"),
    ("cluster-argmax-arrangement-and-indices",
     "coop.cluster.argmax(items, indices=ints, arrangement='striped')", V,
     "arrangement= arranges the default indices, and indices= gives them; pass one of the two"),
    ("cluster-argmin-arrangement-runtime", "coop.cluster.argmin(items, arrangement=s)", E,
     "arrangement must be a compile-time constant"),
    # warp top-k
    ("warp-top-k-k-runtime", "coop.warp.top_k(items, ints[0])", E,
     "k must be a compile-time constant int (1..32)"),
    ("warp-top-k-k-zero", "coop.warp.top_k(items, 0)", V, "k=0 is out of range; allowed: 1..32"),
    ("warp-top-k-k-over-width", "coop.warp.top_k(items, 16, threads_in_warp=8)", V,
     "k=16 is more than threads_in_warp=8: the list holds one entry a lane; pass k <= 8"),
    ("warp-top-k-int8", "coop.warp.top_k(i8, 4)", E,
     "items must be a ThreadData of float32, float16, bfloat16, int32, got int8"),
    ("warp-top-k-too-many-items", "coop.warp.top_k(big, 4)", V,
     "items has 128 items a lane, more than 64 (a lane marks its candidates in one 64-bit word)"),
    ("warp-top-k-scalar", "coop.warp.top_k(s, 4)", E,
     "items must be a coop.ThreadData created in the kernel"),
    ("warp-top-k-tuple", "coop.warp.top_k((items, ints), 4)", E,
     "select by one key: pass the key as items and carry the rest by its index"),
    ("warp-top-k-running-scalar", "coop.warp.top_k(items, 4, running=s)", E,
     "running must be the list that the previous call returned: a tuple of a float32 value"),
    ("warp-top-k-running-types", "coop.warp.top_k(items, 4, running=(s, s))", E,
     "and an int32 index, got"),
    ("warp-top-k-first-negative", "coop.warp.top_k(items, 4, first=-1)", V, "first=-1 is negative"),
    ("warp-top-k-first-and-indices", "coop.warp.top_k(items, 4, first=4, indices=ints)", V,
     "first and indices cannot be used together; pass one of them"),
    ("warp-top-k-arrangement-and-indices",
     "coop.warp.top_k(items, 4, indices=ints, arrangement='blocked')", V,
     "arrangement= arranges the default indices, and indices= gives them; pass one of the two"),
    ("warp-top-k-indices-float", "coop.warp.top_k(items, 4, indices=items)", E,
     "indices must be a coop.ThreadData of 4 int32 items"),
    ("warp-top-k-unknown-arrangement", "coop.warp.top_k(items, 4, arrangement='warp_striped')", V,
     "unknown arrangement='warp_striped'; allowed: "),
    # cluster (argument errors come before the launch's; the table's kernels have no cluster)
    ("cluster-sum-array", "coop.cluster.sum(src)", E,
     "x must be a coop.ThreadData created in the kernel or a typed scalar"),
    ("cluster-sum-unknown-algorithm", "coop.cluster.sum(items, algorithm='fast')", V,
     "unknown algorithm='fast'"),
    ("cluster-reduce-unknown-op", "coop.cluster.reduce(items, 'avg')", V, "unknown op='avg'"),
    ("cluster-argmax-indices-float", "coop.cluster.argmax(items, indices=items)", E,
     "indices must be a coop.ThreadData of 4 int32 items"),
    ("cluster-argmin-broadcast", "coop.cluster.argmin(items, broadcast=True)", E,
     "unexpected keyword argument 'broadcast'"),
    ("cluster-sum-no-cluster", "coop.cluster.sum(items)", coop.CoopLaunchConfigError,
     "combines the blocks of a thread-block cluster, and the launch"),
    # grid scans (the workspace is checked before the tile, the total and the algorithm)
    ("grid-tile-index-float-array", "coop.grid.tile_index(src)", E,
     "state must be a contiguous array of uint64 (a coop.grid.ScanState)"),
    ("grid-tile-index-scalar", "coop.grid.tile_index(s)", E, "state must be a grid scan's workspace"),
    ("grid-sum-int32-state", "coop.grid.exclusive_sum(items, isrc, 0)", E,
     "state must be a contiguous array of uint64"),
    ("grid-sum-array-items", "coop.grid.inclusive_sum(src, isrc, 0)", E,
     "x must be a coop.ThreadData created in the kernel or a typed scalar"),
    ("grid-scan-unknown-op", "coop.grid.inclusive_scan(items, 'avg', isrc, 0)", V, "unknown op='avg'"),
    ("grid-scan-no-state", "coop.grid.exclusive_scan(items, 'max')", E,
     "missing a required argument: 'state'"),
    # the complex product on what is not complex (complex numbers themselves: COMPLEX_ROWS)
    ("complex-mul-on-float", "coop.block.inclusive_scan(items, 'complex_mul')", E,
     "op='complex_mul' multiplies complex numbers: x must have complex items"),
    ("complex-mul-on-mixed-pair", "coop.block.reduce((items, ints), 'complex_mul')", E,
     "or be a pair (re, im) of one float type, got tuple_float32_int32"),
    ("complex-mul-on-triple", "coop.warp.reduce((s, s, s), 'complex_mul')", E,
     "op='complex_mul' multiplies complex numbers"),
]  # fmt: skip

#: Complex numbers, which are element types in Numba only (CuTe DSL has none: CUTE_COMPLEX_ROWS):
#: every row that cannot take them, and the built-ins that are not defined on them.
COMPLEX_ROWS: list[tuple[str, str, type[Exception], str]] = [
    ("complex-radix-keys", "coop.block.radix_sort(z)", E, "keys has complex64 items; keys takes items of one "
     "real scalar type"),
    ("complex-radix-rank", "coop.block.radix_rank(z, begin_bit=0, num_bits=4)", E,
     "coop.block.radix_rank: keys has complex64 items"),
    ("complex-top-k", "coop.block.top_k(z, 2)", E, "coop.block.top_k: keys has complex64 items"),
    ("complex-histogram", "coop.block.histogram(z, isrc, bins=8)", E, "samples has complex64 items"),
    ("complex-argmax", "coop.block.argmax(z)", E, "coop.block.argmax: x has complex64 items"),
    ("complex-warp-argmin", "coop.warp.argmin(zs)", E, "coop.warp.argmin: x has complex64 items"),
    ("complex-run-values", "coop.block.run_length_decode(z, decoded_items_per_thread=4, run_lengths=ints)",
     E, "run_values has complex64 items"),
    ("complex-max", "coop.block.reduce(z, 'max')", E,
     "op='max' is not defined on complex numbers (x has complex64 items)"),
    ("complex-min-warp", "coop.warp.reduce(zs, 'min')", E, "op='min' is not defined on complex numbers"),
    ("complex-bit-xor", "coop.block.inclusive_scan(z, 'bit_xor')", E,
     "Built-in operators on complex numbers: 'sum', 'mul', 'complex_mul'"),
    ("complex-less", "coop.block.merge_sort(z, 'less')", E,
     "op='less' is not defined on complex numbers"),
    ("complex-warp-greater", "coop.warp.merge_sort(z, 'greater')", E,
     "for an order pass a function of two complex values"),
    ("complex-flags-less", "coop.block.discontinuity(z, op='less')", E,
     "Built-in comparators on complex numbers: 'not_equal', 'equal'"),
    ("complex-initial-for-float", "coop.block.exclusive_scan(items, 'sum', initial_value=zs)", E,
     "initial_value is a complex value (complex64) but x has float32 items"),
    ("complex-initial-overflow", "coop.block.exclusive_scan(z, 'sum', initial_value=1e39 + 0j)", V,
     "initial_value.real=1e+39 overflows float32"),
    ("complex-oob-string", "coop.block.load(csrc, z, valid_items=3, oob_default='z')", E,
     "oob_default must be a number"),
    ("complex-array-mismatch", "coop.block.load(src, z)", E,
     "src has element type float32 but items is a ThreadData of complex64"),
    ("complex-tuple-field", "coop.block.sum((z, items))", E, "a tuple's fields are real scalar types"),
    ("complex-warp-shuffle-exchange",
     "coop.warp.exchange(z, 'blocked_to_striped', algorithm='shuffle', threads_in_warp=4)", E,
     "which takes real scalars only, and items is of complex64; use algorithm='smem'"),
]  # fmt: skip

#: NumPy records, items in Numba only (CuTe DSL has no record type: tuples are its spelling).
RECORD_ROWS: list[tuple[str, str, type[Exception], str]] = [
    ("record-radix-keys", "coop.block.radix_sort(rec)", E, "keys is records of (float32, int32) items"),
    ("record-top-k", "coop.block.top_k(rec, 2)", E, "keys is records of (float32, int32) items"),
    ("record-builtin-max", "coop.block.reduce(rec, 'max')", E,
     "only some built-in operators apply to tuples, field by field"),
    ("record-array-for-floats", "coop.block.load(src, rec)", E,
     "src has element type float32 but items is a ThreadData of records of (float32, int32)"),
    ("record-out-tuple", "coop.block.exchange(rec, 'blocked_to_striped', out=(items, ints))", E,
     "out is a tuple and items is records"),
    ("record-unaligned", "coop.ThreadData(4, BADREC)", E,
     "coop.ThreadData: dtype is a record laid out as C does not lay out its fields"),
    ("record-one-field", "coop.ThreadData(4, ONEREC)", E, "is a record of one field"),
    ("record-argmax", "coop.block.argmax(rec)", E, "x is records of (float32, int32) items"),
]  # fmt: skip

#: CuTe DSL 4.8 has no complex numeric type: complex values are refused, naming the 2-tuple.
CUTE_COMPLEX_ROWS: list[tuple[str, str, type[Exception], str]] = [
    ("cute-complex-thread-data", "coop.ThreadData(4, 'complex64')", E,
     "dtype=complex64: CuTe DSL has no complex numeric type: spell a complex number as the 2-tuple (re, im)"),
    ("cute-complex-initial", "coop.block.exclusive_scan((items, items), 'complex_mul', initial_value=1 + 0j)",
     E, "initial_value must be a number or a tuple of numbers, got (1+0j), a complex number"),
    ("cute-complex-in-a-tuple", "coop.block.exclusive_scan((items, items), 'sum', initial_value=(1j, 0.0))",
     E, "CuTe DSL has no complex numeric type"),
]  # fmt: skip

_NUMBA = {"F32": "np.float32", "I32": "np.int32", "I8": "np.int8", "U8": "np.uint8", "F16": "np.float16"}
_CUTE = {"F32": "cutlass.Float32", "I32": "cutlass.Int32", "I8": "cutlass.Int8", "U8": "cutlass.Uint8",
         "F16": "cutlass.Float16"}  # fmt: skip
_PRELUDE = """
    items = coop.ThreadData(4, {F32})
    h16 = coop.ThreadData(4, {F16})
    ints = coop.ThreadData(4, {I32})
    i8 = coop.ThreadData(4, {I8})
    one = coop.ThreadData(1, {F32})
    two = coop.ThreadData(2, {I32})
    ranks = coop.ThreadData(4, {I32})
    flags = coop.ThreadData(4, {U8})
    big = coop.ThreadData(128, {F32})
    s = src[0]
    flag = s > 0
"""


def _body(call: str, names: dict[str, str]) -> str:
    call = call.replace("FLAGGED", "'scatter_to_striped_flagged'").replace("SCATTER", "'scatter_to_striped'")
    call = call.replace("RUNS", "'striped_vectors'")
    return (_PRELUDE + f"    {call}\n").format(**names)


@pytest.fixture
def no_cxx_compiled() -> Iterator[None]:
    before = coop.compile_stats().nvrtc_compiles
    yield
    assert coop.compile_stats().nvrtc_compiles == before, "an error surfaced only after NVRTC ran"


_NUMBA_COMPLEX = """
    z = coop.ThreadData(4, np.complex64)
    zs = csrc[0]
    rec = coop.ThreadData(4, REC)
"""
_RECORDS = {
    "REC": np.dtype([("v", np.float32), ("i", np.int32)], align=True),
    "BADREC": np.dtype([("a", np.int8), ("v", np.float32)]),  # v at offset 1
    "ONEREC": np.dtype([("v", np.float32)], align=True),
}


_NUMBA_ROWS = ROWS + COMPLEX_ROWS + RECORD_ROWS


@pytest.mark.parametrize(
    ("call", "error", "match"), [r[1:] for r in _NUMBA_ROWS], ids=[r[0] for r in _NUMBA_ROWS]
)
def test_numba(call: str, error: type[Exception], match: str, no_cxx_compiled: None) -> None:
    import re

    import cuda.coop.numba as numba_coop
    import numpy as np

    scope = {"coop": coop, "np": np, **_RECORDS}
    exec("def kernel(src, dst, isrc, hsrc, csrc):" + _NUMBA_COMPLEX + _body(call, _NUMBA), scope)
    sig = "void(float32[::1], float32[::1], int32[::1], float16[::1], complex64[::1])"
    with pytest.raises(error, match=re.escape(match)) as info:
        numba_coop.compile(scope["kernel"], sig, block=128)
    assert isinstance(info.value, coop.CoopError)


_CUTE_MODULE: dict[str, object] = {}


def _cute_hosts() -> dict[str, object]:
    """One @cute.jit host per row, from one generated module (CuTe reads the source)."""
    if not _CUTE_MODULE:
        from ._compute_kernels import load

        lines = ["import cutlass", "import cutlass.cute as cute", "from cuda import coop", ""]
        for i, (_id, call, _e, _m) in enumerate(ROWS + CUTE_COMPLEX_ROWS):
            lines += [
                "@cute.kernel",
                f"def kernel_{i}(src: cute.Tensor, dst: cute.Tensor, isrc: cute.Tensor, hsrc: cute.Tensor):"
                + _body(call, _CUTE),
                "@cute.jit",
                f"def host_{i}(src: cute.Tensor, dst: cute.Tensor, isrc: cute.Tensor, hsrc: cute.Tensor):",
                f"    kernel_{i}(src, dst, isrc, hsrc).launch(grid=(1, 1, 1), block=(128, 1, 1))",
                "",
            ]
        module = load("bad_inputs_cute", "\n".join(lines))
        _CUTE_MODULE.update(
            {row[0]: getattr(module, f"host_{i}") for i, row in enumerate(ROWS + CUTE_COMPLEX_ROWS)}
        )
    return _CUTE_MODULE


@pytest.mark.parametrize(
    ("row", "error", "match"),
    [(r[0], *r[2:]) for r in ROWS + CUTE_COMPLEX_ROWS],
    ids=[r[0] for r in ROWS + CUTE_COMPLEX_ROWS],
)
def test_cute(row: str, error: type[Exception], match: str, no_cxx_compiled: None) -> None:
    import re

    pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
    import cuda.coop.cutlass as cutlass_coop
    import cutlass
    from cutlass.cute.runtime import make_fake_compact_tensor

    tensors = [
        make_fake_compact_tensor(t, (512,), assumed_align=16)
        for t in (cutlass.Float32, cutlass.Float32, cutlass.Int32, cutlass.Float16)
    ]
    with pytest.raises(error, match=re.escape(match)) as info:
        cutlass_coop.compile(_cute_hosts()[row], *tensors)
    assert isinstance(info.value, coop.CoopError)


# --- host-side calls ----------------------------------------------------------------------------------

HOST_ROWS: list[tuple[str, str, type[Exception], str]] = [
    ("register-a-list", "coop.register(['numba'])", E, "register: name must be a backend name"),
    ("register-unknown", "coop.register('triton')", coop.CoopBackendError, "unknown backend 'triton'"),
    ("load-on-the-host", "coop.block.load(None, None)", H, "coop.block.load is a kernel-side"),
    ("reduce-on-the-host", "coop.block.reduce(1.0, 'max')", H, "coop.block.reduce is a kernel-side"),
    ("warp-sum-on-the-host", "coop.warp.sum(1.0)", H, "coop.warp.sum is a kernel-side"),
    ("warp-load-on-the-host", "coop.warp.load(None, None)", H, "coop.warp.load is a kernel-side"),
    ("warp-sort-on-the-host", "coop.warp.merge_sort(None, 'less')", H,
     "coop.warp.merge_sort is a kernel-side"),
    ("cluster-sum-on-the-host", "coop.cluster.sum(1.0)", H, "coop.cluster.sum is a kernel-side"),
    ("grid-tile-index-on-the-host", "coop.grid.tile_index(None)", H, "coop.grid.tile_index is a kernel-side"),
    ("grid-state-no-tiles", "coop.grid.ScanState(0, 'int32')", V, "coop.grid.ScanState: tiles=0 must be"),
    ("grid-state-float-tiles", "coop.grid.ScanState(2.5, 'int32')", E, "tiles must be an int"),
    ("grid-state-item-type", "coop.grid.ScanState(4, 'int128')", E, "unsupported element type 'int128'"),
    ("grid-state-array-module", "coop.grid.ScanState(4, 'int32', array_module='jax')", V,
     "array_module='jax'"),
    ("thread-data-on-the-host", "coop.ThreadData(4)", H, "coop.ThreadData is a kernel-side"),
    ("temp-storage-on-the-host", "coop.TempStorage(1)", H, "coop.TempStorage is a kernel-side"),
    ("compile-output", "numba_coop.compile(k, SIG, block=128, output='sass')", V, "output='sass'"),
    ("compile-arch", "numba_coop.compile(k, SIG, block=128, arch='volta')", V, "arch='volta'"),
    ("compile-block-zero", "numba_coop.compile(k, SIG, block=0)", coop.CoopLaunchConfigError, "block"),
    ("compile-no-block", "numba_coop.compile(k, SIG)", E, "numba_coop.compile needs block="),
    ("compile-block-too-large", "numba_coop.compile(k, SIG, block=(64, 32))", coop.CoopLaunchConfigError,
     "more than 1024 threads"),
    ("compile-arch-int", "numba_coop.compile(k, SIG, block=128, arch=90)", E, "did you mean arch='sm_90a'"),
    ("compile-arch-one-digit", "numba_coop.compile(k, SIG, block=128, arch='sm_9')", V, "arch='sm_9'"),
    ("compile-cache", "numba_coop.compile(k, SIG, block=128, cache=True)", E, "cache= only matters"),
    ("compile-unknown-option", "numba_coop.compile(k, SIG, block=128, fast=1)", E, "unknown option fast="),
    ("compile-no-signature", "numba_coop.compile(k, block=128)", E, "signature is required"),
    ("compile-lto-off", "numba_coop.compile(k, SIG, block=128, lto=False)", V, "lto=False"),
    ("jit-device", "numba_coop.jit(device=True)", E, "device=True is not supported"),
    ("jit-unknown-option", "numba_coop.jit(fastmaths=True)", E, "unknown option fastmaths="),
    ("jit-bad-signature-list", "numba_coop.jit(['void(int32)', 3])", E, "not a list of signatures"),
    ("jit-not-a-function", "numba_coop.jit(3)", E, "expected a Python function"),
    ("launch-config", "numba_coop.jit(k)[1]", E, "config takes (grid, block"),
    ("compile-cluster-too-large", "numba_coop.compile(k, SIG, block=128, cluster=17)",
     coop.CoopLaunchConfigError, "compile: cluster=17 has 17 blocks"),
    ("configure-cluster-grid", "numba_coop.jit(k).configure(3, 128, cluster=2)", coop.CoopLaunchConfigError,
     "is not a multiple of the cluster (2, 1, 1)"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("call", "error", "match"), [r[1:] for r in HOST_ROWS], ids=[r[0] for r in HOST_ROWS]
)
def test_host(call: str, error: type[Exception], match: str) -> None:
    import re

    import cuda.coop.numba as numba_coop

    def k(src, dst):  # type: ignore[no-untyped-def]
        pass

    scope = {"coop": coop, "numba_coop": numba_coop, "k": k, "SIG": "void(int32[::1], int32[::1])"}
    with pytest.raises(error, match=re.escape(match)) as info:
        eval(call, scope)
    assert isinstance(info.value, coop.CoopError)
