// SPDX-License-Identifier: Apache-2.0
// The CUB C++ peers of benchmarks/copy.py (read by it as CUB_SOURCE and compiled with NVRTC,
// the kernels instantiated by name expression).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cub/block/block_load.cuh>
#include <cub/block/block_store.cuh>
// Aligned: the pointers declared 16-byte aligned (__builtin_assume_aligned), so that the vectorized
// algorithms' run-time alignment test folds, as in coop kernels whose arrays carry their alignment
// (Numba's aligned specialisation, CuTe tensors): the CUB C++ kernel of the same knowledge
template <int Threads,
          int Items,
          cub::BlockLoadAlgorithm LA,
          cub::BlockStoreAlgorithm SA,
          typename T   = int,
          bool Aligned = false>
__global__ void __launch_bounds__(Threads) cub_copy(const T* src, T* dst)
{
  if (Aligned)
  {
    src = static_cast<const T*>(__builtin_assume_aligned(src, 16));
    dst = static_cast<T*>(__builtin_assume_aligned(dst, 16));
  }
  using Load  = cub::BlockLoad<T, Threads, Items, LA>;
  using Store = cub::BlockStore<T, Threads, Items, SA>;
  __shared__ union
  {
    typename Load::TempStorage load;
    typename Store::TempStorage store;
  } ts;
  const size_t base = size_t(blockIdx.x) * Threads * Items;
  T items[Items];
  Load(ts.load).Load(src + base, items);
  if (LA == cub::BLOCK_LOAD_TRANSPOSE || LA == cub::BLOCK_LOAD_WARP_TRANSPOSE
      || LA == cub::BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED)
  {
    __syncthreads(); // the store reuses the load's shared memory
  }
  Store(ts.store).Store(dst + base, items);
}
