// SPDX-License-Identifier: Apache-2.0
// The CUB C++ peers of benchmarks/sort.py (read by it as CUB_SOURCE and compiled with NVRTC,
// the kernels instantiated by name expression).
#include <cub/block/block_histogram.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_store.cuh>

template <int Threads, int Items>
__global__ void __launch_bounds__(Threads) cub_sort_keys(const int* src, int* dst)
{
  using Load  = cub::BlockLoad<int, Threads, Items, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Sort  = cub::BlockRadixSort<int, Threads, Items>;
  using Store = cub::BlockStore<int, Threads, Items, cub::BLOCK_STORE_STRIPED>;
  __shared__ union
  {
    typename Load::TempStorage load;
    typename Sort::TempStorage sort;
  } ts;
  const size_t base = size_t(blockIdx.x) * Threads * Items;
  int keys[Items];
  Load(ts.load).Load(src + base, keys);
  __syncthreads();
  Sort(ts.sort).SortBlockedToStriped(keys);
  Store().Store(dst + base, keys);
}

template <int Threads, int Items>
__global__ void __launch_bounds__(Threads) cub_sort_pairs(const int* src, const int* vsrc, int* dst, int* vdst)
{
  using Load  = cub::BlockLoad<int, Threads, Items, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Sort  = cub::BlockRadixSort<int, Threads, Items, int>;
  using Store = cub::BlockStore<int, Threads, Items, cub::BLOCK_STORE_STRIPED>;
  __shared__ union
  {
    typename Load::TempStorage load;
    typename Sort::TempStorage sort;
  } ts;
  const size_t base = size_t(blockIdx.x) * Threads * Items;
  int keys[Items];
  int values[Items];
  Load(ts.load).Load(src + base, keys);
  __syncthreads();
  Load(ts.load).Load(vsrc + base, values);
  __syncthreads();
  Sort(ts.sort).SortBlockedToStriped(keys, values);
  Store().Store(dst + base, keys);
  Store().Store(vdst + base, values);
}

template <int Threads, int Items, int Bins, int Tiles, bool Unroll>
__global__ void __launch_bounds__(Threads) cub_histogram(const unsigned char* src, int* out)
{
  using Load      = cub::BlockLoad<unsigned char, Threads, Items, cub::BLOCK_LOAD_VECTORIZE>;
  using Histogram = cub::BlockHistogram<unsigned char, Threads, Items, Bins, cub::BLOCK_HISTO_ATOMIC>;
  __shared__ int counts[Bins];
  const size_t base = size_t(blockIdx.x) * Threads * Items * Tiles;
  unsigned char samples[Items];
  Load().Load(src + base, samples);
  Histogram().Histogram(samples, counts);
#pragma unroll(Unroll ? Tiles : 1)
  for (int tile = 1; tile < Tiles; ++tile)
  {
    Load().Load(src + base + size_t(tile) * Threads * Items, samples);
    Histogram().Composite(samples, counts);
  }
  __syncthreads();
  for (int bin = threadIdx.x; bin < Bins; bin += Threads)
  {
    atomicAdd(out + bin, counts[bin]);
  }
}
