// SPDX-License-Identifier: Apache-2.0
// Included by a unit with a coop.block.load_to_shared request: the class template it names (the
// kernel's glue includes coop/load_to_shared_glue.cuh, the mbarrier and its prologue).
#pragma once

#include <cub/util_ptx.cuh>

#include <cuda/ptx>
#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

#include <nv/target>

// coop.block.load_to_shared: a contiguous run of items from global into shared memory. The kernel's
// one mbarrier (its prologue in the glue, coop_stage_begin_<threads>, arms it for all the block's
// threads once) completes each call: every thread arrives (thread 0 also expecting the run's bytes)
// and waits on the phase its arrival returned. On sm_90+, with the source, the destination and the
// bytes multiples of 16, thread 0 issues one cp.async.bulk of the whole run, whose bytes complete the
// phase; otherwise the threads copy the run striped and their arrivals (release) and waits (acquire)
// publish it. No block barrier per call: a phase completes only when every thread has arrived, so a
// thread that runs ahead to the next call cannot complete it before the slow ones are done with this
// one.
// The kernel's mbarrier (the kernel's glue defines it: coop/load_to_shared_glue.cuh).
extern "C" __device__ ::cuda::std::uint64_t* coop_stage_full();

template <typename T, int BLOCK_DIM_X, int BLOCK_DIM_Y, int BLOCK_DIM_Z>
class coop_block_load_to_shared
{
  static constexpr int block_threads = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;

public:
  __device__ __forceinline__ void Load(const T* src, T* dst, int num_items)
  {
    if (!__isShared(dst))
    {
      __trap(); // coop.block.load_to_shared: dst is not in shared memory
    }
    const int tid        = cub::RowMajorTid(BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z);
    const unsigned bytes = num_items > 0 ? unsigned(num_items) * unsigned(sizeof(T)) : 0u;
    using address        = ::cuda::std::uintptr_t;
    const address where  = reinterpret_cast<address>(src) | reinterpret_cast<address>(dst);
    // an mbarrier phase counts at most 2^20 - 1 bytes
    const bool bulk = ((where | bytes) % 16) == 0 && bytes > 0 && bytes < (1u << 20);
    // clang-format off: statements as a macro's argument
    NV_IF_ELSE_TARGET(
      NV_PROVIDES_SM_90,
      (::cuda::std::uint64_t* full = coop_stage_full(); ::cuda::std::uint64_t phase;
       if (bulk && tid == 0) {
         phase = ::cuda::ptx::mbarrier_arrive_expect_tx(
           ::cuda::ptx::sem_release, ::cuda::ptx::scope_cta, ::cuda::ptx::space_shared, full, bytes);
         using to = ::cuda::std::conditional_t<__cccl_ptx_isa >= 860, ::cuda::ptx::space_shared_t,
                                               ::cuda::ptx::space_cluster_t>;
         void* into = dst;
         const void* from = src;
         ::cuda::ptx::cp_async_bulk(to{}, ::cuda::ptx::space_global, into, from, bytes, full);
       } else {
         if (!bulk)
         {
           copy(src, dst, num_items, tid);
         }
         phase = ::cuda::ptx::mbarrier_arrive(full);
       } while (!::cuda::ptx::mbarrier_try_wait(full, phase)){}),
      (copy(src, dst, num_items, tid); __syncthreads();));
    // clang-format on
  }

private:
  static __device__ __forceinline__ void copy(const T* src, T* dst, int num_items, int tid)
  {
    for (int i = tid; i < num_items; i += block_threads)
    {
      dst[i] = src[i];
    }
  }
};
