# SPDX-License-Identifier: Apache-2.0
"""Warp primitives next to CUB C++ and torch, same run, both backends.

Table (medians of interleaved batches, as benchmarks/copy.py; GB/s counts bytes read + written):
  row sum    a warp per row of a (2^20 x 32) float32 matrix: each logical warp loads its row
             (coop.warp.load) and sums it (coop.warp.sum, shuffles), lane 0 writes the row's sum;
             configurations: block threads x logical warp width x items per lane x load algorithm
             (width 8 x 4 items: four rows per hardware warp, vectorized loads). Next to the CUB C++
             kernel of the same configuration (cub::WarpLoad + cub::WarpReduce) and
             torch.sum(dim=-1).

    python benchmarks/warp.py [--rows N] [--reps R] [--json PATH] [--aot] [--profile N]

``--profile N`` times nothing: it checks each kernel, then launches each N times, for a profiler
(``ncu --clock-control none --metrics gpu__time_duration.sum``) to give kernel times without the
host's launch path.

``--aot`` compiles every kernel ahead of time for sm_90a and prints the SASS facts of each coop kernel
and of the CUB C++ kernel of its configuration (instructions before the first global load, i.e. the
index arithmetic; instructions in all; registers; SHFL; shared memory; CALL and local memory of the
coop kernels); no GPU needed.

The coop kernels are written as a performance-aware user of each DSL writes them (the width is a
power of two: shifts and masks; unsigned or 64-bit index arithmetic); see ``numba_row_sum`` and
``cute_row_sum``.
"""

# No `from __future__ import annotations`: CuTe evaluates kernel annotations when it traces.
import os
import sys

sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

COLS = 32
# (block threads, logical warp width, items per lane, load algorithm): width * items == COLS
CONFIGS = [
    (256, 32, 1, "direct"),
    (128, 32, 1, "direct"),
    (256, 8, 4, "vectorize"),
    (256, 16, 2, "vectorize"),
]

#: The CUB C++ peers, compiled with NVRTC (``warp_cub.cu``; the kernels instantiated by name).
CUB_SOURCE = Path(__file__).with_name("warp_cub.cu").read_text()


def _copy_bench() -> Any:
    """benchmarks/copy.py as a module (its name shadows the stdlib's): the timing loop and setup."""
    spec = importlib.util.spec_from_file_location("coop_copy_bench", Path(__file__).with_name("copy.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cub_kernels(arch: str, load: bool = True) -> dict[tuple[Any, ...], Any]:
    """The CUB C++ reference kernels, compiled (and, with ``load``, loaded) for ``arch``."""
    from cuda.cccl import get_include_paths
    from cuda.core import Program, ProgramOptions

    paths = get_include_paths()
    incs = [str(p) for p in (paths.cub, paths.cuda) if p is not None]
    names = {c: f"cub_row_sum<{c[0]}, {c[1]}, {c[2]}, cub::WARP_LOAD_{c[3].upper()}>" for c in CONFIGS}
    program = Program(CUB_SOURCE, "c++", ProgramOptions(arch=arch, std="c++17", include_path=incs))
    module = program.compile("cubin", name_expressions=tuple(names.values()))
    return {k: module.get_kernel(v) if load else module for k, v in names.items()}


def numba_row_sum(threads: int, width: int, items: int, alg: str, dsl: str = "numba") -> Any:
    """The row sum as a performance-aware numba-cuda user writes it: ``width`` is a power of two, so
    the logical warp and lane come from a shift and a mask, in uint32 arithmetic (Python's ``//`` and
    ``%`` on signed ints are floor division with sign fix-ups), and ``out`` is indexed with an
    unsigned value (a signed index gets Python's negative-index wraparound)."""
    import numpy as np
    from cuda import coop

    jit, cuda = _copy_bench().numba_dsl(dsl)  # numba-cuda or numba-cuda-mlir: the same source
    uint32 = np.uint32
    rows_per_block = np.uint32(threads // width)
    shift = np.uint32(width.bit_length() - 1)  # tid // width == tid >> shift
    lane_mask = np.uint32(width - 1)  # tid % width == tid & lane_mask
    cols = np.uint32(COLS)

    def row_sum(src, out):  # type: ignore[no-untyped-def]
        tid = uint32(cuda.threadIdx.x)
        row = uint32(cuda.blockIdx.x) * rows_per_block + (tid >> shift)  # uint64, never negative
        buf = coop.ThreadData(items, np.float32)
        coop.warp.load(src, buf, offset=row * cols, algorithm=alg, threads_in_warp=width)
        total = coop.warp.sum(buf, threads_in_warp=width)
        if tid & lane_mask == 0:
            out[row] = total

    return jit(row_sum)


def cute_row_sum(threads: int, width: int, items: int, alg: str) -> Any:
    """The row sum as a performance-aware CuTe user writes it: shift and mask for the power-of-two
    width, and the row index computed in 64 bits from the block index on, as CUB's kernel does.
    Computed in Int32 and widened at the end, it measured 1 to 2% slower than CUB's (H200): ptxas
    then reads the block index into a uniform register (S2UR) and the tensor's pointer with a
    per-thread LDC instead of a ULDC, ahead of signed wide multiply-adds (logs/RESULTS_history.md, run 5)."""
    import cutlass
    import cutlass.cute as cute
    from cuda import coop

    rows_per_block = threads // width
    shift = width.bit_length() - 1
    lane_mask = width - 1

    @cute.kernel
    def kernel(src: cute.Tensor, out: cute.Tensor):  # type: ignore[no-untyped-def]
        bidx, _, _ = cute.arch.block_idx()
        tidx, _, _ = cute.arch.thread_idx()
        row = cutlass.Int64(bidx) * rows_per_block + cutlass.Int64(tidx >> shift)
        buf = coop.ThreadData(items, cutlass.Float32)
        coop.warp.load(src, buf, offset=row * COLS, algorithm=alg, threads_in_warp=width)
        total = coop.warp.sum(buf, threads_in_warp=width)
        if tidx & lane_mask == 0:
            out[row] = total

    @cute.jit
    def host(src: cute.Tensor, out: cute.Tensor):  # type: ignore[no-untyped-def]
        kernel(src, out).launch(grid=(cute.size(out) // rows_per_block, 1, 1), block=(threads, 1, 1))

    return host


_INSTRUCTION = re.compile(r"^\s*/\*[0-9a-f]{4}\*/\s+([^;]*);", re.M)
_FUNCTION = re.compile(r"^//-+ \.text\.(\S+) -+$", re.M)


def function_sass(sass: str, name: str) -> str:
    """The disassembly of function ``name`` out of a cubin's (nvdisasm prints them one after another)."""
    marks = [(m.start(), m.group(1)) for m in _FUNCTION.finditer(sass)]
    for i, (start, found) in enumerate(marks):
        if found == name:
            return sass[start : marks[i + 1][0] if i + 1 < len(marks) else len(sass)]
    raise KeyError(name)


def before_load(sass: str) -> int:
    """Instructions of one function before its first global load (LDG): the index arithmetic."""
    for i, m in enumerate(_INSTRUCTION.finditer(sass)):
        if "LDG" in m.group(1):
            return i
    return -1


def _facts(report: Any, function: str | None = None) -> str:
    """One line of SASS facts of ``function`` (default: the report's one kernel, whose CALL and local
    memory traffic are added)."""
    coop_kernel = function is None
    function = function or report.functions[0]
    sass = function_sass(report.sass, function) if len(report.functions) > 1 else report.sass
    shfl = len(re.findall(r"\bSHFL\.", sass))
    code = [m.group(1) for m in _INSTRUCTION.finditer(sass)]
    real = len([c for c in code if c.split()[-1] != "NOP" and not c.startswith("BRA")])
    shared = report.shared_bytes.get(function, 0)
    text = (
        f"{before_load(sass):2d} instructions before the first LDG, {real:3d} in all, "
        f"{report.registers[function]} registers, {shfl} SHFL, {shared} B shared"
    )
    if coop_kernel:
        text += f", {report.calls} CALL, {report.local_loads} LDL, {report.local_stores} STL"
    return text


def aot() -> None:
    """Compile every benchmark kernel for sm_90a without a GPU; print each one's SASS facts next to
    those of the CUB C++ kernel of the same configuration."""
    os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")
    import cuda.coop.cutlass as cutlass_coop
    import cuda.coop.numba as numba_coop
    import cutlass
    from cuda.coop._sass import inspect_cubin
    from cutlass.cute.runtime import make_fake_compact_tensor

    cub = inspect_cubin(bytes(next(iter(_cub_kernels("sm_90a", load=False).values())).code))
    rows = 1 << 20
    for t, w, i, alg in CONFIGS:
        name = f"{t} x w{w} x {i} {alg}"
        (cub_fn,) = [f for f in cub.functions if f"cub_row_sumILi{t}ELi{w}ELi{i}E" in f]
        r = numba_coop.compile(numba_row_sum(t, w, i, alg), "void(float32[::1], float32[::1])", block=t)
        fake = [
            make_fake_compact_tensor(cutlass.Float32, (n,), assumed_align=16) for n in (rows * COLS, rows)
        ]
        c = cutlass_coop.compile(cute_row_sum(t, w, i, alg), *fake)
        print(f"row sum {name}:")
        print(f"  numba   {_facts(r.inspect())}")
        if importlib.util.find_spec("numba_cuda_mlir") is not None:
            import cuda.coop.numba_mlir as mlir_coop

            k = numba_row_sum(t, w, i, alg, "numba_mlir").py_func
            m = mlir_coop.compile(k, "void(float32[::1], float32[::1])", block=t)
            print(f"  numba-mlir {_facts(m.inspect())}")
        print(f"  cute    {_facts(c.inspect())}")
        print(f"  CUB C++ {_facts(cub, cub_fn)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1 << 20)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--json", default=None)
    ap.add_argument("--aot", action="store_true", help="compile for sm_90a only (no GPU)")
    ap.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="N",
        help="no timing: launch each kernel N times after checking it (for `ncu --clock-control none`)",
    )
    args = ap.parse_args()
    if args.aot:
        aot()
        return
    os.environ.setdefault("CUDA_COOP_CACHE_DIR", tempfile.mkdtemp(prefix="coop-bench-cache-"))

    import cuda.coop.cutlass as cutlass_coop
    import torch
    from cuda.core import LaunchConfig, ObjectCode, launch
    from cutlass.cute.runtime import from_dlpack
    from numba import cuda

    bench = _copy_bench()
    dev, arch, _isrc, _idst, stream = bench._device_and_data(1)
    cub = _cub_kernels(arch)
    rows = args.rows
    x = (torch.rand(rows, COLS, device="cuda") - 0.5).contiguous()
    flat = x.view(-1)
    out = torch.empty(rows, device="cuda")
    want = x.double().sum(dim=-1)
    bound = 1e-5 * x.abs().double().sum(dim=-1) + 1e-6
    nb_x, nb_out = cuda.as_cuda_array(flat), cuda.as_cuda_array(out)
    ct_x, ct_out = from_dlpack(flat, assumed_align=16), from_dlpack(out, assumed_align=16)
    # numba-cuda-mlir (when installed): the same kernel source, on its own device arrays
    M = ["numba_mlir"] if importlib.util.find_spec("numba_cuda_mlir") is not None else []
    if M:
        from numba_cuda_mlir import cuda as mlir_cuda

        m_x, m_out = mlir_cuda.as_cuda_array(flat), mlir_cuda.as_cuda_array(out)
    nbytes = rows * COLS * 4 + rows * 4
    result: dict[str, Any] = {"device": dev.name, "rows": rows, "cols": COLS, "row_sum": []}
    table = []
    for t, w, i, alg in CONFIGS:
        grid = rows // (t // w)
        kern = numba_row_sum(t, w, i, alg)[grid, t]
        cute_f = cutlass_coop.compile(cute_row_sum(t, w, i, alg), ct_x, ct_out)
        cfg = LaunchConfig(grid=grid, block=t)
        # the CuTe kernel's own cubin launched as the CUB kernel is (cuda.core): tells the kernel from
        # CuTe's launch path (its parameters are the two tensors' pointers: static layouts)
        (cute_name,) = cute_f.inspect().functions
        cute_kernel = ObjectCode.from_cubin(cute_f.cubin).get_kernel(cute_name)
        fns = {
            "numba": lambda k=kern: k(nb_x, nb_out),
            "cute": lambda f=cute_f: f(ct_x, ct_out),
            "cute kernel, cuda.core launch": lambda k=cute_kernel, c=cfg: launch(
                stream, c, k, flat.data_ptr(), out.data_ptr()
            ),
            "cub": lambda k=cub[(t, w, i, alg)], c=cfg: launch(stream, c, k, flat.data_ptr(), out.data_ptr()),
            "torch": lambda: torch.sum(x, dim=-1),
        }
        if M:
            kern_m = numba_row_sum(t, w, i, alg, "numba_mlir")[grid, t]
            fns["numba_mlir"] = lambda k=kern_m: k(m_x, m_out)
        kernels = [name for name in fns if name != "torch"]  # checked, and launched under --profile
        for name in kernels:
            out.fill_(1e9)
            fns[name]()
            torch.cuda.synchronize()
            err = (out.double() - want).abs()
            assert bool((err <= bound).all()), (
                f"{name} row sum {t} x w{w} x {i}: max error {float(err.max())}"
            )
        if args.profile:
            for name in kernels:
                for _ in range(args.profile):
                    fns[name]()
            torch.cuda.synchronize()
            continue
        ts = bench._interleaved(fns, args.reps, torch)
        row = {"config": f"{t} x w{w} x {i} {alg}", **{k: nbytes / v / 1e9 for k, v in ts.items()}}
        result["row_sum"].append(row)
        table.append(
            [row["config"], *bench._gbs(row, "numba", "cute", "cub", "torch")]
            + bench._ratio(
                row,
                ("numba", "cub"),
                ("cute", "cub"),
                ("cute kernel, cuda.core launch", "cub"),
                ("numba", "torch"),
                ("cute", "torch"),
            )
            + bench._gbs(row, *M)
            + bench._ratio(row, *[(m, "cub") for m in M])
        )
        print(f"row sum {row['config']}: done", file=sys.stderr, flush=True)
    if args.profile:
        return
    bench._table(
        f"warp-per-row sum, {rows} x {COLS} float32 ({dev.name}; GB/s read + written)",
        ["config (threads x width x items)", "numba", "cute", "CUB C++", "torch.sum(-1)",
         "numba/CUB", "cute/CUB", "cute kernel by cuda.core/CUB", "numba/torch", "cute/torch",
         *(["numba-mlir", "numba-mlir/CUB"] if M else [])],
        table,
    )  # fmt: skip
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
