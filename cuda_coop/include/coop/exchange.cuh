// SPDX-License-Identifier: Apache-2.0
// Included by a unit with a coop.block.exchange request of a scatter mode given `valid_items`: the
// scatter to a striped arrangement that reads back only the tile positions the ranks reach.
#pragma once

#include <cub/util_ptx.cuh>
#include <cub/util_type.cuh>

// coop.block.exchange(items, "scatter_to_striped*", ranks=..., valid_items=n): item i of each thread
// goes to tile position ranks[i] (all of them; those whose rank is >= 0; those flagged), then thread t
// reads positions t, t + THREADS, ... below n only. A compaction scatters the tile's kept items to
// positions 0 .. n-1 and stores those n: reading the rest back costs a shared-memory load per item that
// no store uses. n is the same in every thread, so the read leaves at the first row of positions that
// no thread has (a uniform branch). A thread's items at positions >= n are left as they were.
template <typename T, int BLOCK_DIM_X, int ITEMS, int BLOCK_DIM_Y, int BLOCK_DIM_Z>
class coop_block_scatter
{
  static constexpr int THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
  struct storage
  {
    T tile[THREADS * ITEMS];
  };

public:
  using TempStorage = cub::Uninitialized<storage>;

  __device__ __forceinline__ explicit coop_block_scatter(TempStorage& temp)
      : tile_(temp.Alias().tile)
      , tid_(cub::RowMajorTid(BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z))
  {}

  template <typename Rank>
  __device__ __forceinline__ void
  ScatterToStriped(const T (&in)[ITEMS], T (&out)[ITEMS], const Rank (&ranks)[ITEMS], int valid)
  {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
    {
      tile_[ranks[i]] = in[i];
    }
    read_striped(out, valid);
  }

  template <typename Rank>
  __device__ __forceinline__ void
  ScatterToStripedGuarded(const T (&in)[ITEMS], T (&out)[ITEMS], const Rank (&ranks)[ITEMS], int valid)
  {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
    {
      if (ranks[i] >= 0)
      {
        tile_[ranks[i]] = in[i];
      }
    }
    read_striped(out, valid);
  }

  template <typename Rank, typename Flag>
  __device__ __forceinline__ void ScatterToStripedFlagged(
    const T (&in)[ITEMS], T (&out)[ITEMS], const Rank (&ranks)[ITEMS], const Flag (&flags)[ITEMS], int valid)
  {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
    {
      if (flags[i])
      {
        tile_[ranks[i]] = in[i];
      }
    }
    read_striped(out, valid);
  }

private:
  __device__ __forceinline__ void read_striped(T (&out)[ITEMS], int valid)
  {
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
    {
      if (i * THREADS >= valid)
      {
        break;
      }
      if (i * THREADS + tid_ < valid)
      {
        out[i] = tile_[i * THREADS + tid_];
      }
    }
  }

  T* tile_;
  int tid_;
};
