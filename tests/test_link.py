# SPDX-License-Identifier: Apache-2.0
"""The link step (issue 9, memory): linked kernels come from the cache when their inputs repeat,
links past a process's budget run in a worker process, and repeated compiles do not grow the
process by what nvJitLink 13.5 keeps per link (about its LTO-IR input)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from cuda import coop
from cuda.coop import _link

ARCH = "sm_90a"
OPTIONS = [f"-arch={ARCH}", "-lto", "-optimize-unused-variables"]
SIG = "void(int32[::1], int32[::1])"
#: The kernel every test links (a copy through block load/store), also run in subprocesses.
_SOURCE = """
def _copy(src, dst):
    items = coop.ThreadData(4, np.int32)
    coop.block.load(src, items, algorithm="transpose")
    coop.block.store(dst, items, algorithm="transpose")
"""
exec(_SOURCE)


@pytest.fixture(scope="module")
def inputs() -> list[_link.Input]:
    """A kernel's LTO-IR and its bundle: what a link takes."""
    import cuda.coop.numba as numba_coop

    kernel = globals()["_copy"]
    compiled = numba_coop.compile(kernel, SIG, block=128, arch=ARCH, output="ltoir")
    return [("ltoir", compiled.code, "kernel"), *(("ltoir", obj, "bundle") for obj in compiled.bundle_ltoir)]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CUDA_COOP_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture
def worker(monkeypatch: pytest.MonkeyPatch) -> _link._Worker:
    """A fresh worker that takes every link (budget 0), closed after the test."""
    fresh = _link._Worker()
    monkeypatch.setattr(_link, "_worker", fresh)
    monkeypatch.setenv("CUDA_COOP_LINK_IN_PROCESS_BYTES", "0")
    yield fresh
    fresh.close()


def _is_cubin(data: bytes) -> bool:
    return data[:4] == b"\x7fELF"


# --- the cache ----------------------------------------------------------------------------------


def test_a_repeated_link_is_read_back_from_the_cache(inputs: list[_link.Input], cache: Path) -> None:
    before = coop.compile_stats()
    first = _link.link_exact(inputs, OPTIONS, "cubin")
    second = _link.link_exact(inputs, OPTIONS, "cubin")
    after = coop.compile_stats()
    assert _is_cubin(first) and second == first
    assert (after.links - before.links, after.link_cache_hits - before.link_cache_hits) == (1, 1)


def test_the_link_key_follows_inputs_options_output_and_nvjitlink(
    inputs: list[_link.Input], monkeypatch: pytest.MonkeyPatch
) -> None:
    pairs = [(k, d) for k, d, _n in inputs]
    key = _link.link_key(pairs, OPTIONS, "cubin")
    flipped = [pairs[0], ("ltoir", pairs[1][1][:-1] + bytes([pairs[1][1][-1] ^ 1]))]
    assert _link.link_key(flipped, OPTIONS, "cubin") != key
    assert _link.link_key(pairs[::-1], OPTIONS, "cubin") != key
    assert _link.link_key(pairs, [*OPTIONS, "-lineinfo"], "cubin") != key
    assert _link.link_key(pairs, OPTIONS, "ptx") != key
    monkeypatch.setattr(_link, "nvjitlink_identity", lambda: "nvJitLink 13.6 (13.6.1; elsewhere)")
    assert _link.link_key(pairs, OPTIONS, "cubin") != key


def test_a_damaged_linked_entry_is_relinked_and_counted(inputs: list[_link.Input], cache: Path) -> None:
    good = _link.link_exact(inputs, OPTIONS, "cubin")
    key = _link.link_key([(k, d) for k, d, _ in inputs], _link.exact_options(OPTIONS, "cubin"), "cubin")
    entry = cache / "bundles" / f"{key}.bin"
    blob = bytearray(entry.read_bytes())
    blob[len(blob) // 2] ^= 0x10
    entry.write_bytes(bytes(blob))
    before = coop.compile_stats()
    assert _link.link_exact(inputs, OPTIONS, "cubin") == good
    after = coop.compile_stats()
    assert (after.links - before.links, after.cache_rebuilds - before.cache_rebuilds) == (1, 1)


def test_a_warm_compile_in_a_new_process_does_not_link(tmp_path: Path) -> None:
    """The second process reads the first one's linked cubin back: no NVRTC, no nvJitLink."""
    code = textwrap.dedent(
        f"""
        import hashlib, numpy as np
        from cuda import coop
        import cuda.coop.numba as numba_coop
        {textwrap.indent(_SOURCE, "        ").strip()}
        c = numba_coop.compile(_copy, {SIG!r}, block=128, arch={ARCH!r})
        s = coop.compile_stats()
        print(s.nvrtc_compiles, s.links, s.link_cache_hits, hashlib.sha256(c.code).hexdigest())
        """
    )
    env = {**os.environ, "CUDA_COOP_CACHE_DIR": str(tmp_path / "cache")}

    def run() -> list[str]:
        command = [sys.executable, "-c", code]
        out = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
        assert out.returncode == 0, out.stderr
        return out.stdout.split()

    cold, warm = run(), run()
    assert cold[:3] == ["1", "1", "0"] and warm[:3] == ["0", "0", "1"], (cold, warm)
    assert warm[3] == cold[3]


def test_numba_links_coop_kernels_through_the_cache(inputs: list[_link.Input], cache: Path) -> None:
    """numba-cuda's linker, under a coop compile, links through cuda.coop (with the options it
    chose) and hands back a cubin and an empty info log; outside one it links by itself."""
    from cuda.coop._session import compiling
    from numba.cuda.cudadrv import driver

    def numba_link(coop_compile: bool) -> tuple[bytes, str]:
        linker = driver._Linker(cc=(9, 0, "a"), lto=True)
        for _kind, data, name in inputs:
            linker.add_ltoir(data, name=name)
        if coop_compile:
            with compiling((128, 1, 1), ARCH):
                result = linker.complete()
        else:
            result = linker.complete()
        return bytes(result.code), linker.info_log

    before = coop.compile_stats()
    first, log = numba_link(True)
    second, _ = numba_link(True)
    middle = coop.compile_stats()
    plain, _ = numba_link(False)
    after = coop.compile_stats()
    assert _is_cubin(first) and second == first and log == ""
    assert (middle.links - before.links, middle.link_cache_hits - before.link_cache_hits) == (1, 1)
    assert _is_cubin(plain) and (after.links, after.link_cache_hits) == (middle.links, middle.link_cache_hits)


def test_naming_nvshmem_variables_changes_no_other_kernel(inputs: list[_link.Input]) -> None:
    """Every link that drops unused variables names NVSHMEM's module variables as used (LTO-IR is
    opaque: which inputs carry NVSHMEM cannot be read off them); a kernel without them links to the
    same cubin, byte for byte."""
    options = _link.exact_options(OPTIONS, "cubin")
    assert options[:-1] == OPTIONS and options[-1].startswith("-variables-used=nvshmemi_device_state_d")
    request = [("LTOIR", d, n) for _k, d, n in inputs]
    named, plain = (_link._link_worker.link(request, o, "cubin") for o in (options, OPTIONS))
    assert named[0] == plain[0] == "ok" and named[1] == plain[1]


# --- the worker ---------------------------------------------------------------------------------


def test_the_worker_links_what_this_process_links(
    inputs: list[_link.Input], cache: Path, worker: _link._Worker
) -> None:
    request = ([("LTOIR", d, n) for _k, d, n in inputs], OPTIONS, "cubin")
    here = _link._link_worker.link(*request)
    there = worker.run(request)
    assert there is not None and there[0] == "ok" and there[1] == here[1] and _is_cubin(here[1])
    assert worker._proc is not None and worker._proc.pid != os.getpid()


def test_links_move_to_the_worker_past_the_budget(
    inputs: list[_link.Input], cache: Path, worker: _link._Worker, monkeypatch: pytest.MonkeyPatch
) -> None:
    ltoir = sum(len(d) for _k, d, _n in inputs)
    monkeypatch.setenv("CUDA_COOP_LINK_IN_PROCESS_BYTES", str(2 * ltoir))
    monkeypatch.setattr(_link, "_linked_here", 0)
    for i in range(3):  # different options: three links, no cache hit
        _link.link_exact(inputs, [*OPTIONS, f"-maxrregcount={64 + i}"], "cubin")
        assert (worker._proc is not None) == (i >= 1), i  # started once half the budget is used
        assert worker._links == (i == 2), i  # and used past the budget
    assert _link._linked_here == 2 * ltoir


def test_a_failed_link_in_the_worker_is_a_typed_error_with_the_log(
    inputs: list[_link.Input], cache: Path, worker: _link._Worker
) -> None:
    kernel_only = inputs[:1]  # the bundle's symbols are missing
    with pytest.raises(coop.CoopCompileError, match="nvJitLink failed to link kernel") as info:
        _link.link_exact(kernel_only, OPTIONS, "cubin")
    assert "coop_" in str(info.value.log)
    assert worker._proc is not None  # the worker answered; it is still there


def test_the_worker_is_replaced_after_its_links(
    inputs: list[_link.Input], cache: Path, worker: _link._Worker, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_link, "WORKER_LINKS", 2)
    request = ([("LTOIR", d, n) for _k, d, n in inputs], OPTIONS, "cubin")
    assert worker.run(request) is not None
    first = worker._proc
    assert first is not None
    assert worker.run(request) is not None
    assert first.poll() == 0  # stopped after its second link (at the end of its input)
    second = worker._proc  # and its successor started at once
    assert second is not None and second.pid != first.pid
    assert worker.run(request) is not None and worker._proc is second


def test_no_worker_links_here_with_one_warning(
    inputs: list[_link.Input], cache: Path, worker: _link._Worker, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "executable", "/nonexistent/python")
    with pytest.warns(RuntimeWarning, match="link worker is not available.*linking in this process"):
        first = _link.link_exact(inputs, OPTIONS, "ptx")
    assert b".entry" in first and not first.endswith(b"\0")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _link.link_exact(inputs, [*OPTIONS, "-lineinfo"], "cubin")  # no second warning


def test_a_worker_with_another_nvjitlink_is_not_used(
    inputs: list[_link.Input], cache: Path, worker: _link._Worker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key names this process's nvJitLink: a worker that loads another one would not match."""
    monkeypatch.setattr(_link._link_worker, "library", lambda: ((99, 0), "/elsewhere/libnvJitLink.so"))
    with pytest.warns(RuntimeWarning, match=r"found nvJitLink \(13, \d+\) at .*uses nvJitLink \(99, 0\)"):
        assert _is_cubin(_link.link_exact(inputs, OPTIONS, "cubin"))
    assert worker._proc is None and worker._broken


def test_a_worker_loads_this_process_nvjitlink(
    inputs: list[_link.Input],
    cache: Path,
    worker: _link._Worker,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """A process whose nvJitLink is another file than a fresh process would find gives the worker
    its file, which the worker loads before cuda.bindings looks for one: the worker is used."""
    import shutil
    import warnings

    version, path = _link._link_worker.library()
    other = tmp_path / Path(path).name
    try:
        os.link(path, other)
    except OSError:
        shutil.copy2(path, other)
    monkeypatch.setattr(_link, "library_file", lambda lib: str(other))
    monkeypatch.setattr(_link._link_worker, "library", lambda: (version, str(other)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _is_cubin(_link.link_exact(inputs, OPTIONS, "cubin"))
    assert worker._proc is not None and not worker._broken and worker._links == 1


def test_a_worker_that_dies_is_given_up_and_the_link_still_happens(
    inputs: list[_link.Input], cache: Path, worker: _link._Worker
) -> None:
    request = ([("LTOIR", d, n) for _k, d, n in inputs], OPTIONS, "cubin")
    assert worker.run(request) is not None
    assert worker._proc is not None
    worker._proc.kill()
    worker._proc.wait()
    with pytest.warns(RuntimeWarning, match="link worker is not available"):
        assert _is_cubin(_link.link_exact(inputs, [*OPTIONS, "-lineinfo"], "cubin"))


# --- links side by side (compile_many) ----------------------------------------------------------


def test_side_by_side_links_in_worker_processes_in_order(
    inputs: list[_link.Input], cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_link, "_linked_here", 0)
    options = [[*OPTIONS, f"-maxrregcount={64 + i}"] for i in range(4)]  # four links, no cache hit
    pids: set[int] = set()
    real = _link._Worker.run

    def run(self: _link._Worker, request: object) -> object:
        answer = real(self, request)
        assert self._proc is not None
        pids.add(self._proc.pid)
        return answer

    monkeypatch.setattr(_link._Worker, "run", run)
    linked = _link.side_by_side(lambda o: _link.link_exact(inputs, o, "cubin"), options, processes=2)
    assert _link._pool is None and _link._linked_here == 0  # none linked here
    assert 1 <= len(pids) <= 2 and os.getpid() not in pids  # started as the links needed them
    pids.clear()  # the same links again: the cache serves them, and no worker starts
    assert _link.side_by_side(lambda o: _link.link_exact(inputs, o, "cubin"), options, processes=2) == linked
    assert not pids
    # the same cubins as links in this process, in order
    assert linked == [
        _link._link_worker.link([("LTOIR", d, n) for _k, d, n in inputs], o, "cubin")[1] for o in options
    ]


def test_side_by_side_raises_the_first_failure_in_order() -> None:
    def fn(i: int) -> int:
        if i in (1, 3):
            raise ValueError(f"item {i}")
        return i

    with pytest.raises(ValueError, match="item 1"):
        _link.side_by_side(fn, [0, 1, 2, 3], processes=2)
    assert _link.side_by_side(fn, [0, 2], processes=2) == [0, 2]
    assert _link._pool is None


def test_side_by_side_links_here_when_no_worker_starts(
    inputs: list[_link.Input], cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "executable", "/nonexistent/python")
    options = [[*OPTIONS, f"-maxrregcount={80 + i}"] for i in range(2)]
    with pytest.warns(RuntimeWarning, match="link worker is not available"):
        linked = _link.side_by_side(lambda o: _link.link_exact(inputs, o, "cubin"), options, processes=2)
    assert all(_is_cubin(c) for c in linked)


# --- memory -------------------------------------------------------------------------------------

_GROWTH = """
import ctypes, gc, os, sys
import numpy as np
from cuda import coop
import cuda.coop.numba as numba_coop
from cuda.coop import _link_worker
{source}

def rss_kb():
    gc.collect()
    ctypes.CDLL("libc.so.6").malloc_trim(0)  # count what is kept, not what malloc holds on to
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1024

mode, warm, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
c = numba_coop.compile(_copy, {sig!r}, block=128, arch={arch!r}, output="ltoir")
request = ([("LTOIR", c.code, "k"), *(("LTOIR", b, "b") for b in c.bundle_ltoir)], {options!r}, "cubin")

def step():
    if mode in ("compile", "ltoir"):
        output = "cubin" if mode == "compile" else "ltoir"
        numba_coop.compile(_copy, {sig!r}, block=128, arch={arch!r}, output=output)
    else:
        assert _link_worker.link(*request)[0] == "ok"

def steps(count):  # trimming every 25 steps keeps freed memory from fragmenting into the count
    for i in range(count):
        step()
        if i % 25 == 24:
            rss_kb()

steps(warm)  # Numba's own warm-up: ~20 KB per compile over its first ~150 compiles
base = rss_kb()
steps(n)
print((rss_kb() - base) / n, (len(c.code) + sum(map(len, c.bundle_ltoir))) / 1024, coop.compile_stats().links)
"""


def _growth(mode: str, warm: int, n: int, env: dict[str, str], script: Path) -> tuple[float, float, int]:
    """RSS growth per step over ``n`` steps after ``warm`` ones, in a fresh process; the LTO-IR
    (KB) each link takes; the links cuda.coop ran."""
    script.write_text(_GROWTH.format(source=_SOURCE, sig=SIG, arch=ARCH, options=OPTIONS))
    out = subprocess.run(
        [sys.executable, str(script), mode, str(warm), str(n)],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    per_step, input_kb, links = out.stdout.split()
    return float(per_step), float(input_kb), int(links)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm")
def test_repeated_compiles_do_not_grow_the_process(tmp_path: Path) -> None:
    """Warm compiles of one kernel (each a new link: Numba names every compile anew) grow the
    process by ~1 KB each (Numba's own; measured 0-3 KB once Numba has warmed up), not by the
    ~90 KB that nvJitLink keeps when it links in the process (measured 88 KB)."""
    env = {"CUDA_COOP_CACHE_DIR": str(tmp_path / "c"), "CUDA_COOP_LINK_IN_PROCESS_BYTES": "0"}
    kb, input_kb, links = _growth("compile", 150, 150, env, tmp_path / "growth.py")
    assert links >= 300
    assert kb < input_kb / 8, f"{kb:.1f} KB per compile (LTO-IR linked: {input_kb:.0f} KB)"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm")
def test_nvjitlink_itself_keeps_its_input_per_link(tmp_path: Path) -> None:
    """Why the worker exists: bare nvJitLink calls keep about their LTO-IR input per link. If this
    fails, the nvJitLink in use no longer leaks, and the worker (``cuda.coop._link``) can go."""
    env = {"CUDA_COOP_CACHE_DIR": str(tmp_path / "c")}
    kb, input_kb, _ = _growth("link", 10, 100, env, tmp_path / "growth.py")
    assert kb > input_kb / 2, f"{kb:.1f} KB per link for {input_kb:.0f} KB of LTO-IR"


def test_an_option_nvjitlink_refuses_is_a_compile_error() -> None:
    from cuda.coop import CoopCompileError
    from cuda.coop._link import link_exact

    with pytest.raises(CoopCompileError, match="-no-such-option"):
        link_exact(
            [("ptx", b".version 8.0\n.target sm_90\n.address_size 64\n", "empty")],
            ["-arch=sm_90", "-no-such-option"],
            "cubin",
        )


def _scan(src, dst):  # type: ignore[no-untyped-def]
    """Issue 21's reference kernel (load, scan, store), for the bundle-options test below."""
    items = coop.ThreadData(4, np.int32)
    coop.block.load(src, items, algorithm="vectorize")
    out = coop.block.inclusive_sum(items)
    coop.block.store(dst, out, algorithm="vectorize")


def _instructions(sass: str) -> list[str]:
    """The SASS instructions with their operands, without addresses and branch-label numbers."""
    found = (re.match(r"\s*/\*[0-9a-f]+\*/\s+(.*?)\s*;", line) for line in sass.splitlines())
    return [re.sub(r"\.L_x_\d+", ".L", m.group(1)) for m in found if m]


def test_the_lean_bundle_links_to_the_same_kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 21 (link time): where NVRTC allows, the bundle is compiled without ``-default-device``,
    which made a ``__device__`` variable of every ``static constexpr`` member CCCL instantiates;
    the link, which reads all of the bundle, gets a far smaller input and links the same kernel,
    instruction for instruction."""
    import cuda.coop.numba as numba_coop
    from cuda.coop import _bundle

    if _bundle.nvrtc_version() < _bundle.DEVICE_LAMBDAS_NVRTC:
        pytest.skip(f"NVRTC {_bundle.nvrtc_version()} compiles the bundle with -default-device")
    kernel = _scan
    monkeypatch.setenv("CUDA_COOP_CACHE_DIR", str(tmp_path / "lean"))
    lean = numba_coop.compile(kernel, SIG, block=128, arch=ARCH)
    lean_options = _bundle._options
    monkeypatch.setattr(
        _bundle, "_options", lambda arch: {**lean_options(arch), "device_as_default_execution_space": True}
    )
    monkeypatch.setenv("CUDA_COOP_CACHE_DIR", str(tmp_path / "former"))
    former = numba_coop.compile(kernel, SIG, block=128, arch=ARCH)
    # measured with NVRTC 13.5: 126 KB against 198 KB
    lean_bytes, former_bytes = (sum(map(len, c.bundle_ltoir)) for c in (lean, former))
    assert lean_bytes < 0.75 * former_bytes, (lean_bytes, former_bytes)
    report = lean.inspect()
    assert report.calls == 0 and report.local_loads == 0 and report.local_stores == 0, report.sass
    assert _instructions(report.sass) == _instructions(former.inspect().sass)
