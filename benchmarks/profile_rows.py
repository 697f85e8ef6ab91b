# SPDX-License-Identifier: Apache-2.0
"""One launch each of coop row kernels (``benchmarks/rows.py``, Numba and CuTe) and of quack-kernels'
kernel of the same job, between ``cudaProfilerStart`` and ``cudaProfilerStop``, for Nsight Compute
(issue 19: the profile of a miss).

    ncu --profile-from-start off --section SpeedOfLight --section Occupancy --section LaunchStats \\
        --section WarpStateStats python benchmarks/profile_rows.py rmsnorm 262144 16x1024x16 16x512x32
    ncu ... python benchmarks/profile_rows.py topk 1024 1x128x32 --backends cute

A design is ``CLUSTERxTHREADSxITEMS[:variant[:algorithm]]`` (top-k: ``WARPS_PER_ROWxTHREADSxITEMS``), a
variant one of ``rows.VARIANTS`` (the first when left out), an algorithm that of the rows' loads and
stores (RMSNorm, softmax: ``striped``, the default, or ``striped_vectors``; e.g.
``16x512x32:staged_late:striped_vectors``). Each kernel runs twice before the profiled launch
(compile, warm-up); the rows are float32, 2^27 elements in all.
"""

import os
import sys

sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import argparse  # noqa: E402
import importlib.util  # noqa: E402
from pathlib import Path  # noqa: E402


def main() -> None:
    import torch

    spec = importlib.util.spec_from_file_location("coop_rows_bench", Path(__file__).with_name("rows.py"))
    assert spec is not None and spec.loader is not None
    rows = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rows)

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("kernel", choices=rows.KERNELS)
    p.add_argument("n", type=int)
    p.add_argument("designs", nargs="+")
    p.add_argument("--backends", default="numba,cute", help="comma-separated: numba, cute")
    p.add_argument("--no-peer", action="store_true", help="leave out quack-kernels' kernel")
    a = p.parse_args()

    import cuda.coop.cutlass as cutlass_coop
    from cutlass.cute.runtime import from_dlpack

    n, kernel = a.n, a.kernel
    nrows = (1 << 27) // n
    x = torch.randn(nrows, n, device="cuda")
    w = 1.0 + 0.1 * torch.randn(n, device="cuda")
    bias = 0.1 * torch.randn(n, device="cuda")
    labels = torch.randint(0, n, (nrows,), device="cuda", dtype=torch.int64)
    inputs = {"x": x.view(-1), "w": w, "b": bias, "labels": labels}
    ins = tuple(inputs[q] for q, _, _ in rows._PARAMS[kernel] if q in rows._INPUTS)
    launches = []
    for d in a.designs:
        shape, _, rest = d.partition(":")
        variant, _, alg = rest.partition(":")
        c, t, i = (int(v) for v in shape.split("x"))
        variant, alg = variant or (rows.VARIANTS.get(kernel) or ("",))[0], alg or "striped"
        shmem = x.element_size() * t * i if variant.startswith("staged") else 0  # the staged row part
        if "numba" in a.backends:
            k = rows.numba_kernel(kernel, n, c, t, i, variant, alg)
            blocks = rows._blocks(kernel, nrows, c, t)
            launch = k.configure(blocks, t, 0, shmem, cluster=rows._cluster(kernel, c))
            args = ins + rows._outputs(kernel, nrows, n)
            launches.append(lambda launch=launch, args=args: launch(*args))
        if "cute" in a.backends:
            cts = [from_dlpack(v, assumed_align=16) for v in ins + rows._outputs(kernel, nrows, n)]
            host = rows._cute_kernel(kernel, n, c, t, i, variant, "float32", alg)
            compiled = cutlass_coop.compile(host, *cts)
            launches.append(lambda compiled=compiled, cts=cts: compiled(*cts))
    quack = None if a.no_peer else rows._peers()["quack"].get(kernel)
    if quack is not None and not isinstance(quack, str):
        launches.append(lambda: quack(x, w, bias, labels))
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
