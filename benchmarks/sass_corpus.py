# SPDX-License-Identifier: Apache-2.0
"""The machine code of every kernel a test selection links, for comparing two versions of the
library without a GPU (a change to the bundle's rendering or options must leave it alone).

``collect`` runs pytest on the selection with an empty cache directory, then reads back every
linked cubin the cache kept (``cuda.coop._link`` caches each link by its inputs) and writes, per
cubin, its functions' registers, shared memory and SASS instructions with addresses, branch labels
and symbol names taken out. ``compare`` says whether two such corpora hold the same kernels (as
multisets: the cache keys differ when the bundles do), and lists what differs.

    python benchmarks/sass_corpus.py collect OUT.json [pytest args...]   (default: the AOT suites)
    python benchmarks/sass_corpus.py compare BEFORE.json AFTER.json
"""

import os
import sys

sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import collections  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

#: The host test files that link kernels ahead of time (numba-cuda and CuTe: both link through
#: coop's cached nvJitLink; numba-cuda-mlir links through its own linker).
AOT_SUITES = [
    "tests/test_numba_aot.py",
    "tests/test_compute_aot.py",
    "tests/test_cutlass_aot.py",
    "tests/test_warp_aot.py",
    "tests/test_sort_aot.py",
    "tests/test_narrow_items_aot.py",
    "tests/test_structured_items.py",
    "tests/test_temp_storage.py",
    "tests/test_striped_vectors.py",
    "tests/test_complex.py",
]

_ADDRESS = re.compile(r"\s*/\*[0-9a-f]+\*/\s+(.*?)\s*;")
_NAME = re.compile(r"\b(?:_Z\w+|coop_\w+|cuda_coop\w*|\w*__\w+)\b")


def normalise(sass: str) -> list[str]:
    """SASS instructions with their operands, without addresses, branch labels and symbol names."""
    out = []
    for line in sass.splitlines():
        m = _ADDRESS.match(line)
        if m:
            out.append(_NAME.sub("SYM", re.sub(r"\.L_x_\d+", ".L", m.group(1))))
    return out


def _kernels(cache: Path) -> list[dict[str, Any]]:
    from cuda.coop import _cache
    from cuda.coop._sass import disassemble, inspect_cubin

    found = []
    for entry in sorted((cache / "bundles").glob("*.bin")):
        os.environ["CUDA_COOP_CACHE_DIR"] = str(cache)
        hit = _cache.read(entry.stem)
        if hit is None or hit[0].get("what") != "link" or hit[0].get("output") != "cubin":
            continue
        cubin = hit[1]
        report = inspect_cubin(cubin)
        found.append(
            {
                "registers": sorted(report.registers.values()),
                "shared": sorted(report.shared_bytes.values()),
                "calls": report.calls,
                "local": report.local_loads + report.local_stores,
                "sass": normalise(disassemble(cubin)),
            }
        )
    return found


def collect(out: str, pytest_args: list[str]) -> None:
    cache = Path(tempfile.mkdtemp(prefix="coop-sass-corpus-"))
    env = {**os.environ, "CUDA_COOP_CACHE_DIR": str(cache), "CUTE_DSL_ARCH": "sm_90a"}
    args = pytest_args or [s for s in AOT_SUITES if Path(s).exists()]
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args], env=env, check=False
    )
    kernels = _kernels(cache)
    Path(out).write_text(json.dumps(kernels))
    print(f"{len(kernels)} linked cubins -> {out}")


def _digest(k: dict[str, Any]) -> str:
    return json.dumps(k, sort_keys=True)


def compare(before: str, after: str) -> int:
    a = collections.Counter(map(_digest, json.loads(Path(before).read_text())))
    b = collections.Counter(map(_digest, json.loads(Path(after).read_text())))
    only_a, only_b = a - b, b - a
    print(f"before {sum(a.values())} cubins, after {sum(b.values())}; the same: {sum((a & b).values())}")
    for name, side in (("only before", only_a), ("only after", only_b)):
        for k in list(side)[:5]:
            d = json.loads(k)
            print(f"{name}: registers {d['registers']}, shared {d['shared']}, {len(d['sass'])} instructions")
    return 0 if not only_a and not only_b else 1


def main() -> None:
    if len(sys.argv) < 3 or sys.argv[1] not in ("collect", "compare"):
        print(__doc__)
        sys.exit(2)
    if sys.argv[1] == "collect":
        collect(sys.argv[2], sys.argv[3:])
    else:
        sys.exit(compare(sys.argv[2], sys.argv[3]))


if __name__ == "__main__":
    main()
