# SPDX-License-Identifier: Apache-2.0
"""Designs of a thread-block-cluster row reduction (issue 19), measured in CUB C++ in one run.

A row kernel whose row is longer than one block holds splits it over the blocks of a cluster; the
blocks' aggregates meet through distributed shared memory. How they meet decides the speed. This
script runs RMSNorm and softmax forward (float32, rows in registers, striped CUB loads and stores, as
``benchmarks/rows.py``) with each design of the cluster step, next to quack-kernels and a copy:

- ``none``:  the block's aggregate only (the result is wrong for clusters > 1): the ceiling of the
  load / reduce / store part;
- ``pull2``: coop's first design: each block writes its aggregate to its own shared memory, a cluster
  barrier, every thread reads the C aggregates from the C blocks, a second cluster barrier so that no
  block exits or reuses its scratch while another still reads it;
- ``push1``: each block writes its aggregate into slot ``rank`` of every block's shared memory, one
  cluster barrier, every thread reads its own block's C slots (safe for one use of a call site: a
  second call at the same site could overwrite a slot another block has not read yet);
- ``mbar``:  self-contained and safe for any number of calls: after CUB's BlockReduce (whose barrier
  ends every thread's use of the previous call), thread 0 (re)initialises the site's mbarrier, one
  cluster barrier orders that before any peer's store, then warp 0 pushes the aggregate to every
  block with ``st.async`` (the bytes complete the receiver's mbarrier transaction), and every thread
  waits on its own block's mbarrier and folds the C slots in rank order;
- ``quack``: quack-kernels' design: the sites' mbarriers initialised at kernel start, the cluster
  barrier's arrive before the loads and its wait after them (hidden behind the loads); per call
  one ``st.async`` per warp and peer (no block-level barrier), one mbarrier wait, a warp-level fold of
  the warps x C values. Each call site is used once per kernel.
- ``qfull``: ``quack`` with the whole cluster barrier (arrive and wait) at kernel start, before the
  loads: what hiding the barrier behind the loads is worth;
- ``qcub``: ``quack``'s hidden barrier, but CUB's BlockReduce in each block and one push per block and
  peer (warp 0's lanes): what the warp-level pushes are worth;
- ``qcubfull``: ``qcub`` with the whole cluster barrier at kernel start.

``push1`` is in the source but not timed (unsafe for a second call at a site). Clusters of more than 8
blocks are launched with the non-portable-size attribute set on the kernel.

    python benchmarks/cluster_reduce.py [--elements N] [--reps R] [--aot]
"""

import os
import sys

sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

EPS = 1e-6
DESIGNS = ("none", "pull2", "push1", "mbar", "quack", "qfull", "qcub", "qcubfull")
#: (cluster blocks, threads, items per thread) per row length; cluster * threads * items = N.
CONFIGS: dict[int, list[tuple[int, int, int]]] = {
    16384: [(1, 1024, 16), (2, 512, 16), (4, 256, 16)],
    65536: [(4, 256, 64), (4, 512, 32), (8, 256, 32), (8, 512, 16)],
    262144: [(8, 1024, 32), (16, 256, 64), (16, 512, 32), (16, 1024, 16)],
}
#: The designs timed (push1 is unsafe for a second use of a call site: kept in the source only).
RUN = ("none", "pull2", "mbar", "quack", "qfull", "qcub", "qcubfull")
KERNELS = ("rmsnorm", "softmax")

#: The kernels' C++ (``cluster_reduce.cu``: the designs, compiled with ``EPS`` defined).
SOURCE = Path(__file__).with_name("cluster_reduce.cu").read_text()


def _by_path(name: str, file: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(file))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _keys(lengths: list[int]) -> list[tuple[str, int, int, int, int, int]]:
    """(kernel, N, cluster, threads, items, design index) of every kernel to build."""
    keys = []
    for n in lengths:
        for c, t, i in CONFIGS[n]:
            for k in KERNELS:
                for d, name in enumerate(DESIGNS):
                    if name not in RUN or (c == 1 and d > 0):  # one block: no cluster step to vary
                        continue
                    keys.append((k, n, c, t, i, d))
    return keys


def build(arch: str, lengths: list[int], load: bool = True) -> dict[tuple[Any, ...], Any]:
    """The kernels of ``lengths``, one NVRTC program per row length (``-use_fast_math``)."""
    from cuda.cccl import get_include_paths
    from cuda.core import Program, ProgramOptions

    paths = get_include_paths()
    incs = [str(p) for p in (paths.cub, paths.cuda) if p is not None]
    options = ProgramOptions(
        arch=arch, std="c++17", include_path=incs, define_macro=[("EPS", f"{EPS!r}f")], use_fast_math=True
    )
    out = {}
    for n in lengths:
        names = {key: f"{key[0]}<{n}, {key[2]}, {key[3]}, {key[4]}, {key[5]}>" for key in _keys([n])}
        t0 = time.perf_counter()
        module = Program(SOURCE, "c++", options).compile("cubin", name_expressions=tuple(names.values()))
        print(f"N={n}: {len(names)} kernels in {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
        out.update({k: module.get_kernel(v) if load else module for k, v in names.items()})
    return out


def run(elements: int, reps: int, lengths: list[int], once: bool = False) -> list[dict[str, Any]]:
    """Time every design (``once``: launch each kernel and quack once, for a profiler)."""
    import torch
    from cuda.core import LaunchConfig, launch

    rows_bench = _by_path("coop_rows_bench", "rows.py")
    bench = rows_bench._copy_bench()
    _dev, arch, _s, _d, stream = bench._device_and_data(1 << 10)
    kernels = build(arch, lengths)
    peers = rows_bench._peers()
    table = []
    for n in lengths:
        rows = elements // n
        x = torch.randn(rows, n, device="cuda", dtype=torch.float32)
        w = 1.0 + 0.1 * torch.randn(n, device="cuda", dtype=torch.float32)
        copy_out = torch.empty_like(x)
        gb = 2 * x.numel() * 4 / 1e9
        for kernel in KERNELS:
            ref = rows_bench._reference(kernel, x, w)
            fns: dict[str, Any] = {"copy": lambda o=copy_out, x=x: o.copy_(x)}
            if not isinstance(peers.get("quack"), str):
                f = peers["quack"][0] if kernel == "rmsnorm" else peers["quack"][1]
                args = (x, w) if kernel == "rmsnorm" else (x,)
                fns["quack"] = lambda f=f, args=args: f(*args)
            failed = []
            for key in [k for k in kernels if k[0] == kernel and k[1] == n]:
                _k, _n, c, t, i, d = key
                y = torch.full_like(x, float("nan"))
                cfg = (
                    LaunchConfig(grid=rows, block=t, cluster=c) if c > 1 else LaunchConfig(grid=rows, block=t)
                )
                if c > 8:
                    rows_bench.allow_non_portable(kernels[key])
                params = [v.data_ptr() for v in ((x, w, y) if kernel == "rmsnorm" else (x, y))]
                name = f"{DESIGNS[d]} {c}x{t}x{i}"
                fn = lambda cfg=cfg, k=kernels[key], p=params: launch(stream, cfg, k, *p)  # noqa: E731
                fn()
                torch.cuda.synchronize()
                ok, worst = rows_bench._close(kernel, y, ref)
                if not ok and not (DESIGNS[d] == "none" and c > 1):
                    failed.append(f"{name}: {worst:.1e}")
                fns[name] = fn
            del ref
            if once:
                for fn in fns.values():
                    fn()
                torch.cuda.synchronize()
                continue
            times = bench._interleaved(fns, reps, torch)
            row = {"kernel": kernel, "n": n, "failed": failed, **{k: gb / v for k, v in times.items()}}
            table.append(row)
            print(
                f"{kernel} N={n}: "
                + ", ".join(f"{k} {v:.0f}" for k, v in row.items() if isinstance(v, float))
            )
            for f in failed:
                print(f"CHECK FAILED {kernel} N={n} {f}", file=sys.stderr)
    return table


def _print(table: list[dict[str, Any]]) -> None:
    out = _by_path("coop_copy_bench", "copy.py")
    for row in table:
        configs = sorted({k.split(" ", 1)[1] for k in row if " " in k and k.split(" ", 1)[0] in RUN})
        cells = []
        for cfg in configs:
            vals = [row.get(f"{d} {cfg}") for d in RUN]
            cells.append([cfg, *(f"{v:.0f}" if v else "-" for v in vals)])
        out._table(
            f"{row['kernel']} N={row['n']}, GB/s (quack {row.get('quack', float('nan')):.0f}, "
            f"copy {row['copy']:.0f}); failed checks: {row['failed'] or 'none'}",
            ["cluster x threads x items", *RUN],
            cells,
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--elements", type=int, default=1 << 27)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--n", type=int, action="append", choices=sorted(CONFIGS))
    ap.add_argument("--aot", action="store_true", help="compile for sm_90a only (no GPU needed)")
    ap.add_argument("--once", action="store_true", help="launch each kernel once (under a profiler)")
    args = ap.parse_args()
    lengths = args.n or sorted(CONFIGS)
    if args.aot:
        build("sm_90a", lengths, load=False)
        return
    table = run(args.elements, args.reps, lengths, args.once)
    if not args.once:
        _print(table)


if __name__ == "__main__":
    main()
