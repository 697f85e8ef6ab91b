# SPDX-License-Identifier: Apache-2.0
"""nvJitLink keeps memory after ``nvJitLinkDestroy``: about the size of its LTO-IR input per link.

A reproducer for the report upstream, and the figures behind ``cuda.coop._link``. Each case runs in
a fresh process: N links of one input after 20 warm-up links, the resident set measured after
``malloc_trim`` (so that what is counted is kept, not cached by malloc). Needs no GPU.

    python benchmarks/nvjitlink_leak.py [--links 200]

Cases: the bare ``cuda.bindings.nvjitlink`` calls (create, add, complete, get, destroy) for LTO-IR
inputs of three sizes and for a non-LTO cubin input; cuda.core's ``Linker`` (the same growth: it is
not the binding); cuda.coop's link, which hands links past its budget to a worker process.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import os
import subprocess
import sys


def _rss_kb() -> float:
    gc.collect()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1024


def _source(kernels: int) -> str:
    return "".join(
        f'extern "C" __global__ void k{i}(float* x) {{ x[threadIdx.x] = x[threadIdx.x] * {i}.5f + 1.0f; }}\n'
        for i in range(kernels)
    )


def _case(how: str, kernels: int, links: int) -> None:
    """Run in the child: print input bytes, output bytes and KB kept per link."""
    from cuda.bindings import nvjitlink
    from cuda.core import Linker, LinkerOptions, ObjectCode, Program, ProgramOptions

    lto = how != "bare-cubin"
    options = ProgramOptions(arch="sm_90", relocatable_device_code=True, link_time_optimization=lto)
    data = bytes(Program(_source(kernels), "c++", options).compile("ltoir" if lto else "cubin").code)
    flags = ["-arch=sm_90"] + (["-lto"] if lto else [])

    def bare() -> int:
        kind = nvjitlink.InputType.LTOIR if lto else nvjitlink.InputType.CUBIN
        handle = nvjitlink.create(len(flags), flags)
        try:
            nvjitlink.add_data(handle, kind, data, len(data), "input")
            nvjitlink.complete(handle)
            out = bytearray(nvjitlink.get_linked_cubin_size(handle))
            nvjitlink.get_linked_cubin(handle, out)
            return len(out)
        finally:
            nvjitlink.destroy(handle)

    def core() -> int:
        options = LinkerOptions(arch="sm_90", link_time_optimization=True)
        linker = Linker(ObjectCode.from_ltoir(data), options=options)
        out = linker.link("cubin").code
        linker.close()
        return len(out)

    def coop() -> int:  # run without a cache (see main), so that every call links
        from cuda.coop import _link

        return len(_link.link_exact([("ltoir", data, "input")], flags, "cubin"))

    step = {"bare-ltoir": bare, "bare-cubin": bare, "cuda.core": core, "cuda.coop": coop}[how]
    for _ in range(20):
        size = step()
    base = _rss_kb()
    for _ in range(links):
        step()
    print(len(data), size, (_rss_kb() - base) / links)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--links", type=int, default=200)
    parser.add_argument("--case", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        _case(args.case[0], int(args.case[1]), args.links)
        return
    import importlib.metadata

    from cuda.bindings import nvjitlink

    wheel = importlib.metadata.version("nvidia-nvjitlink")
    print(f"nvJitLink {'.'.join(map(str, nvjitlink.version()))} ({wheel}), {args.links} links per case")
    print(f"| {'case':<10} | {'input':<6} | {'input KB':>8} | {'output KB':>9} | {'kept KB per link':>16} |")
    print(f"|{'-' * 12}|{'-' * 8}|{'-' * 9}:|{'-' * 10}:|{'-' * 17}:|")
    cases = [("bare-ltoir", 1), ("bare-ltoir", 100), ("bare-ltoir", 400), ("bare-cubin", 400)]
    cases += [("cuda.core", 100), ("cuda.coop", 100)]
    env = {**os.environ, "CUDA_COOP_LINK_IN_PROCESS_BYTES": "0", "CUDA_COOP_CACHE_DIR": "/proc/no-cache"}
    for how, kernels in cases:
        command = [sys.executable, "-W", "ignore", __file__, "--links", str(args.links)]
        out = subprocess.run(
            [*command, "--case", how, str(kernels)],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        ).stdout.split()
        data, size, kept = int(out[0]), int(out[1]), float(out[2])
        kind = "cubin" if how == "bare-cubin" else "LTO-IR"
        print(f"| {how:<10} | {kind:<6} | {data / 1024:8.1f} | {size / 1024:9.1f} | {kept:16.1f} |")


if __name__ == "__main__":
    main()
