# SPDX-License-Identifier: Apache-2.0
"""RMSNorm with the block's part of the row staged in shared memory (issue 19), in CUB C++: is it
what closes the gap to quack-kernels on long rows?

coop's row kernels keep the block's part of the row in registers (``benchmarks/rows.py``). At rows of
262144 they reach 0.85x quack-kernels, whose RMSNorm copies the row part into shared memory with
``cp.async`` (64 KB a block, no registers held by it), loads the weights into registers meanwhile,
and reads the row back from shared memory after the reduction. Before coop grows a primitive for
that, this script measures the design in CUB C++, next to the registers design (``rows.py``'s
``cub_rmsnorm``, the same kernel as coop's), quack and a copy, in one run:

- ``registers``: the row part in registers, striped loads, the weights read after the reduction;
- ``staged``:    the row part copied to shared memory by ``cub::detail::BlockLoadToShared`` (one
  ``cp.async.bulk`` of the whole part, completed on an mbarrier) while every thread loads its
  weights (striped) into registers; the sum of squares and the scaled store read shared memory;
- ``staged_w``:  the weights staged too (a second bulk copy): no row data in registers at all.

The cluster step is the one coop's ``coop.cluster.sum`` renders (``rows.py``'s ``row_reduce``). The
block's dynamic shared memory is its row part (and weights): one block of 256 x 64 float32 takes
64 KB (128 KB with the weights). ``BlockLoadToShared`` is in ``cub::detail`` in CCCL 1.2 (CUB's merge
uses it): an experiment here, not a dependency of coop.

    python benchmarks/staged_rows.py [--elements N] [--reps R] [--n N ...] [--aot]
"""

import os
import sys

sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import argparse  # noqa: E402
import importlib.util  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

DESIGNS = ("registers", "staged", "staged_w")
#: (cluster blocks, threads, items per thread) per row length; cluster * threads * items = N.
CONFIGS: dict[int, list[tuple[int, int, int]]] = {
    16384: [(1, 1024, 16), (2, 512, 16), (1, 256, 64)],
    65536: [(4, 256, 64), (4, 512, 32), (8, 256, 32), (8, 512, 16)],
    262144: [(16, 256, 64), (16, 512, 32), (16, 1024, 16)],
}


def _by_path(name: str, file: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(file))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _name(rows: Any, design: str, n: int, c: int, t: int, i: int) -> str:
    """The CUB C++ kernel of ``design`` (``registers``: rows.py's, the same kernel as coop's)."""
    if design == "registers":
        return rows._cub_name("rmsnorm", n, c, t, i)
    return f"cub_rmsnorm_staged<{n}, {c}, {t}, {i}, {'true' if design == 'staged_w' else 'false'}>"


def _shared_bytes(design: str, t: int, i: int) -> int:
    """The dynamic shared memory of a design's block."""
    return {"registers": 0, "staged": 4 * t * i, "staged_w": 8 * t * i}[design]


def build(arch: str, lengths: list[int], load: bool = True) -> dict[tuple[Any, ...], Any]:
    """Every design's kernels at ``lengths`` (rows.py's CUB source with the staged kernel), keyed by
    (design, N, cluster, threads, items)."""
    from cuda.cccl import get_include_paths
    from cuda.coop._render import INCLUDE_DIR
    from cuda.core import Program, ProgramOptions

    rows = _by_path("coop_rows_bench", "rows.py")
    paths = get_include_paths()
    incs = [str(p) for p in (paths.cub, paths.cuda, INCLUDE_DIR) if p is not None]  # coop's: rows_cub.cu's
    macros = [
        ("EPS", f"{rows.EPS!r}f"),
        ("LOG2E", f"{rows.LOG2E!r}f"),
        ("IGNORE_INDEX", str(rows.IGNORE_INDEX)),
    ]
    options = ProgramOptions(
        arch=arch, std="c++17", include_path=incs, define_macro=macros, use_fast_math=True
    )
    shapes = [(n, c, t, i) for n in lengths for c, t, i in CONFIGS[n]]
    names = {(d, *shape): _name(rows, d, *shape) for shape in shapes for d in DESIGNS}
    module = Program(rows.CUB_SOURCE, "c++", options).compile("cubin", name_expressions=tuple(names.values()))
    return {k: module.get_kernel(v) if load else module for k, v in names.items()}


def run(elements: int, reps: int, lengths: list[int]) -> list[dict[str, Any]]:
    import torch
    from cuda.core import LaunchConfig, launch

    rows = _by_path("coop_rows_bench", "rows.py")
    bench = rows._copy_bench()
    _dev, arch, _s, _d, stream = bench._device_and_data(1 << 10)
    kernels = build(arch, lengths)
    quack = rows._peers()["quack"].get("rmsnorm")
    table = []
    for n in lengths:
        nrows = elements // n
        x = torch.randn(nrows, n, device="cuda", dtype=torch.float32)
        w = 1.0 + 0.1 * torch.randn(n, device="cuda", dtype=torch.float32)
        copy_out = torch.empty_like(x)
        gb = 2 * x.numel() * 4 / 1e9
        ref = rows._reference("rmsnorm", x, w)
        fns: dict[str, Any] = {"copy": lambda o=copy_out, x=x: o.copy_(x)}
        if quack is not None and not isinstance(quack, str):
            fns["quack"] = lambda x=x, w=w: quack(x, w, None, None)
        failed = []
        for (d, nn, c, t, i), k in kernels.items():
            if nn != n:
                continue
            y = torch.full_like(x, float("nan"))
            shmem = _shared_bytes(d, t, i)
            if shmem > 48 * 1024:  # more dynamic shared memory than the default 48 KB
                rows.set_kernel_attribute(k, "MAX_DYNAMIC_SHARED_SIZE_BYTES", shmem)
            if c > 8:
                rows.allow_non_portable(k)
            # cuda.core's grid counts clusters when a cluster is given
            cfg = (
                LaunchConfig(grid=nrows, block=t, cluster=c, shmem_size=shmem)
                if c > 1
                else LaunchConfig(grid=nrows, block=t, shmem_size=shmem)
            )
            name = f"{d} {c}x{t}x{i}"
            params = (x.data_ptr(), w.data_ptr(), y.data_ptr())
            fn = lambda cfg=cfg, k=k, p=params: launch(stream, cfg, k, *p)  # noqa: E731
            fn()
            torch.cuda.synchronize()
            ok, worst = rows._close("rmsnorm", y, ref)
            if ok:
                fns[name] = fn
            else:
                failed.append(f"{name}: {worst:.1e}")
                print(f"CHECK FAILED rmsnorm N={n} {name}: {worst:.1e}", file=sys.stderr, flush=True)
        del ref
        times = bench._interleaved(fns, reps, torch)
        row = {"n": n, "failed": failed, **{k: gb / v for k, v in times.items()}}
        table.append(row)
        print(f"rmsnorm N={n}: " + ", ".join(f"{k} {v:.0f}" for k, v in row.items() if isinstance(v, float)))
    return table


def _print(table: list[dict[str, Any]]) -> None:
    out = _by_path("coop_copy_bench", "copy.py")
    for row in table:
        configs = sorted({k.split(" ", 1)[1] for k in row if k.split(" ", 1)[0] in DESIGNS})
        quack = row.get("quack", float("nan"))
        cells = [
            [cfg, *(f"{row[f'{d} {cfg}']:.0f}" if f"{d} {cfg}" in row else "-" for d in DESIGNS)]
            + [f"{max(row.get(f'{d} {cfg}', 0.0) for d in DESIGNS) / quack:.3f}"]
            for cfg in configs
        ]
        out._table(
            f"RMSNorm N={row['n']}, float32, GB/s read + written (quack {quack:.0f}, "
            f"copy {row['copy']:.0f}); failed checks: {row['failed'] or 'none'}",
            ["cluster x threads x items", *DESIGNS, "best / quack"],
            cells,
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--elements", type=int, default=1 << 27)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--n", type=int, action="append", choices=sorted(CONFIGS))
    ap.add_argument("--aot", action="store_true", help="compile for sm_90a only (no GPU needed)")
    args = ap.parse_args()
    lengths = args.n or sorted(CONFIGS)
    if args.aot:
        build("sm_90a", lengths, load=False)
        print(f"compiled {len(DESIGNS)} designs x {sum(len(CONFIGS[n]) for n in lengths)} shapes for sm_90a")
        return
    _print(run(args.elements, args.reps, lengths))


if __name__ == "__main__":
    main()
