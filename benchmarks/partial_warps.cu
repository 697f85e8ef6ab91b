// SPDX-License-Identifier: Apache-2.0
// Issue 46, item 5: do CUB's shared-memory warp primitives race on logical warps in a block that
// is not whole hardware warps? WarpExchange (BlockedToStriped, ScatterToStriped with ranks: the
// calls independent checks found wrong through coop) and WarpMergeSort (all items, and a partial
// tile with valid_items and an out-of-bounds default) on logical warps
// of WIDTH lanes, in a block of THREADS threads (THREADS % 32 != 0, THREADS % WIDTH == 0), one
// TempStorage per logical warp, as CUB's documentation writes them. Each line printed is
// {"primitive": ..., "threads": T, "width": W, "ok": true/false}; run the binary under
// compute-sanitizer --tool racecheck (and synccheck) to see whether CUB itself races.
#include <cub/warp/warp_exchange.cuh>
#include <cub/warp/warp_merge_sort.cuh>

#include <algorithm>
#include <cstdio>
#include <vector>

constexpr int ITEMS = 4;

struct Less
{
  __device__ bool operator()(int a, int b) const
  {
    return a < b;
  }
};

enum class Op
{
  BlockedToStriped,
  ScatterToStriped,
  Sort,
  SortPartial
};

// One logical warp's call of `OP` on the thread's ITEMS items: the items (and ranks) read blocked
// from global memory, the call on the logical warp's own TempStorage, the items written back. The
// slices are one union of both classes' TempStorage per logical warp, as coop slices warp scratch.
template <Op OP, int THREADS, int WIDTH>
__global__ void warp_call(const int* in, const int* ranks, int* out, int valid)
{
  using Exchange = cub::WarpExchange<int, ITEMS, WIDTH>;
  using Sort     = cub::WarpMergeSort<int, ITEMS, WIDTH>;
  __shared__ union
  {
    typename Exchange::TempStorage exchange;
    typename Sort::TempStorage sort;
  } temp[THREADS / WIDTH];
  const int warp = threadIdx.x / WIDTH;
  int items[ITEMS], rank[ITEMS];
  for (int i = 0; i < ITEMS; ++i)
  {
    items[i] = in[threadIdx.x * ITEMS + i];
    rank[i]  = ranks[threadIdx.x * ITEMS + i];
  }
  if constexpr (OP == Op::BlockedToStriped)
  {
    Exchange(temp[warp].exchange).BlockedToStriped(items, items);
  }
  else if constexpr (OP == Op::ScatterToStriped)
  {
    Exchange(temp[warp].exchange).ScatterToStriped(items, rank);
  }
  else if constexpr (OP == Op::Sort)
  {
    Sort(temp[warp].sort).Sort(items, Less{});
  }
  else
  {
    Sort(temp[warp].sort).Sort(items, Less{}, valid, 1 << 30);
  }
  for (int i = 0; i < ITEMS; ++i)
  {
    out[threadIdx.x * ITEMS + i] = items[i];
  }
}

// Launch `OP` on one block, compare the first `valid` items of each logical warp's tile with `want`
// (past valid_items, a partial sort leaves its items unspecified, as CUB documents) and print the line.
template <Op OP, int THREADS, int WIDTH>
void check(const char* name, const int* in, const int* ranks, int* out, int valid, const std::vector<int>& want)
{
  std::vector<int> got(want.size());
  cudaMemset(out, 0xff, want.size() * sizeof(int));
  warp_call<OP, THREADS, WIDTH><<<1, THREADS>>>(in, ranks, out, valid);
  cudaMemcpy(got.data(), out, want.size() * sizeof(int), cudaMemcpyDeviceToHost);
  bool ok = true;
  for (size_t i = 0; i < want.size(); ++i)
  {
    ok = ok && (int(i % (WIDTH * ITEMS)) >= valid || got[i] == want[i]);
  }
  printf("{\"primitive\": \"%s\", \"threads\": %d, \"width\": %d, \"ok\": %s}\n",
         name,
         THREADS,
         WIDTH,
         ok ? "true" : "false");
}

template <int THREADS, int WIDTH>
void run()
{
  constexpr int n = THREADS * ITEMS, tile = WIDTH * ITEMS, warps = THREADS / WIDTH;
  std::vector<int> host(n), ranks(n), want(n);
  unsigned seed = 12345u + THREADS * 7u + WIDTH;
  for (int i = 0; i < n; ++i)
  {
    seed    = seed * 1664525u + 1013904223u;
    host[i] = static_cast<int>(seed >> 8) % 1000;
  }
  for (int t = 0; t < THREADS; ++t)
  { // each logical warp's tile permuted: a rotation by 3
    for (int i = 0; i < ITEMS; ++i)
    {
      ranks[t * ITEMS + i] = ((t % WIDTH) * ITEMS + i + 3) % tile;
    }
  }
  int *in, *dranks, *out;
  cudaMalloc(&in, n * sizeof(int));
  cudaMalloc(&dranks, n * sizeof(int));
  cudaMalloc(&out, n * sizeof(int));
  cudaMemcpy(in, host.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(dranks, ranks.data(), n * sizeof(int), cudaMemcpyHostToDevice);

  // striped: lane l of a logical warp holds the items of striped ranks l, l + WIDTH, ...; the item
  // of rank r came from blocked position r (BlockedToStriped) or r - 3 (the rotation's ScatterToStriped)
  auto striped = [&](int shift) {
    for (int t = 0; t < THREADS; ++t)
    {
      for (int i = 0; i < ITEMS; ++i)
      {
        const int rank      = i * WIDTH + t % WIDTH;
        want[t * ITEMS + i] = host[t / WIDTH * tile + (rank - shift + tile) % tile];
      }
    }
    return want;
  };
  // sorted: each logical warp's first `valid` items sorted (the rest, unspecified, are not compared)
  auto sorted = [&](int valid) {
    for (int w = 0; w < warps; ++w)
    {
      std::vector<int> part(host.begin() + w * tile, host.begin() + w * tile + valid);
      part.resize(tile, 1 << 30);
      std::sort(part.begin(), part.end());
      std::copy(part.begin(), part.end(), want.begin() + w * tile);
    }
    return want;
  };
  check<Op::BlockedToStriped, THREADS, WIDTH>("WarpExchange", in, dranks, out, tile, striped(0));
  check<Op::ScatterToStriped, THREADS, WIDTH>("WarpExchange::ScatterToStriped", in, dranks, out, tile, striped(3));
  check<Op::Sort, THREADS, WIDTH>("WarpMergeSort", in, dranks, out, tile, sorted(tile));
  check<Op::SortPartial, THREADS, WIDTH>("WarpMergeSort(valid_items)", in, dranks, out, tile - 5, sorted(tile - 5));
  cudaFree(dranks);
  cudaFree(in);
  cudaFree(out);
}

int main()
{
  run<40, 8>(); // the issue's case: 5 logical warps, the last in a hardware warp of 8 lanes
  run<36, 4>();
  run<34, 2>();
  run<48, 16>();
  run<96, 16>(); // whole hardware warps: the control
  const cudaError_t err = cudaDeviceSynchronize();
  printf("{\"cuda\": \"%s\"}\n", cudaGetErrorString(err));
  return err == cudaSuccess ? 0 : 1;
}
