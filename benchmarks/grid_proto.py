# SPDX-License-Identifier: Apache-2.0
"""Issue 22's prototype, before any catalog row: a one-kernel exclusive cumsum over the blocks of the
grid in CUDA C++ with CUB's ``ScanTileState`` and ``TilePrefixCallbackOp`` (decoupled look-back),
block order by an atomic ticket, and the workspace of ``notes/grid_scan_plan.md``: a header and two
tile-state areas that alternate between launches, so that only its creation initialises it.

Checks on the GPU, against NumPy (``np.cumsum``): grids of 1 to 2^16 blocks, partial last tiles,
blocks delayed at random so that they finish out of order, one workspace reused by launches of
different grids (a smaller grid on a larger workspace), a CUDA graph replayed; item types int32,
int64, float64 (one word per tile: ``ScanTileState<T, true>``) and a 12-byte struct (status and
values apart: ``<T, false>``). Then times the cumsum of 2^28 int32 and float32 against
``cupy.cumsum`` (with ``CUPY_ACCELERATORS=cub``, set here: CUB's ``DeviceScan``, an inclusive sum)
and ``torch.cumsum``, and the workspace's creation.

The kernels are compiled here with NVRTC (``cuda.core``, CCCL's headers, as cuda.coop compiles
bundles) and loaded with CuPy; needs CuPy and a GPU.

    python benchmarks/grid_proto.py [--json PATH]
"""

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from grid import median_ms  # noqa: E402  (one CUDA-event timer for both grid benchmarks)

BLOCK, ITEMS = 128, 4
TILE = BLOCK * ITEMS
TYPES = {"int32": "int", "int64": "long long", "float64": "double", "float32": "float", "int3": "coop_int3"}

#: The prototype's C++ (``grid_proto.cu``), compiled with ``GRID_PROTO_BLOCK`` and ``GRID_PROTO_ITEMS``
#: defined; ``KERNELS`` names its kernels for one item type (``name``, ``T``).
SOURCE = Path(__file__).with_name("grid_proto.cu").read_text()
KERNELS = """
extern "C" __global__ void init_{name}(void* ws, unsigned int capacity)
{{ coop_grid_init<{T}>(ws, capacity); }}
extern "C" __global__ void stride_{name}(unsigned long long* out, unsigned int capacity)
{{ *out = coop_grid<{T}>::area_stride(capacity); }}
extern "C" __global__ void __launch_bounds__(GRID_PROTO_BLOCK) cumsum_{name}(const {T}* src, {T}* dst,
  {T}* through_out, void* ws, long long n, unsigned int delay)
{{ grid_proto_cumsum(src, dst, through_out, ws, n, delay); }}
"""


def build(names: list[str], arch: str) -> bytes:
    """The cubin of the kernels for each item type of ``names``."""
    from cuda.coop import _bundle
    from cuda.core import Program, ProgramOptions

    options = {
        k: v
        for k, v in _bundle._options(arch).items()
        if k not in ("link_time_optimization", "relocatable_device_code")
    }
    options["define_macro"] = [("GRID_PROTO_BLOCK", str(BLOCK)), ("GRID_PROTO_ITEMS", str(ITEMS))]
    text = SOURCE + "".join(KERNELS.format(name=n, T=TYPES[n]) for n in names)
    return bytes(Program(text, "c++", ProgramOptions(**options)).compile("cubin").code)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    import cupy as cp

    names = list(TYPES)
    cubin = build(names, "sm_90a")
    path = Path(tempfile.mkdtemp()) / "grid_proto.cubin"
    path.write_bytes(cubin)
    module = cp.RawModule(path=str(path))
    rng = np.random.default_rng(22)
    results: dict[str, object] = {"checks": [], "timings": {}}

    def workspace(name: str, capacity: int) -> cp.ndarray:
        stride = cp.zeros(1, dtype=cp.uint64)
        module.get_function(f"stride_{name}")((1,), (1,), (stride, np.uint32(capacity)))
        ws = cp.zeros(256 + 2 * int(stride.get()[0]), dtype=cp.uint8)
        module.get_function(f"init_{name}")(((capacity + 255) // 256,), (256,), (ws, np.uint32(capacity)))
        return ws

    def host_values(name: str, n: int) -> np.ndarray:
        if name == "int3":
            return rng.integers(-100, 100, size=(n, 3), dtype=np.int32)
        if name.startswith("float"):
            # mean 0: exact float32 sums in any order (-8..7 drifts past 2^24 over 2^25 items, where
            # float32 rounds: the first H200 run's two float32 "WRONG" at 65536 tiles were that)
            return rng.integers(-8, 9, size=n).astype(name)
        return rng.integers(-1000, 1000, size=n, dtype=name)

    failures = 0
    for name in names:
        capacity = 1 << 16
        ws = workspace(name, capacity)
        cumsum = module.get_function(f"cumsum_{name}")
        launches = [
            (1, 0),
            (2, 0),
            (33, 1),
            (1000, 20000),
            (capacity, 0),
            (7, 5000),
            (capacity, 50000),
            (513, 0),
        ]
        for grid, delay in launches:
            n = grid * TILE - (rng.integers(0, TILE) if grid > 1 else 0)  # a partial last tile
            x = host_values(name, n)
            src = cp.asarray(x)
            dst = cp.full_like(src, 77)
            through = cp.zeros((grid, 3) if name == "int3" else grid, dtype=src.dtype)
            cumsum((grid,), (BLOCK,), (src, dst, through, ws, np.int64(n), np.uint32(delay)))
            want = np.cumsum(x, axis=0, dtype=x.dtype) - x
            ok = bool(np.array_equal(dst.get(), want))
            last = through.get()[-1]
            ok = ok and bool(np.array_equal(last, np.sum(x, axis=0, dtype=x.dtype)))
            failures += not ok
            results["checks"].append({"type": name, "grid": grid, "n": int(n), "delay_ns": delay, "ok": ok})
            print(f"{name:8} grid {grid:6} n {n:9} delay {delay:6}: {'ok' if ok else 'WRONG'}", flush=True)
        # a CUDA graph of one launch, replayed: the epoch lives in the workspace
        grid = 300
        x = host_values(name, grid * TILE)
        src, dst = cp.asarray(x), cp.zeros_like(cp.asarray(x))
        through = cp.zeros((grid, 3) if name == "int3" else grid, dtype=src.dtype)
        stream = cp.cuda.Stream(non_blocking=True)
        with stream:
            stream.begin_capture()
            cumsum((grid,), (BLOCK,), (src, dst, through, ws, np.int64(x.shape[0]), np.uint32(0)))
            graph = stream.end_capture()
            for _ in range(5):
                dst.fill(0)
                graph.launch(stream)
        stream.synchronize()
        ok = bool(np.array_equal(dst.get(), np.cumsum(x, axis=0, dtype=x.dtype) - x))
        failures += not ok
        results["checks"].append({"type": name, "graph_replays": 5, "ok": ok})
        print(f"{name:8} graph replayed 5 times: {'ok' if ok else 'WRONG'}", flush=True)

    # speed: 2^28 items, the one-kernel cumsum against cupy.cumsum (CUB DeviceScan) and torch.cumsum
    n = 1 << 28
    grid = n // TILE
    rows = []
    for name in ("int32", "float32"):
        x = cp.asarray(host_values(name, n))
        dst = cp.empty_like(x)
        through = cp.empty(grid, dtype=x.dtype)
        t0 = time.perf_counter()
        ws = workspace(name, grid)
        cp.cuda.Device().synchronize()
        created = time.perf_counter() - t0
        cumsum = module.get_function(f"cumsum_{name}")

        def ours() -> None:
            cumsum((grid,), (BLOCK,), (x, dst, through, ws, np.int64(n), np.uint32(0)))  # noqa: B023

        coop_s = median_ms(ours, 50, 5) * 1e-3
        cupy_s = median_ms(lambda: cp.cumsum(x), 50, 5) * 1e-3  # noqa: B023
        row = {"type": name, "ours_ms": coop_s * 1e3, "cupy_ms": cupy_s * 1e3, "workspace_create_s": created}
        try:
            import torch

            tx = torch.as_tensor(x, device="cuda")
            torch.cumsum(tx, 0)
            torch.cuda.synchronize()
            row["torch_ms"] = median_ms(lambda: torch.cumsum(tx, 0), 50, 5)  # noqa: B023
        except ImportError:
            pass
        gbs = 2 * n * x.itemsize / coop_s / 1e9
        row["ours_GBps"] = gbs
        rows.append(row)
    results["timings"] = rows
    print(
        "\n| type | one kernel (ms) | GB/s | cupy.cumsum, CUB DeviceScan (ms) | ours / cupy "
        "| torch.cumsum (ms) |"
    )
    print("|---|---|---|---|---|---|")
    for r in rows:
        torch_ms = f"{r['torch_ms']:.3f}" if "torch_ms" in r else "-"
        print(
            f"| {r['type']} | {r['ours_ms']:.3f} | {r['ours_GBps']:.0f} | {r['cupy_ms']:.3f} "
            f"| {r['cupy_ms'] / r['ours_ms']:.2f}x | {torch_ms} |"
        )
    print(f"\nchecks: {len(results['checks']) - failures} of {len(results['checks'])} right")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    os.environ.setdefault("CUDA_COOP_CACHE_DIR", tempfile.mkdtemp())
    os.environ.setdefault("CUPY_ACCELERATORS", "cub")  # cupy.cumsum through CUB's DeviceScan
    main()
