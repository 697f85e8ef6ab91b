# SPDX-License-Identifier: Apache-2.0
"""The bundle cache under faults: it never yields a wrong answer, never makes a compile fail that
could succeed without it, and never leaves a mess (issue 9). Faults are real where the machine
allows (permissions, file-size limits, stopped processes, other users); as root, the tests that
need an unprivileged user run their compile in a subprocess as ``nobody``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path

import pytest
from cuda import coop
from cuda.coop import _bundle, _cache
from cuda.coop._render import render_requests
from cuda.coop._requests import Request

REQ = Request("block.load", "int32", (64, 1, 1), 2, (("algorithm", "transpose"),))
OTHER = Request("block.store", "int16", (32, 1, 1), 3, (("algorithm", "warp_transpose"),))
ROOT = os.geteuid() == 0 if hasattr(os, "geteuid") else False


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CUDA_COOP_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _key(req: Request = REQ, arch: str = "sm_90") -> str:
    return _bundle.bundle_key(render_requests([req]), _bundle._options(arch))


def _entry_bytes(cache: Path, key: str) -> bytes:
    return (cache / "bundles" / f"{key}.bin").read_bytes()


# --- integrity --------------------------------------------------------------------------------------


def test_every_bit_of_an_entry_is_verified(cache: Path) -> None:
    """Flip each bit of an entry in turn: every damaged entry reads as absent, none is trusted
    (the old format let 412 of 2,440 flips through with another result, and 83 raised)."""
    meta = {"arch": "sm_90", "temp_storage": {"coop_block_load_x": [40960, 16]}}
    payload = os.urandom(100)
    assert _cache.write("k" * 64, meta, payload)
    path = cache / "bundles" / f"{'k' * 64}.bin"
    good = path.read_bytes()
    assert _cache.read("k" * 64) == ({**meta, "key": "k" * 64, "payload_bytes": 100}, payload)
    flips = 0
    for i in range(len(good)):
        for bit in range(8):
            damaged = bytearray(good)
            damaged[i] ^= 1 << bit
            path.write_bytes(bytes(damaged))
            assert _cache.read("k" * 64) is None, (i, bit)
            flips += 1
    assert flips == 8 * len(good) > 2400
    path.write_bytes(good[:-1])
    assert _cache.read("k" * 64) is None


def test_an_intact_entry_with_foreign_metadata_is_rebuilt(cache: Path) -> None:
    key = _key()
    assert _cache.write(key, {"arch": "sm_90", "temp_storage": {"x": [1]}}, b"not ltoir")
    before = coop.compile_stats()
    bundle = _bundle.compile_bundle([REQ], (), "sm_90")
    after = coop.compile_stats()
    assert after.nvrtc_compiles - before.nvrtc_compiles == 1
    assert after.cache_rebuilds - before.cache_rebuilds == 1
    assert b"not ltoir" not in bundle.objects and bundle.temp_storage[REQ.symbol][0] > 1


def test_the_key_follows_the_exact_nvrtc_the_headers_and_the_options(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tc = dict(_bundle._toolchain())
    assert "13." in str(tc["nvrtc"]) and str(tc["nvrtc"]).count(".") >= 2  # e.g. 13.5 (13.5.37; ...)
    base = _key()
    for part, value in (("nvrtc", "13.5 (13.5.38; x)"), ("headers", "0" * 64), ("cccl", "9.9.9")):
        monkeypatch.setattr(_bundle, "_toolchain", lambda part=part, value=value: {**tc, part: value})
        assert _key() != base, part
    monkeypatch.undo()
    assert _key() == base and _key(arch="sm_90a") != base
    headers = tmp_path / "include" / "cub"
    headers.mkdir(parents=True)
    (headers / "a.cuh").write_text("// a\n")
    manifest = _bundle.header_manifest([str(tmp_path / "include")])
    (headers / "a.cuh").write_text("// a, changed\n")
    assert _bundle.header_manifest([str(tmp_path / "include")]) != manifest


# --- the cache never breaks a compile ---------------------------------------------------------------

_COMPILE = """
import warnings, os
warnings.simplefilter("always")
from cuda import coop
from cuda.coop import _bundle
from cuda.coop._requests import Request
req = Request("block.load", "int32", (64, 1, 1), 2, (("algorithm", "transpose"),))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    bundle = _bundle.compile_bundle([req], (), "sm_90")
cache_warnings = [str(w.message) for w in caught if issubclass(w.category, coop.CoopCacheWarning)]
print("ltoir", len(bundle.objects[0]) > 1000, "nvrtc", coop.compile_stats().nvrtc_compiles)
print("warnings", len(cache_warnings))
for w in cache_warnings:
    print("warning:", w)
"""


def _run(
    env: dict[str, str | None], code: str = _COMPILE, *, unprivileged: bool = False, fsize: int | None = None
) -> str:
    """Run ``code`` in a fresh interpreter. ``unprivileged``: as root, without the capabilities
    that let root ignore file permissions (``setpriv``), so that permission faults are real."""

    def limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))  # type: ignore[arg-type]

    full = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    for k, v in env.items():
        if v is None:
            full.pop(k, None)
        else:
            full[k] = v
    command = [sys.executable, "-c", textwrap.dedent(code)]
    if unprivileged and ROOT:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv (util-linux): root would ignore the permissions")
        command = [setpriv, "--bounding-set", "-dac_override,-dac_read_search", *command]
    out = subprocess.run(
        command,
        capture_output=True,
        text=True,
        env=full,
        preexec_fn=limit if fsize is not None else None,
        check=False,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def test_unwritable_cache_directory_compiles_uncached_with_one_warning(tmp_path: Path) -> None:
    d = tmp_path / "readonly"
    d.mkdir()
    d.chmod(0o555)
    out = _run({"CUDA_COOP_CACHE_DIR": str(d / "cache")}, unprivileged=True)
    assert "ltoir True nvrtc 1" in out and "warnings 1" in out, out
    assert str(d / "cache") in out and "PermissionError" in out
    assert not (d / "cache").exists()


@pytest.mark.parametrize("fault", ["mkstemp", "replace", "mkdir"])
def test_permission_faults_at_every_step_compile_uncached(
    cache: Path, monkeypatch: pytest.MonkeyPatch, fault: str
) -> None:
    """The same fault injected in this process (also where root ignores permissions): wherever
    the cache's writing fails, the compile goes on and one warning names the directory."""
    import tempfile

    def deny(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", str(cache))

    target = {"mkstemp": (tempfile, "mkstemp"), "replace": (os, "replace"), "mkdir": (Path, "mkdir")}[fault]
    monkeypatch.setattr(*target, deny)
    with pytest.warns(coop.CoopCacheWarning, match=rf"{cache}.*PermissionError") as record:
        assert _bundle.compile_bundle([OTHER], (), "sm_90").objects
    assert len([w for w in record if issubclass(w.category, coop.CoopCacheWarning)]) == 1
    assert not list(cache.glob("bundles/*.bin"))


def test_full_disk_compiles_uncached(tmp_path: Path) -> None:
    """A file-size limit (``ulimit -f``) below the entry's size: the publish fails, the compile
    does not, and no temporary file is left behind."""
    out = _run({"CUDA_COOP_CACHE_DIR": str(tmp_path / "c")}, fsize=4096)
    assert "ltoir True nvrtc 1" in out and "warnings 1" in out and "File too large" in out, out
    # the unit did not fit (only the small entries did: the glue and the index), nor did a temporary
    entries = list((tmp_path / "c" / "bundles").glob("*"))
    assert entries and all(e.suffix == ".bin" and e.stat().st_size < 4096 for e in entries)


def test_entry_path_that_is_a_directory(cache: Path) -> None:
    key = _key()
    (cache / "bundles" / f"{key}.bin").mkdir(parents=True)
    with pytest.warns(coop.CoopCacheWarning, match=r"IsADirectoryError"):
        bundle = _bundle.compile_bundle([REQ], (), "sm_90")
    assert bundle.objects
    before = coop.compile_stats()
    assert _bundle.compile_bundle([REQ], (), "sm_90").objects == bundle.objects  # compiles again, works
    assert coop.compile_stats().nvrtc_compiles == before.nvrtc_compiles + 1


@pytest.mark.parametrize("case", ["a file", "under /proc"])
def test_cache_dir_that_cannot_be_a_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    target = tmp_path / "file" if case == "a file" else Path("/proc/no-such/cache")
    if case == "a file":
        target.write_text("not a directory")
    monkeypatch.setenv("CUDA_COOP_CACHE_DIR", str(target))
    with pytest.warns(coop.CoopCacheWarning, match=rf"{target}.*check CUDA_COOP_CACHE_DIR") as record:
        assert _bundle.compile_bundle([OTHER], (), "sm_90").objects
    assert len(record) >= 1


def test_no_usable_home_directory(tmp_path: Path) -> None:
    """Without CUDA_COOP_CACHE_DIR and with a home that cannot hold a cache, the compile goes on."""
    env = {"CUDA_COOP_CACHE_DIR": None, "XDG_CACHE_HOME": None, "HOME": "/proc/no-such-home"}
    out = _run(env)
    assert "ltoir True nvrtc 1" in out and "warnings 1" in out and "/proc/no-such-home" in out, out


def test_user_without_a_home_directory(monkeypatch: pytest.MonkeyPatch) -> None:
    """No HOME and no passwd entry (Path.home() raises): the compile goes on without a cache."""
    for var in ("CUDA_COOP_CACHE_DIR", "XDG_CACHE_HOME", "HOME"):
        monkeypatch.delenv(var, raising=False)

    def no_home() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.setattr(Path, "home", no_home)
    with pytest.warns(coop.CoopCacheWarning, match="no home directory.*set CUDA_COOP_CACHE_DIR"):
        assert _bundle.compile_bundle([OTHER], (), "sm_90").objects


@pytest.mark.skipif(not ROOT, reason="needs root to make another user's files")
def test_a_cache_shared_by_two_users(tmp_path: Path) -> None:
    """A world-writable directory (1777) filled by one user (here: files handed to uid 12345, with
    the modes they were created with): another user reads its entries (no NVRTC call) and, where it
    cannot add one, compiles without the cache, with one warning."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    env: dict[str, str | None] = {"CUDA_COOP_CACHE_DIR": str(shared)}
    assert "nvrtc 1" in _run(env)
    for p in shared.rglob("*"):
        os.chown(p, 12345, 12345)
    entry = next((shared / "bundles").glob("*.bin"))
    assert entry.stat().st_mode & 0o044 == 0o044  # readable by others (not mkstemp's 0600)
    out = _run(env, unprivileged=True)
    assert "nvrtc 0" in out and "warnings 0" in out, out
    other = _COMPILE.replace('"int32", (64, 1, 1), 2', '"int16", (32, 1, 1), 3')
    out = _run(env, other, unprivileged=True)
    assert "ltoir True nvrtc 1" in out and "warnings 1" in out and "PermissionError" in out, out


# --- never a mess -----------------------------------------------------------------------------------


def test_stale_temporary_files_are_removed(cache: Path) -> None:
    bundles = cache / "bundles"
    bundles.mkdir(parents=True)
    old, fresh = bundles / ".0123456789abcdef.killed.tmp", bundles / ".fedcba9876543210.running.tmp"
    for p in (old, fresh):
        p.write_bytes(b"partial entry of a killed publisher")
    long_ago = time.time() - 2 * _cache.STALE_TMP_SECONDS
    os.utime(old, (long_ago, long_ago))
    assert _cache.write("a" * 64, {"arch": "sm_90", "temp_storage": {}}, b"x")
    assert not old.exists() and fresh.exists()


def test_size_cap_evicts_least_recently_used(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUDA_COOP_CACHE_MAX_BYTES", str(5 * 1100))
    keys = [c * 64 for c in "abcdef"]
    for i, key in enumerate(keys[:4]):
        assert _cache.write(key, {"arch": "sm_90", "temp_storage": {}}, os.urandom(1000))
        t = time.time() - 100 + i
        os.utime(cache / "bundles" / f"{key}.bin", (t, t))
    assert _cache.read(keys[0]) is not None  # a use: now the most recent
    _cache.write(keys[4], {"arch": "sm_90", "temp_storage": {}}, os.urandom(1000))
    _cache.write(keys[5], {"arch": "sm_90", "temp_storage": {}}, os.urandom(1000))
    left = {p.stem for p in (cache / "bundles").glob("*.bin")}
    assert keys[0] in left and keys[5] in left and keys[1] not in left
    assert sum(p.stat().st_size for p in (cache / "bundles").glob("*.bin")) <= 5 * 1100


def test_writes_do_not_list_a_large_cache_each_time(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The size is checked at a process's first write, then once per 1/64 of the cap written (a
    listing per write cost O(entries) time and fragmented memory: 12 KB per compile)."""
    monkeypatch.setenv("CUDA_COOP_CACHE_MAX_BYTES", str(64 * 10_000))
    monkeypatch.setattr(_cache, "_written", {})
    listings = []
    real = _cache.list_entries
    monkeypatch.setattr(_cache, "list_entries", lambda root: listings.append(root) or real(root))
    for i in range(25):
        assert _cache.write(f"{i:064x}", {"arch": "sm_90", "temp_storage": {}}, os.urandom(4000))
    # the first write, then each time ~10 KB more have been written: every third ~4.2 KB entry
    assert len(listings) == 1 + 24 // 3


def test_info_and_clear_from_the_command_line(cache: Path) -> None:
    _bundle.compile_bundle([REQ], (), "sm_90")
    env = {**os.environ, "CUDA_COOP_CACHE_DIR": str(cache)}

    def cli(cmd: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "cuda.coop.cache", cmd], capture_output=True, text=True, env=env
        )

    out = cli("info")
    assert out.returncode == 0 and f"directory: {cache}" in out.stdout and "entries: 4" in out.stdout
    assert cli("clear").returncode == 0 and not list((cache / "bundles").glob("*.bin"))
    assert "entries: 0" in cli("info").stdout
    bad = cli("purge")
    assert bad.returncode == 2 and "usage" in bad.stderr
    from cuda.coop import cache as cache_api

    assert cache_api.info().entries == 0 and cache_api.info().directory == str(cache)


# --- a stopped lock holder ----------------------------------------------------------------------------

_HOLDER = """
import os, signal, sys
from cuda.coop import _cache
with _cache.locked(sys.argv[1]):
    print("locked", flush=True)
    os.kill(os.getpid(), signal.SIGSTOP)
"""


def test_a_stopped_lock_holder_delays_a_compile_only_up_to_the_timeout(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = _key(OTHER)
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, key], stdout=subprocess.PIPE, text=True, env={**os.environ}
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        deadline = time.time() + 30
        while Path(f"/proc/{holder.pid}/stat").read_text().split()[2] != "T" and time.time() < deadline:
            time.sleep(0.05)
        monkeypatch.setenv("CUDA_COOP_CACHE_LOCK_TIMEOUT", "2")
        monkeypatch.setattr(_cache, "LOCK_NOTICE_SECONDS", 0.5)
        start = time.monotonic()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            bundle = _bundle.compile_bundle([OTHER], (), "sm_90")
        waited = time.monotonic() - start
        messages = [str(w.message) for w in caught if issubclass(w.category, coop.CoopCacheWarning)]
        assert bundle.objects and 2 <= waited < 60, waited
        assert any("waiting for another process" in m for m in messages), messages
        assert any("held more than 2 s" in m for m in messages), messages
    finally:
        holder.kill()
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()
