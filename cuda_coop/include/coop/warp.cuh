// SPDX-License-Identifier: Apache-2.0
// What a unit with a warp-scope request includes: the mask of a logical warp's lanes.
#pragma once

#include <cub/util_ptx.cuh>

#include <cuda/ptx>

// The lanes of the calling thread's logical warp of Width threads.
template <int Width>
__device__ __forceinline__ unsigned int coop_warp_mask()
{
  return cub::WarpMask<Width>(::cuda::ptx::get_sreg_laneid() / Width);
}
