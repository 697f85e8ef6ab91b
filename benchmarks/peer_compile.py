# SPDX-License-Identifier: Apache-2.0
"""Compile time of one block load + store pair (int32, 128 threads x 4 items), cold, against the
shipped peer: ``cuda.coop`` of ``cuda-cccl`` 1.1.1 (``cuda.coop._experimental``), ahead of time for
``sm_90`` without a GPU (issue 21's peer row).

Each figure is the median of ``--runs`` fresh processes, imports not counted. The peer compiles each
primitive with its own NVRTC call when it is made (``block.make_load`` / ``make_store``), then the
kernel is compiled by numba-cuda and linked with the two LTO-IR files by nvJitLink (what
``cuda.jit(link=...)`` does at its first launch); its disk cache is off unless ``CCCL_ENABLE_CACHE``
is set (it is removed here). Ours: ``cuda.coop.numba.compile`` of the same kernel into an empty cache
(cold), again in a new process (warm: its units, glue and link read back), and, in a process that has
just compiled two other kernels holding its two requests (seen: no NVRTC call). The peer's total,
cold and warm include numba-cuda's first compile in a process (~0.28 s of the 2-CPU machine's); seen
does not.

The peer cannot share a Python environment with cuda-coop (both are ``cuda.coop``): install it in
its own, then give its interpreter:

    python3 -m venv /tmp/peervenv && /tmp/peervenv/bin/pip install "cuda-cccl[cu13]==1.1.1"
    python benchmarks/peer_compile.py --peer-python /tmp/peervenv/bin/python [--runs 3]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

PEER = r"""
import json, sys, time, types as pytypes
algo = sys.argv[1]
import numba
from numba import cuda
import numba.cuda.api, numba.cuda.dispatcher
from numba.cuda.cudadrv import driver
from cuda.coop._experimental import block
device = pytypes.SimpleNamespace(compute_capability=(9, 0))  # no GPU here: sm_90
for module in (cuda, numba.cuda.api, numba.cuda.dispatcher):
    module.get_current_device = lambda: device
t0 = time.perf_counter()
load = block.make_load(numba.int32, 128, 4, algorithm=algo)
store = block.make_store(numba.int32, 128, 4, algorithm=algo)
t1 = time.perf_counter()

def kernel(src, dst):
    items = cuda.local.array(4, numba.int32)
    load(src, items)
    store(dst, items)

sig = (numba.int32[::1], numba.int32[::1])
code, _ = cuda.compile(kernel, sig, device=False, abi="numba", cc=(9, 0), output="ltoir")
linker = driver._Linker(cc=(9, 0), lto=True)
linker.add_ltoir(code)
for f in [*load.files, *store.files]:
    linker.add_file_guess_ext(f)
linker.complete()
t2 = time.perf_counter()
print(json.dumps({"primitives": t1 - t0, "total": t2 - t0}))
"""

OURS = r"""
import json, sys, time
algo, phase = sys.argv[1], sys.argv[2]
import numpy as np
from numba import cuda
from cuda import coop
import cuda.coop.numba as numba_coop

def pair(src, dst):
    items = coop.ThreadData(4, np.int32)
    coop.block.load(src, items, algorithm=ALGO)
    coop.block.store(dst, items, algorithm=ALGO)

def load_only(src, dst):
    items = coop.ThreadData(4, np.int32)
    coop.block.load(src, items, algorithm=ALGO)
    dst[cuda.threadIdx.x] = items[0]

def store_only(src, dst):
    items = coop.ThreadData(4, np.int32)
    for k in range(4):
        items[k] = src[cuda.threadIdx.x * 4 + k]
    coop.block.store(dst, items, algorithm=ALGO)

ALGO = algo
sig = "void(int32[::1], int32[::1])"
if phase == "seen":  # the requests compiled before, in two other kernels (not timed)
    numba_coop.compile(load_only, sig, block=128, arch="sm_90")
    numba_coop.compile(store_only, sig, block=128, arch="sm_90")
t0 = time.perf_counter()
numba_coop.compile(pair, sig, block=128, arch="sm_90")
t1 = time.perf_counter()
s = coop.compile_stats()
print(json.dumps({"total": t1 - t0, "nvrtc": s.nvrtc_compiles}))
"""


def _run(python: str, code: str, args: list[str], env: dict[str, str]) -> dict[str, float]:
    out = subprocess.run([python, "-c", code, *args], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peer-python", default=None, help="the interpreter of cuda-cccl 1.1.1's environment")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "CCCL_ENABLE_CACHE"}
    rows = []
    for algo in ("direct", "transpose"):
        row: dict[str, float] = {}
        if args.peer_python:
            peer = [_run(args.peer_python, PEER, [algo], env) for _ in range(args.runs)]
            row["peer primitives"] = statistics.median(r["primitives"] for r in peer)
            row["peer total"] = statistics.median(r["total"] for r in peer)
        for phase in ("cold", "warm", "seen"):
            times = []
            for _ in range(args.runs):
                cache = {**env, "CUDA_COOP_CACHE_DIR": tempfile.mkdtemp(prefix="coop-peer-")}
                if phase == "warm":  # a first process fills the cache
                    _run(sys.executable, OURS, [algo, phase], cache)
                times.append(_run(sys.executable, OURS, [algo, phase], cache)["total"])
            row[f"ours {phase}"] = statistics.median(times)
        rows.append((algo, row))
    print(f"one load + store pair, int32, 128 x 4, sm_90 ahead of time; seconds, medians of {args.runs}")
    names = list(rows[0][1])
    print("\n| algorithm | " + " | ".join(names) + " | peer total / ours cold | peer total / ours warm |")
    print("|---" * (len(names) + 3) + "|")
    for algo, row in rows:
        ratios = [
            f"{row['peer total'] / row[k]:.1f}x" if "peer total" in row else "-"
            for k in ("ours cold", "ours warm")
        ]
        print(f"| {algo} | " + " | ".join(f"{row[k]:.3f}" for k in names) + " | " + " | ".join(ratios) + " |")


if __name__ == "__main__":
    main()
