# SPDX-License-Identifier: Apache-2.0
"""Grid scans (issue 22): a one-kernel cumsum and a one-kernel stream compaction written with
``coop.grid`` (numba-cuda), against CUB's device-wide algorithms in C++ (``cub_device.cu``, built
here with the CUDA toolkit's nvcc: ``DeviceScan::InclusiveSum``, ``DeviceSelect::Flagged`` and
``DeviceSelect::If``), ``torch.cumsum``, ``torch.masked_select`` and CuPy's boolean indexing; and
what the look-back and the workspace cost: the same kernel with a block scan (no look-back: each
tile alone) and a plain copy (load + store) of the same tiles, and a workspace's creation.

    python benchmarks/grid.py [--log2n 28] [--json PATH] [--cub PATH-TO-A-BUILT-cub_device]

Needs a GPU, CuPy, nvcc (or ``--cub``); torch for its rows.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# this folder's copy.py would shadow the standard library's (numba imports it)
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import numpy as np  # noqa: E402

#: (threads, items per thread, load/store algorithm) of the one-kernel cumsum tried
CONFIGS = ((128, 16, "warp_transpose"), (256, 8, "warp_transpose"), (256, 16, "warp_transpose"),
           (128, 24, "warp_transpose"), (512, 8, "warp_transpose"), (256, 8, "direct"))  # fmt: skip

#: Benchmark-only changes of the grid scan's C++ (``--variant``), each a tuple of (text, replacement)
#: in coop's header ``coop/grid.cuh``, a text given as itself or as (its first line, its last lines):
#: what a design choice costs, measured in one process (the patched copy of the header is first on
#: NVRTC's include path, which is part of every cache key).
VARIANTS = {
    # one look-back backoff for every scan (``delay=L2B,L2W``: TilePrefixCallbackOp's default is
    # 350,450; the grid scans take CUB's sm_90 DeviceScan tuning for sums, e.g. int 648,1245 and
    # float 688,1140: coop_grid_delay)
    "delay": (
        (
            "typename coop_grid_delay<T, ::cuda::std::is_same_v<Op, ::cuda::std::plus<>>>::type;",
            "cub::detail::fixed_delay_constructor_t<{0}, {1}>;",
        ),
    ),
    # the first warp waits for its header read before its scan (as until the twelfth session: a
    # shuffle of the header's words before the scan): what the look-back's header read costs on a
    # tile's critical path when its latency is not hidden
    "earlyheader": (
        (
            "      header = coop_grid_header::read(ws);\n    }\n",
            """      header   = coop_grid_header::read(ws);
      header.w = __shfl_sync(0xFFFFFFFFu, header.w, 0);
    }
""",
        ),
    ),
}


def apply_variant(variant: str) -> None:
    """Patch the grid scan's C++ of this process by ``variant`` (``delay=L2B,L2W``,
    ``earlyheader``; several joined by ``+``): a patched copy of ``coop/grid.cuh`` in a temporary
    directory, put first on the include path of the process's NVRTC compiles."""
    from cuda.coop import _bundle, _render

    source = (_render.INCLUDE_DIR / "coop" / "grid.cuh").read_text()
    for one in variant.split("+"):
        name, _, args = one.partition("=")
        for old, new in VARIANTS[name]:
            first, last = old if isinstance(old, tuple) else (old, "")
            start = source.find(first)
            end = source.find(last, start + len(first)) if start >= 0 else -1
            if start < 0 or end < 0:
                raise SystemExit(f"--variant {one}: the grid scan's C++ no longer has {old!r}")
            text = new.format(*args.split(",")) if args else new
            stop = end + len(last) if last else start + len(first)
            source = source[:start] + text + source[stop:]
    patched = Path(tempfile.mkdtemp(prefix="coop-grid-variant-"))
    (patched / "coop").mkdir()
    (patched / "coop" / "grid.cuh").write_text(source)
    toolchain = _bundle._toolchain()  # cached: every later compile of this process reads it
    toolchain["include_path"] = (str(patched), *toolchain["include_path"])


def kernels(threads: int, items: int, algorithm: str, dtype: Any) -> dict[str, Any]:
    """The coop kernels of one tile configuration: the grid cumsum and the block-scan and copy
    baselines (numba-cuda)."""
    import cuda.coop.numba as numba_coop
    from cuda import coop
    from numba import cuda

    tile = threads * items

    @numba_coop.jit
    def grid_cumsum(src, dst, state, n):  # type: ignore[no-untyped-def]
        t = coop.grid.tile_index(state)
        base = t * tile
        x = coop.ThreadData(items, dtype)
        if n - base >= tile:
            coop.block.load(src, x, offset=base, algorithm=algorithm)
            out = coop.grid.inclusive_sum(x, state, t, algorithm="warp_scans")
            coop.block.store(dst, out, offset=base, algorithm=algorithm)
        else:
            coop.block.load(src, x, offset=base, algorithm=algorithm, valid_items=n - base, oob_default=0)
            out = coop.grid.inclusive_sum(x, state, t, algorithm="warp_scans")
            coop.block.store(dst, out, offset=base, algorithm=algorithm, valid_items=n - base)

    @numba_coop.jit
    def block_cumsum(src, dst, n):  # type: ignore[no-untyped-def]
        base = cuda.blockIdx.x * tile
        x = coop.ThreadData(items, dtype)
        if n - base >= tile:
            coop.block.load(src, x, offset=base, algorithm=algorithm)
            out = coop.block.inclusive_sum(x, algorithm="warp_scans")
            coop.block.store(dst, out, offset=base, algorithm=algorithm)
        else:
            coop.block.load(src, x, offset=base, algorithm=algorithm, valid_items=n - base, oob_default=0)
            out = coop.block.inclusive_sum(x, algorithm="warp_scans")
            coop.block.store(dst, out, offset=base, algorithm=algorithm, valid_items=n - base)

    @numba_coop.jit
    def copy(src, dst, n):  # type: ignore[no-untyped-def]
        base = cuda.blockIdx.x * tile
        x = coop.ThreadData(items, dtype)
        if n - base >= tile:
            coop.block.load(src, x, offset=base, algorithm=algorithm)
            coop.block.store(dst, x, offset=base, algorithm=algorithm)
        else:
            coop.block.load(src, x, offset=base, algorithm=algorithm, valid_items=n - base, oob_default=0)
            coop.block.store(dst, x, offset=base, algorithm=algorithm, valid_items=n - base)

    return {"grid": grid_cumsum, "block": block_cumsum, "copy": copy}


def median_ms(fn: Any, repeat: int = 30, warmup: int = 3) -> float:
    """Median of ``repeat`` timed calls of ``fn`` in ms (CUDA events on the default stream, where every
    launch here goes; the device's CuPy has no ``cupyx.profiler``), after ``warmup`` untimed ones."""
    import cupy as cp

    for _ in range(warmup):
        fn()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(repeat):
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end))
    return float(np.median(times))


def cub_reference(log2n: int, binary: str | None) -> dict[str, dict[str, Any]]:
    """Run ``cub_device.cu`` (built here with nvcc unless ``binary`` names a built one): its rows by
    kind, ``{"int32": scan row, "float32": scan row, "select": select row}``; empty where there is
    no nvcc."""
    if binary is None:
        import cuda.cccl

        headers = Path(cuda.cccl.__file__).parent / "headers" / "include"
        nvcc = shutil.which("nvcc")
        try:
            import nvidia.cu13

            wheel = Path(next(iter(nvidia.cu13.__path__))) / "bin" / "nvcc"
            nvcc = str(wheel) if wheel.exists() else nvcc
        except ImportError:
            pass
        if nvcc is None:
            print("no nvcc: the CUB C++ columns are left empty (pass --cub)", file=sys.stderr)
            return {}
        binary = str(Path(tempfile.mkdtemp()) / "cub_device")
        src = Path(__file__).with_name("cub_device.cu")
        cmd = [nvcc, "-O3", "-std=c++17", "-arch=sm_90", f"-I{headers}", str(src), "-o", binary]
        subprocess.run(cmd, check=True)
    done = subprocess.run([binary, str(log2n)], check=True, capture_output=True, text=True)
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    for r in rows:
        print(json.dumps({"cub": r}), flush=True)
    return {r["type"] if r["row"] == "scan" else "select": r for r in rows}


def compaction(
    n: int,
    rng: Any,
    cub_rows: dict[str, dict[str, Any]],
    torch: Any,
    threads: int = 256,
    items: int = 16,
    min_blocks: int = 0,
    order: str = "ticket",
) -> dict[str, Any]:
    """The one-kernel compaction (keep the positive floats) with ``threads`` x ``items`` tiles against
    CUB, CuPy and torch (CUB's sm_90 tuning of ``DeviceSelect::If`` for 4-byte items: 384 x 17, a
    warp-transposed load, a fixed look-back delay of 76 / 1150 ns)."""
    import cupy as cp
    from cuda import coop

    host = rng.standard_normal(n).astype(np.float32)
    x = cp.asarray(host)
    want = host[host > 0]
    blocks = -(-n // (threads * items))
    # the example's kernel (examples/numba/grid_compaction.py), at this tile and launch bounds
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples" / "numba"))
    from grid_compaction import make_keep_positive

    k = make_keep_positive(threads, items, min_blocks, order)[blocks, threads]
    state = coop.grid.ScanState(blocks, np.int32, array_module="cupy")
    dst, count = cp.full_like(x, np.nan), cp.zeros(1, cp.int32)
    k(x, dst, count, state, n)
    m = int(count.get()[0])
    row: dict[str, Any] = {
        "ok": m == want.size and bool(np.array_equal(dst[:m].get(), want)),
        "tile": f"{threads}x{items}" + (f"/{min_blocks}" if min_blocks else "") + f" {order}",
        "coop_ms": median_ms(lambda: k(x, dst, count, state, n)),
        "cupy_ms": median_ms(lambda: x[x > 0]),
    }
    if "select" in cub_rows:
        row["cub_flagged_ms"] = cub_rows["select"]["flagged_ms"]
        row["cub_if_ms"] = cub_rows["select"]["if_ms"]
    if torch is not None:
        tx = torch.as_tensor(x, device="cuda")
        row["torch_masked_select_ms"] = median_ms(lambda: torch.masked_select(tx, tx > 0))
        row["torch_nonzero_ms"] = median_ms(lambda: tx[torch.nonzero(tx > 0).squeeze(1)])
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--log2n", type=int, default=28)
    ap.add_argument("--configs", type=int, default=len(CONFIGS), help="the first N tile configurations")
    ap.add_argument("--tiles", default=None, help="only these configurations, e.g. 256x16,128x24")
    ap.add_argument("--json", default=None)
    ap.add_argument("--cub", default=None, help="a built cub_device (else built here with nvcc)")
    ap.add_argument("--variant", default=None, help="delay=L2B,L2W, earlyheader, joined by + (VARIANTS)")
    ap.add_argument("--no-compact", action="store_true", help="the cumsum rows only")
    ap.add_argument(
        "--compact-tiles",
        default="256x16",
        help="the compaction's tiles, e.g. 256x16,384x17 (CUB's If); 384x17/3: launch bounds (384, 3)",
    )
    ap.add_argument(
        "--compact-orders",
        default="ticket,block",
        help="coop.grid.tile_index's orders to measure the compaction with (ticket, block)",
    )
    args = ap.parse_args()
    if args.variant:
        apply_variant(args.variant)
    import cupy as cp
    from cuda import coop

    n = 1 << args.log2n
    configs = CONFIGS[: args.configs]
    if args.tiles:
        configs = tuple(c for c in CONFIGS if f"{c[0]}x{c[1]}" in args.tiles.split(",") and c[2] != "direct")
    rng = np.random.default_rng(22)
    cub_rows = cub_reference(args.log2n, args.cub)
    out: dict[str, Any] = {
        "n": n,
        "variant": args.variant,
        "cumsum": [],
        "compact": [],
        "cub": list(cub_rows.values()),
    }
    try:
        import torch
    except ImportError:
        torch = None
    for name in ("int32", "float32"):
        host = rng.integers(-8, 9, n).astype(name)  # exact float sums in any order
        x = cp.asarray(host)
        want = np.cumsum(host, dtype=host.dtype)
        dst = cp.empty_like(x)
        cub = cub_rows[name]["inclusive_ms"] if name in cub_rows else None
        tor = None
        if torch is not None:
            tx = torch.as_tensor(x, device="cuda")
            tor = median_ms(lambda: torch.cumsum(tx, 0))  # noqa: B023
        for threads, items, algorithm in configs:
            tile = threads * items
            blocks = -(-n // tile)
            k = kernels(threads, items, algorithm, np.dtype(name))
            t0 = time.perf_counter()
            state = coop.grid.ScanState(blocks, name, array_module="cupy")
            cp.cuda.Device().synchronize()
            created = time.perf_counter() - t0
            g, b, c = k["grid"][blocks, threads], k["block"][blocks, threads], k["copy"][blocks, threads]
            g(x, dst, state, n)
            ok = bool(np.array_equal(dst.get(), want))
            row = {
                "type": name,
                "threads": threads,
                "items": items,
                "algorithm": algorithm,
                "ok": ok,
                "grid_ms": median_ms(lambda: g(x, dst, state, n)),  # noqa: B023
                "block_ms": median_ms(lambda: b(x, dst, n)),  # noqa: B023
                "copy_ms": median_ms(lambda: c(x, dst, n)),  # noqa: B023
                "cub_ms": cub,
                "torch_ms": tor,
                "workspace_bytes": state.nbytes,
                "workspace_create_ms": created * 1e3,
            }
            g(x, dst, state, n)  # still right after the timed launches
            row["ok"] = ok and bool(np.array_equal(dst.get(), want))
            out["cumsum"].append(row)
            print(json.dumps(row), flush=True)
    if not args.no_compact:
        for tile in args.compact_tiles.split(","):
            shape, _, bound = tile.partition("/")
            threads, items = (int(v) for v in shape.split("x"))
            for order in args.compact_orders.split(","):
                row = compaction(n, rng, cub_rows, torch, threads, items, int(bound or 0), order)
                out["compact"].append(row)
                print(json.dumps(row), flush=True)

    def f(v: float | None) -> str:
        return "-" if v is None else f"{v:.3f}"

    print(f"\none-kernel cumsum of 2^{args.log2n} items (ms, medians of 30; GB/s of 2 n items moved):\n")
    print("| type | threads x items, load | coop.grid | GB/s | block scan only | copy | CUB DeviceScan "
          "(C++) | coop / CUB | torch.cumsum | right |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in out["cumsum"]:
        gbs = 2 * n * 4 / (r["grid_ms"] * 1e-3) / 1e9
        ratio = f"{r['cub_ms'] / r['grid_ms']:.2f}x" if r["cub_ms"] else "-"
        print(
            f"| {r['type']} | {r['threads']}x{r['items']} {r['algorithm']} | {r['grid_ms']:.3f} | {gbs:.0f} "
            f"| {r['block_ms']:.3f} | {r['copy_ms']:.3f} | {f(r['cub_ms'])} | {ratio} "
            f"| {f(r['torch_ms'])} | {r['ok']} |"
        )
    if out["compact"]:
        print(f"\ncompaction of 2^{args.log2n} float32, keep > 0 (ms):\n")
        print("| coop tile | coop one kernel | CUB DeviceSelect::Flagged | CUB DeviceSelect::If | coop / If "
              "| cupy x[x > 0] | torch.masked_select | torch nonzero + index | right |")  # fmt: skip
        print("|---|---|---|---|---|---|---|---|---|")
    for c in out["compact"]:
        cells = [c.get(k) for k in ("coop_ms", "cub_flagged_ms", "cub_if_ms")]
        ratio = f"{c['cub_if_ms'] / c['coop_ms']:.2f}x" if c.get("cub_if_ms") else "-"
        rest = [c.get(k) for k in ("cupy_ms", "torch_masked_select_ms", "torch_nonzero_ms")]
        print(f"| {c['tile']} | " + " | ".join(f(v) for v in cells) + f" | {ratio} | "
              + " | ".join(f(v) for v in rest) + f" | {c['ok']} |")  # fmt: skip
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    bad = [r for r in out["cumsum"] + out["compact"] + out["cub"] if not r["ok"]]
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    os.environ.setdefault("CUDA_COOP_CACHE_DIR", tempfile.mkdtemp())
    main()
