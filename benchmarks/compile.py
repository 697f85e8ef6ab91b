# SPDX-License-Identifier: Apache-2.0
"""Compile time of coop kernels next to their DSL's own compile, ahead of time (no GPU needed).

Rows (issue 21's goals table; the reference kernel is ``benchmarks/compute.py``'s load +
inclusive_sum + store, int32, 128 threads x 8 items, ``striped``):

  plain      the DSL's own compile of a plain kernel of the same memory traffic (no coop)
  first      a new process's first coop kernel, empty cache (timed inside the process, after the
             DSL's own first compile): one NVRTC call for its requests, one for its glue
  cold       a new coop kernel, empty cache, in a process that compiled units before: its NVRTC
             call uses the process's precompiled header (``$CUDA_COOP_PCH=0``: it does not)
  warm       the same kernel again as a new kernel object, its bundle on disk
  seen       a new kernel whose requests were all compiled before, in two other kernels
  20 kernels 4 kernels of 4 primitives at each of 5 block shapes, one process, empty cache
  20 at once the same 20 kernels by one ``compile_many``: their units compiled by worker
             processes, one per CPU
  8 procs    8 processes compiling the same new kernel into one empty cache at once

NVRTC calls are written ``units+glues g``: compiles of units of requests (each parses CUB), then of
kernels' glue (no CUB, tens of milliseconds). Every figure is a median of ``--reps`` fresh compiles
(new kernel objects; a new cache directory for each cold compile). Backends: numba-cuda,
numba-cuda-mlir (same kernel source) and the CuTe DSL, each where installed; ``--backends`` picks.

    python benchmarks/compile.py [--reps R] [--backends numba,numba_mlir,cutlass] [--json PATH]
                                 [--only plain,first,cold,warm,seen,many,procs]
"""

import os
import sys

sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]
os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

ARCH = "sm_90a"
THREADS, ITEMS, ALG = 128, 8, "striped"
SHAPES = (64, 128, 256, 512, 1024)
ROWS = ("plain", "first", "cold", "warm", "seen", "many", "procs")

#: One Numba-family kernel module: ``{cuda}`` is the DSL's import; each kernel is a (name, body).
NUMBA_MODULE = """
import numpy as np
{cuda}
from cuda import coop

T, I = {threads}, {items}

def plain(src, dst):
    base = cuda.blockIdx.x * T * I
    for j in range(I):
        dst[base + j * T + cuda.threadIdx.x] = src[base + j * T + cuda.threadIdx.x]

def scan(src, dst):
    buf = coop.ThreadData(I, np.int32)
    base = cuda.blockIdx.x * T * I
    coop.block.load(src, buf, offset=base, algorithm="{alg}")
    out = coop.block.inclusive_sum(buf)
    coop.block.store(dst, out, offset=base, algorithm="{alg}")

def copy(src, dst):  # seen: the load and store requests
    buf = coop.ThreadData(I, np.int32)
    base = cuda.blockIdx.x * T * I
    coop.block.load(src, buf, offset=base, algorithm="{alg}")
    coop.block.store(dst, buf, offset=base, algorithm="{alg}")

def exscan(src, dst):  # seen: the exclusive_sum request
    buf = coop.ThreadData(I, np.int32)
    base = cuda.blockIdx.x * T * I
    coop.block.load(src, buf, offset=base, algorithm="direct")
    out = coop.block.exclusive_sum(buf)
    coop.block.store(dst, out, offset=base, algorithm="direct")

def mixed(src, dst):  # seen: requests of copy and exscan only
    buf = coop.ThreadData(I, np.int32)
    base = cuda.blockIdx.x * T * I
    coop.block.load(src, buf, offset=base, algorithm="{alg}")
    out = coop.block.exclusive_sum(buf)
    coop.block.store(dst, out, offset=base, algorithm="{alg}")

def many0(src, dst):
    buf = coop.ThreadData(4, np.int32)
    base = cuda.blockIdx.x * T * 4
    coop.block.load(src, buf, offset=base, algorithm="striped")
    out = coop.block.inclusive_sum(buf)
    total = coop.block.sum(out[0])
    out[0] += total
    coop.block.store(dst, out, offset=base, algorithm="striped")

def many1(src, dst):
    buf = coop.ThreadData(4, np.int32)
    base = cuda.blockIdx.x * T * 4
    coop.block.load(src, buf, offset=base, algorithm="direct")
    out = coop.block.exclusive_sum(buf)
    top = coop.block.reduce(out[3], "max")
    out[0] += top
    coop.block.store(dst, out, offset=base, algorithm="direct")

def many2(src, dst):
    buf = coop.ThreadData(4, np.int32)
    base = cuda.blockIdx.x * T * 4
    coop.block.load(src, buf, offset=base, algorithm="vectorize")
    out = coop.block.inclusive_scan(buf, "max")
    total = coop.block.sum(out[3])
    out[0] += total
    coop.block.store(dst, out, offset=base, algorithm="vectorize")

def many3(src, dst):
    buf = coop.ThreadData(4, np.int32)
    base = cuda.blockIdx.x * T * 4
    coop.block.load(src, buf, offset=base, algorithm="transpose")
    out = coop.block.exclusive_scan(buf, "min")
    low = coop.block.reduce(out[0], "min")
    out[1] += low
    coop.block.store(dst, out, offset=base, algorithm="transpose")
"""

_DIR = Path(tempfile.mkdtemp(prefix="coop-compile-bench-"))
_SERIAL = [0]


def _module(source: str) -> Any:
    """``source`` imported as a fresh module (from a file: the DSLs read kernels' source)."""
    _SERIAL[0] += 1
    path = _DIR / f"kernels_{_SERIAL[0]}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _fresh_cache() -> str:
    os.environ["CUDA_COOP_CACHE_DIR"] = tempfile.mkdtemp(prefix="coop-compile-cache-")
    return os.environ["CUDA_COOP_CACHE_DIR"]


def _nvrtc() -> int:
    """NVRTC compiles of units of requests so far (each parses CUB)."""
    from cuda import coop

    return coop.compile_stats().nvrtc_compiles


def _glue() -> int:
    """NVRTC compiles of kernels' glue so far (no CUB, tens of milliseconds)."""
    from cuda import coop

    return coop.compile_stats().glue_compiles


class Numba:
    """numba-cuda or numba-cuda-mlir: the same source, each compiled ahead of time by coop's
    ``compile`` and, for ``plain``, by the DSL's own ``compile``."""

    def __init__(self, dsl: str) -> None:
        self.dsl = dsl
        if dsl == "numba_mlir":
            import cuda.coop.numba_mlir as front
            from numba_cuda_mlir import types

            self.cuda_import = "from numba_cuda_mlir import cuda"
        else:
            import cuda.coop.numba as front
            from numba.cuda import types

            self.cuda_import = "from numba import cuda"
        self.front = front
        self.sig = (types.int32[::1], types.int32[::1])

    def module(self, threads: int = THREADS, items: int = ITEMS) -> Any:
        return _module(NUMBA_MODULE.format(cuda=self.cuda_import, threads=threads, items=items, alg=ALG))

    def coop(self, name: str, threads: int = THREADS) -> Callable[[], object]:
        module = self.module(threads)
        return lambda: self.front.compile(getattr(module, name), self.sig, block=threads, arch=ARCH)

    def job(self, name: str, threads: int = THREADS) -> tuple[Any, ...]:
        """``compile_many``'s job of kernel ``name``."""
        return (getattr(self.module(threads), name), self.sig, threads)

    def plain(self) -> Callable[[], object]:
        """The DSL's own compile of the plain kernel to a cubin (numba-cuda: PTX, then ptxas)."""
        module = self.module()
        if self.dsl == "numba_mlir":
            from cuda.coop.numba_mlir import _ncm_hooks
            from numba_cuda_mlir import cuda

            def run_mlir() -> object:
                with _ncm_hooks.compute_capability((9, 0)):  # no GPU needed
                    return cuda.jit(module.plain, chip=ARCH).compile(self.sig)

            return run_mlir
        from cuda.core import Program, ProgramOptions
        from numba import cuda

        def run() -> object:
            ptx, _ = cuda.compile(module.plain, self.sig, cc=(9, 0), output="ptx")
            return Program(ptx, "ptx", ProgramOptions(arch=ARCH)).compile("cubin")

        return run


class Cute:
    """The CuTe DSL: compute.py's scan kernel and copy.py's plain copy."""

    dsl = "cutlass"

    def __init__(self) -> None:
        import cuda.coop.cutlass as front
        import cutlass
        from cutlass.cute.runtime import make_fake_compact_tensor

        self.front = front
        n = THREADS * ITEMS * 64
        self.args = [make_fake_compact_tensor(cutlass.Int32, (n,), assumed_align=16) for _ in range(2)]
        spec = importlib.util.spec_from_file_location(
            "coop_compute_bench", Path(__file__).with_name("compute.py")
        )
        assert spec is not None and spec.loader is not None
        self.bench = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(self.bench)

    def coop(self, name: str, threads: int = THREADS) -> Callable[[], object]:
        job = self.job(name, threads)
        return lambda: self.front.compile(*job)

    def job(self, name: str, threads: int = THREADS) -> tuple[Any, ...]:
        """``compile_many``'s job of kernel ``name``: ``scan`` or ``many0`` .. ``many3``."""
        if name == "scan":
            return (self.bench.cute_scan(threads, ITEMS, ALG), *self.args)
        if name in ("copy", "exscan", "mixed"):
            return (_cute_seen(name, threads), *self.args)
        assert name.startswith("many"), name
        return (_cute_many(int(name[4:]), threads), *self.args)

    def plain(self) -> Callable[[], object]:
        import cutlass.cute as cute

        host = self.bench._copy_bench()._plain_cute_copy(ITEMS, THREADS)
        return lambda: cute.compile(host, *self.args)


def _cute_seen(name: str, threads: int) -> Any:
    """The CuTe DSL's ``copy``, ``exscan`` or ``mixed`` of ``NUMBA_MODULE`` (the ``seen`` row)."""
    import cutlass
    import cutlass.cute as cute
    from cuda import coop

    tile = threads * ITEMS
    alg = "direct" if name == "exscan" else ALG

    @cute.kernel
    def kernel(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        bidx, _, _ = cute.arch.block_idx()
        buf = coop.ThreadData(ITEMS, cutlass.Int32)
        coop.block.load(src, buf, offset=bidx * tile, algorithm=alg)
        if cutlass.const_expr(name == "copy"):
            coop.block.store(dst, buf, offset=bidx * tile, algorithm=alg)
        else:
            out = coop.block.exclusive_sum(buf)
            coop.block.store(dst, out, offset=bidx * tile, algorithm=alg)

    @cute.jit
    def host(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        kernel(src, dst).launch(grid=(cute.size(src) // tile, 1, 1), block=(threads, 1, 1))

    return host


def _cute_many(k: int, threads: int) -> Any:
    """The CuTe DSL's ``many<k>`` of ``NUMBA_MODULE``, for ``threads`` threads (64 blocks)."""
    import cutlass
    import cutlass.cute as cute
    from cuda import coop

    tile = threads * 4
    alg = ("striped", "direct", "vectorize", "transpose")[k]

    @cute.kernel
    def kernel(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        bidx, _, _ = cute.arch.block_idx()
        base = bidx * tile
        buf = coop.ThreadData(4, cutlass.Int32)
        coop.block.load(src, buf, offset=base, algorithm=alg)
        if cutlass.const_expr(k == 0):
            out = coop.block.inclusive_sum(buf)
            out[0] = out[0] + coop.block.sum(out[0])
        elif cutlass.const_expr(k == 1):
            out = coop.block.exclusive_sum(buf)
            out[0] = out[0] + coop.block.reduce(out[3], "max")
        elif cutlass.const_expr(k == 2):
            out = coop.block.inclusive_scan(buf, "max")
            out[0] = out[0] + coop.block.sum(out[3])
        else:
            out = coop.block.exclusive_scan(buf, "min")
            out[1] = out[1] + coop.block.reduce(out[0], "min")
        coop.block.store(dst, out, offset=base, algorithm=alg)

    @cute.jit
    def host(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        kernel(src, dst).launch(grid=(cute.size(src) // tile, 1, 1), block=(threads, 1, 1))

    return host


def _timed(make: Callable[[], Callable[[], object]], reps: int, cold: bool) -> tuple[float, str]:
    """The median seconds of ``reps`` compiles (each of a fresh kernel from ``make()``; a new cache
    directory first if ``cold``), and the NVRTC calls of the last: units of requests, then glues."""
    times, calls = [], ""
    for _ in range(reps):
        run = make()
        if cold:
            _fresh_cache()
        before, glue = _nvrtc(), _glue()
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
        calls = f"{_nvrtc() - before}+{_glue() - glue}g"
    return statistics.median(times), calls


def measure(backend: Any, reps: int, only: set[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    backend.plain()()  # the DSL's first compile in this process (its own set-up)
    for threads in (THREADS, 96):  # two units: the second makes the process's precompiled header
        _fresh_cache()
        backend.coop("scan", threads)()
    if "plain" in only:
        out["plain"] = _timed(backend.plain, reps, cold=False)[0]
    if "first" in only:
        out["first"] = statistics.median(_first(backend.dsl) for _ in range(reps))
    if "cold" in only:
        out["cold"], out["cold nvrtc"] = _timed(lambda: backend.coop("scan"), reps, cold=True)
    if "warm" in only:
        backend.coop("scan")()
        out["warm"], out["warm nvrtc"] = _timed(lambda: backend.coop("scan"), reps, cold=False)
    if "seen" in only:

        def seen() -> Callable[[], object]:
            """``mixed``, in a new cache that holds the kernels of its requests (copy, exscan)."""
            _fresh_cache()
            backend.coop("copy")()
            backend.coop("exscan")()
            return backend.coop("mixed")

        out["seen"], out["seen nvrtc"] = _timed(seen, reps, cold=False)
    if "many" in only:
        _fresh_cache()
        runs = [backend.coop(f"many{k}", threads) for threads in SHAPES for k in range(4)]
        before, glue = _nvrtc(), _glue()
        t0 = time.perf_counter()
        for run in runs:
            run()
        out["20 kernels"] = time.perf_counter() - t0
        out["20 kernels nvrtc"] = f"{_nvrtc() - before}+{_glue() - glue}g"
    if "many" in only and hasattr(backend.front, "compile_many"):  # the same, by one compile_many
        _fresh_cache()
        jobs = [backend.job(f"many{k}", threads) for threads in SHAPES for k in range(4)]
        before, glue = _nvrtc(), _glue()
        t0 = time.perf_counter()
        backend.front.compile_many(jobs, arch=ARCH)
        out["20 at once"] = time.perf_counter() - t0
        out["20 at once nvrtc"] = f"{_nvrtc() - before}+{_glue() - glue}g"
    if "procs" in only and backend.dsl != "cutlass":
        out["8 procs"], out["8 procs nvrtc"] = _processes(backend.dsl, 8)
    return out


def _child(dsl: str, cache: str, body: str) -> str:
    """A ``python -c`` program that loads this file, makes the backend ``b`` with ``cache`` as its
    cache directory, and runs ``body``."""
    return (
        "import sys; sys.argv = ['x']; import importlib.util, json, os, time\n"
        f"spec = importlib.util.spec_from_file_location('cb', {str(Path(__file__))!r})\n"
        "cb = importlib.util.module_from_spec(spec); spec.loader.exec_module(cb)\n"
        f"os.environ['CUDA_COOP_CACHE_DIR'] = {cache!r}\n"
        f"b = cb.Cute() if {dsl!r} == 'cutlass' else cb.Numba({dsl!r})\n" + body
    )


def _first(dsl: str) -> float:
    """Seconds of a new process's first coop compile (empty cache), after its DSL's own first."""
    code = _child(
        dsl,
        tempfile.mkdtemp(prefix="coop-compile-first-"),
        "b.plain()(); run = b.coop('scan'); t0 = time.perf_counter(); run()\n"
        "print(json.dumps(time.perf_counter() - t0))\n",
    )
    done = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, check=True)
    return float(done.stdout.strip().splitlines()[-1])


def _processes(dsl: str, n: int) -> tuple[float, int]:
    """Seconds until ``n`` processes compiling the same new kernel into one empty cache are done, and
    their NVRTC calls together."""
    cache = tempfile.mkdtemp(prefix="coop-compile-procs-")
    env = {**os.environ, "CUDA_COOP_CACHE_DIR": cache}
    code = _child(
        dsl,
        cache,
        "b.coop('scan', 96)()\nfrom cuda import coop\n"
        "print(json.dumps(coop.compile_stats().nvrtc_compiles))\n",
    )
    t0 = time.perf_counter()
    procs = [
        subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True)
        for _ in range(n)
    ]
    outs = [p.communicate()[0] for p in procs]
    seconds = time.perf_counter() - t0
    if any(p.returncode for p in procs):
        raise RuntimeError(f"a compiling process failed: {[p.returncode for p in procs]}")
    return seconds, sum(int(o.strip().splitlines()[-1]) for o in outs)


def profile_warm(name: str, backend: Any, n: int = 20) -> None:
    """Print the functions where ``n`` warm compiles of the reference kernel spend their time (the
    warm row beyond the DSL: cache reads, the link-cache hit, the DSL's own work), on stderr."""
    import cProfile
    import io
    import pstats

    backend.coop("scan")()  # in the cache
    runs = [backend.coop("scan") for _ in range(n)]
    profile = cProfile.Profile()
    profile.enable()
    for run in runs:
        run()
    profile.disable()
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(25)
    print(f"== {name}: {n} warm compiles, by own time\n{out.getvalue()}", file=sys.stderr, flush=True)


def _s(r: dict[str, Any], key: str) -> str:
    return f"{r[key]:.3f}" if key in r else "-"


def _diff(r: dict[str, Any], a: str, b: str) -> str:
    return f"{r[a] - r[b]:+.3f}" if a in r and b in r else "-"


def _ratio(r: dict[str, Any], a: str, b: str) -> str:
    return f"{r[a] / r[b]:.1f}" if a in r and b in r else "-"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--backends", default="numba,numba_mlir,cutlass")
    ap.add_argument("--only", default=",".join(ROWS))
    ap.add_argument("--json", default=None)
    ap.add_argument(
        "--profile-warm", action="store_true", help="then print where 20 warm compiles of each backend go"
    )
    args = ap.parse_args()
    only = set(args.only.split(","))
    results: dict[str, Any] = {}
    for name in args.backends.split(","):
        module = {"numba": "numba.cuda", "numba_mlir": "numba_cuda_mlir", "cutlass": "cutlass"}[name]
        if importlib.util.find_spec(module.split(".")[0]) is None:
            print(f"{name}: not installed, skipped")
            continue
        backend = Cute() if name == "cutlass" else Numba(name)
        results[name] = measure(backend, args.reps, only)
        print(f"{name}: done", file=sys.stderr, flush=True)
        if args.profile_warm:
            profile_warm(name, backend)
    cpus = os.cpu_count()
    from cuda.coop._bundle import _pch_wanted

    pch = "on" if _pch_wanted() else "off"
    print(f"compile time, {ARCH} ahead of time, {cpus} CPUs; medians of {args.reps}; seconds; PCH {pch}")
    print(
        "\n| backend | plain DSL | first | first - plain | cold | cold - plain | NVRTC | warm | warm - plain "
        "| seen (NVRTC) "
        "| 20 kernels (NVRTC) | 20 / cold | 20 by compile_many (NVRTC) | 20 at once / cold "
        "| 8 processes (NVRTC) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, r in results.items():
        print(
            f"| {name} | {_s(r, 'plain')} | {_s(r, 'first')} | {_diff(r, 'first', 'plain')} | "
            f"{_s(r, 'cold')} | {_diff(r, 'cold', 'plain')} | "
            f"{r.get('cold nvrtc', '-')} | {_s(r, 'warm')} | {_diff(r, 'warm', 'plain')} | "
            f"{_s(r, 'seen')} ({r.get('seen nvrtc', '-')}) | {_s(r, '20 kernels')} "
            f"({r.get('20 kernels nvrtc', '-')}) | {_ratio(r, '20 kernels', 'cold')} | "
            f"{_s(r, '20 at once')} ({r.get('20 at once nvrtc', '-')}) | {_ratio(r, '20 at once', 'cold')} | "
            f"{_s(r, '8 procs')} ({r.get('8 procs nvrtc', '-')}) |"
        )
    if args.json:
        Path(args.json).write_text(
            json.dumps({"cpus": cpus, "reps": args.reps, "pch": pch, "results": results}, indent=1)
        )


if __name__ == "__main__":
    main()
