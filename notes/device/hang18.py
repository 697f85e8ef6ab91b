# issue 46 item 1: the strided striped load + block sum written other ways the docs allow.
# python3 .gpu/hang18.py VARIANT  (each variant in its own process, under `timeout`)
import faulthandler
import os
import sys

import cuda.coop.cutlass as cutlass_coop
import cutlass
import cutlass.cute as cute
import torch
from cutlass.cute.runtime import from_dlpack

faulthandler.dump_traceback_later(int(os.environ.get("DUMP_S", "100000")), exit=True)

V = sys.argv[1]
ROWS, COLS, T, ITEMS = 384, 12, 64, 3
TILE = T * ITEMS
NT = ROWS // TILE


@cute.kernel
def kernel(mat: cute.Tensor, out: cute.Tensor, nt: cutlass.Int32):
    from cuda import coop

    col, _, _ = cute.arch.block_idx()
    tx, _, _ = cute.arch.thread_idx()
    c = mat[None, col]
    if cutlass.const_expr(V == "rmem"):
        for tl in range(NT):
            items = cute.make_rmem_tensor(cute.make_layout(ITEMS), cutlass.Int32)
            coop.block.load(c, items, offset=tl * TILE, algorithm="striped")
            s = coop.block.sum(items)
            if tx == 0:
                out[tl, col] = s
    elif cutlass.const_expr(V == "dynrange"):
        for tl in cutlass.range(nt):
            items = coop.ThreadData(ITEMS, cutlass.Int32)
            coop.block.load(c, items, offset=tl * TILE, algorithm="striped")
            s = coop.block.sum(items)
            if tx == 0:
                out[tl, col] = s
    elif cutlass.const_expr(V == "constexpr"):
        for tl in cutlass.range_constexpr(NT):
            items = coop.ThreadData(ITEMS, cutlass.Int32)
            coop.block.load(c, items, offset=tl * TILE, algorithm="striped")
            s = coop.block.sum(items)
            if tx == 0:
                out[tl, col] = s
    elif cutlass.const_expr(V == "allwrite"):
        for tl in range(NT):
            items = coop.ThreadData(ITEMS, cutlass.Int32)
            coop.block.load(c, items, offset=tl * TILE, algorithm="striped")
            out[tl, col] = coop.block.sum(items)  # every thread writes (only thread 0's is valid)
    elif cutlass.const_expr(V == "acc"):
        acc = cutlass.Int32(0)
        for tl in range(NT):
            items = coop.ThreadData(ITEMS, cutlass.Int32)
            coop.block.load(c, items, offset=tl * TILE, algorithm="striped")
            acc = acc + coop.block.sum(items)
        if tx == 0:
            out[0, col] = acc
    else:  # "items_outside": one ThreadData reused across the tiles
        items = coop.ThreadData(ITEMS, cutlass.Int32)
        for tl in range(NT):
            coop.block.load(c, items, offset=tl * TILE, algorithm="striped")
            s = coop.block.sum(items)
            if tx == 0:
                out[tl, col] = s


@cute.jit
def host(mat: cute.Tensor, out: cute.Tensor, nt: cutlass.Int32):
    kernel(mat, out, nt).launch(grid=(COLS, 1, 1), block=(T, 1, 1))


x = torch.randint(-1000, 1000, (ROWS, COLS), dtype=torch.int32, device="cuda")
out = torch.full((NT, COLS), -7, dtype=torch.int32, device="cuda")
how = sys.argv[2] if len(sys.argv) > 2 else "cute"
if how == "torch":  # compiled with CuTe tensors, called with torch tensors (the call state)
    f = cutlass_coop.compile(host, from_dlpack(x), from_dlpack(out), cutlass.Int32(NT))
    f(x, out, NT)
    f(x, out, NT)
else:
    print("compiling", flush=True)
    f = cutlass_coop.compile(host, from_dlpack(x, assumed_align=16), from_dlpack(out), cutlass.Int32(NT))
    f(from_dlpack(x, assumed_align=16), from_dlpack(out), cutlass.Int32(NT))
print("compiled and launched", flush=True)
torch.cuda.synchronize()
want = x.cpu().numpy().reshape(NT, TILE, COLS).sum(axis=1)
got = out.cpu().numpy()
if V == "acc":
    ok = (got[0] == want.sum(axis=0)).all()
else:
    ok = (got == want).all()
print(V, how, "ok" if ok else f"WRONG {got[:, :4]} {want[:, :4]}", flush=True)
