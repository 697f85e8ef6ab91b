// SPDX-License-Identifier: Apache-2.0
// The CUB C++ peers of benchmarks/compute.py (read by it as CUB_SOURCE and compiled with NVRTC,
// the kernels instantiated by name expression).
#include <cub/block/block_load.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>

#include <cuda/functional>

template <int Threads, int Items>
__global__ void __launch_bounds__(Threads) cub_sum(const float* src, float* out, int n)
{
  using Load   = cub::BlockLoad<float, Threads, Items, cub::BLOCK_LOAD_VECTORIZE>;
  using Reduce = cub::BlockReduce<float, Threads>;
  __shared__ typename Reduce::TempStorage ts;
  float acc = 0.0f;
  float items[Items];
  for (int base = blockIdx.x * Threads * Items; base < n; base += gridDim.x * Threads * Items)
  {
    Load().Load(src + base, items);
    for (int j = 0; j < Items; ++j)
    {
      acc += items[j];
    }
  }
  const float total = Reduce(ts).Sum(acc);
  if (threadIdx.x == 0)
  {
    atomicAdd(out, total);
  }
}

// The same with 64-bit indices, as Numba's integers are: the loop the Numba kernel runs.
template <int Threads, int Items>
__global__ void __launch_bounds__(Threads) cub_sum64(const float* src, float* out, long long n)
{
  using Load   = cub::BlockLoad<float, Threads, Items, cub::BLOCK_LOAD_VECTORIZE>;
  using Reduce = cub::BlockReduce<float, Threads>;
  __shared__ typename Reduce::TempStorage ts;
  float acc = 0.0f;
  float items[Items];
  const long long tile = Threads * Items;
  for (long long base = blockIdx.x * tile; base < n; base += gridDim.x * tile)
  {
    Load().Load(src + base, items);
    for (int j = 0; j < Items; ++j)
    {
      acc += items[j];
    }
  }
  const float total = Reduce(ts).Sum(acc);
  if (threadIdx.x == 0)
  {
    atomicAdd(out, total);
  }
}

template <int Threads, int Items>
__global__ void __launch_bounds__(Threads) cub_max(const int* src, int* out, int n)
{
  using Load   = cub::BlockLoad<int, Threads, Items, cub::BLOCK_LOAD_VECTORIZE>;
  using Reduce = cub::BlockReduce<int, Threads>;
  __shared__ typename Reduce::TempStorage ts;
  int acc = INT_MIN;
  int items[Items];
  for (int base = blockIdx.x * Threads * Items; base < n; base += gridDim.x * Threads * Items)
  {
    Load().Load(src + base, items);
    for (int j = 0; j < Items; ++j)
    {
      acc = max(acc, items[j]);
    }
  }
  const int total = Reduce(ts).Reduce(acc, ::cuda::maximum<int>{});
  if (threadIdx.x == 0)
  {
    atomicMax(out, total);
  }
}

template <int Threads, int Items, cub::BlockLoadAlgorithm LA, cub::BlockStoreAlgorithm SA>
__global__ void __launch_bounds__(Threads) cub_scan(const int* src, int* dst)
{
  using Load  = cub::BlockLoad<int, Threads, Items, LA>;
  using Scan  = cub::BlockScan<int, Threads>;
  using Store = cub::BlockStore<int, Threads, Items, SA>;
  __shared__ union
  {
    typename Load::TempStorage load;
    typename Scan::TempStorage scan;
    typename Store::TempStorage store;
  } ts;
  const size_t base = size_t(blockIdx.x) * Threads * Items;
  int items[Items];
  Load(ts.load).Load(src + base, items);
  __syncthreads();
  Scan(ts.scan).InclusiveSum(items, items);
  __syncthreads();
  Store(ts.store).Store(dst + base, items);
}

// Row-wise cumsum, the form of the coop kernels: one block per row of Row items, tiles in a loop,
// warp_transpose loads and stores, the running total carried by BlockScan's prefix callback.
struct RunningTotal
{
  float total;
  __device__ float operator()(float aggregate)
  {
    const float before = total;
    total += aggregate;
    return before;
  }
};

template <int Threads, int Items, int Row>
__global__ void __launch_bounds__(Threads) cub_rows(const float* src, float* dst)
{
  using Load  = cub::BlockLoad<float, Threads, Items, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Scan  = cub::BlockScan<float, Threads>;
  using Store = cub::BlockStore<float, Threads, Items, cub::BLOCK_STORE_WARP_TRANSPOSE>;
  __shared__ union
  {
    typename Load::TempStorage load;
    typename Scan::TempStorage scan;
    typename Store::TempStorage store;
  } ts;
  RunningTotal running{0.0f};
  for (int t = 0; t < Row / (Threads * Items); ++t)
  {
    const size_t base = size_t(blockIdx.x) * Row + t * (Threads * Items);
    float items[Items];
    __syncthreads();
    Load(ts.load).Load(src + base, items);
    __syncthreads();
    Scan(ts.scan).InclusiveSum(items, items, running);
    __syncthreads();
    Store(ts.store).Store(dst + base, items);
  }
}
