// SPDX-License-Identifier: Apache-2.0
// The CUB C++ peers of benchmarks/warp.py (read by it as CUB_SOURCE and compiled with NVRTC,
// the kernels instantiated by name expression).
#include <cub/warp/warp_load.cuh>
#include <cub/warp/warp_reduce.cuh>

template <int Threads, int Width, int Items, cub::WarpLoadAlgorithm Alg>
__global__ void __launch_bounds__(Threads) cub_row_sum(const float* src, float* out)
{
  using Load   = cub::WarpLoad<float, Items, Alg, Width>;
  using Reduce = cub::WarpReduce<float, Width>;
  __shared__ typename Reduce::TempStorage ts[Threads / Width];
  typename Load::TempStorage lts;
  const int warp      = threadIdx.x / Width;
  const long long row = (long long) blockIdx.x * (Threads / Width) + warp;
  float items[Items];
  Load(lts).Load(src + row * (Width * Items), items);
  const float total = Reduce(ts[warp]).Sum(items);
  if (threadIdx.x % Width == 0)
  {
    out[row] = total;
  }
}
