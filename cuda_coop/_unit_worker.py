# SPDX-License-Identifier: Apache-2.0
"""A worker process of :func:`cuda.coop._bundle.prefetch`: ``python -m cuda.coop._unit_worker ARCH
JOBS`` reads a JSON list of units (source, probes, defines) from the file JOBS, compiles each into the
cache (one NVRTC call each, under the cache's lock, as any compile), and writes its compile counters
as JSON on stdout."""

from __future__ import annotations

import json
import sys

from cuda.coop import _bundle, compile_stats
from cuda.coop._render import RenderedRequests


def main() -> None:
    arch, jobs = sys.argv[1], sys.argv[2]
    options = _bundle._options(_bundle.normalize_arch(arch))
    before = compile_stats()
    with open(jobs) as f:
        units = json.load(f)
    with _bundle.expect_units(len(units)):
        for job in units:
            rendered = RenderedRequests(job["source"], dict(job["probes"]), tuple(job["defines"]))
            _bundle._unit(rendered, options)
    after = compile_stats()
    counters = ("nvrtc_compiles", "nvrtc_seconds", "cache_hits", "pch_creates", "pch_uses")
    delta = {k: getattr(after, k) - getattr(before, k) for k in counters}
    json.dump(delta, sys.stdout)


if __name__ == "__main__":
    main()
