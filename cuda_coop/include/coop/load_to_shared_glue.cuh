// SPDX-License-Identifier: Apache-2.0
// The kernel's side of coop.block.load_to_shared, included by the kernel's glue (never by a unit of
// requests: it defines the mbarrier, once per kernel): the mbarrier and the prologue that arms it,
// which the glue instantiates per block size (coop_stage_begin_<threads>). The prologue runs in every
// thread, at the kernel's entry, or at a device helper's when the calls are in one: then the first
// barrier waits until the block's threads are done with the calls before. Thread 0 arms the mbarrier
// predicated rather than branched on (see coop_cluster_state::begin in coop/cluster.cuh).
#pragma once

#include <nv/target>

extern "C" __device__ unsigned long long* coop_stage_full()
{
  __shared__ unsigned long long full;
  return &full;
}

template <int THREADS>
__device__ __forceinline__ void coop_stage_begin()
{
  // clang-format off: statements as a macro's argument
  NV_IF_TARGET(
    NV_PROVIDES_SM_90,
    (__syncthreads(); const unsigned first = threadIdx.x + threadIdx.y + threadIdx.z == 0;
     asm volatile("{\n\t.reg .pred p;\n\t"
                  "setp.ne.u32 p, %0, 0;\n\t"
                  "@p mbarrier.init.shared::cta.b64 [%1], %2;\n\t"
                  "}"
                  :
                  : "r"(first),
                    "r"(static_cast<unsigned>(__cvta_generic_to_shared(coop_stage_full()))),
                    "r"(THREADS)
                  : "memory");
     __syncthreads();));
  // clang-format on
}
