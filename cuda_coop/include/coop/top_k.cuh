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
//      network of shuffles), which at least P >= k of the tile's items reach; with P == W (k > W / 2),
//      the W-th largest of the lanes' two best items (two bitonic sorts), which passes fewer;
//   2. each lane marks the items that can still enter the list (one compare an item, OR-ed into a bit
//      mask): above the threshold, or at it where an equal value may win by its smaller index;
//   3. the candidates' count (a warp sum of the masks' popcounts). The usual case, few (at most
//      coop_topk_few: about 13 for k = 16 of 32 lanes and 32 items): each is inserted into the list on
//      its own, in rounds of each lane's first marked item (selected from the lane's registers by a tree
//      of selects): broadcast from its lane, its place the popcount of a ballot of the entries before
//      it, the lanes from there shifted up by one (a shuffle up);
//   4. many (the first tiles): a warp exclusive sum places them, (value, index), in the warp's pending
//      slots in shared memory (one a lane) and a merge takes them: the pending entries' best P sorted
//      ascending into lanes 0..P-1 (a bitonic network), the better of each lane's list entry and
//      pending entry (a bitonic sequence that holds the best P of both), sorted descending (log2 P
//      stages).
// When a tile has more candidates than slots, the threshold is first raised by the tile's lane maxima;
// any candidates that still do not fit are merged a warp's worth at a time, the rest filtered against
// the list after each merge (exactly: value above the list's k-th, or equal to it with a smaller
// index), and the last few inserted. Any input is exact: ascending rows, constant rows, rows of -inf,
// many ties.
// NaN items are never selected (every comparison with a NaN is false).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cub/util_ptx.cuh>

#include <cuda/ptx>
#include <cuda/std/bit>
#include <cuda/std/climits>
#include <cuda/std/limits>
#include <cuda/std/type_traits>

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

// The least value above x (x not NaN, not the lowest): items above x are the items at or above it
// (+inf and the largest int32 stay: the marks then take the items equal to them too, a superset).
template <typename T>
__device__ __forceinline__ T coop_topk_next_up(T x)
{
  if constexpr (::cuda::std::is_same_v<T, __half> || ::cuda::std::is_same_v<T, __nv_bfloat16>)
  {
    constexpr bool half = ::cuda::std::is_same_v<T, __half>;
    unsigned short bits;
    if constexpr (half)
    {
      bits = __half_as_ushort(x);
    }
    else
    {
      bits = __bfloat16_as_ushort(x);
    }
    const unsigned short inf = half ? 0x7C00u : 0x7F80u;
    unsigned short up        = bits;
    if ((bits & 0x7FFFu) == 0)
    {
      up = 1; // +-0: the least positive
    }
    else if (bits != inf)
    {
      up = (bits & 0x8000u) ? bits - 1 : bits + 1;
    }
    if constexpr (half)
    {
      return __ushort_as_half(up);
    }
    else
    {
      return __ushort_as_bfloat16(up);
    }
  }
  else if constexpr (::cuda::std::is_same_v<T, float>)
  {
    const unsigned bits = __float_as_uint(x);
    unsigned up         = bits;
    if ((bits & 0x7FFFFFFFu) == 0)
    {
      up = 1;
    }
    else if (bits != 0x7F800000u)
    {
      up = (bits & 0x80000000u) ? bits - 1 : bits + 1;
    }
    return __uint_as_float(up);
  }
  else
  {
    return x < ::cuda::std::numeric_limits<T>::max() ? x + 1 : x;
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
  const T pv   = __shfl_xor_sync(mask, v, d, W);
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

// The least of the values m of each block of P lanes (P a power of two <= W), in every lane of it.
template <int P, int W, typename T>
__device__ __forceinline__ T coop_topk_least(T m, unsigned mask)
{
  _CCCL_PRAGMA_UNROLL_FULL()
  for (int d = P / 2; d > 0; d /= 2)
  {
    m = coop_topk_min(m, __shfl_xor_sync(mask, m, d, W));
  }
  return m;
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
  return coop_topk_least<P, W>(m, mask);
}

// The W-th largest of the 2 W values m1 and m2 of the W lanes, in every lane: at least W of the values
// reach it. m1 sorted descending and m2 ascending over the lanes (bitonic networks, both at once), the
// larger of the two in each lane (a bitonic sequence of the best W of both), and the least of those.
// A lane's two best items give a much higher threshold than its best alone when the list takes an
// entry from every lane (k > W / 2): for k = 32 of 32 lanes of 32 normal items, ~36 of the tile's 1024
// items reach it, against ~122 for the least of the lanes' maxima. Values only; never NaN.
template <int W, typename T>
__device__ __forceinline__ T coop_topk_wth_largest_of_two(T m1, T m2, int lane, unsigned mask)
{
  _CCCL_PRAGMA_UNROLL_FULL()
  for (int s = 2; s <= W; s *= 2)
  {
    _CCCL_PRAGMA_UNROLL_FULL()
    for (int d = s / 2; d > 0; d /= 2)
    {
      const T p1      = __shfl_xor_sync(mask, m1, d, W);
      const T p2      = __shfl_xor_sync(mask, m2, d, W);
      const bool keep = coop_topk_direction(lane, s, d); // the larger, in m1's descending order
      m1              = keep ? coop_topk_max(m1, p1) : coop_topk_min(m1, p1);
      m2              = keep ? coop_topk_min(m2, p2) : coop_topk_max(m2, p2);
    }
  }
  return coop_topk_least<W, W>(coop_topk_max(m1, m2), mask);
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

// The next power of two at or above k.
__host__ __device__ constexpr int coop_topk_pow2(int k)
{
  return k <= 1 ? 1 : 2 * coop_topk_pow2((k + 1) / 2);
}

// The list (lv, li): lanes 0..K-1 sorted, with one pair (cv, ci), the same in every lane, inserted:
// its place is the number of the list's entries that come before it (a ballot's popcount; the list is
// sorted, so they are lanes 0..place-1), the lanes at and after it shift up by one (the K-th entry
// leaves the list). A pair that no entry is after (place K) changes no lane below K.
template <int K, int W, typename T>
__device__ __forceinline__ void coop_topk_insert(T& lv, int& li, T cv, int ci, int lane, unsigned mask)
{
  const int place = __popc(__ballot_sync(mask, (lane < K) & coop_topk_before(lv, li, cv, ci)));
  const T uv      = __shfl_up_sync(mask, lv, 1, W);
  const int ui    = __shfl_up_sync(mask, li, 1, W);
  if (lane >= place)
  {
    lv = lane == place ? cv : uv;
    li = lane == place ? ci : ui;
  }
}

// a[at] for a runtime `at` in [LO, LO + N) (LO a multiple of the power of two above N), in registers:
// a tree of selects on at's bits (N - 1 selects), no dynamic indexing.
template <int LO, int N, typename T, int ITEMS>
__device__ __forceinline__ T coop_topk_select(const T (&a)[ITEMS], int at)
{
  if constexpr (N == 1)
  {
    return a[LO];
  }
  else
  {
    constexpr int H = coop_topk_pow2(N) / 2; // the largest power of two below N
    const T hi      = coop_topk_select<LO + H, N - H>(a, at);
    const T lo      = coop_topk_select<LO, H>(a, at);
    return (at & H) ? hi : lo;
  }
}

// A lane's mask word: item i at bit (bits - 1 - i), so that countl_zero finds the first marked item.
template <int ITEMS>
using coop_topk_word = ::cuda::std::conditional_t<(ITEMS > 32), unsigned long long, unsigned>;

// The items that reach the threshold (`GE`: at or above it; else above it), as a mask.
template <bool GE, typename T, int ITEMS>
__device__ __forceinline__ coop_topk_word<ITEMS> coop_topk_marks(const T (&items)[ITEMS], T thr)
{
  using word         = coop_topk_word<ITEMS>;
  constexpr word top = word(1) << (8 * sizeof(word) - 1);
  word mask          = 0;
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

// Shuffle stages (one compare-exchange of a (value, index) pair each) of coop_topk_merge<P, W>.
__host__ __device__ constexpr int coop_topk_log2(int n)
{
  return n <= 1 ? 0 : 1 + coop_topk_log2(n / 2);
}

__host__ __device__ constexpr int coop_topk_merge_stages(int p, int w)
{
  return p == w ? coop_topk_log2(w) * (coop_topk_log2(w) - 1) / 2 + 2 * coop_topk_log2(w)
                : coop_topk_log2(p) * (coop_topk_log2(p) + 1) / 2 + (coop_topk_log2(w) - coop_topk_log2(p))
                    + (coop_topk_log2(w) - coop_topk_log2(p) - 1) * coop_topk_log2(p) + 2 * coop_topk_log2(p);
}

// How many candidates a call inserts one at a time (coop_topk_insert) rather than merges, by the
// instructions each costs (sm_90 SASS of a warp of 32, float32): an insertion ~21 (two shuffles to
// broadcast it, a compare, a ballot, two shuffles up), a round of them (each lane's first marked item,
// selected from its registers) ~items + 10, about two rounds; a merge ~9 a stage, its candidates first
// written to the pending slots ~5 an item, ~16 to place them. So (21 c + 2 (items + 10) <= 9 stages +
// 5 items + 16 + 10): c <= (9 stages + 3 items + 6) / 21. k = 16 of 32 lanes (19 stages), 32 items:
// 13; 4 items: 9; k = 1 (5 stages), 32 items: 7.
__host__ __device__ constexpr int coop_topk_few(int k, int w, int items)
{
  return (9 * coop_topk_merge_stages(coop_topk_pow2(k), w) + 3 * items + 6) / 21 < 1 ? 1
       : (9 * coop_topk_merge_stages(coop_topk_pow2(k), w) + 3 * items + 6) / 21 > w
         ? w
         : (9 * coop_topk_merge_stages(coop_topk_pow2(k), w) + 3 * items + 6) / 21;
}

// coop.warp.top_k over logical warps of WIDTH lanes, ITEMS items a lane of type T, the list of K.
// An item's index is its `indices` entry when given, else first + its position in the warp's tile
// (ARRANGEMENT: striped, lane + WIDTH * i; blocked, lane * ITEMS + i).
template <typename T, int K, int ITEMS, int WIDTH, coop_item_arrangement ARRANGEMENT>
class coop_warp_top_k
{
  static_assert(WIDTH >= 1 && WIDTH <= 32 && (WIDTH & (WIDTH - 1)) == 0, "a logical warp of 1..32 lanes");
  static_assert(ARRANGEMENT != coop_item_arrangement::striped_vectors, "a warp's items are blocked or striped");
  static_assert(K >= 1 && K <= WIDTH, "the list holds one entry a lane: 1 <= k <= the logical warp's lanes");
  static_assert(ITEMS >= 1 && ITEMS <= 64, "a lane marks its items in one 64-bit word: 1..64 items");

  static constexpr int P    = coop_topk_pow2(K);
  using word                = coop_topk_word<ITEMS>;
  static constexpr word top = word(1) << (8 * sizeof(word) - 1);
  // At most this many candidates are inserted one at a time, more merged (see coop_topk_few).
  static constexpr int FEW = coop_topk_few(K, WIDTH, ITEMS);

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
  __device__ __forceinline__ void TopK(const T (&items)[ITEMS], const int (&indices)[ITEMS], int first, Pair& result)
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

  // The index of the item at a runtime position `at` (the lane's first marked item).
  template <bool INDICES, typename I>
  static __device__ __forceinline__ int index_at(const I& indices, int at, int first, int lane)
  {
    if constexpr (INDICES)
    {
      return coop_topk_select<0, ITEMS>(indices, at);
    }
    else
    {
      return index_of<false>(indices, at, first, lane);
    }
  }

  // An exclusive sum of the lanes' counts.
  static __device__ __forceinline__ int offset_of(int count, int lane, unsigned mask)
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
    return sum - count;
  }

  // The logical warp's marked items: the sum of the lanes' counts, in every lane.
  static __device__ __forceinline__ int count(word bits, unsigned mask)
  {
    int n = ::cuda::std::popcount(bits);
    NV_IF_ELSE_TARGET(
      NV_PROVIDES_SM_80,
      (n = static_cast<int>(__reduce_add_sync(mask, static_cast<unsigned>(n)));),
      (_CCCL_PRAGMA_UNROLL_FULL() for (int d = 1; d < WIDTH; d *= 2) { n += __shfl_xor_sync(mask, n, d, WIDTH); }))
    return n;
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

  // The P-th largest of the tile's items or below it: at least P of them reach it. With P == WIDTH,
  // the WIDTH-th largest of the lanes' two best items; else the P-th largest of the lanes' maxima.
  static __device__ __forceinline__ T threshold(const T (&items)[ITEMS], int lane, unsigned mask)
  {
    if constexpr (P == WIDTH && WIDTH > 1 && ITEMS > 1)
    {
      T m1 = coop_topk_lowest<T>();
      T m2 = m1;
      _CCCL_PRAGMA_UNROLL_FULL()
      for (int i = 0; i < ITEMS; ++i)
      {
        // the lane's second best: the old best if the item beats it, else the item (a NaN item: NaN,
        // which coop_topk_max passes over)
        const T lo = items[i] > m1 ? m1 : items[i];
        m2         = coop_topk_max(lo, m2);
        m1         = coop_topk_max(items[i], m1);
      }
      return coop_topk_wth_largest_of_two<WIDTH>(m1, m2, lane, mask);
    }
    else
    {
      return coop_topk_pth_largest<P, WIDTH>(lane_max(items), lane, mask);
    }
  }

  // The marked items (`bits`, the lane's first of rank `rank`) to their pending slots.
  template <bool INDICES, typename I>
  __device__ __forceinline__ void
  write(const T (&items)[ITEMS], const I& indices, int first, word bits, int rank, int lane)
  {
    _CCCL_PRAGMA_UNROLL_FULL()
    for (int i = 0; i < ITEMS; ++i)
    {
      if (bits & (top >> i))
      {
        ts.value[rank] = items[i];
        ts.index[rank] = index_of<INDICES>(indices, i, first, lane);
        ++rank;
      }
    }
  }

  // The list merged with the first `count` pending slots.
  __device__ __forceinline__ void merge(T& lv, int& li, int count, int lane, unsigned mask)
  {
    __syncwarp(mask);
    T cv   = coop_topk_lowest<T>();
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
    // full: the list's k-th is the threshold (an item equal to it enters only with a smaller index: the
    // default indices of a tile that starts after the k-th's cannot)
    const bool full = RUNNING && thr > low;
    word bits       = ~word(0);
    int total       = INT_MAX;
    if (full)
    {
      // (above the k-th: at or above the value next above it, so that one compare serves both)
      bits  = coop_topk_marks<true>(items, (INDICES || first <= ti) ? thr : coop_topk_next_up(thr));
      total = count(bits, mask);
    }
    if (total > WIDTH)
    {
      // not full, or more candidates than lanes (an ascending row): at least P >= k of this tile's items
      // reach the P-th largest of its lanes' maxima, so the list's k-th will
      const T m = threshold(items, lane, mask);
      // m is the same in every lane, but ptxas cannot see that through the shuffle network; a branch
      // around a collective (count's REDUX) that it cannot prove warp-uniform makes it emit divergent
      // fallback copies (BRA.DIV, WARPSYNC) of every later shuffle, vote and reduction of the call and
      // of the calls after it. A vote's result is uniform to ptxas.
      if (!full || __any_sync(mask, m > thr))
      {
        bits &= coop_topk_marks<true>(items, m);
        total = count(bits, mask);
      }
    }
    // many: a warp's worth at a time to the pending slots and merged, the rest filtered against the list
    // after each merge (exactly: value above the list's k-th, or equal to it with a smaller index)
    while (total > FEW)
    {
      const int take   = total < WIDTH ? total : WIDTH;
      const int marked = ::cuda::std::popcount(bits);
      const int rank   = offset_of(marked, lane, mask);
      word now         = rank < take ? bits : word(0); // the lane's marks of ranks below take
      for (int n = rank + marked - take; n > 0 && now != 0; --n)
      {
        now &= now - 1; // the last (the lowest bit) unmarked
      }
      write<INDICES>(items, indices, first, now, rank, lane);
      bits ^= now;
      merge(lv, li, take, lane, mask);
      total -= take;
      if (total > 0)
      {
        thr = __shfl_sync(mask, lv, K - 1, WIDTH);
        ti  = __shfl_sync(mask, li, K - 1, WIDTH);
        _CCCL_PRAGMA_UNROLL_FULL()
        for (int i = 0; i < ITEMS; ++i)
        {
          if (!coop_topk_before(items[i], index_of<INDICES>(indices, i, first, lane), thr, ti))
          {
            bits &= ~(top >> i);
          }
        }
        total = count(bits, mask);
      }
    }
    // few (the usual case): inserted one at a time, in rounds of each lane's first marked item
    if (total > 0)
    {
      for (unsigned who = __ballot_sync(mask, bits != 0); who != 0; who = __ballot_sync(mask, bits != 0))
      {
        T cv   = low;
        int ci = coop_topk_no_index;
        if (bits != 0)
        {
          const int at = ::cuda::std::countl_zero(bits);
          cv           = coop_topk_select<0, ITEMS>(items, at);
          ci           = index_at<INDICES>(indices, at, first, lane);
          bits ^= top >> at;
        }
        do
        {
          const int src = __ffs(static_cast<int>(who)) - 1; // (shuffles take the lane modulo WIDTH)
          who &= who - 1;
          coop_topk_insert<K, WIDTH>(
            lv, li, __shfl_sync(mask, cv, src, WIDTH), __shfl_sync(mask, ci, src, WIDTH), lane, mask);
        } while (who != 0);
      }
    }
    result.f0 = lane < K ? lv : low;
    result.f1 = lane < K ? li : coop_topk_no_index;
  }
};
