# SPDX-License-Identifier: Apache-2.0
"""A worker process of :func:`cuda.coop._bundle.prefetch`: ``python -m cuda.coop._unit_worker ARCH
JOBS NVRTC`` loads the NVRTC library file NVRTC (its parent's; empty: the one cuda.bindings finds),
reads a JSON list of units (source, probes, defines) from the file JOBS, compiles each into the cache
(one NVRTC call each, under the cache's lock, as any compile), and writes as JSON on stdout its
compile counters and the identity of the NVRTC it used (the parent checks it is its own)."""

from __future__ import annotations

import json
import sys


def main() -> None:
    arch, jobs, nvrtc_file = sys.argv[1:4]
    from cuda.coop._link_worker import preload

    preload(nvrtc_file)  # before anything loads NVRTC
    from cuda.coop import _bundle, compile_stats
    from cuda.coop._render import RenderedRequests

    options = _bundle._options(_bundle.normalize_arch(arch))
    before = compile_stats()
    with open(jobs) as f:
        units = json.load(f)
    with _bundle.expect_units(len(units)):
        for job in units:
            rendered = RenderedRequests(job["source"], dict(job["probes"]), tuple(job["defines"]))
            _bundle._unit(rendered, options)
    after = compile_stats()
    names = ("nvrtc_compiles", "nvrtc_seconds", "cache_hits", "pch_creates", "pch_uses")
    counters = {k: getattr(after, k) - getattr(before, k) for k in names}
    json.dump({"counters": counters, "nvrtc": _bundle._toolchain()["nvrtc"]}, sys.stdout)


if __name__ == "__main__":
    main()
