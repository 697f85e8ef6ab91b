# SPDX-License-Identifier: Apache-2.0
"""coop's own device code is C++ headers (``cuda_coop/include/coop/*.cuh``, package data), not text in
the renderer: each header compiles on its own with NVRTC (the bundle's options, sm_90a) with a use
that instantiates its templates, the renderer includes the headers and carries none of their code,
their bytes are part of the cache keys, the package ships them, and clang-format keeps them and the
benchmarks' C++ in the repository's style (NVRTC, no GPU)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from cuda.coop import _bundle, _render
from cuda.coop._render import INCLUDE_DIR, PCH_PREFIX, RenderedRequests, coop_headers, render_requests
from cuda.coop._requests import Request

ROOT = Path(__file__).resolve().parents[1]

#: Per header, a use of what it defines (compiled after the header, which comes first in the unit:
#: a header that does not include what it uses fails here).
USES = {
    "common.cuh": """
struct coop_test_pair { float f0; int f1; };
struct coop_test_plus { __device__ float operator()(float a, float b) const { return a + b; } };
__global__ void coop_test(const float* x, coop_test_pair* p, int* at, float* y)
{
  float items[4] = {x[0], x[1], x[2], x[3]};
  float best;
  at[0] = coop_arg_first<true>(items, best);
  at[1] = coop_arg_first<false>(items, best);
  p[0] = coop_arg_best<false>{}(p[1], p[2]);
  p[3] = coop_arg_best<true>{}(p[1], p[2]);
  float running = y[0];
  coop_running_prefix<float, coop_test_plus> prefix{running, {}};
  y[1] = prefix(best);
  y[2] = running;
}
""",
    "complex_multiplies.cuh": """
struct coop_test_pair { float f0, f1; };
__global__ void coop_test(coop_test_pair* p) { p[0] = coop_complex_multiplies<coop_test_pair>{}(p[1], p[2]); }
""",
    "complex.cuh": """
__global__ void coop_test(::cuda::std::complex<double>* c)
{
  c[0] = coop_complex_multiplies<::cuda::std::complex<double>>{}(c[1], c[2]);
}
""",
    "warp.cuh": """
__global__ void coop_test(unsigned* m) { m[threadIdx.x] = coop_warp_mask<8>() ^ coop_warp_mask<32>(); }
""",
    "cluster.cuh": """
using coop_test_state = coop_cluster_state<4, float, double>;
template <int X, int Y, int Z>
using coop_test_reduce =
  coop_cluster_reduce<float, X, cub::BLOCK_REDUCE_WARP_REDUCTIONS, Y, Z, 4, coop_test_state>;
__global__ void coop_test(float* x)
{
  coop_test_state::begin();
  __shared__ typename coop_test_reduce<128, 1, 1>::TempStorage storage;
  __shared__ typename coop_test_reduce<5, 3, 1>::TempStorage small;
  float items[2] = {x[threadIdx.x], x[threadIdx.x + 128]};
  x[threadIdx.x] = coop_test_reduce<128, 1, 1>(storage).Sum(items)
                 + coop_test_reduce<128, 1, 1>(storage).Reduce(items[0], ::cuda::std::plus<>{})
                 + coop_test_reduce<5, 3, 1>(small).Sum(items[1]);
}
""",
    "load_to_shared.cuh": """
__global__ void coop_test(const float* src, int n)
{
  __shared__ float tile[256];
  coop_block_load_to_shared<float, 128, 1, 1>().Load(src, tile, n);
}
""",
    "load_to_shared_glue.cuh": """
extern "C" __device__ void coop_test_begin() { coop_stage_begin<128>(); }
""",
    "exchange.cuh": """
__global__ void coop_test(float* x, const int* r, const unsigned char* f, int n)
{
  using scatter_t = coop_block_scatter<float, 32, 3, 2, 1>;
  __shared__ typename scatter_t::TempStorage storage;
  float items[3], out[3];
  int ranks[3];
  unsigned char flags[3];
  const int t = threadIdx.x + 32 * threadIdx.y;
  for (int i = 0; i < 3; ++i) { items[i] = x[t * 3 + i]; ranks[i] = r[t * 3 + i]; flags[i] = f[t * 3 + i]; }
  scatter_t(storage).ScatterToStriped(items, out, ranks, n);
  __syncthreads();  // the storage is read back before the next scatter writes it
  scatter_t(storage).ScatterToStripedGuarded(items, out, ranks, n);
  __syncthreads();
  scatter_t(storage).ScatterToStripedFlagged(items, out, ranks, flags, n);
  for (int i = 0; i < 3; ++i) { x[t * 3 + i] = out[i]; }
}
""",
    "striped_runs.cuh": """
template struct coop_striped_runs<float, 128, 8, 4>;
template struct coop_striped_runs<double, 64, 6, 2>;
template struct coop_striped_runs<signed char, 96, 3, 1>;
""",
    "top_k.cuh": """
struct coop_test_pair { float f0; int f1; };
struct coop_test_hpair { __half f0; int f1; };
template <typename Pair, typename T, int K, int N, int W, coop_item_arrangement A>
__device__ void coop_test_top_k(const T* x, const int* ix, Pair* out)
{
  using top_t = coop_warp_top_k<T, K, N, W, A>;
  __shared__ typename top_t::TempStorage storage[128 / W];
  T items[N];
  int indices[N];
  for (int i = 0; i < N; ++i) { items[i] = x[threadIdx.x * N + i]; indices[i] = ix[threadIdx.x * N + i]; }
  Pair a, b, c, d;
  top_t(storage[threadIdx.x / W]).TopK(items, 0, a);
  top_t(storage[threadIdx.x / W]).TopK(items, a, N * W, b);
  top_t(storage[threadIdx.x / W]).TopK(items, indices, 0, c);
  top_t(storage[threadIdx.x / W]).TopK(items, c, indices, 0, d);
  out[threadIdx.x] = d;
  out[128 + threadIdx.x] = b;
}
__global__ void coop_test_rows(const float* x, float* m, int* li, const int* ix, coop_test_pair* p,
                               const __half* h, coop_test_hpair* q)
{
  const int lane = threadIdx.x % 32;
  float v = x[threadIdx.x];
  int i = lane;
  m[0] = coop_topk_pth_largest<16, 32>(v, lane, 0xffffffffu);
  coop_topk_merge<8, 32>(v, i, x[lane + 32], lane + 32, lane, 0xffffffffu);
  float xs[4] = {x[0], x[1], x[2], x[3]};
  li[threadIdx.x] = int(coop_topk_marks<true>(xs, v)) + int(coop_topk_marks<false>(xs, v)) + i;
  coop_test_top_k<coop_test_pair, float, 16, 16, 32, coop_item_arrangement::striped>(x, ix, p);
  coop_test_top_k<coop_test_pair, float, 5, 8, 16, coop_item_arrangement::blocked>(x, ix, p);
  coop_test_top_k<coop_test_pair, float, 1, 64, 32, coop_item_arrangement::striped>(x, ix, p);
  coop_test_top_k<coop_test_hpair, __half, 32, 4, 32, coop_item_arrangement::striped>(h, ix, q);
}
""",
    "grid.cuh": """
struct coop_test_wide { double a, b; };  // no single-word tile state
__device__ coop_test_wide operator+(const coop_test_wide& x, const coop_test_wide& y)
{
  return {x.a + y.a, x.b + y.b};
}
template <typename T, int THREADS, cub::BlockScanAlgorithm ALGORITHM>
__device__ void coop_test_scan(T* x, coop_grid_words ws)
{
  using tile_t  = coop_grid_tile<THREADS, 1, 1, coop_grid_tile_order::ticket>;
  using index_t = coop_grid_tile<THREADS, 1, 1, coop_grid_tile_order::block>;
  using scan_t  = coop_grid_scan<T, THREADS, ALGORITHM, 1, 1>;
  __shared__ typename tile_t::TempStorage ticket;
  __shared__ typename index_t::TempStorage unused;
  __shared__ typename scan_t::TempStorage storage;
  const int tile = blockIdx.y == 0 ? tile_t(ticket).Take(ws) : index_t(unused).Take(ws);
  T items[3] = {x[0], x[1], x[2]}, out[3], total, prefix, init = x[3];
  scan_t(storage).template InclusiveSum<false>(items, out, ws, tile);
  scan_t(storage).template ExclusiveSum<true>(items, out, ws, tile, total, prefix);
  scan_t(storage).template ExclusiveScan<false>(items, out, ::cuda::std::plus<>{}, ws, tile, total);
  scan_t(storage).template InclusiveScanInit<true>(items, out, init, ::cuda::std::plus<>{}, ws, tile, prefix);
  x[threadIdx.x] = out[0] + total + prefix;
}
template __device__ void coop_test_scan<int, 128, cub::BLOCK_SCAN_WARP_SCANS>(int*, coop_grid_words);
template __device__ void coop_test_scan<float, 48, cub::BLOCK_SCAN_RAKING>(float*, coop_grid_words);
template __device__ void
coop_test_scan<coop_test_wide, 32, cub::BLOCK_SCAN_RAKING>(coop_test_wide*, coop_grid_words);
""",
}


def test_every_header_has_a_use() -> None:
    assert sorted(p.name for p in coop_headers()) == sorted(USES)


@pytest.mark.parametrize("name", sorted(USES))
def test_a_header_compiles_alone(name: str) -> None:
    """The header first in the unit, then its use, compiled as the bundle compiles units (its NVRTC
    options: coop's include directory on the path)."""
    probes = {"&coop_probe<24, 8>": "probe"} if name == "common.cuh" else {}
    unit = RenderedRequests(f"#include <coop/{name}>\n{USES[name]}", probes, ())
    obj, _log, _pch = _bundle._nvrtc(unit, _bundle._options("sm_90a"), {})
    assert len(bytes(obj.code)) > 0
    if probes:  # the probe's lowered name carries the size and the alignment
        assert _bundle._PROBE_MANGLED.search(obj.symbol_mapping["&coop_probe<24, 8>"].decode()).groups() == (
            "24",
            "8",
        )


def _code_lines(path: Path) -> list[str]:
    """A header's lines of code long enough to be its own (not comments, directives, braces)."""
    lines = (line.strip() for line in path.read_text().splitlines())
    return [line for line in lines if len(line) > 24 and not line.startswith(("//", "#"))]


@pytest.mark.parametrize("path", coop_headers(), ids=lambda p: p.name)
def test_the_renderer_carries_no_header_code(path: Path) -> None:
    text = (ROOT / "cuda_coop" / "_render.py").read_text()
    assert _code_lines(path), path
    assert [line for line in _code_lines(path) if line in text] == []


def _source(*requests: Request) -> str:
    return render_requests(list(requests)).source


def test_units_include_the_headers_after_the_precompiled_prefix() -> None:
    block = Request("block.load", "float32", (128, 1, 1), 4, (("algorithm", "striped_vectors"),))
    src = _source(block)
    assert src.startswith(PCH_PREFIX)  # NVRTC's PCH stops at the prefix's first declaration
    assert src.index("#include <coop/common.cuh>\n") > len(PCH_PREFIX)
    assert src.index("#include <coop/common.cuh>") < src.index("#include <coop/striped_runs.cuh>\n")
    assert "struct coop_striped_runs" not in src
    warp = Request("warp.sum", "float32", (64, 1, 1), 1, (("threads_in_warp", "16"),))
    assert "#include <coop/warp.cuh>\n" in _source(warp) and "#include <coop/warp.cuh>" not in src


def test_coop_headers_enter_the_cache_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Units name the headers, not their text: the headers' bytes are in a unit's key (with the
    include directory's manifest) and in the renderer's fingerprint that keys the index."""
    tc = _bundle._toolchain()
    assert str(INCLUDE_DIR) in tc["include_path"] and tc["coop"] == _bundle.coop_headers_digest()
    load = Request("block.load", "float32", (128, 1, 1), 4, (("algorithm", "direct"),))
    unit = RenderedRequests(_source(load), {}, ())
    options = _bundle._options("sm_90a")
    key, fingerprint = _bundle.bundle_key(unit, options), _bundle.renderer_fingerprint()
    monkeypatch.setitem(tc, "coop", "other headers")
    assert _bundle.bundle_key(unit, options) != key
    _bundle.renderer_fingerprint.cache_clear()
    try:
        monkeypatch.setattr(_bundle, "coop_headers_digest", lambda: "other headers")
        assert _bundle.renderer_fingerprint() != fingerprint
    finally:
        _bundle.renderer_fingerprint.cache_clear()


def test_the_headers_are_package_data() -> None:
    """Every file under the include directory is package data of ``cuda.coop`` (pyproject.toml), and
    the imported package finds the headers beside it (an installed one in site-packages)."""
    tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml needs Python 3.11")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = project["tool"]["setuptools"]["package-data"]["cuda.coop"]
    source = ROOT / "cuda_coop"
    files = {p for p in (source / "include").rglob("*") if p.is_file()}
    shipped = {p for pattern in patterns for p in source.glob(pattern)}  # as setuptools globs them
    assert files and files == shipped, (sorted(files - shipped), patterns)
    import cuda.coop

    here = Path(cuda.coop.__file__).parent / "include" / "coop"
    assert all((here / name).is_file() for name in USES)


def test_grid_benchmark_variants_still_apply() -> None:
    """benchmarks/grid.py patches coop/grid.cuh (a copy, first on the include path) by text: each
    text it looks for is still in the header."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("coop_grid_bench", ROOT / "benchmarks" / "grid.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    header = (INCLUDE_DIR / "coop" / "grid.cuh").read_text()
    for patches in bench.VARIANTS.values():
        for old, _new in patches:
            first, last = old if isinstance(old, tuple) else (old, "")
            assert first in header and last in header[header.index(first) :]
    assert _render._SCOPES["grid"] == "#include <coop/grid.cuh>\n"


def _clang_format() -> str | None:
    """The clang-format of the test extra's wheel, else one on the PATH."""
    try:
        import clang_format
    except ImportError:
        return shutil.which("clang-format")
    path = Path(clang_format.get_executable("clang-format"))
    return str(path) if path.is_file() else shutil.which("clang-format")


#: The C++ files that the repository's .clang-format keeps formatted.
FORMATTED = sorted([*coop_headers(), *(ROOT / "benchmarks").glob("*.cu")])


@pytest.mark.parametrize("path", FORMATTED, ids=lambda p: p.name)
def test_cpp_is_clang_formatted(path: Path) -> None:
    """``clang-format --dry-run --Werror`` finds nothing to change (the style: .clang-format at the
    repository's root; to fix: ``clang-format -i cuda_coop/include/coop/*.cuh benchmarks/*.cu``)."""
    exe = _clang_format()
    if exe is None:
        pytest.skip("no clang-format (the test extra installs it: pip install '.[test]')")
    version = subprocess.run([exe, "--version"], capture_output=True, text=True, check=True).stdout
    major = re.search(r"version (\d+)", version)
    if major is None or major.group(1) != "23":
        pytest.skip(f"{version.strip()}: the style is checked with clang-format 23 (the test extra's pin)")
    run = subprocess.run(
        [exe, "--dry-run", "--Werror", f"--style=file:{ROOT / '.clang-format'}", str(path)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, f"{path.relative_to(ROOT)} is not clang-formatted:\n{run.stderr[:2000]}"
