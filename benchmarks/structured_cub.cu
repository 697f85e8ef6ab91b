// SPDX-License-Identifier: Apache-2.0
// The CUB C++ peers of benchmarks/structured.py (read by it as CUB_SOURCE and compiled with NVRTC,
// the kernels instantiated by name expression).
#include <cub/block/block_load.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cub/thread/thread_operators.cuh>
#include <cub/util_type.cuh>

#include <cuda/std/limits>

template <int Threads, int Items>
__global__ void __launch_bounds__(Threads) cub_argmax(const float* src, float* out_v, int* out_i, int n)
{
  using Load   = cub::BlockLoad<float, Threads, Items, cub::BLOCK_LOAD_STRIPED>;
  using Pair   = cub::KeyValuePair<int, float>;
  using Reduce = cub::BlockReduce<Pair, Threads>;
  __shared__ typename Reduce::TempStorage ts;
  const float* row = src + size_t(blockIdx.x) * n;
  Pair best(0, -::cuda::std::numeric_limits<float>::infinity());
  float items[Items];
  for (int base = 0; base < n; base += Threads * Items)
  {
    Load().Load(row + base, items);
    for (int j = 0; j < Items; ++j)
    {
      if (items[j] > best.value)
      {
        best.value = items[j];
        best.key   = base + j * Threads + int(threadIdx.x);
      }
    }
  }
  const Pair r = Reduce(ts).Reduce(best, cub::ArgMax());
  if (threadIdx.x == 0)
  {
    out_v[blockIdx.x] = r.value;
    out_i[blockIdx.x] = r.key;
  }
}

struct Welford
{
  float n, mean, m2;
};
struct WelfordCombine
{
  __device__ __forceinline__ Welford operator()(const Welford& p, const Welford& q) const
  {
    const float n = p.n + q.n;
    const float d = q.mean - p.mean;
    const float w = q.n / n;
    return {n, p.mean + d * w, p.m2 + q.m2 + d * d * p.n * w};
  }
};

template <int Threads, int Items>
__global__ void __launch_bounds__(Threads) cub_welford(const float* src, float* out_mean, float* out_rstd, int n)
{
  using Load   = cub::BlockLoad<float, Threads, Items, cub::BLOCK_LOAD_STRIPED>;
  using Reduce = cub::BlockReduce<Welford, Threads>;
  __shared__ typename Reduce::TempStorage ts;
  const float* row = src + size_t(blockIdx.x) * n;
  Welford acc{0.0f, 0.0f, 0.0f};
  float items[Items];
  for (int base = 0; base < n; base += Threads * Items)
  {
    Load().Load(row + base, items);
    float s = 0.0f;
    for (int j = 0; j < Items; ++j)
    {
      s += items[j];
    }
    const float tm = s * (1.0f / Items);
    float tq       = 0.0f;
    for (int j = 0; j < Items; ++j)
    {
      const float d = items[j] - tm;
      tq += d * d;
    }
    acc = WelfordCombine()(acc, Welford{float(Items), tm, tq});
  }
  const Welford r = Reduce(ts).Reduce(acc, WelfordCombine());
  if (threadIdx.x == 0)
  {
    out_mean[blockIdx.x] = r.mean;
    out_rstd[blockIdx.x] = 1.0f / sqrtf(r.m2 / r.n + EPS);
  }
}

struct Affine
{
  float a, b;
}; // h -> a * h + b
struct Compose // p, then q
{
  __device__ __forceinline__ Affine operator()(const Affine& p, const Affine& q) const
  {
    return {p.a * q.a, q.a * p.b + q.b};
  }
};
struct RunningAffine // CUB's BlockPrefixCallbackOp: the map of all tiles so far
{
  Affine running;
  __device__ __forceinline__ Affine operator()(const Affine& aggregate)
  {
    const Affine prefix = running;
    running             = Compose()(running, aggregate);
    return prefix;
  }
};

template <int Threads, int Items>
__global__ void __launch_bounds__(Threads) cub_recurrence(const float* a, const float* b, float* h)
{
  using Load  = cub::BlockLoad<float, Threads, Items, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Scan  = cub::BlockScan<Affine, Threads>;
  using Store = cub::BlockStore<float, Threads, Items, cub::BLOCK_STORE_WARP_TRANSPOSE>;
  __shared__ union
  {
    typename Load::TempStorage load;
    typename Scan::TempStorage scan;
    typename Store::TempStorage store;
  } ts;
  RunningAffine prefix{{1.0f, 0.0f}};
  for (int t = 0; t < ROW / (Threads * Items); ++t)
  {
    const size_t base = size_t(blockIdx.x) * ROW + size_t(t) * Threads * Items;
    float xa[Items], xb[Items];
    Load(ts.load).Load(a + base, xa);
    __syncthreads();
    Load(ts.load).Load(b + base, xb);
    __syncthreads();
    Affine items[Items];
    for (int j = 0; j < Items; ++j)
    {
      items[j] = Affine{xa[j], xb[j]};
    }
    Scan(ts.scan).InclusiveScan(items, items, Compose(), prefix);
    __syncthreads();
    for (int j = 0; j < Items; ++j)
    {
      xb[j] = items[j].b;
    }
    Store(ts.store).Store(h + base, xb);
    __syncthreads();
  }
}

struct Complex
{
  float re, im;
};
struct ComplexSum
{
  __device__ __forceinline__ Complex operator()(const Complex& p, const Complex& q) const
  {
    return {p.re + q.re, p.im + q.im};
  }
};

// m: the number of floats (twice the complex count); Index: int, or long long as Numba's loop runs
template <int Threads, int Items, typename Index>
__global__ void __launch_bounds__(Threads) cub_complex_sum(const float* src, float* out, Index m)
{
  using Load   = cub::BlockLoad<float, Threads, 2 * Items, cub::BLOCK_LOAD_VECTORIZE>;
  using Reduce = cub::BlockReduce<Complex, Threads>;
  __shared__ typename Reduce::TempStorage ts;
  Complex acc[Items];
  for (int j = 0; j < Items; ++j)
  {
    acc[j] = Complex{0.0f, 0.0f};
  }
  float items[2 * Items];
  const Index tile = 2 * Threads * Items;
  for (Index base = Index(blockIdx.x) * tile; base < m; base += Index(gridDim.x) * tile)
  {
    Load().Load(src + base, items);
    for (int j = 0; j < Items; ++j)
    {
      acc[j].re += items[2 * j];
      acc[j].im += items[2 * j + 1];
    }
  }
  const Complex total = Reduce(ts).Reduce(acc, ComplexSum());
  if (threadIdx.x == 0)
  {
    atomicAdd(out, total.re);
    atomicAdd(out + 1, total.im);
  }
}
