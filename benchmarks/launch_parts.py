# SPDX-License-Identifier: Apache-2.0
"""Where the host time of a coop launch with torch tensors goes: each piece alone, timed with
``timeit`` (no kernel is launched while timing), in nanoseconds.

The pieces: the driver's ``cuCtxGetCurrent`` and coop's ``current_context()``; the configuration's
look-up ``kernel[grid, block]``; the ordinary launch's ``take()`` of two torch tensors (the checks
that they are like the last launch's, and the writes of their data pointers); the prepared launch's
``set_all`` of the same; and each torch attribute those read. ``benchmarks/launch.py`` times the
launches themselves; this script says which part of their cost Python spends where.

    python benchmarks/launch_parts.py [--number N]
"""

import os
import sys

sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import timeit  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402


def _launch_bench() -> Any:
    spec = importlib.util.spec_from_file_location("coop_launch_bench", Path(__file__).with_name("launch.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--number", type=int, default=200_000)
    number = parser.parse_args().number

    import torch
    from cuda.bindings import driver
    from cuda.coop import _launch

    bench = _launch_bench()
    kernel, _ = bench._kernels()
    threads = bench.THREADS
    grid = bench.N // (threads * bench.ITEMS)
    x = torch.rand(bench.N, device="cuda")
    y = torch.empty_like(x)
    for _ in range(2):  # the first launch compiles, the second keys and notes the arguments
        kernel[grid, threads](x, y)
    torch.cuda.synchronize()
    plan = kernel[grid, threads]._local.recent[0]
    prepared = kernel.prepare(grid, threads, x, y)
    shape, strides = x.shape, x.stride()

    def row(name: str, f: Callable[[], object]) -> None:
        ns = min(timeit.repeat(f, number=number, repeat=5)) / number * 1e9
        print(f"| {name} | {ns:.1f} |")

    print(f"host time of launch pieces on {torch.cuda.get_device_name()} (ns, best of 5 x {number})")
    print("| piece | ns |\n|---|---|")
    row("empty lambda (the timing's floor)", lambda: None)
    row("cuCtxGetCurrent (cuda.bindings)", driver.cuCtxGetCurrent)
    row("current_context()", _launch.current_context)
    row("kernel[grid, block] (the configuration's look-up)", lambda: kernel[grid, threads])
    row("take(x, y): two torch tensors like the last", lambda: plan.take(x, y))
    row("prepared set_all(x, y)", lambda: prepared._set_all(x, y))
    row("x.dtype", lambda: x.dtype)
    row("x.shape", lambda: x.shape)
    row("x.shape == last shape", lambda: x.shape == shape)
    row("x.stride()", lambda: x.stride())
    row("x.stride() == last strides", lambda: x.stride() == strides)
    row("x.get_device()", lambda: x.get_device())
    row("x.requires_grad", lambda: x.requires_grad)
    row("x.data_ptr()", lambda: x.data_ptr())


if __name__ == "__main__":
    main()
