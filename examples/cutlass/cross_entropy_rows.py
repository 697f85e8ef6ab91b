# SPDX-License-Identifier: Apache-2.0
"""Cross-entropy loss per row in a CuTe DSL kernel: an online (max, sum) tuple in one reduction.

``loss[r] = logsumexp(logits[r]) - logits[r, labels[r]]`` (0 where the label is -100, as torch's
``ignore_index``) over rows of 32768 float32 logits, one block of 512 threads per row. The block
need not keep the row: it loops over 4 tiles of 512 x 16 (striped loads), and each thread folds
every tile into its running ``(max, sum of exp(x - max))``, rescaling the sum when the maximum
grows. One ``coop.block.reduce`` of that pair with ``max_sum`` (the same rescaling, as a plain
Python function on tuples) gives the row's; thread 0 reads the label's logit directly and writes
the loss. ``exp2`` and ``log`` with ``fastmath`` (``ex2.approx``, ``lg2.approx``), as quack-kernels.

On a GPU the result is checked against NumPy; without one the kernel is compiled ahead of time for
sm_90a and its SASS is reported.
"""

import os

import numpy as np
from cuda import coop
from numba import cuda

N, THREADS, ITEMS = 32768, 512, 16
TILE = THREADS * ITEMS  # one tile of the row
LOG2E = 1.4426950408889634
IGNORE_INDEX = -100

if not cuda.is_available():
    os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")  # compile-only: name the target

import cuda.coop.cutlass as cutlass_coop  # noqa: E402
import cutlass  # noqa: E402
import cutlass.cute as cute  # noqa: E402


def max_sum(p, q):  # type: ignore[no-untyped-def]
    """Two (max, sum of exp(x - max)) of disjoint parts of a row -> those of both."""
    m = cute.arch.fmax(p[0], q[0])
    return m, (
        p[1] * cute.math.exp2((p[0] - m) * LOG2E, fastmath=True)
        + q[1] * cute.math.exp2((q[0] - m) * LOG2E, fastmath=True)
    )


@cute.kernel  # type: ignore[untyped-decorator]
def cross_entropy_kernel(logits: cute.Tensor, labels: cute.Tensor, loss: cute.Tensor) -> None:
    row, _, _ = cute.arch.block_idx()
    tx, _, _ = cute.arch.thread_idx()
    items = coop.ThreadData(ITEMS, cutlass.Float32)
    m = -cutlass.Float32.inf  # this thread's running maximum and sum of exp(x - m)
    s = cutlass.Float32(0.0)
    for j in cutlass.range(N // TILE):
        coop.block.load(logits[row, None], items, offset=j * TILE, algorithm="striped")
        top = m
        for i in cutlass.range_constexpr(ITEMS):
            top = cute.arch.fmax(top, items[i])
        s = s * cute.math.exp2((m - top) * LOG2E, fastmath=True)  # exp2(-inf) = 0 at the first tile
        for i in cutlass.range_constexpr(ITEMS):
            s += cute.math.exp2((items[i] - top) * LOG2E, fastmath=True)
        m = top
    top, total = coop.block.reduce((m, s), max_sum)  # the row's, in thread 0
    if tx == 0:
        label = labels[row]
        if label == IGNORE_INDEX:
            loss[row] = cutlass.Float32(0.0)
        else:
            loss[row] = top + cute.math.log(total, fastmath=True) - logits[row, label]


@cute.jit  # type: ignore[untyped-decorator]
def cross_entropy(logits: cute.Tensor, labels: cute.Tensor, loss: cute.Tensor) -> None:
    rows = cute.size(logits, mode=[0])
    cross_entropy_kernel(logits, labels, loss).launch(grid=(rows, 1, 1), block=(THREADS, 1, 1))


def main() -> None:
    rows = 96
    if not cuda.is_available():
        from cutlass.cute.runtime import make_fake_compact_tensor

        fake = (
            make_fake_compact_tensor(cutlass.Float32, (rows, N), stride_order=(1, 0), assumed_align=16),
            make_fake_compact_tensor(cutlass.Int64, (rows,), assumed_align=16),
            make_fake_compact_tensor(cutlass.Float32, (rows,), assumed_align=16),
        )
        print("no GPU here: compiled cross_entropy for sm_90a")
        print(cutlass_coop.compile(cross_entropy, *fake).inspect().summary())
        return
    import torch
    from cutlass.cute.runtime import from_dlpack

    logits = 4 * torch.randn(rows, N, device="cuda")
    labels = torch.randint(0, N, (rows,), device="cuda")
    labels[::7] = IGNORE_INDEX
    loss = torch.full((rows,), float("nan"), device="cuda")
    args = [from_dlpack(t, assumed_align=16) for t in (logits, labels, loss)]
    cutlass_coop.compile(cross_entropy, *args)(*args)
    x = logits.double().cpu().numpy()
    lab = labels.cpu().numpy()
    top = x.max(axis=1)
    lse = top + np.log(np.exp(x - top[:, None]).sum(axis=1))
    want = np.where(lab == IGNORE_INDEX, 0.0, lse - x[np.arange(rows), np.maximum(lab, 0)])
    np.testing.assert_allclose(loss.cpu().numpy(), want, rtol=1e-5, atol=1e-5)
    print(
        f"cross-entropy of {rows} rows of {N} logits ({(lab == IGNORE_INDEX).sum()} ignored): matches NumPy"
    )


if __name__ == "__main__":
    main()
