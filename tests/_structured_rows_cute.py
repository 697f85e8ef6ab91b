# SPDX-License-Identifier: Apache-2.0
"""The CuTe half of ``tests/_structured_rows.py``: the same three kernels, one ``@cute.jit`` host
each (its parameters the kernel's inputs then outputs)."""

import cutlass
import cutlass.cute as cute
import numpy as np
from cuda import coop

from ._structured_rows import (
    ITEMS,
    KERNELS,
    ROWS,
    SORT_WIDTH,
    THREADS,
    TILE,
    WARPS,
    WIDTH,
    K,
    check_all,
    data,
    outputs,
)


@cute.kernel
def arg_kernel(v: cute.Tensor, amax_v: cute.Tensor, amax_i: cute.Tensor, amin_v: cute.Tensor,
               amin_i: cute.Tensor, samax_i: cute.Tensor, wamax_i: cute.Tensor, wamin_i: cute.Tensor,
               stmax_v: cute.Tensor, stmax_i: cute.Tensor, stmin_i: cute.Tensor, wsmin_i: cute.Tensor):  # fmt: skip  # noqa: E501
    t, _, _ = cute.arch.thread_idx()
    row, _, _ = cute.arch.block_idx()
    x = coop.ThreadData(ITEMS, cutlass.Float32)
    for i in cutlass.range_constexpr(ITEMS):
        x[i] = v[row * TILE + t * ITEMS + i]
    best = coop.block.argmax(x)
    worst = coop.block.argmin(x, broadcast=True)
    own = coop.block.argmax(x[0], indices=t * ITEMS)
    lane = coop.warp.argmax(x[0], threads_in_warp=WIDTH)
    tile = coop.warp.argmin(x, threads_in_warp=WIDTH, broadcast=True)
    # striped items (as a striped load leaves them) with their default striped indices
    s = coop.ThreadData(ITEMS, cutlass.Float32)
    w = coop.ThreadData(ITEMS, cutlass.Float32)
    for i in cutlass.range_constexpr(ITEMS):
        s[i] = v[row * TILE + t + i * THREADS]
        w[i] = v[row * TILE + (t // WIDTH) * WIDTH * ITEMS + t % WIDTH + i * WIDTH]
    sbest = coop.block.argmax(s, arrangement="striped")
    sworst = coop.block.argmin(s, arrangement="striped", broadcast=True)
    wworst = coop.warp.argmin(w, arrangement="striped", threads_in_warp=WIDTH, broadcast=True)
    if t == 0:
        amax_v[row] = best[0]
        amax_i[row] = best[1]
        samax_i[row] = own[1]
        stmax_v[row] = sbest[0]
        stmax_i[row] = sbest[1]
    if t == THREADS - 1:
        amin_v[row] = worst[0]
        amin_i[row] = worst[1]
        stmin_i[row] = sworst[1]
    if t % WIDTH == 0:
        wamax_i[row * WARPS + t // WIDTH] = lane[1]
    if t % WIDTH == WIDTH - 1:
        wamin_i[row * WARPS + t // WIDTH] = tile[1]
        wsmin_i[row * WARPS + t // WIDTH] = wworst[1]


def lex_less(p, q):  # type: ignore[no-untyped-def]
    return (p[0] < q[0]) | ((p[0] == q[0]) & (p[1] < q[1]))


@cute.kernel
def sort_kernel(k0: cute.Tensor, k1: cute.Tensor, w: cute.Tensor, rk: cute.Tensor, tk: cute.Tensor,
                m_k0: cute.Tensor, m_k1: cute.Tensor, m_pos: cute.Tensor, m_w: cute.Tensor, r_pos: cute.Tensor,  # noqa: E501
                r_w: cute.Tensor, t_key: cute.Tensor, t_pos: cute.Tensor, t_w: cute.Tensor, ws_k0: cute.Tensor,  # noqa: E501
                ws_k1: cute.Tensor, ws_pos: cute.Tensor):  # fmt: skip
    t, _, _ = cute.arch.thread_idx()
    blk, _, _ = cute.arch.block_idx()
    base = blk * TILE
    a, b = coop.ThreadData(ITEMS, cutlass.Int8), coop.ThreadData(ITEMS, cutlass.Float32)
    p, q = coop.ThreadData(ITEMS, cutlass.Int32), coop.ThreadData(ITEMS, cutlass.Float64)
    rkey, rp = coop.ThreadData(ITEMS, cutlass.Uint16), coop.ThreadData(ITEMS, cutlass.Int32)
    rq = coop.ThreadData(ITEMS, cutlass.Float32)
    tkey, tp = coop.ThreadData(ITEMS, cutlass.Float32), coop.ThreadData(ITEMS, cutlass.Int32)
    tq = coop.ThreadData(ITEMS, cutlass.Float64)
    wa, wb = coop.ThreadData(ITEMS, cutlass.Int8), coop.ThreadData(ITEMS, cutlass.Float32)
    wp = coop.ThreadData(ITEMS, cutlass.Int32)
    for i in cutlass.range_constexpr(ITEMS):
        j = t * ITEMS + i
        a[i] = k0[base + j]
        b[i] = k1[base + j]
        p[i] = j
        q[i] = w[base + j]
        rkey[i] = rk[base + j]
        rp[i] = j
        rq[i] = cutlass.Float32(w[base + j])
        tkey[i] = tk[base + j]
        tp[i] = j
        tq[i] = w[base + j]
        wa[i] = a[i]
        wb[i] = b[i]
        wp[i] = j
    coop.block.merge_sort((a, b), lex_less, values=(p, q), stable=True)
    coop.block.radix_sort(rkey, values=(rp, rq))
    coop.block.top_k(tkey, K, values=(tp, tq))
    coop.warp.merge_sort((wa, wb), lex_less, values=wp, threads_in_warp=SORT_WIDTH)
    for i in cutlass.range_constexpr(ITEMS):
        j = t * ITEMS + i
        m_k0[base + j] = a[i]
        m_k1[base + j] = b[i]
        m_pos[base + j] = p[i]
        m_w[base + j] = q[i]
        r_pos[base + j] = rp[i]
        r_w[base + j] = rq[i]
        ws_k0[base + j] = wa[i]
        ws_k1[base + j] = wb[i]
        ws_pos[base + j] = wp[i]
        if j < K:
            t_key[blk * K + j] = tkey[i]
            t_pos[blk * K + j] = tp[i]
            t_w[blk * K + j] = tq[i]


def diff(p, q):  # type: ignore[no-untyped-def]  # (item, its left neighbour)
    return p[0] - q[0], cutlass.max(p[1], q[1])


def differs(p, q):  # type: ignore[no-untyped-def]
    return (p[0] != q[0]) | (p[1] != q[1])


@cute.kernel
def neighbours_kernel(k0: cute.Tensor, k1: cute.Tensor, d0: cute.Tensor, d1: cute.Tensor, flags: cute.Tensor,
                      up0: cute.Tensor, up1: cute.Tensor, down0: cute.Tensor, down1: cute.Tensor):  # fmt: skip  # noqa: E501
    t, _, _ = cute.arch.thread_idx()
    blk, _, _ = cute.arch.block_idx()
    base = blk * TILE
    a, b = coop.ThreadData(ITEMS, cutlass.Int8), coop.ThreadData(ITEMS, cutlass.Float32)
    for i in cutlass.range_constexpr(ITEMS):
        a[i] = k0[base + t * ITEMS + i]
        b[i] = k1[base + t * ITEMS + i]
    dd = coop.block.adjacent_difference((b, a), op=diff)
    heads = coop.block.discontinuity((a, b), op=differs)
    up = coop.block.shuffle((a, b), mode="up")
    down = coop.block.shuffle((a, b), mode="down")
    for i in cutlass.range_constexpr(ITEMS):
        j = base + t * ITEMS + i
        d0[j] = dd[0][i]
        d1[j] = dd[1][i]
        flags[j] = heads[i]
        up0[j] = up[0][i]
        up1[j] = up[1][i]
        down0[j] = down[0][i]
        down1[j] = down[1][i]


@cute.jit
def arg_host(v: cute.Tensor, amax_v: cute.Tensor, amax_i: cute.Tensor, amin_v: cute.Tensor, amin_i: cute.Tensor,  # noqa: E501
             samax_i: cute.Tensor, wamax_i: cute.Tensor, wamin_i: cute.Tensor, stmax_v: cute.Tensor,
             stmax_i: cute.Tensor, stmin_i: cute.Tensor, wsmin_i: cute.Tensor):  # fmt: skip
    arg_kernel(
        v, amax_v, amax_i, amin_v, amin_i, samax_i, wamax_i, wamin_i, stmax_v, stmax_i, stmin_i, wsmin_i
    ).launch(grid=(ROWS, 1, 1), block=(THREADS, 1, 1))


@cute.jit
def sort_host(k0: cute.Tensor, k1: cute.Tensor, w: cute.Tensor, rk: cute.Tensor, tk: cute.Tensor,
              m_k0: cute.Tensor, m_k1: cute.Tensor, m_pos: cute.Tensor, m_w: cute.Tensor, r_pos: cute.Tensor,
              r_w: cute.Tensor, t_key: cute.Tensor, t_pos: cute.Tensor, t_w: cute.Tensor, ws_k0: cute.Tensor,
              ws_k1: cute.Tensor, ws_pos: cute.Tensor):  # fmt: skip
    sort_kernel(k0, k1, w, rk, tk, m_k0, m_k1, m_pos, m_w, r_pos, r_w, t_key, t_pos, t_w, ws_k0, ws_k1,
                ws_pos).launch(grid=(ROWS, 1, 1), block=(THREADS, 1, 1))  # fmt: skip


@cute.jit
def neighbours_host(k0: cute.Tensor, k1: cute.Tensor, d0: cute.Tensor, d1: cute.Tensor, flags: cute.Tensor,
                    up0: cute.Tensor, up1: cute.Tensor, down0: cute.Tensor, down1: cute.Tensor):  # fmt: skip
    neighbours_kernel(k0, k1, d0, d1, flags, up0, up1, down0, down1).launch(
        grid=(ROWS, 1, 1), block=(THREADS, 1, 1)
    )


def first_best(p, q):  # type: ignore[no-untyped-def]
    """``tests/_structured_rows.first_best`` in CuTe's spelling: one ``select_`` per field."""
    p_number, q_nan = p[0] == p[0], q[0] != q[0]
    before = q[1] < p[1]
    greater = (q[0] > p[0]) | ((q[0] == p[0]) & before)  # false where either is a NaN
    take = (q_nan & (p_number | before)) | (p_number & greater)
    return cutlass.select_(take, q[0], p[0]), cutlass.Int32(cutlass.select_(take, q[1], p[1]))


@cute.kernel
def loop_kernel(v: cute.Tensor, lmax_v: cute.Tensor, lmax_i: cute.Tensor, rmax_i: cute.Tensor):
    t, _, _ = cute.arch.thread_idx()
    row, _, _ = cute.arch.block_idx()
    base = row * TILE + t * ITEMS
    bv, bi = v[base], cutlass.Int32(t * ITEMS)
    for i in cutlass.range_constexpr(1, ITEMS):
        x = v[base + i]
        take = (x > bv) | ((x != x) & (bv == bv))  # the first largest; a NaN over every number
        bv = cutlass.select_(take, x, bv)  # a raw MLIR value: coop takes it as the Float32 it is
        bi = cutlass.Int32(cutlass.select_(take, cutlass.Int32(t * ITEMS + i), bi))
    best = coop.block.argmax(bv, indices=bi)
    pair = coop.block.reduce((bv, bi), first_best, algorithm="raking_commutative_only")
    if t == 0:
        lmax_v[row] = best[0]
        lmax_i[row] = best[1]
        rmax_i[row] = pair[1]


@cute.jit
def loop_host(v: cute.Tensor, lmax_v: cute.Tensor, lmax_i: cute.Tensor, rmax_i: cute.Tensor):
    loop_kernel(v, lmax_v, lmax_i, rmax_i).launch(grid=(ROWS, 1, 1), block=(THREADS, 1, 1))


HOSTS = {"arg": arg_host, "sort": sort_host, "neighbours": neighbours_host, "loop": loop_host}


def _fakes(name: str) -> list[object]:
    from cutlass.cute.runtime import make_fake_compact_tensor

    from ._cute_kernels import cutlass_type

    d = data(np.random.default_rng(0))
    ins, outs = KERNELS[name]
    shapes = [(d[k].size, d[k].dtype) for k in ins] + [
        (outputs()[k][0], np.dtype(outputs()[k][1])) for k in outs
    ]
    return [make_fake_compact_tensor(cutlass_type(str(t)), (n,), assumed_align=16) for n, t in shapes]


def cute_aot() -> None:
    import cuda.coop.cutlass as cutlass_coop

    for name, host in HOSTS.items():
        r = cutlass_coop.compile(host, *_fakes(name), arch="sm_90a").inspect()
        print(name, r.calls, r.local_loads, r.local_stores, len(r.functions))


def cute_gpu() -> None:
    import cuda.coop.cutlass as cutlass_coop
    import torch
    from cutlass.cute.runtime import from_dlpack

    d = data(np.random.default_rng())
    out = {k: torch.from_numpy(np.full(n, poison, t)).cuda() for k, (n, t, poison) in outputs().items()}
    for name, host in HOSTS.items():
        ins, outs = KERNELS[name]
        tensors = [torch.from_numpy(d[k]).cuda() for k in ins] + [out[k] for k in outs]
        args = [from_dlpack(x, assumed_align=16) for x in tensors]
        cutlass_coop.compile(host, *args)(*args)
    torch.cuda.synchronize()
    check_all({k: v.cpu().numpy() for k, v in out.items()}, d)
