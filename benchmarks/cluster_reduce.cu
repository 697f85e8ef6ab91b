// SPDX-License-Identifier: Apache-2.0
// The designs of a thread-block-cluster row reduction that benchmarks/cluster_reduce.py measures (see
// its docstring): RMSNorm and softmax forward, float32 rows in registers, CUB's striped loads and
// stores, each design of the cluster step. Compiled by NVRTC with -DEPS=... (the script's EPS).
#include <cub/block/block_load.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_store.cuh>

#include <cuda/ptx>
#include <cuda/std/cstdint>
#include <cuda/std/functional>
#include <cuda/std/limits>

namespace ptx = ::cuda::ptx;
enum Design
{
  NONE,
  PULL2,
  PUSH1,
  MBAR,
  QUACK,
  QFULL,
  QCUB,
  QCUBFULL
};
// the designs whose mbarriers are initialised once per kernel, before the loads
template <int D>
constexpr bool at_start = D == QUACK || D == QFULL || D == QCUB || D == QCUBFULL;
// ... of which the cluster barrier that publishes the inits is waited on after the loads
template <int D>
constexpr bool hidden = D == QUACK || D == QCUB;

// The shared state of one call site.
template <int Threads, int Cluster>
struct Site
{
  typename cub::BlockReduce<float, Threads>::TempStorage ts;
  float inbox[Cluster * (Threads / 32)]; // pushed values (push1, mbar: C; quack: warps x C)
  ::cuda::std::uint64_t bar;
};

__device__ __forceinline__ unsigned rank_in_cluster()
{
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

template <typename T>
__device__ __forceinline__ T* at_rank(T* p, unsigned rank)
{
  return static_cast<T*>(__cluster_map_shared_rank(p, rank));
}

__device__ __forceinline__ void wait_parity0(::cuda::std::uint64_t* bar)
{
  while (!ptx::mbarrier_try_wait_parity(bar, 0u))
  {
  }
}

// quack: every site's mbarrier initialised once, before the loads; the cluster barrier's arrive here,
// its wait after the loads.
template <int D, int Threads, int Cluster>
__device__ __forceinline__ void prologue(Site<Threads, Cluster>* sites, int n)
{
  if constexpr (at_start<D> && Cluster > 1)
  {
    if (threadIdx.x == 0)
    {
      for (int s = 0; s < n; ++s)
      {
        ptx::mbarrier_init(&sites[s].bar, 1);
      }
      ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    }
    ptx::barrier_cluster_arrive(ptx::sem_relaxed);
    if constexpr (!hidden<D>)
    {
      ptx::barrier_cluster_wait();
    }
  }
}

template <int D, int Cluster>
__device__ __forceinline__ void after_loads()
{
  if constexpr (hidden<D> && Cluster > 1)
  {
    ptx::barrier_cluster_wait();
  }
}

template <int D, int Threads, int Cluster, typename Op>
__device__ __forceinline__ float reduce(float x, Op op, float identity, Site<Threads, Cluster>& s)
{
  constexpr int W = Threads / 32;
  if constexpr ((D == QUACK || D == QFULL) && Cluster > 1)
  {
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, rank = rank_in_cluster();
#pragma unroll
    for (int o = 16; o > 0; o /= 2)
    {
      x = op(x, __shfl_xor_sync(0xffffffffu, x, o));
    }
    if (threadIdx.x == 0)
    {
      (void) ptx::mbarrier_arrive_expect_tx(
        ptx::sem_release, ptx::scope_cta, ptx::space_shared, &s.bar, W * Cluster * sizeof(float));
    }
    if (lane < Cluster)
    {
      ptx::st_async(at_rank(&s.inbox[rank * W + warp], lane), x, at_rank(&s.bar, lane));
    }
    wait_parity0(&s.bar);
    float v = identity;
#pragma unroll
    for (int i = 0; i < (W * Cluster + 31) / 32; ++i)
    {
      if (lane + 32 * i < W * Cluster)
      {
        v = op(v, s.inbox[lane + 32 * i]);
      }
    }
#pragma unroll
    for (int o = 16; o > 0; o /= 2)
    {
      v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
    }
    return v;
  }
  else if constexpr ((D == QCUB || D == QCUBFULL) && Cluster > 1)
  {
    float block = cub::BlockReduce<float, Threads>(s.ts).Reduce(x, op);
    if (threadIdx.x == 0)
    {
      (void) ptx::mbarrier_arrive_expect_tx(
        ptx::sem_release, ptx::scope_cta, ptx::space_shared, &s.bar, Cluster * sizeof(float));
    }
    if (threadIdx.x < 32)
    {
      block = __shfl_sync(0xffffffffu, block, 0);
      if (threadIdx.x < Cluster)
      {
        ptx::st_async(at_rank(&s.inbox[rank_in_cluster()], threadIdx.x), block, at_rank(&s.bar, threadIdx.x));
      }
    }
    wait_parity0(&s.bar);
    float total = s.inbox[0];
#pragma unroll
    for (int r = 1; r < Cluster; ++r)
    {
      total = op(total, s.inbox[r]);
    }
    return total;
  }
  else
  {
    float block = cub::BlockReduce<float, Threads>(s.ts).Reduce(x, op);
    if constexpr (D == NONE || Cluster == 1)
    {
      if (threadIdx.x == 0)
      {
        s.inbox[0] = block;
      }
      __syncthreads();
      float total = s.inbox[0];
      __syncthreads();
      return total;
    }
    else if constexpr (D == PULL2)
    {
      if (threadIdx.x == 0)
      {
        s.inbox[0] = block;
      }
      ptx::barrier_cluster_arrive();
      ptx::barrier_cluster_wait();
      float total = *at_rank(&s.inbox[0], 0);
#pragma unroll
      for (int r = 1; r < Cluster; ++r)
      {
        total = op(total, *at_rank(&s.inbox[0], r));
      }
      ptx::barrier_cluster_arrive();
      ptx::barrier_cluster_wait();
      return total;
    }
    else if constexpr (D == PUSH1)
    {
      if (threadIdx.x < 32)
      {
        block = __shfl_sync(0xffffffffu, block, 0);
        if (threadIdx.x < Cluster)
        {
          *at_rank(&s.inbox[rank_in_cluster()], threadIdx.x) = block;
        }
      }
      ptx::barrier_cluster_arrive();
      ptx::barrier_cluster_wait();
      float total = s.inbox[0];
#pragma unroll
      for (int r = 1; r < Cluster; ++r)
      {
        total = op(total, s.inbox[r]);
      }
      return total;
    }
    else // MBAR
    {
      if (threadIdx.x == 0)
      {
        ptx::mbarrier_init(&s.bar, 1);
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
        (void) ptx::mbarrier_arrive_expect_tx(
          ptx::sem_release, ptx::scope_cta, ptx::space_shared, &s.bar, Cluster * sizeof(float));
      }
      ptx::barrier_cluster_arrive();
      ptx::barrier_cluster_wait();
      if (threadIdx.x < 32)
      {
        block               = __shfl_sync(0xffffffffu, block, 0);
        const unsigned peer = threadIdx.x;
        if (peer < Cluster)
        {
          ptx::st_async(at_rank(&s.inbox[rank_in_cluster()], peer), block, at_rank(&s.bar, peer));
        }
      }
      wait_parity0(&s.bar);
      float total = s.inbox[0];
#pragma unroll
      for (int r = 1; r < Cluster; ++r)
      {
        total = op(total, s.inbox[r]);
      }
      return total;
    }
  }
}

template <int N, int Cluster, int Threads, int Items, int D>
__global__ void __launch_bounds__(Threads) rmsnorm(const float* x, const float* w, float* y)
{
  using Load  = cub::BlockLoad<float, Threads, Items, cub::BLOCK_LOAD_STRIPED>;
  using Store = cub::BlockStore<float, Threads, Items, cub::BLOCK_STORE_STRIPED>;
  __shared__ Site<Threads, Cluster> site[1];
  prologue<D>(site, 1);
  const int rank      = blockIdx.x % Cluster;
  const size_t offset = size_t(blockIdx.x / Cluster) * N + rank * (Threads * Items);
  float xs[Items];
  Load().Load(x + offset, xs);
  after_loads<D, Cluster>();
  float part = 0.0f;
#pragma unroll
  for (int i = 0; i < Items; ++i)
  {
    part += xs[i] * xs[i];
  }
  const float total = reduce<D>(part, ::cuda::std::plus<>{}, 0.0f, site[0]);
  const float scale = rsqrtf(total * (1.0f / N) + EPS);
  const float* ws   = w + rank * (Threads * Items) + threadIdx.x;
#pragma unroll
  for (int i = 0; i < Items; ++i)
  {
    xs[i] = xs[i] * scale * ws[i * Threads];
  }
  Store().Store(y + offset, xs);
}

template <int N, int Cluster, int Threads, int Items, int D>
__global__ void __launch_bounds__(Threads) softmax(const float* x, float* y)
{
  using Load  = cub::BlockLoad<float, Threads, Items, cub::BLOCK_LOAD_STRIPED>;
  using Store = cub::BlockStore<float, Threads, Items, cub::BLOCK_STORE_STRIPED>;
  // push1 and quack take a site per call (each is safe for one use); the others reuse one site
  constexpr int Sites = (D == PUSH1 || at_start<D>) ? 2 : 1;
  __shared__ Site<Threads, Cluster> site[Sites];
  prologue<D>(site, Sites);
  const int rank      = blockIdx.x % Cluster;
  const size_t offset = size_t(blockIdx.x / Cluster) * N + rank * (Threads * Items);
  float xs[Items];
  Load().Load(x + offset, xs);
  after_loads<D, Cluster>();
  float top = xs[0];
#pragma unroll
  for (int i = 1; i < Items; ++i)
  {
    top = ::cuda::std::max(top, xs[i]);
  }
  top = reduce<D>(top, ::cuda::maximum<>{}, -::cuda::std::numeric_limits<float>::infinity(), site[0]);
  if (Sites == 1)
  {
    __syncthreads();
  }
  const float log2e = 1.4426950408889634f, shift = top * log2e;
  float part = 0.0f;
#pragma unroll
  for (int i = 0; i < Items; ++i)
  {
    xs[i] = exp2f(xs[i] * log2e - shift);
    part += xs[i];
  }
  const float total = reduce<D>(part, ::cuda::std::plus<>{}, 0.0f, site[Sites - 1]);
  const float inv   = 1.0f / total;
#pragma unroll
  for (int i = 0; i < Items; ++i)
  {
    xs[i] *= inv;
  }
  Store().Store(y + offset, xs);
}
