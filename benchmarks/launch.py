# SPDX-License-Identifier: Apache-2.0
"""Host cost of one kernel launch: every launch path for a 4096-element kernel, in one run.

Each row launches its kernel N times back to back and synchronises once; the figure is the median
over R interleaved repeats, in microseconds per launch, next to its ratio to a raw
``cuLaunchKernel`` whose arguments were packed once (the floor any Python launch path pays).

Kernels: the coop kernel loads a tile with ``coop.block.load``, adds 1 and stores it with
``coop.block.store`` (128 threads x 4 items, 8 blocks); the raw, cuda.core and prepared rows
launch that same compiled kernel. The plain numba-cuda and CuPy rows launch ``y[i] = x[i] + 1``
(32 blocks of 128 threads). CuTe rows come from ``benchmarks/_launch_cutlass.py`` if present
(its ``bench_cutlass(n_launches)`` returns {row: microseconds per launch}). CuPy rows need CuPy.

    python benchmarks/launch.py [--launches N] [--reps R] [--json PATH]
"""

import os
import sys

sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]
# Small grids on purpose: Numba's low-occupancy advice (a warning per launch) is not a launch cost.
os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")

import argparse  # noqa: E402
import ctypes  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

N = 4096
THREADS, ITEMS = 128, 4

#: The plain kernel of the CuPy rows (``launch_add1.cu``: ``y[i] = x[i] + 1``).
CUPY_SOURCE = Path(__file__).with_name("launch_add1.cu").read_text()

RAW = "raw cuLaunchKernel, args packed once"
GOALS = [
    # (what, row, reference row, at most this ratio); issue 47: torch tensors at 1.3x (prepared) and
    # 1.5x (kernel[grid, block], the CuTe plain call) a raw launch
    ("coop prepared launch, raw pointers", "coop prepared launch(px, py), raw pointers", RAW, 1.15),
    ("coop prepared launch, device arrays", "coop prepared launch(dx, dy), Numba device arrays", RAW, 1.15),
    ("coop prepared launch, torch tensors", "coop prepared launch(tx, ty), torch tensors", RAW, 1.3),
    (
        "coop kernel[grid, block], torch tensors",
        "coop kernel[grid, block](tx, ty), torch tensors",
        "numba-cuda kernel[grid, block](tx, ty), torch tensors",
        0.5,
    ),
    ("coop kernel[grid, block], torch tensors", "coop kernel[grid, block](tx, ty), torch tensors", RAW, 1.5),
]
#: Goals of the CuTe rows (where nvidia-cutlass-dsl is installed; rows of benchmarks/_launch_cutlass.py).
CUTE_GOALS = [
    (
        "CuTe plain call, torch tensors",
        "CuTe: cuda.coop plain call, torch src + int dst/scalars/stream",
        RAW,
        1.5,
    ),
    ("CuTe plain call, torch tensors", "CuTe: cuda.coop plain call, torch src and dst tensors", RAW, 1.5),
    (
        "CuTe prepared launch, torch tensors",
        "CuTe: prepared launch, torch src + int dst/scalars/stream",
        RAW,
        1.3,
    ),
]
#: The same against the CuTe module's own floor (ctypes into libcuda, the CuTe kernel's parameters).
CUTE_RAW = "CuTe: raw cuLaunchKernel (ctypes, pre-packed)"
CUTE_GOALS += [(what, row, CUTE_RAW, limit) for what, row, _raw, limit in CUTE_GOALS]
#: Goals of the numba-cuda-mlir rows (where it is installed): coop's own launch path.
MLIR = "numba-cuda-mlir"
MLIR_GOALS = [
    (
        f"{MLIR} coop prepared launch, raw pointers",
        f"{MLIR} coop prepared launch(px, py), raw pointers",
        RAW,
        1.15,
    ),
    (
        f"{MLIR} coop prepared launch, its device arrays",
        f"{MLIR} coop prepared launch(dx, dy), its device arrays",
        RAW,
        1.15,
    ),
    (
        f"{MLIR} coop prepared launch, torch tensors",
        f"{MLIR} coop prepared launch(tx, ty), torch tensors",
        RAW,
        1.3,
    ),
    (
        f"{MLIR} coop kernel[grid, block], its device arrays",
        f"{MLIR} coop kernel[grid, block](dx, dy), its device arrays",
        f"{MLIR} kernel[grid, block](dx, dy), its device arrays",
        0.5,
    ),
]


def _copy_bench() -> Any:
    """benchmarks/copy.py as a module (its name shadows the stdlib's, so load it by path)."""
    spec = importlib.util.spec_from_file_location("coop_copy_bench", Path(__file__).with_name("copy.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _kernels(dsl: str = "numba") -> tuple[Any, Any]:
    """The coop kernel and the plain kernel of a Numba DSL: numba-cuda, or numba-cuda-mlir (the same
    sources, its cuda)."""
    import numpy as np
    from cuda import coop

    jit, cuda = _copy_bench().numba_dsl(dsl)

    @jit
    def coop_add1(x, y):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(ITEMS, np.float32)
        base = cuda.blockIdx.x * THREADS * ITEMS
        coop.block.load(x, items, offset=base)
        for i in range(ITEMS):
            items[i] = items[i] + np.float32(1)
        coop.block.store(y, items, offset=base)

    @cuda.jit
    def plain_add1(x, y):  # type: ignore[no-untyped-def]
        i = cuda.grid(1)
        if i < x.size:
            y[i] = x[i] + np.float32(1)

    return coop_add1, plain_add1


def _cutlass_rows(n_launches: int) -> dict[str, float]:
    path = Path(__file__).with_name("_launch_cutlass.py")
    if not path.is_file():
        return {}
    spec = importlib.util.spec_from_file_location("coop_launch_cutlass", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {f"CuTe: {k}": float(v) for k, v in module.bench_cutlass(n_launches).items()}


def _rows() -> tuple[dict[str, Callable[[], object]], Callable[[], list[str]]]:
    """The launch functions by row, and a check that every row computed y = x + 1."""
    import numpy as np
    import torch
    from cuda.bindings import driver
    from cuda.coop.numba._numba_hooks import kernel_function
    from cuda.core import LaunchConfig, Stream, launch
    from numba import cuda

    coop_add1, numba_add1 = _kernels()
    grid, plain_grid = N // (THREADS * ITEMS), N // THREADS
    rng = np.random.default_rng()
    x = rng.uniform(1, 2, N).astype(np.float32)
    outs: dict[str, Any] = {}

    def out(row: str, make: Callable[[np.ndarray], Any]) -> Any:
        outs[row] = make(np.full(N, np.nan, np.float32))
        return outs[row]

    dx, tx = cuda.to_device(x), torch.from_numpy(x).cuda()
    rows: dict[str, Callable[[], object]] = {}

    # The coop kernel, compiled by a prepared launch; raw, cuda.core and prepared rows use it.
    dy = out("coop prepared launch(dx, dy), Numba device arrays", cuda.to_device)
    p = coop_add1.prepare(grid, THREADS, dx, dy)
    rows["coop prepared launch(dx, dy), Numba device arrays"] = lambda: p.launch(dx, dy)
    py = out("coop prepared launch(px, py), raw pointers", cuda.to_device)
    px_ptr, py_ptr = dx.device_ctypes_pointer.value, py.device_ctypes_pointer.value
    p_raw = coop_add1.prepare(grid, THREADS, dx, py)
    rows["coop prepared launch(px, py), raw pointers"] = lambda: p_raw.launch(px_ptr, py_ptr)
    ty = out("coop prepared launch(tx, ty), torch tensors", lambda h: torch.from_numpy(h).cuda())
    p_torch = coop_add1.prepare(grid, THREADS, tx, ty)
    rows["coop prepared launch(tx, ty), torch tensors"] = lambda: p_torch.launch(tx, ty)
    p_same = coop_add1.prepare(grid, THREADS, dx, out("coop prepared launch(), same args", cuda.to_device))
    rows["coop prepared launch(), same args"] = p_same.launch

    kernel = next(iter(coop_add1.for_block(THREADS).overloads.values()))
    function = kernel_function(kernel)
    ry = out(RAW, cuda.to_device)
    flat = [
        0,
        0,
        N,
        4,
        dx.device_ctypes_pointer.value,
        N,
        4,
        0,
        0,
        N,
        4,
        ry.device_ctypes_pointer.value,
        N,
        4,
    ]
    values = (ctypes.c_int64 * len(flat))(*flat)
    pointers = (ctypes.c_void_p * len(flat))(*(ctypes.addressof(values) + 8 * i for i in range(len(flat))))
    address, stream = ctypes.addressof(pointers), driver.CUstream(0)
    raw_launch = driver.cuLaunchKernel

    def raw(keep: object = (values, pointers)) -> None:  # the buffers live as long as the row
        raw_launch(function, grid, 1, 1, THREADS, 1, 1, 0, stream, address, 0)

    rows[RAW] = raw
    cy = out("cuda.core launch", cuda.to_device)
    core_kernel, core_stream = kernel._codelibrary.get_cufunc().kernel, Stream.from_handle(0)
    config = LaunchConfig(grid=grid, block=THREADS)
    core_args = flat[:7] + [0, 0, N, 4, cy.device_ctypes_pointer.value, N, 4]
    rows["cuda.core launch"] = lambda: launch(core_stream, config, core_kernel, *core_args)

    try:
        import cupy
    except ImportError:
        print("CuPy is not installed: no CuPy row")
    else:
        raw_kernel = cupy.RawKernel(CUPY_SOURCE, "add1")
        cx, cyy = cupy.asarray(x), out("CuPy RawKernel", cupy.asarray)
        n32 = np.int32(N)
        rows["CuPy RawKernel"] = lambda: raw_kernel((plain_grid,), (THREADS,), (cx, cyy, n32))

    nd = out("numba-cuda kernel[grid, block](dx, dy), device arrays", cuda.to_device)
    rows["numba-cuda kernel[grid, block](dx, dy), device arrays"] = lambda: numba_add1[plain_grid, THREADS](
        dx, nd
    )
    nt = out("numba-cuda kernel[grid, block](tx, ty), torch tensors", lambda h: torch.from_numpy(h).cuda())
    rows["numba-cuda kernel[grid, block](tx, ty), torch tensors"] = lambda: numba_add1[plain_grid, THREADS](
        tx, nt
    )
    cd = out("coop kernel[grid, block](dx, dy), device arrays", cuda.to_device)
    rows["coop kernel[grid, block](dx, dy), device arrays"] = lambda: coop_add1[grid, THREADS](dx, cd)
    ct = out("coop kernel[grid, block](tx, ty), torch tensors", lambda h: torch.from_numpy(h).cuda())
    rows["coop kernel[grid, block](tx, ty), torch tensors"] = lambda: coop_add1[grid, THREADS](tx, ct)

    if importlib.util.find_spec("numba_cuda_mlir") is not None:  # the third backend: its own launches
        from numba_cuda_mlir import cuda as mlir_cuda

        mlir_coop, mlir_plain = _kernels("numba_mlir")
        # kernel[grid, block](...) in each call, as the numba-cuda rows (the configuration's look-up
        # is part of the cost)
        mdx = mlir_cuda.to_device(x)
        name = "numba-cuda-mlir coop kernel[grid, block](dx, dy), its device arrays"
        md = out(name, mlir_cuda.to_device)
        rows[name] = lambda: mlir_coop[grid, THREADS](mdx, md)
        name = "numba-cuda-mlir coop kernel[grid, block](tx, ty), torch tensors"
        mt = out(name, lambda h: torch.from_numpy(h).cuda())
        rows[name] = lambda: mlir_coop[grid, THREADS](tx, mt)
        # numba-cuda-mlir 0.6's own launcher takes no torch tensors (it reads their dtype as NumPy's)
        name = "numba-cuda-mlir kernel[grid, block](dx, dy), its device arrays"
        mp = out(name, mlir_cuda.to_device)
        rows[name] = lambda: mlir_plain[plain_grid, THREADS](mdx, mp)
        name = f"{MLIR} coop prepared launch(dx, dy), its device arrays"
        mq = out(name, mlir_cuda.to_device)
        mlir_p = mlir_coop.prepare(grid, THREADS, mdx, mq)
        rows[name] = lambda: mlir_p.launch(mdx, mq)
        name = f"{MLIR} coop prepared launch(px, py), raw pointers"
        mr = out(name, mlir_cuda.to_device)
        mlir_raw = mlir_coop.prepare(grid, THREADS, mdx, mr)
        mx_ptr, mr_ptr = mdx.device_ctypes_pointer.value, mr.device_ctypes_pointer.value
        rows[name] = lambda: mlir_raw.launch(mx_ptr, mr_ptr)
        name = f"{MLIR} coop prepared launch(tx, ty), torch tensors"
        mtt = out(name, lambda h: torch.from_numpy(h).cuda())
        mlir_torch = mlir_coop.prepare(grid, THREADS, tx, mtt)
        rows[name] = lambda: mlir_torch.launch(tx, mtt)

    want = x + np.float32(1)

    def check() -> list[str]:
        cuda.synchronize()
        wrong = []
        for row, y in outs.items():
            if isinstance(y, torch.Tensor):
                host = y.cpu().numpy()
            else:
                host = y.copy_to_host() if hasattr(y, "copy_to_host") else y.get()  # Numba / CuPy
            if not np.array_equal(host, want):
                wrong.append(row)
        return wrong

    return rows, check


def _time(fn: Callable[[], object], n: int, sync: Callable[[], None]) -> float:
    """Microseconds per launch of ``n`` back-to-back launches and one synchronise."""
    sync()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    sync()
    return (time.perf_counter() - t0) / n * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--launches", type=int, default=2000, help="launches per timed batch")
    ap.add_argument("--reps", type=int, default=15, help="batches per row (median)")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    from numba import cuda

    if not cuda.is_available():
        print("no CUDA GPU here: the launch benchmark needs one")
        return
    rows, check = _rows()
    for fn in rows.values():  # compile, cache plans, warm the driver
        for _ in range(3):
            fn()
    wrong = check()
    assert not wrong, f"wrong results: {wrong}"
    samples: dict[str, list[float]] = {k: [] for k in rows}
    for _ in range(args.reps):
        for name, fn in rows.items():
            samples[name].append(_time(fn, args.launches, cuda.synchronize))
    us = {k: statistics.median(v) for k, v in samples.items()}
    us.update(_cutlass_rows(args.launches))
    raw = us[RAW]
    dev = cuda.get_current_device().name
    dev = dev.decode() if isinstance(dev, bytes) else dev
    print(
        f"device: {dev}; {N} float32; median of {args.reps} interleaved batches of {args.launches} "
        "back-to-back launches, one synchronise per batch"
    )
    print("\n| launch path | µs / launch | × raw cuLaunchKernel |")
    print("|---|---|---|")
    for name, t in sorted(us.items(), key=lambda kv: kv[1]):
        print(f"| {name} | {t:.2f} | {t / raw:.2f} |")
    print("\n| goal | measured | at most | met |")
    print("|---|---|---|---|")
    goals = []
    for what, row, ref, limit in GOALS + [g for g in MLIR_GOALS + CUTE_GOALS if g[1] in us]:
        ratio = us[row] / us[ref]
        goals.append({"goal": what, "reference": ref, "ratio": ratio, "limit": limit, "met": ratio <= limit})
        print(f"| {what} / {ref} | {ratio:.2f} | {limit} | {'yes' if ratio <= limit else 'NO'} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {"device": dev, "launches": args.launches, "reps": args.reps, "us": us, "goals": goals},
                f,
                indent=1,
            )


if __name__ == "__main__":
    main()
