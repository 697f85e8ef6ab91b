# SPDX-License-Identifier: Apache-2.0
"""One launch each of coop's Numba RMSNorm designs and quack-kernels' RMSNorm, between
``cudaProfilerStart`` and ``cudaProfilerStop``, for Nsight Compute (issue 19: the profile of a miss).

    ncu --profile-from-start off --section SpeedOfLight --section Occupancy --section LaunchStats \\
        --section WarpStateStats python benchmarks/profile_rows.py 262144 16x1024x16 16x512x32:prefetch

A design is ``CLUSTERxTHREADSxITEMS[:variant]`` (``rows.py``'s RMSNorm variants: ``after``, the
default, or ``prefetch``). Each kernel runs twice before the profiled launch (compile, warm-up).
"""

import os
import sys

sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import importlib.util  # noqa: E402
from pathlib import Path  # noqa: E402


def main() -> None:
    import torch

    spec = importlib.util.spec_from_file_location("coop_rows_bench", Path(__file__).with_name("rows.py"))
    assert spec is not None and spec.loader is not None
    rows = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rows)

    n = int(sys.argv[1])
    designs = []
    for d in sys.argv[2:]:
        shape, _, variant = d.partition(":")
        c, t, i = (int(v) for v in shape.split("x"))
        designs.append((c, t, i, variant or "after"))
    nrows = (1 << 27) // n
    x = torch.randn(nrows, n, device="cuda")
    w = torch.randn(n, device="cuda")
    y = torch.empty_like(x)
    launches = []
    for c, t, i, v in designs:
        k = rows.numba_kernel("rmsnorm", n, c, t, i, v).configure(nrows * c, t, cluster=c if c > 1 else None)
        launches.append(lambda k=k: k(x.view(-1), w, y.view(-1)))
    quack = rows._peers()["quack"].get("rmsnorm")
    if quack is not None and not isinstance(quack, str):
        launches.append(lambda: quack(x, w, None, None))
    for f in launches:
        f()
        f()
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    for f in launches:
        f()
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()


if __name__ == "__main__":
    main()
