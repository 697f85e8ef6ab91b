# SPDX-License-Identifier: Apache-2.0
"""One-block Numba kernels of each explorer's primitive (issue 23), and what the model says they
compute: ``test_models_gpu.py`` runs them on random data against ``cuda.coop._models``, and
``test_models.py`` compiles them ahead of time (so that the GPU test's kernels are known to
compile on any machine). Each case: a name, the kernel's source (a function ``kernel``), its
signature, the launch's threads, the inputs (from a generator) and the check of the outputs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from cuda.coop import _models
from cuda.coop._catalog import CHOICES

T, N = 64, 4  # two real warps of four items: the model is drawn with warps of 4 lanes, run with 32
TILE = T * N
GRID = (T, N)

_HEAD = [
    "def kernel({args}):",
    "    t = cuda.threadIdx.x",
    "    x = coop.ThreadData({n}, np.int32)",
    "    for j in range({n}):",
    "        x[j] = src[t * {n} + j]",
]
_OUT = ["    for j in range({n}):", "        dst[t * {n} + j] = {out}[j]"]


@dataclass(frozen=True)
class ModelCase:
    name: str
    source: str
    signature: str
    threads: int
    inputs: Callable[[np.random.Generator], dict[str, np.ndarray]]
    check: Callable[[dict[str, np.ndarray]], list[str]]  # the outputs (and inputs) -> mismatches


def _src(lines: list[str], n: int = N, args: str = "src, dst", out: str = "x") -> str:
    return "\n".join(line.format(n=n, args=args, out=out) for line in lines)


def _ints(rng: np.random.Generator, n: int, high: int = 1000) -> np.ndarray:
    return rng.integers(-high, high, n).astype(np.int32)


def _same(name: str, got: np.ndarray, want: np.ndarray, mask: np.ndarray | None = None) -> list[str]:
    if mask is not None:
        got, want = got[mask], want[mask]
    bad = int(np.count_nonzero(got != want))
    return [f"{name}: {bad} of {got.size} differ from the model"] if bad else []


def _options(enum: str) -> list[str]:
    return [o.value for c in CHOICES if c.enum_name == enum for o in c.options]


def _sig(*arrays: str) -> str:
    return f"void({', '.join(f'{a}[::1]' for a in arrays)})"


def _tile(low: int, high: int) -> Callable[[np.random.Generator], np.ndarray]:
    return lambda rng: rng.integers(low, high, TILE).astype(np.int32)


def _case(
    name: str,
    lines: list[str],
    src: Callable[[np.random.Generator], np.ndarray],
    want: Callable[[np.ndarray], np.ndarray],
    out: str = "x",
) -> ModelCase:
    """A kernel of the tile ``src`` into ``dst`` (both int32, blocked: thread t's item j at
    ``t*N + j``), whose ``dst`` must be ``want(x)`` (``x``: the input as T x N)."""
    return ModelCase(
        name,
        _src(lines, out=out),
        _sig("int32", "int32"),
        T,
        lambda rng: {"src": src(rng), "dst": np.zeros(TILE, np.int32)},
        lambda io: _same(name, io["dst"].reshape(GRID), want(io["src"].reshape(GRID))),
    )


def cases() -> list[ModelCase]:
    out: list[ModelCase] = []
    grid = GRID
    for alg in _options("BlockLoadAlgorithm"):
        lines = [
            "def kernel(src, dst):",
            "    t = cuda.threadIdx.x",
            f"    x = coop.ThreadData({N}, np.int32)",
            f"    coop.block.load(src, x, algorithm={alg!r})",
            *_OUT,
        ]
        want = _models.load_result(*GRID, alg)["positions"]
        out.append(_case(f"load-{alg}", lines, _tile(-1000, 1000), lambda x, want=want: x.reshape(-1)[want]))
    for alg in _options("WarpLoadAlgorithm"):  # logical warps of 16 lanes: each loads its own tile
        lines = [
            "def kernel(src, dst):",
            "    t = cuda.threadIdx.x",
            f"    x = coop.ThreadData({N}, np.int32)",
            f"    coop.warp.load(src, x, offset=(t // 16) * {16 * N}, algorithm={alg!r}, threads_in_warp=16)",
            *_OUT,
        ]
        within = _models.load_result(16, N, alg, "WarpLoadAlgorithm")["positions"]
        want = np.concatenate([within + w * 16 * N for w in range(T // 16)])
        out.append(
            _case(f"warp_load-{alg}", lines, _tile(-1000, 1000), lambda x, want=want: x.reshape(-1)[want])
        )
    for alg in _options("WarpStoreAlgorithm"):  # logical warps of 16 lanes, each its own tile
        lines = [
            *_HEAD,
            f"    coop.warp.store(dst, x, offset=(t // 16) * {16 * N}, algorithm={alg!r},",
            "                    threads_in_warp=16)",
        ]
        within = _models.store_result(16, N, alg, "WarpStoreAlgorithm")["positions"]
        where = np.concatenate([within + w * 16 * N for w in range(T // 16)])

        def stored(x: np.ndarray, where: np.ndarray = where) -> np.ndarray:
            out = np.zeros(TILE, np.int32)
            out[where] = x.reshape(T, N)
            return out.reshape(GRID)

        out.append(_case(f"warp_store-{alg}", lines, _tile(-1000, 1000), stored))
    for mode in _options("WarpExchangeMode"):  # logical warps of 8 lanes
        extra = ", ranks=r" if mode.startswith("scatter") else ""
        ranks_local = np.concatenate([_models.exchange_ranks(8, N, mode)[0] for _ in range(T // 8)])
        lines = [
            "def kernel(src, dst):",
            "    t = cuda.threadIdx.x",
            f"    x = coop.ThreadData({N}, np.int32)",
            f"    r = coop.ThreadData({N}, np.int32)",
            f"    for j in range({N}):",
            f"        x[j] = src[t * {N} + j]",
            f"        r[j] = RANKS[t * {N} + j]",
            f"    coop.warp.exchange(x, {mode!r}{extra}, threads_in_warp=8)",
            *_OUT,
        ]
        source = _src(lines).replace("RANKS[", "src[" + str(TILE) + " + ")

        def check_warp_exchange(io: dict[str, np.ndarray], mode: str = mode) -> list[str]:
            errors = []
            x = io["src"][:TILE].reshape(GRID)
            for w in range(T // 8):
                r = _models.exchange_result(8, N, mode, x[w * 8 : (w + 1) * 8], lanes=8)
                got = io["dst"].reshape(GRID)[w * 8 : (w + 1) * 8]
                errors += _same(f"{mode}, logical warp {w}", got, r["out"], r["defined"])
            return errors

        out.append(
            ModelCase(
                f"warp_exchange-{mode}",
                source,
                _sig("int32", "int32"),
                T,
                lambda rng, ranks_local=ranks_local: {
                    "src": np.concatenate(
                        [_tile(-1000, 1000)(rng), ranks_local.reshape(-1).astype(np.int32)]
                    ),
                    "dst": np.zeros(TILE, np.int32),
                },
                check_warp_exchange,
            )
        )
    for alg in _options("BlockStoreAlgorithm"):
        lines = [*_HEAD, f"    coop.block.store(dst, x, algorithm={alg!r})"]

        def check_store(io: dict[str, np.ndarray], alg: str = alg) -> list[str]:
            want = np.zeros(TILE, np.int32)
            want[_models.store_result(*grid, alg)["positions"]] = io["src"].reshape(grid)
            return _same(alg, io["dst"], want)

        out.append(
            ModelCase(
                f"store-{alg}",
                _src(lines),
                _sig("int32", "int32"),
                T,
                lambda rng: {"src": _ints(rng, TILE), "dst": np.zeros(TILE, np.int32)},
                check_store,
            )
        )
    for mode in _options("BlockExchangeMode"):
        ranks, flags = _models.exchange_ranks(*grid, mode)
        extra = ""
        if mode.startswith("scatter"):
            extra += ", ranks=r"
        if mode.endswith("flagged"):
            extra += ", valid_flags=f"
        lines = [
            *_HEAD[:1],
            "    t = cuda.threadIdx.x",
            f"    x = coop.ThreadData({N}, np.int32)",
            f"    r = coop.ThreadData({N}, np.int32)",
            f"    f = coop.ThreadData({N}, np.int32)",
            f"    for j in range({N}):",
            f"        x[j] = src[t * {N} + j]",
            f"        r[j] = ranks[t * {N} + j]",
            f"        f[j] = flags[t * {N} + j]",
            f"    coop.block.exchange(x, {mode!r}{extra})",
            *_OUT,
        ]

        def check_exchange(io: dict[str, np.ndarray], mode: str = mode) -> list[str]:
            r = _models.exchange_result(*grid, mode, io["src"].reshape(grid), lanes=32)
            return _same(mode, io["dst"].reshape(grid), r["out"], r["defined"])

        out.append(
            ModelCase(
                f"exchange-{mode}",
                _src(lines, args="src, ranks, flags, dst"),
                _sig("int32", "int32", "int32", "int32"),
                T,
                lambda rng, ranks=ranks, flags=flags: {
                    "src": _ints(rng, TILE),
                    "ranks": ranks.reshape(-1).astype(np.int32),
                    "flags": flags.reshape(-1).astype(np.int32),
                    "dst": np.zeros(TILE, np.int32),
                },
                check_exchange,
            )
        )
    for mode, distance in (("offset", 3), ("offset", -2), ("rotate", 5), ("up", 1), ("down", 1)):
        if mode in ("offset", "rotate"):
            call = [
                f"    for j in range({N}):",
                f"        x[j] = coop.block.shuffle(x[j], mode={mode!r}, distance={distance})",
            ]
            res = "x"
        else:
            call = [f"    u = coop.block.shuffle(x, mode={mode!r})"]
            res = "u"
        out.append(
            _case(
                f"shuffle-{mode}{distance}",
                [*_HEAD, *call, *_OUT],
                _tile(-1000, 1000),
                lambda x, mode=mode, distance=distance: _models.shuffle_result(*GRID, mode, distance, x)[
                    "out"
                ],
                out=res,
            )
        )
    for kind in ("exclusive_sum", "inclusive_sum"):
        lines = [
            *_HEAD,
            f"    y, total = coop.block.{kind}(x, block_aggregate=True)",
            *_OUT,
            "    if t == 0:",
            f"        dst[{TILE}] = total",
        ]

        def check_scan(io: dict[str, np.ndarray], kind: str = kind) -> list[str]:
            r = _models.scan_result(io["src"].reshape(grid).astype(np.int64), kind)
            return _same(kind, io["dst"][:TILE].reshape(grid), r["out"].astype(np.int32)) + _same(
                "aggregate", io["dst"][TILE:], np.array([r["aggregate"]], np.int32)
            )

        out.append(
            ModelCase(
                f"scan-{kind}",
                _src(lines, out="y"),
                _sig("int32", "int32"),
                T,
                lambda rng: {"src": _ints(rng, TILE, 100), "dst": np.zeros(TILE + 1, np.int32)},
                check_scan,
            )
        )
    for broadcast in (False, True):
        lines = [*_HEAD, f"    s = coop.block.sum(x, broadcast={broadcast})", "    dst[t] = s"]

        def check_reduce(io: dict[str, np.ndarray], broadcast: bool = broadcast) -> list[str]:
            r = _models.reduce_result(T, N, broadcast, io["src"].reshape(grid))
            return _same("sum", io["dst"][:T], r["out"].astype(np.int32), r["defined"])

        out.append(
            ModelCase(
                f"reduce-broadcast{broadcast}",
                _src(lines),
                _sig("int32", "int32"),
                T,
                lambda rng: {"src": _ints(rng, TILE, 100), "dst": np.zeros(T, np.int32)},
                check_reduce,
            )
        )
    for broadcast in (False, True):
        lines = [
            *_HEAD,
            f"    v, i = coop.block.argmax(x, broadcast={broadcast})",
            "    dst[2 * t] = v",
            "    dst[2 * t + 1] = i",
        ]

        def check_argmax(io: dict[str, np.ndarray], broadcast: bool = broadcast) -> list[str]:
            r = _models.argmax_result(io["src"].reshape(grid))
            got = io["dst"].reshape(T, 2)[: T if broadcast else 1]
            want = np.array([[r["value"], r["index"]]] * len(got), np.int32)
            return _same("argmax", got, want)

        out.append(
            ModelCase(
                f"argmax-broadcast{broadcast}",
                _src(lines),
                _sig("int32", "int32"),
                T,
                lambda rng: {
                    "src": rng.integers(0, 9, TILE).astype(np.int32),
                    "dst": np.zeros(2 * T, np.int32),
                },
                check_argmax,
            )
        )
    for direction in ("left", "right"):
        lines = [*_HEAD, f"    d = coop.block.adjacent_difference(x, direction={direction!r})", *_OUT]
        want = lambda x, direction=direction: _models.adjacent_result(x, direction)["out"]  # noqa: E731
        out.append(_case(f"adjacent_difference-{direction}", lines, _tile(-100, 100), want, out="d"))
    for flags in ("heads", "tails", "heads_and_tails"):
        if flags == "heads_and_tails":
            call = [
                "    hf, tf = coop.block.discontinuity(x, flags='heads_and_tails')",
                f"    for j in range({N}):",
                "        hf[j] = hf[j] + 2 * tf[j]",
            ]
        else:
            call = [f"    hf = coop.block.discontinuity(x, flags={flags!r})"]
        want = lambda x, flags=flags: _models.discontinuity_result(x, flags)["out"]  # noqa: E731
        out.append(_case(f"discontinuity-{flags}", [*_HEAD, *call, *_OUT], _tile(0, 3), want, out="hf"))
    bins = 8
    for alg in _options("BlockHistogramAlgorithm"):
        lines = [*_HEAD, f"    coop.block.histogram(x, dst, bins={bins}, algorithm={alg!r})"]
        out.append(
            ModelCase(
                f"histogram-{alg}",
                _src(lines),
                _sig("int32", "int32"),
                T,
                lambda rng: {
                    "src": rng.integers(0, bins, TILE).astype(np.int32),
                    "dst": np.full(bins, 7, np.int32),
                },
                lambda io: _same(
                    "counts", io["dst"], _models.histogram_result(io["src"], bins)["counts"].astype(np.int32)
                ),
            )
        )
    for output in _options("BlockRadixSortOutput"):
        lines = [*_HEAD, f"    coop.block.radix_sort(x, end_bit=4, radix_bits=2, output={output!r})", *_OUT]
        want = lambda x, output=output: _models.radix_sort_result(x, output, *GRID)["out"]  # noqa: E731
        out.append(_case(f"radix_sort-{output}", lines, _tile(0, 16), want))
    lines = [*_HEAD, "    coop.block.merge_sort(x, 'less')", *_OUT]
    out.append(_case("merge_sort", lines, _tile(-50, 50), lambda x: _models.merge_sort_result(x)["out"]))
    for k, largest in ((1, True), (5, True), (17, False)):
        lines = [*_HEAD, f"    coop.block.top_k(x, {k}, largest={largest})", *_OUT]
        out.append(
            ModelCase(
                f"top_k-{k}-{largest}",
                _src(lines),
                _sig("int32", "int32"),
                T,
                lambda rng: {"src": _ints(rng, TILE), "dst": np.zeros(TILE, np.int32)},
                lambda io, k=k, largest=largest: _same(
                    "selected",
                    np.sort(io["dst"][:k]),
                    _models.top_k_result(io["src"].reshape(grid), k, largest)["selected"],
                ),
            )
        )
    for begin in (0, 100):
        lines = [
            "def kernel(src, lengths, dst):",
            "    t = cuda.threadIdx.x",
            f"    x = coop.ThreadData({N}, np.int32)",
            f"    rl = coop.ThreadData({N}, np.int32)",
            f"    for j in range({N}):",
            f"        x[j] = src[t * {N} + j]",
            f"        rl[j] = lengths[t * {N} + j]",
            f"    d, total = coop.block.run_length_decode(x, decoded_items_per_thread={N}, run_lengths=rl"
            + (f", from_decoded_offset={begin})" if begin else ")"),
            *_OUT,
            "    if t == 0:",
            f"        dst[{TILE}] = total",
        ]

        def check_rld(io: dict[str, np.ndarray], begin: int = begin) -> list[str]:
            r = _models.rld_result(io["src"], io["lengths"], N, T, begin)
            return _same("decoded", io["dst"][:TILE].reshape(grid), r["out"], r["defined"]) + _same(
                "total", io["dst"][TILE:], np.array([r["total"]], np.int32)
            )

        out.append(
            ModelCase(
                f"run_length_decode-{begin}",
                _src(lines, out="d"),
                _sig("int32", "int32", "int32"),
                T,
                lambda rng: {
                    "src": _ints(rng, TILE),
                    "lengths": rng.integers(1, 4, TILE).astype(np.int32),
                    "dst": np.zeros(TILE + 1, np.int32),
                },
                check_rld,
            )
        )
    for width in (4, 8, 16, 32):
        for kind in ("inclusive_sum", "exclusive_sum"):
            lines = [
                "def kernel(src, dst):",
                "    t = cuda.threadIdx.x",
                f"    dst[t] = coop.warp.{kind}(src[t], threads_in_warp={width})",
            ]
            out.append(
                ModelCase(
                    f"warp_scan-{kind}-{width}",
                    "\n".join(lines),
                    _sig("int32", "int32"),
                    32,
                    lambda rng: {"src": _ints(rng, 32, 100), "dst": np.zeros(32, np.int32)},
                    lambda io, width=width, kind=kind: _same(
                        kind, io["dst"], _models.warp_scan_result(io["src"], width, kind)["out"]
                    ),
                )
            )
    for batches, width in ((6, 4), (40, 16)):
        for arrangement in _options("WarpBatchedArrangement"):
            per = -(-batches // width)
            lines = [
                "def kernel(src, dst):",
                "    t = cuda.threadIdx.x",
                f"    lane = t % {width}",
                f"    w = t // {width}",
                f"    x = coop.ThreadData({batches}, np.int32)",
                f"    for b in range({batches}):",
                f"        x[b] = src[t * {batches} + b]",
                f"    o = coop.warp.batched_sum(x, arrangement={arrangement!r}, threads_in_warp={width})",
                f"    for i in range({per}):",
                f"        dst[t * {per} + i] = o[i]",
            ]

            def check_batched(
                io: dict[str, np.ndarray],
                batches: int = batches,
                width: int = width,
                arrangement: str = arrangement,
                per: int = per,
            ) -> list[str]:
                errors = []
                for w in range(32 // width):
                    x = io["src"].reshape(32, batches)[w * width : (w + 1) * width]
                    r = _models.batched_result(batches, width, arrangement, x)
                    got = io["dst"].reshape(32, per)[w * width : (w + 1) * width]
                    errors += _same(f"logical warp {w}", got, r["out"], r["batch"] >= 0)
                return errors

            out.append(
                ModelCase(
                    f"batched_sum-{arrangement}-{batches}x{width}",
                    "\n".join(lines),
                    _sig("int32", "int32"),
                    32,
                    lambda rng, batches=batches, per=per: {
                        "src": _ints(rng, 32 * batches, 100),
                        "dst": np.zeros(32 * per, np.int32),
                    },
                    check_batched,
                )
            )
    return out


def build(case: ModelCase, jit: Any, cuda: Any) -> Any:
    """The case's kernel function (to ``jit`` or to compile ahead of time)."""
    from cuda import coop

    scope: dict[str, Any] = {"coop": coop, "cuda": cuda, "np": np}
    exec(case.source, scope)
    return scope["kernel"] if jit is None else jit(scope["kernel"])
