// SPDX-License-Identifier: Apache-2.0
// coop.cluster.*: the class template that a unit with a cluster request names (coop_cluster_reduce)
// and the state that its kernel's cluster calls share (the renderer defines one per kernel, sized
// for the item types of all its cluster calls, and its prologue coop_cluster_begin_<group>).
#pragma once

#include <cub/block/block_reduce.cuh>
#include <cub/util_ptx.cuh>

#include <cuda/ptx>
#include <cuda/std/algorithm>
#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/cstring>
#include <cuda/std/functional>

// coop's cluster reductions (sm_90+): CUB's BlockReduce in each block of the thread-block cluster,
// then warp 0 of every block pushes the block's aggregate into slot `rank` of every block's shared
// memory (distributed shared memory) with st.async, whose bytes complete that block's mbarrier
// transaction; every thread waits on its own block's mbarrier and folds the slots in block-rank order,
// so that every thread of every block gets the same value. No cluster barrier per call: the kernel's
// prologue (coop_cluster_begin_<g>, called by the backend at the kernel's entry) initialises the
// mbarriers once and publishes them with the one cluster barrier. Calls alternate between two stages
// of slots and mbarriers; a block pushes into a stage only after every block has pushed the call
// before (which each block does after its own BlockReduce barrier, so after all its threads have read
// that stage two calls back), so no push overtakes a slow reader and no mbarrier sees the bytes of
// two calls in one phase.

// The state the cluster calls of one kernel share: two stages of one slot per block of the cluster
// (as large and as aligned as the largest item type of the kernel's calls) and their mbarriers (one
// arrival, thread 0's, which expects the call's bytes), and the number of calls made so far (written
// by thread 0 only, read by every thread of the block).
template <int CLUSTER_BLOCKS, typename... T>
struct coop_cluster_state
{
  // whole 4-byte words, as st.async moves them
  static constexpr ::cuda::std::size_t slot_bytes = (::cuda::std::max({sizeof(T)...}) + 3) / 4 * 4;
  static constexpr ::cuda::std::size_t slot_align = ::cuda::std::max({alignof(T)..., alignof(unsigned)});
  struct alignas(slot_align) slot_t
  {
    unsigned char bytes[slot_bytes];
  };
  slot_t slot[2][CLUSTER_BLOCKS];
  ::cuda::std::uint64_t full[2];
  unsigned calls;

  static __device__ __forceinline__ coop_cluster_state& get()
  {
    __shared__ coop_cluster_state state;
    return state;
  }

  // The kernel's prologue (every thread of every block, at the kernel's entry, or at a device helper's
  // entry when the calls are in one: then the barrier first waits until the block's threads are done
  // with the calls before).
  static __device__ __forceinline__ void begin()
  {
    __syncthreads();
    // Thread 0 arms the mbarriers and zeroes the count, predicated rather than branched on: the
    // backends call this first thing in the kernel's entry block, and a branch inlined there would
    // split the block, leaving the kernel's allocas out of it and its items in local memory.
    coop_cluster_state& s = get();
    const unsigned first  = threadIdx.x + threadIdx.y + threadIdx.z == 0;
    asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "setp.ne.u32 p, %0, 0;\n\t"
      "@p mbarrier.init.shared::cta.b64 [%1], 1;\n\t"
      "@p mbarrier.init.shared::cta.b64 [%2], 1;\n\t"
      "@p st.shared.u32 [%3], 0;\n\t"
      "@p fence.mbarrier_init.release.cluster;\n\t"
      "}"
      :
      : "r"(first),
        "r"(static_cast<unsigned>(__cvta_generic_to_shared(&s.full[0]))),
        "r"(static_cast<unsigned>(__cvta_generic_to_shared(&s.full[1]))),
        "r"(static_cast<unsigned>(__cvta_generic_to_shared(&s.calls)))
      : "memory");
    // The count reaches the block's threads through the block barrier, the armed mbarriers the other
    // blocks through fence.mbarrier_init and the cluster barrier: its arrival relaxed, as no other
    // write needs publishing (a release arrival costs a GPU-wide MEMBAR at every block's start).
    __syncthreads();
    ::cuda::ptx::barrier_cluster_arrive(::cuda::ptx::sem_relaxed);
    ::cuda::ptx::barrier_cluster_wait();
  }
};

// The interface is BlockReduce's (a TempStorage, Reduce and Sum of an item or of a thread's items).
template <typename T,
          int BLOCK_DIM_X,
          cub::BlockReduceAlgorithm ALGORITHM,
          int BLOCK_DIM_Y,
          int BLOCK_DIM_Z,
          int CLUSTER_BLOCKS,
          typename STATE>
class coop_cluster_reduce
{
  using block_t                      = cub::BlockReduce<T, BLOCK_DIM_X, ALGORITHM, BLOCK_DIM_Y, BLOCK_DIM_Z>;
  static constexpr int block_threads = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
  static constexpr int pushers       = block_threads < 32 ? block_threads : 32; // warp 0's threads
  static constexpr int words         = (sizeof(T) + 3) / 4;
  static_assert(sizeof(T) <= sizeof(typename STATE::slot_t) && alignof(T) <= alignof(typename STATE::slot_t),
                "coop: the kernel's cluster state was sized without this item type");

public:
  using TempStorage = typename block_t::TempStorage;

  __device__ __forceinline__ explicit coop_cluster_reduce(TempStorage& storage)
      : storage(storage)
  {}

  template <typename Op>
  __device__ __forceinline__ T Reduce(T x, Op op)
  {
    const unsigned call = STATE::get().calls;
    return combine(call, block_t(storage).Reduce(x, op), op);
  }

  template <int N, typename Op>
  __device__ __forceinline__ T Reduce(T (&x)[N], Op op)
  {
    const unsigned call = STATE::get().calls;
    return combine(call, block_t(storage).Reduce(x, op), op);
  }

  __device__ __forceinline__ T Sum(T x)
  {
    const unsigned call = STATE::get().calls;
    return combine(call, block_t(storage).Sum(x), ::cuda::std::plus<>{});
  }

  template <int N>
  __device__ __forceinline__ T Sum(T (&x)[N])
  {
    const unsigned call = STATE::get().calls;
    return combine(call, block_t(storage).Sum(x), ::cuda::std::plus<>{});
  }

private:
  TempStorage& storage;

  static __device__ __forceinline__ T& at(typename STATE::slot_t& slot)
  {
    return *reinterpret_cast<T*>(slot.bytes);
  }

  // `call`: the count every thread read before BlockReduce, whose barrier (an explicit one for a block
  // of one warp) every thread has passed since.
  template <typename Op>
  __device__ __forceinline__ T combine(unsigned call, const T& aggregate, Op op)
  {
    STATE& state          = STATE::get();
    const int stage       = call & 1;
    const unsigned parity = (call >> 1) & 1;
    const int tid         = cub::RowMajorTid(BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z);
    if constexpr (block_threads <= 32)
    {
      __syncthreads();
    }
    if (tid < pushers)
    {
      constexpr unsigned mask = pushers == 32 ? 0xffffffffu : (1u << pushers) - 1u;
      if (tid == 0)
      {
        state.calls = call + 1; // seen by the block's threads through their wait on this call's mbarrier
        // this call's phase completes when every block's words have landed here (and this arrival)
        ::cuda::ptx::mbarrier_arrive_expect_tx(
          ::cuda::ptx::sem_release,
          ::cuda::ptx::scope_cta,
          ::cuda::ptx::space_shared,
          &state.full[stage],
          CLUSTER_BLOCKS * words * 4);
      }
      // CUB defines the aggregate in thread 0; warp 0 pushes it as words with st.async, whose bytes
      // complete the receiving block's mbarrier transaction (no release fence per arrival)
      unsigned value[words] = {};
      const T aggregate0    = cub::ShuffleIndex<32>(aggregate, 0, mask);
      ::cuda::std::memcpy(value, &aggregate0, sizeof(T));
      const unsigned rank = __clusterRelativeBlockRank();
      // a trip count known at compile time (one round where the cluster has no more blocks than
      // the pushers): a loop from tid would be unrolled by a guess, its copies' addresses live at once
#pragma unroll
      for (int round = 0; round < (CLUSTER_BLOCKS + pushers - 1) / pushers; ++round)
      {
        const int peer = tid + round * pushers;
        if (peer < CLUSTER_BLOCKS)
        {
          STATE& theirs = *static_cast<STATE*>(__cluster_map_shared_rank(&state, peer));
          unsigned* to  = reinterpret_cast<unsigned*>(theirs.slot[stage][rank].bytes);
#pragma unroll
          for (int w = 0; w < words; ++w)
          {
            ::cuda::ptx::st_async(to + w, value[w], &theirs.full[stage]);
          }
        }
      }
    }
    while (!::cuda::ptx::mbarrier_try_wait_parity(&state.full[stage], parity))
    {
    }
    T total = at(state.slot[stage][0]);
#pragma unroll
    for (int rank = 1; rank < CLUSTER_BLOCKS; ++rank)
    {
      total = op(total, at(state.slot[stage][rank]));
    }
    return total;
  }
};
