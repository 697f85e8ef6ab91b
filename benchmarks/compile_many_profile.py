# SPDX-License-Identifier: Apache-2.0
"""Where ``cuda.coop.numba.compile_many`` spends the 20 kernels of ``benchmarks/compile.py`` (issue
21's "20 kernels" row), phase by phase, with an empty cache (no GPU needed):

  lower     Numba lowers every kernel (the parent process, one after the other)
  units     the new units compiled by worker processes (``python -m cuda.coop._unit_worker``), wall
            time; with the workers' NVRTC seconds summed, and the units per worker
  link      the kernels' glues and links (the parent's threads, with link worker processes), wall
            time: what is left of the total
  worker    a worker that compiles nothing: its start and imports, which every worker pays

    python benchmarks/compile_many_profile.py [--processes N] [--json PATH]
"""

import os
import sys

sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402


def _bench() -> Any:
    spec = importlib.util.spec_from_file_location(
        "coop_compile_bench", Path(__file__).with_name("compile.py")
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    argv, sys.argv = sys.argv, ["compile.py"]
    try:
        spec.loader.exec_module(module)
    finally:
        sys.argv = argv
    return module


def _empty_worker(arch: str) -> float:
    """Seconds of a unit worker given no unit."""
    with tempfile.TemporaryDirectory() as tmp:
        jobs = Path(tmp) / "none.json"
        jobs.write_text("[]")
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "cuda.coop._unit_worker", arch, str(jobs)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--processes", type=int, default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    os.environ["CUDA_COOP_CACHE_DIR"] = tempfile.mkdtemp(prefix="coop-many-profile-")
    cb = _bench()
    from cuda import coop
    from cuda.coop._bundle import _pch_wanted
    from cuda.coop._numba_like import _front_door
    from cuda.coop.numba.host import _aot

    backend = cb.Numba("numba")
    backend.plain()()  # Numba's own set-up, outside the figures
    phases = {"lower": 0.0, "units": 0.0, "link": 0.0}

    def timed(name: str, fn: Any) -> Any:
        def run(*a: Any, **k: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                phases[name] += time.perf_counter() - t0

        return run

    _aot._lower = timed("lower", _aot._lower)
    # compile_many's loop is the one both Numba-like backends share
    _front_door.prefetch_bundles = timed("units", _front_door.prefetch_bundles)
    jobs = [
        {"func": getattr(backend.module(t), f"many{k}"), "signature": backend.sig, "block": t}
        for t in cb.SHAPES
        for k in range(4)
    ]
    before = coop.compile_stats()
    t0 = time.perf_counter()
    backend.front.compile_many(jobs, arch=cb.ARCH, processes=args.processes)
    total = time.perf_counter() - t0
    phases["link"] = total - phases["lower"] - phases["units"]
    after = coop.compile_stats()
    units = after.nvrtc_compiles - before.nvrtc_compiles
    workers = min(units, args.processes or os.cpu_count() or 1)
    links = after.links - before.links
    out = {
        "cpus": os.cpu_count(),
        "pch": _pch_wanted(),
        "total": total,
        **phases,
        "units compiled": units,
        "workers": workers,
        "nvrtc seconds summed": after.nvrtc_seconds - before.nvrtc_seconds,
        "links": links,
        "link seconds summed": after.link_seconds - before.link_seconds,
        "pch made / used": f"{after.pch_creates - before.pch_creates}/{after.pch_uses - before.pch_uses}",
        "empty worker": min(_empty_worker(cb.ARCH) for _ in range(3)),
    }
    print(
        f"compile_many of compile.py's 20 kernels, {out['cpus']} CPUs, "
        f"PCH {'on' if out['pch'] else 'off'}; seconds"
    )
    print(
        "\n| total | lower | units (wall) | link (wall) | units | workers | NVRTC s summed | per unit "
        "| PCH made/used | link s summed | per link | empty worker |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    print(
        f"| {total:.2f} | {phases['lower']:.2f} | {phases['units']:.2f} | {phases['link']:.2f} "
        f"| {units} | {workers} "
        f"| {out['nvrtc seconds summed']:.1f} | {out['nvrtc seconds summed'] / max(units, 1):.2f} "
        f"| {out['pch made / used']} | {out['link seconds summed']:.2f} "
        f"| {out['link seconds summed'] / max(links, 1):.3f} | {out['empty worker']:.2f} |"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
