# SPDX-License-Identifier: Apache-2.0
"""CI: with only the cutlass extra installed (no numba-cuda), compile one CuTe kernel with coop
calls ahead of time for sm_90a and check its SASS."""

import importlib.util
import os

os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")

import cuda.coop.cutlass as cutlass_coop  # noqa: E402
import cutlass  # noqa: E402
import cutlass.cute as cute  # noqa: E402
from cuda import coop  # noqa: E402

if os.environ.get("CI_EXTRA_ALONE"):
    assert importlib.util.find_spec("numba") is None, "this check needs an environment without numba-cuda"


@cute.kernel
def copy_kernel(src: cute.Tensor, dst: cute.Tensor) -> None:
    items = coop.ThreadData(4, cutlass.Float32)
    base = cute.arch.block_idx()[0] * 512
    coop.block.load(src, items, offset=base, algorithm="vectorize")
    coop.block.store(dst, items, offset=base, algorithm="vectorize")


@cute.jit
def copy(src: cute.Tensor, dst: cute.Tensor) -> None:
    copy_kernel(src, dst).launch(grid=(src.shape[0] // 512, 1, 1), block=(128, 1, 1))


src = cute.runtime.make_fake_compact_tensor(cutlass.Float32, (4096,), assumed_align=16)
compiled = cutlass_coop.compile(copy, src, src)
report = compiled.inspect()
print(report.summary())
assert report.calls == 0 and not report.leftover_symbols, "a provider call was left in the SASS"
print("CI: cutlass extra alone compiled a coop kernel ahead of time")
