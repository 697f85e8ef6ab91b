# SPDX-License-Identifier: Apache-2.0
# the CuTe top-k example kernel: python topk_repro.py K ITEMS ROWS [N], checked against NumPy
import sys

import numpy as np
import torch

sys.path.insert(0, "examples/cutlass")
import cuda.coop.cutlass as cutlass_coop
import top_k_stream_rows_cute as ex
from cutlass.cute.runtime import from_dlpack

k, items, rows = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
N = int(sys.argv[4]) if len(sys.argv) > 4 else 4096  # row length
host = ex.make_row_top_k(N, k, items, 128)
rng = np.random.default_rng()
x = rng.standard_normal((rows, N)).astype(np.float32)
tx = torch.from_numpy(x.reshape(-1)).cuda()
values = torch.full((rows * k,), float("nan"), device="cuda")
indices = torch.full((rows * k,), -1, dtype=torch.int64, device="cuda")
compiled = cutlass_coop.compile(host, *(from_dlpack(t, assumed_align=16) for t in (tx, values, indices)))
print(compiled.inspect().summary(), flush=True)
compiled(tx, values, indices)
torch.cuda.synchronize()
order = np.stack([np.lexsort((np.arange(N), -r.astype(np.float64)))[:k] for r in x])
print("same:", np.array_equal(indices.cpu().numpy().reshape(rows, k), order), flush=True)
