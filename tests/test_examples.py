# SPDX-License-Identifier: Apache-2.0
"""Every example runs: on a GPU it executes and verifies, without one it compiles for sm_90a."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import gpu_available

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = [
    ROOT / "examples" / "quickstart.py",
    *sorted((ROOT / "examples" / "numba").glob("*.py")),
    *sorted((ROOT / "examples" / "cutlass").glob("*.py")),
    *sorted((ROOT / "examples" / "numba_mlir").glob("*.py")),
]


def _needs(path: Path) -> str | None:
    """The DSL an example needs: the folder's (the quick start: numba-cuda)."""
    return {"numba": "numba", "cutlass": "cutlass", "numba_mlir": "numba_cuda_mlir"}.get(
        path.parent.name, "numba"
    )


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(path: Path) -> None:
    needs = _needs(path)
    if needs and importlib.util.find_spec(needs) is None:
        pytest.skip(f"{needs} is not installed")
    out = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, timeout=600, check=False
    )
    assert out.returncode == 0, out.stdout + out.stderr
    if not gpu_available() or path.name == "aot_cubin.py":
        assert "no provider call remains; 0 LDL, 0 STL" in out.stdout, out.stdout


def test_quickstart_reports_what_it_built_without_gpu() -> None:
    if gpu_available():
        pytest.skip("this machine has a GPU: the quick start runs the kernel instead")
    out = subprocess.run(
        [sys.executable, str(EXAMPLES[0])], capture_output=True, text=True, check=True
    ).stdout
    assert "compiled scale ahead of time for sm_90a" in out
    assert "registers" in out and "B shared" in out and "bytes" in out
