# SPDX-License-Identifier: Apache-2.0
"""Where a CuTe-backend copy's bandwidth comes from: its launch path, its cubin, and the same CUB
C++ kernel built four ways, in one run.

Columns (GB/s; one copy of 2^28 int32, median of interleaved batches, as benchmarks/copy.py):
  CuTe launch       the coop copy in a @cute.kernel, compiled by cuda.coop.cutlass.compile and
                    launched by CuTe's compiled function
  bridge cubin      the same linked cubin launched directly with cuda.core
  CUB NVRTC         the CUB C++ kernel compiled straight to a cubin (copy.py's reference)
  CUB LTO nvvm7     its LTO-IR linked by nvJitLink -lto (the Numba backend's optimizer)
  CUB LTO latest    the same with -nvvm-latest (the optimizer the CuTe route must use: CuTe's IR
                    needs it)
  CUB reqntid       CUB NVRTC's PTX with `.maxntid` changed to `.reqntid` (what CuTe declares)

    python benchmarks/cub_codegen.py [--algorithms A,B] [--reps R]
"""

# No `from __future__ import annotations`: CuTe evaluates kernel annotations when it traces.
import os
import sys

# Keep this folder (which holds copy.py) off sys.path so that `import copy` finds the stdlib.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import re  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402


def _bench() -> Any:
    """benchmarks/copy.py as a module (its name shadows the stdlib's, so load it by path)."""
    spec = importlib.util.spec_from_file_location("coop_copy_bench", Path(__file__).with_name("copy.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _link(kind: Any, data: bytes, options: list[str], ptx: bool = False) -> bytes:
    """One nvJitLink run over one input; the linked PTX or cubin."""
    from cuda.bindings import nvjitlink

    handle = nvjitlink.create(len(options), options)
    try:
        nvjitlink.add_data(handle, kind, data, len(data), "input")
        nvjitlink.complete(handle)
        if ptx:
            out = bytearray(nvjitlink.get_linked_ptx_size(handle))
            nvjitlink.get_linked_ptx(handle, out)
            return bytes(out).rstrip(b"\0")
        out = bytearray(nvjitlink.get_linked_cubin_size(handle))
        nvjitlink.get_linked_cubin(handle, out)
        return bytes(out)
    finally:
        nvjitlink.destroy(handle)


def _cub_variants(bench: Any, arch: str, threads: int, items: int, alg: str) -> dict[str, Any]:
    """The CUB C++ copy kernel of this configuration built the four ways of the module docstring."""
    from cuda.bindings import nvjitlink
    from cuda.core import ObjectCode

    expr = (bench._cub_name(threads, items, alg),)
    direct_ptx = bytes(bench._cub_program(arch).compile("ptx", name_expressions=expr).code)
    ir = bytes(bench._cub_program(arch, lto=True).compile("ltoir", name_expressions=expr).code)
    entry = re.findall(rb"\.entry (\S+)\(", direct_ptx)[0].decode()
    lto, ptx, a = nvjitlink.InputType.LTOIR, nvjitlink.InputType.PTX, f"-arch={arch}"
    ptx_texts = {
        "CUB NVRTC": direct_ptx,
        "CUB LTO nvvm7": _link(lto, ir, [a, "-lto", "-ptx"], ptx=True),
        "CUB LTO latest": _link(lto, ir, [a, "-lto", "-ptx", "-nvvm-latest"], ptx=True),
        "CUB reqntid": direct_ptx.replace(b".maxntid", b".reqntid"),
    }
    return {k: ObjectCode.from_cubin(_link(ptx, v, [a])).get_kernel(entry) for k, v in ptx_texts.items()}


def main() -> None:
    bench = _bench()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--algorithms", default=",".join(bench.ALGORITHMS))
    ap.add_argument("--elements", type=int, default=1 << 28)
    ap.add_argument("--reps", type=int, default=9)
    args = ap.parse_args()
    os.environ.setdefault("CUDA_COOP_CACHE_DIR", tempfile.mkdtemp(prefix="coop-codegen-cache-"))

    import cuda.coop.cutlass as cutlass_coop
    import torch
    from cuda.core import LaunchConfig, ObjectCode, launch
    from cutlass.cute.runtime import from_dlpack

    n = args.elements
    dev, arch, src, dst, stream = bench._device_and_data(n)
    c_src, c_dst = from_dlpack(src, assumed_align=16), from_dlpack(dst, assumed_align=16)

    rows = []
    for threads, items in bench.CONFIGS:
        for alg in args.algorithms.split(","):
            tile = threads * items
            bridge = cutlass_coop.compile(bench._cute_copy(alg, items, threads), c_src, c_dst)
            function = bridge.inspect().functions[0]
            kernels = {
                "bridge cubin": ObjectCode.from_cubin(bridge.cubin).get_kernel(function),
                **_cub_variants(bench, arch, threads, items, alg),
            }
            cfg = LaunchConfig(grid=n // tile, block=threads)
            fns = {"CuTe launch": lambda f=bridge: f(c_src, c_dst)}
            for name, k in kernels.items():
                fns[name] = lambda k=k, cfg=cfg: launch(stream, cfg, k, src.data_ptr(), dst.data_ptr())
            for name, fn in fns.items():
                dst.zero_()
                fn()
                torch.cuda.synchronize()
                assert torch.equal(dst[: n // tile * tile], src[: n // tile * tile]), f"{name}: wrong copy"
            times = bench._interleaved(fns, args.reps, torch)
            rows.append((threads, items, alg, {k: 2 * n * 4 / t / 1e9 for k, t in times.items()}))
            print(f"{threads} x {items} {alg}: done", file=sys.stderr, flush=True)

    names = list(rows[0][3])
    print(f"device: {dev.name}, {n} int32, median of {args.reps} interleaved batches of {bench.BATCH}")
    ratios = " | CuTe / CUB NVRTC | CuTe / CUB LTO latest |"
    print("| threads x items | algorithm | " + " | ".join(names) + ratios)
    print("|---|---|" + "---|" * (len(names) + 2))
    for threads, items, alg, g in rows:
        cells = " | ".join(f"{g[k]:.0f}" for k in names)
        ratios = f"{g['CuTe launch'] / g['CUB NVRTC']:.3f} | {g['CuTe launch'] / g['CUB LTO latest']:.3f}"
        print(f"| {threads} x {items} | {alg} | {cells} | {ratios} |")


if __name__ == "__main__":
    main()
