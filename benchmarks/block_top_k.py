# SPDX-License-Identifier: Apache-2.0
"""Row top-k with ``coop.block.top_k`` (issue 47): the kernel of ``examples/numba/top_k_rows.py``
(one block a row: the row loaded blocked, ``coop.block.top_k`` (CUB's radix select) with the columns
as values, the k selected ordered by a ``coop.warp.merge_sort`` of k / items lanes), next to
quack-kernels' ``topk_fwd`` and ``torch.topk`` in the same run. Each result is checked: the values
are the row's k largest, largest first, and each index points at its value. GB/s counts the row read
once. The warp-a-row design (``coop.warp.top_k``) is timed by ``benchmarks/rows.py --only topk``.

    python benchmarks/block_top_k.py [--rows R] [--n 2048 4096] [--k 8 16 32] [--reps R] [--json PATH]
"""

# The example is imported by path; the script's own folder must not shadow the stdlib's `copy`.
import os
import sys

sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
#: (threads, items) of a block a row, by row length.
SHAPES = {2048: (256, 8), 4096: (512, 8), 1024: (128, 8)}


def _module(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=16384)
    ap.add_argument("--n", type=int, nargs="+", default=[2048, 4096], choices=sorted(SHAPES))
    ap.add_argument("--k", type=int, nargs="+", default=[8, 16, 32])
    ap.add_argument("--reps", type=int, default=11)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    os.environ.setdefault("CUDA_COOP_CACHE_DIR", tempfile.mkdtemp(prefix="coop-bench-cache-"))

    import torch
    from numba import cuda

    bench = _module("coop_copy_bench", Path(__file__).with_name("copy.py"))
    example = _module("top_k_rows_example", ROOT / "examples" / "numba" / "top_k_rows.py")
    try:
        from quack.topk import topk_fwd
    except ImportError:
        topk_fwd = None
    results: list[dict[str, Any]] = []
    for n in args.n:
        threads, items = SHAPES[n]
        x = torch.randn(args.rows, n, device="cuda")
        xs = cuda.as_cuda_array(x.view(-1))
        for k in args.k:
            want = torch.topk(x, k, dim=-1).values
            top = torch.empty(args.rows, k, device="cuda")
            idx = torch.empty(args.rows, k, dtype=torch.int32, device="cuda")
            tv, ti = cuda.as_cuda_array(top.view(-1)), cuda.as_cuda_array(idx.view(-1))
            kernel = example.make_top_k_rows(k, threads, items)[args.rows, threads]
            fns = {"coop": lambda kernel=kernel, a=(xs, tv, ti): kernel(*a)}
            for name, fn in fns.items():
                top.zero_()
                idx.fill_(-1)
                fn()
                torch.cuda.synchronize()
                assert torch.equal(top, want), (name, n, k)
                assert torch.equal(torch.gather(x, 1, idx.long()), top), (name, n, k)
            if topk_fwd is not None:
                fns["quack"] = lambda k=k, x=x: topk_fwd(x, k)
            fns["torch"] = lambda k=k, x=x: torch.topk(x, k, dim=-1)
            ts = bench._interleaved(fns, args.reps, torch)
            gbs = {name: args.rows * n * 4 / t / 1e9 for name, t in ts.items()}
            results.append({"n": n, "k": k, "shape": f"{threads}x{items}", **gbs})
            print(f"n={n} k={k}: done", file=sys.stderr, flush=True)
    peers = ["quack"] * (topk_fwd is not None) + ["torch"]
    bench._table(
        f"row top-k, {args.rows} rows of float32, one block a row, k values and indices largest first "
        f"(GB/s of the rows read; {torch.cuda.get_device_name()})",
        ["N", "k", "block", "coop", *peers, *[f"coop / {p}" for p in peers]],
        [
            [str(r["n"]), str(r["k"]), r["shape"], f"{r['coop']:.0f}", *[f"{r[p]:.0f}" for p in peers],
             *[f"{r['coop'] / r[p]:.3f}" for p in peers]]
            for r in results
        ],
    )  # fmt: skip
    if args.json:
        Path(args.json).write_text(json.dumps({"device": torch.cuda.get_device_name(), "rows": results}))


if __name__ == "__main__":
    main()
