// SPDX-License-Identifier: Apache-2.0
// coop.warp.top_k: a running top-k of the tiles a logical warp streams (the class coop_warp_top_k,
// which a unit with such a request names), and the shuffle networks it is built from, which
// benchmarks/rows_cub.cu's hand-written row top-k (topk_bitonic) uses too.
//
// The list: the k best (value, index) pairs so far, largest value first, of equal values the smaller
// index; entry l in lane l of the logical warp (one value and one index a lane, in registers). A call
// takes the list and a tile (ITEMS items a lane) and returns the list of both:
//   1. the threshold: the list's k-th value (a shuffle). While the list is not full (its k-th value is
//      the lowest, -inf), the P-th largest of the lanes' maxima (P: the power of two >= k; a bitonic
//      network of shuffles), which at least P >= k of the tile's items reach;
//   2. each lane marks the items that can still enter the list (one compare an item, OR-ed into a bit
//      mask): above the threshold, or at it where an equal value may win by its smaller index;
//   3. a warp exclusive sum of the masks' popcounts places the candidates, (value, index), in the
//      warp's pending slots in shared memory (one a lane);
//   4. a merge: the pending entries' best P sorted ascending into lanes 0..P-1 (a bitonic network),
//      the better of each lane's list entry and pending entry (a bitonic sequence that holds the best
//      P of both), sorted descending (log2 P stages).
// When a tile has more candidates than slots, the threshold is first raised by the tile's lane maxima;
// any candidates that still do not fit are merged a warp's worth at a time, the rest filtered against
// the list after each merge (exactly: value above the list's k-th, or equal to it with a smaller
// index). Any input is exact: ascending rows, constant rows, rows of -inf, many ties.
// NaN items are never selected (every comparison with a NaN is false).
#pragma once

#include <cub/util_ptx.cuh>
#include <cuda/ptx>
#include <cuda/std/bit>
#include <cuda/std/climits>
#include <cuda/std/limits>
#include <cuda/std/type_traits>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <coop/common.cuh>
#include <coop/warp.cuh>

// The lowest value of T: the value of an empty list entry (-inf for floating types).
template <typename T>
__device__ __forceinline__ T coop_topk_lowest()
{
  if constexpr (::cuda::std::is_same_v<T, __half>)
  {
    return __ushort_as_half(static_cast<unsigned short>(0xFC00u));
  }
  else if constexpr (::cuda::std::is_same_v<T, __nv_bfloat16>)
  {
    return __ushort_as_bfloat16(static_cast<unsigned short>(0xFF80u));
  }
  else if constexpr (::cuda::std::numeric_limits<T>::has_infinity)
  {
    return -::cuda::std::numeric_limits<T>::infinity();
  }
  else
  {
    return ::cuda::std::numeric_limits<T>::lowest();
  }
}

// The index of an empty list entry.
constexpr int coop_topk_no_index = INT_MAX;

// The larger of a and b; b when a is a NaN (a lane's maximum ignores NaN items).
template <typename T>
__device__ __forceinline__ T coop_topk_max(T a, T b)
{
  if constexpr (::cuda::std::is_same_v<T, float>)
  {
    return fmaxf(a, b);
  }
  else
  {
    return a > b ? a : b;
  }
}

template <typename T>
__device__ __forceinline__ T coop_topk_min(T a, T b)
{
  if constexpr (::cuda::std::is_same_v<T, float>)
  {
    return fminf(a, b);
  }
  else
  {
    return a < b ? a : b;
  }
}

// The top-k order of (value, index) pairs: (av, ai) before (bv, bi). `|` and `&`: no short-circuit
// branches.
template <typename T>
__device__ __forceinline__ bool coop_topk_before(T av, int ai, T bv, int bi)
{
  return (av > bv) | ((av == bv) & (ai < bi));
}

// (v, i) and lane ^ d's of the logical warp of W lanes: the one that comes first if `first`, else the
// other.
template <int W, typename T>
__device__ __forceinline__ void coop_topk_exchange(T& v, int& i, int d, bool first, unsigned mask)
{
  const T pv  = __shfl_xor_sync(mask, v, d, W);
  const int pi = __shfl_xor_sync(mask, i, d, W);
  if (coop_topk_before(pv, pi, v, i) == first)
  {
    v = pv;
    i = pi;
  }
}

// Whether `lane` keeps the first of its pair at distance d in a bitonic network whose blocks of s
// lanes alternate direction: blocks with lane & s == 0 descending (first in the lower lane).
__device__ __forceinline__ bool coop_topk_direction(int lane, int s, int d)
{
  return ((lane & d) == 0) == ((lane & s) == 0);
}

// The P-th largest (P a power of two <= W) of the W lanes' values m, in every lane: at least P of the
// values reach it. Blocks of P lanes sorted (alternating), then pairs of blocks folded into the larger
// of each pair of lanes (both blocks keep it: every block ends up holding the best P), each re-sorted,
// and the least of the best P. Values only; NaN never reaches it (lane maxima ignore NaN).
template <int P, int W, typename T>
__device__ __forceinline__ T coop_topk_pth_largest(T m, int lane, unsigned mask)
{
  if constexpr (P < W)
  {
    _CCCL_PRAGMA_UNROLL_FULL()
    for (int s = 2; s <= P; s *= 2)
    {
      _CCCL_PRAGMA_UNROLL_FULL()
      for (int d = s / 2; d > 0; d /= 2)
      {
        const T p = __shfl_xor_sync(mask, m, d, W);
        m         = coop_topk_direction(lane, s, d) ? coop_topk_max(m, p) : coop_topk_min(m, p);
      }
    }
    _CCCL_PRAGMA_UNROLL_FULL()
    for (int D = P; D < W; D *= 2)
    {
      m = coop_topk_max(m, __shfl_xor_sync(mask, m, D, W));
      if (2 * D < W)
      {
        _CCCL_PRAGMA_UNROLL_FULL()
        for (int d = P / 2; d > 0; d /= 2)
        {
          const T p = __shfl_xor_sync(mask, m, d, W);
          m         = coop_topk_direction(lane, 2 * D, d) ? coop_topk_max(m, p) : coop_topk_min(m, p);
        }
      }
    }
  }
  _CCCL_PRAGMA_UNROLL_FULL()
  for (int d = P / 2; d > 0; d /= 2)
  {
    m = coop_topk_min(m, __shfl_xor_sync(mask, m, d, W));
  }
  return m;
}

// The best P (a power of two <= W) of the W lanes' pairs, sorted ascending (the best in lane P - 1)
// into lanes 0..P-1 (the other lanes hold others): blocks of P lanes sorted (alternating), then pairs
// of blocks folded (the lower block keeps the first of each pair of lanes: a bitonic sequence of the
// best P of both), each re-sorted; the last sorted ascending. With P == W, one bitonic sort.
template <int P, int W, typename T>
__device__ __forceinline__ void coop_topk_best_ascending(T& v, int& i, int lane, unsigned mask)
{
  if constexpr (P == W)
  {
    _CCCL_PRAGMA_UNROLL_FULL()
    for (int s = 2; s < W; s *= 2)
    {
      _CCCL_PRAGMA_UNROLL_FULL()
      for (int d = s / 2; d > 0; d /= 2)
      {
        coop_topk_exchange<W>(v, i, d, coop_topk_direction(lane, s, d), mask);
      }
    }
  }
  else
  {
    _CCCL_PRAGMA_UNROLL_FULL()
    for (int s = 2; s <= P; s *= 2)
    {
      _CCCL_PRAGMA_UNROLL_FULL()
      for (int d = s / 2; d > 0; d /= 2)
      {
        coop_topk_exchange<W>(v, i, d, coop_topk_direction(lane, s, d), mask);
      }
    }
    _CCCL_PRAGMA_UNROLL_FULL()
    for (int D = P; D < W; D *= 2)
    {
      coop_topk_exchange<W>(v, i, D, (lane & D) == 0, mask);
      if (2 * D < W)
      {
        _CCCL_PRAGMA_UNROLL_FULL()
        for (int d = P / 2; d > 0; d /= 2)
        {
          coop_topk_exchange<W>(v, i, d, coop_topk_direction(lane, 2 * D, d), mask);
        }
      }
    }
  }
  _CCCL_PRAGMA_UNROLL_FULL()
  for (int d = P / 2; d > 0; d /= 2)
  {
    coop_topk_exchange<W>(v, i, d, (lane & d) != 0, mask);
  }
}

// The list (lv, li): lanes 0..P-1 descending, merged with pending pairs (cv, ci) in any lanes: the
// pending's best P ascending, the first of each lane's two (a bitonic sequence holding the best P of
// both), sorted descending.
template <int P, int W, typename T>
__device__ __forceinline__ void coop_topk_merge(T& lv, int& li, T cv, int ci, int lane, unsigned mask)
{
  coop_topk_best_ascending<P, W>(cv, ci, lane, mask);
  if (coop_topk_before(cv, ci, lv, li))
  {
    lv = cv;
    li = ci;
  }
  _CCCL_PRAGMA_UNROLL_FULL()
  for (int d = P / 2; d > 0; d /= 2)
  {
    coop_topk_exchange<W>(lv, li, d, (lane & d) == 0, mask);
  }
}

// A lane's mask word: item i at bit (bits - 1 - i), so that countl_zero finds the first marked item.
template <int ITEMS>
using coop_topk_word = ::cuda::std::conditional_t<(ITEMS > 32), unsigned long long, unsigned>;

// The items that reach the threshold (`GE`: at or above it; else above it), as a mask.
template <bool GE, typename T, int ITEMS>
__device__ __forceinline__ coop_topk_word<ITEMS> coop_topk_marks(const T (&items)[ITEMS], T thr)
{
  using word          = coop_topk_word<ITEMS>;
  constexpr word top  = word(1) << (8 * sizeof(word) - 1);
  word mask           = 0;
  _CCCL_PRAGMA_UNROLL_FULL()
  for (int i = 0; i < ITEMS; ++i)
  {
    if (GE ? (items[i] >= thr) : (items[i] > thr))
    {
      mask |= top >> i;
    }
  }
  return mask;
}

// The next power of two at or above k.
__host__ __device__ constexpr int coop_topk_pow2(int k)
{
  return k <= 1 ? 1 : 2 * coop_topk_pow2((k + 1) / 2);
}

// coop.warp.top_k over logical warps of WIDTH lanes, ITEMS items a lane of type T, the list of K.
// An item's index is its `indices` entry when given, else first + its position in the warp's tile
// (ARRANGEMENT: striped, lane + WIDTH * i; blocked, lane * ITEMS + i).
template <typename T, int K, int ITEMS, int WIDTH, coop_item_arrangement ARRANGEMENT>
class coop_warp_top_k
{
  static_assert(WIDTH >= 1 && WIDTH <= 32 && (WIDTH & (WIDTH - 1)) == 0, "a logical warp of 1..32 lanes");
  static_assert(K >= 1 && K <= WIDTH, "the list holds one entry a lane: 1 <= k <= the logical warp's lanes");
  static_assert(ITEMS >= 1 && ITEMS <= 64, "a lane marks its items in one 64-bit word: 1..64 items");

  static constexpr int P = coop_topk_pow2(K);
  using word             = coop_topk_word<ITEMS>;
  static constexpr word top = word(1) << (8 * sizeof(word) - 1);

public:
  // The pending slots: one (value, index) a lane.
  struct TempStorage
  {
    T value[WIDTH];
    int index[WIDTH];
  };

  __device__ __forceinline__ explicit coop_warp_top_k(TempStorage& storage)
      : ts(storage)
  {}

  template <typename Pair>
  __device__ __forceinline__ void TopK(const T (&items)[ITEMS], int first, Pair& result)
  {
    Pair none;
    run<false, false>(items, none, items, first, result);
  }

  template <typename Pair>
  __device__ __forceinline__ void TopK(const T (&items)[ITEMS], const Pair& running, int first, Pair& result)
  {
    run<true, false>(items, running, items, first, result);
  }

  template <typename Pair>
  __device__ __forceinline__ void
  TopK(const T (&items)[ITEMS], const int (&indices)[ITEMS], int first, Pair& result)
  {
    Pair none;
    run<false, true>(items, none, indices, first, result);
  }

  template <typename Pair>
  __device__ __forceinline__ void
  TopK(const T (&items)[ITEMS], const Pair& running, const int (&indices)[ITEMS], int first, Pair& result)
  {
    run<true, true>(items, running, indices, first, result);
  }

private:
  TempStorage& ts;

  template <bool INDICES, typename I>
  static __device__ __forceinline__ int index_of(const I& indices, int i, int first, int lane)
  {
    if constexpr (INDICES)
    {
      return indices[i];
    }
    else if constexpr (ARRANGEMENT == coop_item_arrangement::striped)
    {
      return first + lane + WIDTH * i;
    }
    else
    {
      return first + lane * ITEMS + i;
    }
  }

  // An exclusive sum of the lanes' counts, and their total.
  static __device__ __forceinline__ void scan(int count, int& offset, int& total, int lane, unsigned mask)
  {
    int sum = count;
    _CCCL_PRAGMA_UNROLL_FULL()
    for (int d = 1; d < WIDTH; d *= 2)
    {
      const int up = __shfl_up_sync(mask, sum, d, WIDTH);
      if (lane >= d)
      {
        sum += up;
      }
    }
    total  = __shfl_sync(mask, sum, WIDTH - 1, WIDTH);
    offset = sum - count;
  }

  static __device__ __forceinline__ T lane_max(const T (&items)[ITEMS])
  {
    T m = coop_topk_lowest<T>();
    _CCCL_PRAGMA_UNROLL_FULL()
    for (int i = 0; i < ITEMS; ++i)
    {
      m = coop_topk_max(items[i], m);
    }
    return m;
  }

  // The marked items of ranks offset.. (the lane's first marked item has rank offset) below `take` to
  // their pending slots; with PARTIAL, those written are unmarked (the others wait for a later round).
  template <bool PARTIAL, bool INDICES, typename I>
  __device__ __forceinline__ void
  write(const T (&items)[ITEMS], const I& indices, int first, word& bits, int rank, int take, int lane)
  {
    _CCCL_PRAGMA_UNROLL_FULL()
    for (int i = 0; i < ITEMS; ++i)
    {
      if (bits & (top >> i))
      {
        if (!PARTIAL || rank < take)
        {
          ts.value[rank] = items[i];
          ts.index[rank] = index_of<INDICES>(indices, i, first, lane);
          if (PARTIAL)
          {
            bits ^= top >> i;
          }
        }
        ++rank;
      }
    }
  }

  // The list merged with the first `count` pending slots.
  __device__ __forceinline__ void merge(T& lv, int& li, int count, int lane, unsigned mask)
  {
    __syncwarp(mask);
    T cv  = coop_topk_lowest<T>();
    int ci = coop_topk_no_index;
    if (lane < count)
    {
      cv = ts.value[lane];
      ci = ts.index[lane];
    }
    __syncwarp(mask); // every lane has read its slot before any is written again
    coop_topk_merge<P, WIDTH>(lv, li, cv, ci, lane, mask);
  }

  template <bool RUNNING, bool INDICES, typename Pair, typename I>
  __device__ __forceinline__ void
  run(const T (&items)[ITEMS], const Pair& running, const I& indices, int first, Pair& result)
  {
    const unsigned mask = coop_warp_mask<WIDTH>();
    const int lane      = static_cast<int>(::cuda::ptx::get_sreg_laneid()) % WIDTH;
    const T low         = coop_topk_lowest<T>();
    T lv                = low;
    int li              = coop_topk_no_index;
    if constexpr (RUNNING)
    {
      if (lane < K) // the entries past k are not the list's
      {
        lv = running.f0;
        li = running.f1;
      }
    }
    T thr  = RUNNING ? __shfl_sync(mask, lv, K - 1, WIDTH) : low; // the list's k-th
    int ti = RUNNING ? __shfl_sync(mask, li, K - 1, WIDTH) : coop_topk_no_index;
    bool ge, raised = false;
    if (!RUNNING || !(thr > low))
    {
      // not full: at least P >= k of this tile's items reach the P-th largest lane maximum, so the
      // list's k-th will (the items at it may still win by their index)
      const T m = coop_topk_pth_largest<P, WIDTH>(lane_max(items), lane, mask);
      thr       = coop_topk_max(m, thr);
      ge        = true;
      raised    = true;
    }
    else
    {
      // an item equal to the k-th enters only with a smaller index: the default indices of a tile
      // that starts after the k-th's cannot
      ge = INDICES || first <= ti;
    }
    word bits = ge ? coop_topk_marks<true>(items, thr) : coop_topk_marks<false>(items, thr);
    int offset, total;
    scan(::cuda::std::popcount(bits), offset, total, lane, mask);
    if (total > WIDTH && !raised)
    {
      // more than the slots: the tile's own lane maxima may raise the threshold (an ascending row)
      const T m = coop_topk_pth_largest<P, WIDTH>(lane_max(items), lane, mask);
      if (m > thr)
      {
        bits &= coop_topk_marks<true>(items, m);
        scan(::cuda::std::popcount(bits), offset, total, lane, mask);
      }
    }
    if (total > 0 && total <= WIDTH) // the usual case: all fit
    {
      write<false, INDICES>(items, indices, first, bits, offset, total, lane);
      merge(lv, li, total, lane, mask);
    }
    else
    {
      while (total > 0) // a warp's worth at a time, the rest filtered against the list after each
      {
        const int take = total < WIDTH ? total : WIDTH;
        write<true, INDICES>(items, indices, first, bits, offset, take, lane);
        merge(lv, li, take, lane, mask);
        thr = __shfl_sync(mask, lv, K - 1, WIDTH);
        ti  = __shfl_sync(mask, li, K - 1, WIDTH);
        _CCCL_PRAGMA_UNROLL_FULL()
        for (int i = 0; i < ITEMS; ++i)
        {
          const int at = index_of<INDICES>(indices, i, first, lane);
          if (!coop_topk_before(items[i], at, thr, ti))
          {
            bits &= ~(top >> i);
          }
        }
        scan(::cuda::std::popcount(bits), offset, total, lane, mask);
      }
    }
    result.f0 = lane < K ? lv : low;
    result.f1 = lane < K ? li : coop_topk_no_index;
  }
};
