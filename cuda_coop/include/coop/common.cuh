// SPDX-License-Identifier: Apache-2.0
// What every unit of requests includes, right after its precompiled prefix (CUB's configuration):
// the TempStorage probe (the renderer reads a TempStorage's size and alignment back from the lowered
// name of coop_probe<sizeof, alignof>), CUB's prefix callback as a running prefix, and the
// arg-reductions' operator and per-thread loop.
#pragma once

#include <cub/config.cuh>

template <unsigned long long Size, unsigned long long Align>
__device__ char coop_probe;

// How a thread's items sit in its group's tile (coop.ItemArrangement), for the indices coop's own
// algorithms give them by default: blocked (thread t's item i at t * N + i), striped (t + i * T) or
// striped in runs of V (((i / V) * T + t) * V + i % V, a block's striped_vectors load).
enum class coop_item_arrangement
{
  blocked,
  striped,
  striped_vectors,
};

// CUB's block prefix callback as a running prefix: the first warp reads the tile's prefix and
// adds the tile's aggregate to it (only lane 0's return value is used by CUB).
template <typename T, typename Op>
struct coop_running_prefix
{
  T& running;
  Op op;
  __device__ __forceinline__ T operator()(T aggregate)
  {
    T prefix = running;
    running  = op(prefix, aggregate);
    return prefix;
  }
};

// An arg-reduction's operator on (value f0, index f1) pairs: the larger value (Max) or the smaller,
// ties to the smaller index, and NaN above every number (the first NaN wins, as NumPy's argmax and
// argmin): a total order, so associative and commutative whatever CUB's reduction order.
template <typename T>
__device__ __forceinline__ bool coop_is_nan(const T& v)
{
  return !(v == v);
}

template <bool Max>
struct coop_arg_best
{
  template <typename P>
  __device__ __forceinline__ P operator()(const P& a, const P& b) const
  {
    const bool a_nan = coop_is_nan(a.f0), b_nan = coop_is_nan(b.f0);
    if (a_nan || b_nan)
    {
      return (a_nan && (!b_nan || a.f1 <= b.f1)) ? a : b;
    }
    if (Max ? (b.f0 > a.f0) : (b.f0 < a.f0))
    {
      return b;
    }
    if (Max ? (a.f0 > b.f0) : (a.f0 < b.f0))
    {
      return a;
    }
    return b.f1 < a.f1 ? b : a;
  }
};

// A thread's best item before the group's reduction, when its items' indices ascend with their
// positions (the default indices, blocked or striped): the position of its first best item, ordered
// as coop_arg_best orders pairs of ascending indices (a strictly better value replaces the best, a
// NaN replaces a number, a tie keeps the first). One compare and one select per item, and no index
// per item: the loop a thread would write by hand.
template <bool Max, typename T, int N>
__device__ __forceinline__ int coop_arg_first(const T (&x)[N], T& best)
{
  best   = x[0];
  int at = 0;
  _CCCL_PRAGMA_UNROLL_FULL()
  for (int i = 1; i < N; ++i)
  {
    // better or unordered (a NaN item), unless the best is a NaN already: one unordered compare
    const bool better = (Max ? !(x[i] <= best) : !(best <= x[i])) && !coop_is_nan(best);
    if (better)
    {
      best = x[i];
      at   = i;
    }
  }
  return at;
}
