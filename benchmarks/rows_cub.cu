// SPDX-License-Identifier: Apache-2.0
// The CUB C++ peers of benchmarks/rows.py (read by it as CUB_SOURCE and compiled with NVRTC,
// the kernels instantiated by name expression; coop's headers on the include path beside CCCL's:
// -I cuda_coop/include).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cub/block/block_load.cuh>
#include <cub/block/block_load_to_shared.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_store.cuh>
#include <cub/thread/thread_operators.cuh>
#include <cub/util_ptx.cuh>
#include <cub/util_type.cuh>
#include <cub/warp/warp_load.cuh>
#include <cub/warp/warp_merge_sort.cuh>
#include <cub/warp/warp_scan.cuh>

#include <cuda/ptx>
#include <cuda/std/array>
#include <cuda/std/bit>
#include <cuda/std/cstdint>
#include <cuda/std/functional>
#include <cuda/std/limits>
#include <cuda/std/span>
#include <cuda/std/type_traits>

#include <coop/striped_runs.cuh>
#include <coop/top_k.cuh>

// The cluster step of coop.cluster, written by hand: the kernel's prologue arms two stages of
// mbarriers (one arrival: thread 0's, expecting the call's bytes) and publishes them with one cluster
// barrier; each reduction is CUB's BlockReduce, then warp 0 pushes the block's aggregate into slot
// `rank` of every block's stage with st.async (its bytes complete that block's mbarrier transaction),
// and every thread waits on its own block's and folds the slots in rank order. Calls alternate between
// the stages (the call count in shared memory).
template <int Cluster, typename T = float>
struct State
{
  T slot[2][Cluster];
  ::cuda::std::uint64_t full[2];
  unsigned calls;
};

template <int Cluster, typename T>
__device__ __forceinline__ void prologue(State<Cluster, T>& s)
{
  if (Cluster == 1)
  {
    return;
  }
  if (threadIdx.x == 0)
  {
    ::cuda::ptx::mbarrier_init(&s.full[0], 1);
    ::cuda::ptx::mbarrier_init(&s.full[1], 1);
    s.calls = 0;
    ::cuda::ptx::fence_mbarrier_init(::cuda::ptx::sem_release, ::cuda::ptx::scope_cluster);
  }
  __syncthreads();
  ::cuda::ptx::barrier_cluster_arrive(::cuda::ptx::sem_relaxed);
  ::cuda::ptx::barrier_cluster_wait();
}

// The block's (Cluster == 1) or the cluster's aggregate, in every thread. A T of several 32-bit
// words (a struct of fields: LayerNorm's, cross-entropy's, argmax's) is pushed word by word.
template <int Threads, int Cluster, typename Reduce, typename T, typename Op>
__device__ __forceinline__ T row_reduce(T x, Op op, typename Reduce::TempStorage& ts, State<Cluster, T>& s)
{
  if (Cluster == 1)
  {
    T block = Reduce(ts).Reduce(x, op);
    if (threadIdx.x == 0)
    {
      s.slot[0][0] = block;
    }
    __syncthreads();
    T total = s.slot[0][0];
    __syncthreads();
    return total;
  }
  static_assert(sizeof(T) % 4 == 0, "row_reduce pushes 32-bit words");
  constexpr int Words = sizeof(T) / 4;
  const unsigned call = s.calls;
  T block             = Reduce(ts).Reduce(x, op);
  const int stage     = call & 1;
  namespace ptx       = ::cuda::ptx;
  if (threadIdx.x < 32)
  {
    if (threadIdx.x == 0)
    {
      s.calls = call + 1;
      ptx::mbarrier_arrive_expect_tx(
        ptx::sem_release, ptx::scope_cta, ptx::space_shared, &s.full[stage], Cluster * sizeof(T));
    }
    block               = cub::ShuffleIndex<32>(block, 0, 0xffffffffu);
    const auto words    = ::cuda::std::bit_cast<::cuda::std::array<::cuda::std::uint32_t, Words>>(block);
    const unsigned rank = ptx::get_sreg_cluster_ctarank();
    for (int peer = threadIdx.x; peer < Cluster; peer += 32)
    {
      auto& theirs = *static_cast<State<Cluster, T>*>(__cluster_map_shared_rank(&s, peer));
      auto* slot   = reinterpret_cast<::cuda::std::uint32_t*>(&theirs.slot[stage][rank]);
#pragma unroll
      for (int k = 0; k < Words; ++k)
      {
        ptx::st_async(slot + k, words[k], &theirs.full[stage]);
      }
    }
  }
  while (!ptx::mbarrier_try_wait_parity(&s.full[stage], (call >> 1) & 1))
  {
  }
  T total = s.slot[stage][0];
#pragma unroll
  for (int r = 1; r < Cluster; ++r)
  {
    total = op(total, s.slot[stage][r]);
  }
  return total;
}

// coop's algorithm="striped_vectors" (coop/striped_runs.cuh, the class coop's kernels use): runs of
// V items (4, 2 or 1, at most 16 bytes) striped over the threads, each run one vector word, with CUB's
// striped load and store of the words. The rows here are aligned to a run, so the runs move as words
// without coop's check of the alignment. With LA = BLOCK_LOAD_STRIPED and Runs, the kernels below
// move their rows this way.
template <typename T, int Threads, int Items>
struct Runs
{
  static constexpr int V = Items % 4 == 0 && 4 * sizeof(T) <= 16 ? 4 : Items % 2 == 0 ? 2 : 1;
  using Striped          = coop_striped_runs<T, Threads, Items, V>;
  __device__ void Load(const T* src, T (&items)[Items])
  {
    Striped::LoadWords(threadIdx.x, src, items);
  }
  __device__ void Store(T* dst, const T (&items)[Items])
  {
    Striped::StoreWords(threadIdx.x, dst, items);
  }
};

// RMSNorm and softmax of rows of T (float, __nv_bfloat16, __half) moved with any load and store
// algorithm (coop's kernels in _rows_cutlass.py), or in striped runs (R): items converted to float,
// the result converted back; RMSNorm's weight row loaded with the same algorithm after the reduction,
// or before it (Prefetch: quack's order).
template <typename T,
          int N,
          int Cluster,
          int Threads,
          int Items,
          cub::BlockLoadAlgorithm LA,
          cub::BlockStoreAlgorithm SA,
          bool Prefetch = false,
          bool R        = false>
__global__ void __launch_bounds__(Threads) cub_rmsnorm(const T* x, const T* w, T* y)
{
  using Load   = ::cuda::std::conditional_t<R, Runs<T, Threads, Items>, cub::BlockLoad<T, Threads, Items, LA>>;
  using Store  = ::cuda::std::conditional_t<R, Runs<T, Threads, Items>, cub::BlockStore<T, Threads, Items, SA>>;
  using Reduce = cub::BlockReduce<float, Threads>;
  __shared__ typename Reduce::TempStorage ts;
  __shared__ State<Cluster> state;
  prologue(state);
  const int rank      = blockIdx.x % Cluster;
  const size_t offset = size_t(blockIdx.x / Cluster) * N + rank * (Threads * Items);
  T xs[Items];
  Load().Load(x + offset, xs);
  T ws[Items];
  if constexpr (Prefetch)
  {
    Load().Load(w + rank * (Threads * Items), ws);
  }
  float part = 0.0f;
  for (int i = 0; i < Items; ++i)
  {
    const float v = float(xs[i]);
    part += v * v;
  }
  const float total = row_reduce<Threads, Cluster, Reduce>(part, ::cuda::std::plus<>{}, ts, state);
  const float scale = rsqrtf(total * (1.0f / N) + EPS);
  if constexpr (!Prefetch)
  {
    Load().Load(w + rank * (Threads * Items), ws);
  }
  for (int i = 0; i < Items; ++i)
  {
    xs[i] = T(float(xs[i]) * scale * float(ws[i]));
  }
  Store().Store(y + offset, xs);
}

// A thread's items of a row (or a cluster's row) -> their softmax, in place: converted to float, the
// row's maximum and sum of exp2f((x - max) * log2(e)) each one reduction, the result converted back.
template <int Threads, int Cluster, typename Reduce, typename T, int Items>
__device__ __forceinline__ void softmax_items(T (&xs)[Items], typename Reduce::TempStorage& ts, State<Cluster>& state)
{
  float fs[Items];
  for (int i = 0; i < Items; ++i)
  {
    fs[i] = float(xs[i]);
  }
  float top = fs[0];
  for (int i = 1; i < Items; ++i)
  {
    top = ::cuda::std::max(top, fs[i]);
  }
  top = row_reduce<Threads, Cluster, Reduce>(top, ::cuda::maximum<>{}, ts, state);
  __syncthreads();
  const float shift = top * LOG2E;
  float part        = 0.0f;
  for (int i = 0; i < Items; ++i)
  {
    fs[i] = exp2f(fs[i] * LOG2E - shift);
    part += fs[i];
  }
  const float inv = 1.0f / row_reduce<Threads, Cluster, Reduce>(part, ::cuda::std::plus<>{}, ts, state);
  for (int i = 0; i < Items; ++i)
  {
    xs[i] = T(fs[i] * inv);
  }
}

template <typename T,
          int N,
          int Cluster,
          int Threads,
          int Items,
          cub::BlockLoadAlgorithm LA,
          cub::BlockStoreAlgorithm SA,
          bool R = false>
__global__ void __launch_bounds__(Threads) cub_softmax(const T* x, T* y)
{
  using Load   = ::cuda::std::conditional_t<R, Runs<T, Threads, Items>, cub::BlockLoad<T, Threads, Items, LA>>;
  using Store  = ::cuda::std::conditional_t<R, Runs<T, Threads, Items>, cub::BlockStore<T, Threads, Items, SA>>;
  using Reduce = cub::BlockReduce<float, Threads>;
  __shared__ typename Reduce::TempStorage ts;
  __shared__ State<Cluster> state;
  prologue(state);
  const int rank      = blockIdx.x % Cluster;
  const size_t offset = size_t(blockIdx.x / Cluster) * N + rank * (Threads * Items);
  T xs[Items];
  Load().Load(x + offset, xs);
  softmax_items<Threads, Cluster, Reduce>(xs, ts, state);
  Store().Store(y + offset, xs);
}

// LayerNorm: the row's mean and variance in one reduction, of each thread's (count, mean, M2) with
// Chan's combination (Welford), or of (sum, sum of squares).
struct Welford
{
  float n, mean, m2;
};
struct WelfordOp
{
  __device__ __forceinline__ Welford operator()(const Welford& p, const Welford& q) const
  {
    const float n = p.n + q.n, d = q.mean - p.mean, f = q.n / n;
    return {n, p.mean + d * f, p.m2 + q.m2 + d * d * p.n * f};
  }
};
struct Sums
{
  float s, sq;
};
struct SumsOp
{
  __device__ __forceinline__ Sums operator()(const Sums& p, const Sums& q) const
  {
    return {p.s + q.s, p.sq + q.sq};
  }
};

template <int N, int Cluster, int Threads, int Items, bool UseWelford>
__global__ void __launch_bounds__(Threads) cub_layernorm(const float* x, const float* w, const float* bias, float* y)
{
  using Load   = cub::BlockLoad<float, Threads, Items, cub::BLOCK_LOAD_STRIPED>;
  using Store  = cub::BlockStore<float, Threads, Items, cub::BLOCK_STORE_STRIPED>;
  using Stats  = ::cuda::std::conditional_t<UseWelford, Welford, Sums>;
  using Reduce = cub::BlockReduce<Stats, Threads>;
  __shared__ typename Reduce::TempStorage ts;
  __shared__ State<Cluster, Stats> state;
  prologue(state);
  const int rank      = blockIdx.x % Cluster;
  const size_t offset = size_t(blockIdx.x / Cluster) * N + rank * (Threads * Items);
  float xs[Items];
  Load().Load(x + offset, xs);
  float s = 0.0f;
  for (int i = 0; i < Items; ++i)
  {
    s += xs[i];
  }
  float mean, var;
  if constexpr (UseWelford)
  {
    const float tm = s * (1.0f / Items);
    float m2       = 0.0f;
    for (int i = 0; i < Items; ++i)
    {
      const float d = xs[i] - tm;
      m2 += d * d;
    }
    const Welford t = row_reduce<Threads, Cluster, Reduce>(Welford{float(Items), tm, m2}, WelfordOp{}, ts, state);
    mean            = t.mean;
    var             = t.m2 * (1.0f / N);
  }
  else
  {
    float sq = 0.0f;
    for (int i = 0; i < Items; ++i)
    {
      sq += xs[i] * xs[i];
    }
    const Sums t = row_reduce<Threads, Cluster, Reduce>(Sums{s, sq}, SumsOp{}, ts, state);
    mean         = t.s * (1.0f / N);
    var          = t.sq * (1.0f / N) - mean * mean;
  }
  const float rstd = rsqrtf(var + EPS);
  const float* ws  = w + rank * (Threads * Items) + threadIdx.x;
  const float* bs  = bias + rank * (Threads * Items) + threadIdx.x;
  for (int i = 0; i < Items; ++i)
  {
    xs[i] = (xs[i] - mean) * rstd * ws[i * Threads] + bs[i * Threads];
  }
  Store().Store(y + offset, xs);
}

// Cross-entropy: each thread folds its tiles into (max, sum of exp(x - max)); one reduction of the
// pair (Online) or a max, then a sum; the label's logit is read directly.
struct MaxSum
{
  float m, s;
};
struct MaxSumOp
{
  __device__ __forceinline__ MaxSum operator()(const MaxSum& p, const MaxSum& q) const
  {
    const float m = ::cuda::std::max(p.m, q.m);
    return {m, p.s * exp2f((p.m - m) * LOG2E) + q.s * exp2f((q.m - m) * LOG2E)};
  }
};

template <int N, int Cluster, int Threads, int Items, bool Online>
__global__ void __launch_bounds__(Threads) cub_cross_entropy(const float* x, const long long* labels, float* loss)
{
  constexpr int Tile = Threads * Items, Tiles = N / (Cluster * Tile);
  using Load   = cub::BlockLoad<float, Threads, Items, cub::BLOCK_LOAD_STRIPED>;
  using Reduce = cub::BlockReduce<::cuda::std::conditional_t<Online, MaxSum, float>, Threads>;
  __shared__ typename Reduce::TempStorage ts;
  __shared__ State<Cluster, ::cuda::std::conditional_t<Online, MaxSum, float>> state;
  prologue(state);
  const int rank    = blockIdx.x % Cluster;
  const size_t row  = blockIdx.x / Cluster;
  const float* part = x + row * N + size_t(rank) * (Tiles * Tile);
  float m = -::cuda::std::numeric_limits<float>::infinity(), s = 0.0f;
  for (int j = 0; j < Tiles; ++j)
  {
    float xs[Items];
    Load().Load(part + j * Tile, xs);
    float top = m;
    for (int i = 0; i < Items; ++i)
    {
      top = ::cuda::std::max(top, xs[i]);
    }
    s *= exp2f((m - top) * LOG2E);
    for (int i = 0; i < Items; ++i)
    {
      s += exp2f((xs[i] - top) * LOG2E);
    }
    m = top;
  }
  float top, total;
  if constexpr (Online)
  {
    const MaxSum t = row_reduce<Threads, Cluster, Reduce>(MaxSum{m, s}, MaxSumOp{}, ts, state);
    top            = t.m;
    total          = t.s;
  }
  else
  {
    top = row_reduce<Threads, Cluster, Reduce>(m, ::cuda::maximum<>{}, ts, state);
    __syncthreads();
    const float part = s * exp2f((m - top) * LOG2E);
    total            = row_reduce<Threads, Cluster, Reduce>(part, ::cuda::std::plus<>{}, ts, state);
  }
  if (rank == 0 && threadIdx.x == 0)
  {
    const long long label = labels[row];
    loss[row]             = label == IGNORE_INDEX ? 0.0f : top + logf(total) - x[row * N + label];
  }
}

// Row argmax: each thread's first largest item over its tiles (striped: indices ascend), then one
// reduction of (index, value) pairs with cub::ArgMax (ties to the smaller index).
template <int N, int Cluster, int Threads, int Items>
__global__ void __launch_bounds__(Threads) cub_argmax(const float* x, float* values, long long* indices)
{
  constexpr int Tile = Threads * Items, Tiles = N / (Cluster * Tile);
  using Load   = cub::BlockLoad<float, Threads, Items, cub::BLOCK_LOAD_STRIPED>;
  using Pair   = cub::KeyValuePair<int, float>;
  using Reduce = cub::BlockReduce<Pair, Threads>;
  __shared__ typename Reduce::TempStorage ts;
  __shared__ State<Cluster, Pair> state;
  prologue(state);
  const int rank   = blockIdx.x % Cluster;
  const size_t row = blockIdx.x / Cluster;
  const int first  = rank * (Tiles * Tile);
  Pair best(first + int(threadIdx.x), -::cuda::std::numeric_limits<float>::infinity());
  for (int j = 0; j < Tiles; ++j)
  {
    float xs[Items];
    Load().Load(x + row * N + first + j * Tile, xs);
    for (int i = 0; i < Items; ++i)
    {
      if (xs[i] > best.value)
      {
        best.value = xs[i];
        best.key   = first + j * Tile + i * Threads + int(threadIdx.x);
      }
    }
  }
  const Pair top = row_reduce<Threads, Cluster, Reduce>(best, cub::ArgMax{}, ts, state);
  if (rank == 0 && threadIdx.x == 0)
  {
    values[row]  = top.value;
    indices[row] = top.key;
  }
}

// Row top-k (largest first, ties to the smaller index), the design of numba_topk: each warp streams
// its part of the row in tiles of 32 x Items (striped); the first tile's threshold is the L-th largest
// of the lanes' maxima (L = 16 for K <= 16, else 32: the list's lanes; a bitonic network by
// shuffles); each lane marks the items that pass in a bit mask and writes their row indices into the
// warp's 32 pending slots at the offsets a warp scan of the masks' popcounts gives; a merge reads the
// pending values back, sorts their best L ascending into lanes 0..L-1, keeps the better of each
// lane's list entry (the list lives in registers, entry l in lane l) and pending entry, and sorts
// that descending; the threshold becomes the list's K-th. With WR warps per row, the first warp of the
// row sorts the WR lists at the end (cub::WarpMergeSort). The networks and the marks are
// coop/top_k.cuh's (coop.warp.top_k's own): one source. What differs from coop.warp.top_k, and why
// this is not that class: the pending slots hold indices only and the values are read back from the
// row (L1/L2), and they persist across tiles (a merge when K or more are pending, when the slots would
// overflow, and at the end), which a primitive that returns the list after each tile and never
// re-reads the caller's row cannot do.
struct Cand
{
  float v;
  int i;
};
struct Before
{
  __device__ __forceinline__ bool operator()(const Cand& a, const Cand& b) const
  {
    return a.v > b.v || (a.v == b.v && a.i < b.i);
  }
};

template <int N, int WR, int Threads, int Items, int K>
__device__ __forceinline__ void topk_bitonic(const float* x, float* values, long long* indices)
{
  constexpr int CAP = 32, L = K <= 16 ? 16 : 32; // pending slots; the list's lanes
  constexpr unsigned Full = 0xffffffffu;
  constexpr int Warps = Threads / 32, RowsPerBlock = Warps / WR, Span = N / WR, WTile = 32 * Items;
  constexpr int Tiles = Span / WTile, Merge = WR * K / 32 > 0 ? WR * K / 32 : 1;
  using Word         = coop_topk_word<Items>;
  constexpr Word Top = Word(1) << (8 * sizeof(Word) - 1);
  using SortM        = cub::WarpMergeSort<Cand, Merge, 32>;
  using Scan         = cub::WarpScan<int>;
  using Load         = cub::WarpLoad<float, Items, cub::WARP_LOAD_STRIPED, 32>;
  __shared__ typename SortM::TempStorage merge[Warps];
  __shared__ typename Scan::TempStorage scan[Warps];
  __shared__ int slots[Warps][CAP];
  __shared__ float bv[WR > 1 ? Warps : 1][K];
  __shared__ int bi[WR > 1 ? Warps : 1][K];
  const int lane = threadIdx.x % 32, w = threadIdx.x / 32, part = w % WR;
  const size_t row = size_t(blockIdx.x) * RowsPerBlock + w / WR;
  const float ninf = -::cuda::std::numeric_limits<float>::infinity();
  float lv = ninf, tau = ninf; // the list: lane l < L holds its l-th best (value, index) so far
  int li   = coop_topk_no_index;
  int pend = 0;
  for (int j = 0; j < Tiles; ++j)
  {
    const int first = part * Span + j * WTile;
    float xs[Items];
    Load().Load(x + row * N + first, xs);
    Word mask;
    if (j == 0) // the threshold: the L-th largest of the lanes' maxima
    {
      float m = ninf;
      for (int i = 0; i < Items; ++i)
      {
        m = fmaxf(m, xs[i]);
      }
      mask = coop_topk_marks<true>(xs, coop_topk_pth_largest<L, 32>(m, lane, Full));
    }
    else
    {
      mask = coop_topk_marks<false>(xs, tau);
    }
    int off, total;
    Scan(scan[w]).ExclusiveSum(int(::cuda::std::popcount(mask)), off, total);
    bool recount = pend > 0 && pend + total > CAP; // merge the pending first, count again
    int done = 0, r = off; // r: the rank of the lane's next candidate in the tile
    while (true)
    {
      if (!recount) // ranks done .. lim - 1 to slots pend ..
      {
        const int lim = done + ::cuda::std::min(total - done, CAP - pend);
        while (mask != 0 && r < lim)
        {
          const int i               = ::cuda::std::countl_zero(mask);
          slots[w][pend + r - done] = first + lane + 32 * i;
          mask ^= Top >> i;
          ++r;
        }
        pend += lim - done;
        done = lim;
        if (done == total && (pend == 0 || (j < Tiles - 1 && pend < K)))
        {
          break; // all written; K or more pending are merged at once
        }
      }
      __syncwarp();
      float cv = ninf;
      int ci   = coop_topk_no_index;
      if (lane < pend)
      {
        ci = slots[w][lane];
        cv = x[row * N + ci];
      }
      coop_topk_merge<L, 32>(lv, li, cv, ci, lane, Full);
      tau  = __shfl_sync(Full, lv, K - 1);
      pend = 0;
      __syncwarp();
      if (recount) // this tile against the new threshold (the list holds earlier items)
      {
        recount = false;
        mask    = coop_topk_marks<false>(xs, tau);
        Scan(scan[w]).ExclusiveSum(int(::cuda::std::popcount(mask)), off, total);
        r = off;
      }
      else if (done == total)
      {
        break;
      }
    }
  }
  if constexpr (WR == 1)
  {
    if (lane < K)
    {
      values[row * K + lane]  = lv;
      indices[row * K + lane] = li;
    }
  }
  else
  {
    if (lane < K)
    {
      bv[w][lane] = lv;
      bi[w][lane] = li;
    }
    __syncthreads();
    if (part == 0)
    {
      Cand c[Merge];
      for (int s = 0; s < Merge; ++s)
      {
        const int e = lane * Merge + s;
        c[s]        = {bv[w + e / K][e % K], bi[w + e / K][e % K]};
      }
      SortM(merge[w]).StableSort(c, Before{});
      for (int s = 0; s < Merge; ++s)
      {
        if (lane * Merge + s < K)
        {
          values[row * K + lane * Merge + s]  = c[s].v;
          indices[row * K + lane * Merge + s] = c[s].i;
        }
      }
    }
  }
}

template <int N, int WR, int Threads, int Items, int K>
__global__ void __launch_bounds__(Threads) cub_topk(const float* x, float* values, long long* indices)
{
  topk_bitonic<N, WR, Threads, Items, K>(x, values, indices);
}

// RMSNorm with the block's part of the row staged in shared memory by one bulk copy; with StageW the
// weights too, else each thread's weights (striped, or in striped runs with R) loaded into registers
// while the copy runs.
template <int N, int Cluster, int Threads, int Items, bool StageW, bool R = false>
__global__ void __launch_bounds__(Threads) cub_rmsnorm_staged(const float* x, const float* w, float* y)
{
  using Run          = Runs<float, Threads, Items>;
  constexpr int V    = R ? Run::V : 1; // item i of a thread: (i / V * Threads + tid) * V + i % V
  constexpr int Tile = Threads * Items, Bytes = Tile * int(sizeof(float));
  static_assert(cub::detail::LoadToSharedBufferSizeBytes<float, 16>(Tile) == Bytes, "no padding");
  using Stage  = cub::detail::BlockLoadToShared<Threads>;
  using Reduce = cub::BlockReduce<float, Threads>;
  __shared__ typename Stage::TempStorage st;
  __shared__ typename Reduce::TempStorage ts;
  __shared__ State<Cluster> state;
  extern __shared__ __align__(128) char staged[];
  prologue(state);
  const int rank      = blockIdx.x % Cluster;
  const size_t offset = size_t(blockIdx.x / Cluster) * N + rank * Tile;
  Stage stage(st);
  const auto sx = stage.template CopyAsync<float, 16>(
    ::cuda::std::span<char>(staged, Bytes), ::cuda::std::span<const float>(x + offset, Tile));
  ::cuda::std::span<float> sw;
  if constexpr (StageW)
  {
    sw = stage.template CopyAsync<float, 16>(
      ::cuda::std::span<char>(staged + Bytes, Bytes), ::cuda::std::span<const float>(w + rank * Tile, Tile));
  }
  auto token = stage.Commit();
  float ws[StageW ? 1 : Items];
  if constexpr (R && !StageW)
  {
    Run().Load(w + rank * Tile, ws);
  }
  else if constexpr (!StageW)
  {
#pragma unroll
    for (int i = 0; i < Items; ++i)
    {
      ws[i] = w[rank * Tile + threadIdx.x + i * Threads];
    }
  }
  stage.Wait(::cuda::std::move(token));
  float part = 0.0f;
#pragma unroll
  for (int i = 0; i < Items; ++i)
  {
    const float v = sx[(i / V * Threads + threadIdx.x) * V + i % V];
    part += v * v;
  }
  const float total = row_reduce<Threads, Cluster, Reduce>(part, ::cuda::std::plus<>{}, ts, state);
  const float scale = rsqrtf(total * (1.0f / N) + EPS);
  float ys[Items];
#pragma unroll
  for (int i = 0; i < Items; ++i)
  {
    const int k = (i / V * Threads + threadIdx.x) * V + i % V;
    float wi;
    if constexpr (StageW)
    {
      wi = sw[k];
    }
    else
    {
      wi = ws[i];
    }
    ys[i] = sx[k] * scale * wi;
    if constexpr (!R)
    {
      y[offset + k] = ys[i];
    }
  }
  if constexpr (R)
  {
    Run().Store(y + offset, ys);
  }
}

// Softmax with the block's part of the row staged in shared memory by one bulk copy. Once: read from
// there once, in striped runs (Runs), into registers, then cub_softmax's design (rows of any T); else
// (float rows) the maximum and the sum read it there, exp(x - max) written back in place (each
// thread's own striped items).
template <typename T, int N, int Cluster, int Threads, int Items, bool Once>
__global__ void __launch_bounds__(Threads) cub_softmax_staged(const T* x, T* y)
{
  constexpr int Tile = Threads * Items, Bytes = Tile * int(sizeof(T));
  static_assert(cub::detail::LoadToSharedBufferSizeBytes<T, 16>(Tile) == Bytes, "no padding");
  using Stage  = cub::detail::BlockLoadToShared<Threads>;
  using Reduce = cub::BlockReduce<float, Threads>;
  __shared__ typename Stage::TempStorage st;
  __shared__ typename Reduce::TempStorage ts;
  __shared__ State<Cluster> state;
  extern __shared__ __align__(128) char staged[];
  prologue(state);
  const int rank      = blockIdx.x % Cluster;
  const size_t offset = size_t(blockIdx.x / Cluster) * N + rank * Tile;
  Stage stage(st);
  T* const row =
    stage
      .template CopyAsync<T, 16>(::cuda::std::span<char>(staged, Bytes), ::cuda::std::span<const T>(x + offset, Tile))
      .data();
  stage.Wait(stage.Commit());
  if constexpr (Once)
  {
    T xs[Items];
    Runs<T, Threads, Items>().Load(row, xs);
    softmax_items<Threads, Cluster, Reduce>(xs, ts, state);
    Runs<T, Threads, Items>().Store(y + offset, xs);
  }
  else
  {
    float top = row[threadIdx.x];
#pragma unroll
    for (int i = 1; i < Items; ++i)
    {
      top = ::cuda::std::max(top, row[threadIdx.x + i * Threads]);
    }
    top = row_reduce<Threads, Cluster, Reduce>(top, ::cuda::maximum<>{}, ts, state);
    __syncthreads();
    float part = 0.0f;
#pragma unroll
    for (int i = 0; i < Items; ++i)
    {
      const int k   = threadIdx.x + i * Threads;
      const float e = exp2f((row[k] - top) * LOG2E);
      row[k]        = e;
      part += e;
    }
    const float inv = 1.0f / row_reduce<Threads, Cluster, Reduce>(part, ::cuda::std::plus<>{}, ts, state);
#pragma unroll
    for (int i = 0; i < Items; ++i)
    {
      const int k   = threadIdx.x + i * Threads;
      y[offset + k] = row[k] * inv;
    }
  }
}
