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

struct Less {
  __device__ bool operator()(int a, int b) const { return a < b; }
};

template <int THREADS, int WIDTH>
__global__ void exchange(const int* in, int* out) {
  using Exchange = cub::WarpExchange<int, ITEMS, WIDTH>;
  constexpr int WARPS = THREADS / WIDTH;
  __shared__ typename Exchange::TempStorage temp[WARPS];
  const int warp = threadIdx.x / WIDTH;
  int items[ITEMS];
  for (int i = 0; i < ITEMS; ++i) items[i] = in[threadIdx.x * ITEMS + i];
  Exchange(temp[warp]).BlockedToStriped(items, items);
  for (int i = 0; i < ITEMS; ++i) out[threadIdx.x * ITEMS + i] = items[i];
}

template <int THREADS, int WIDTH>
__global__ void scatter(const int* in, const int* ranks, int* out) {
  using Exchange = cub::WarpExchange<int, ITEMS, WIDTH>;
  constexpr int WARPS = THREADS / WIDTH;
  __shared__ typename Exchange::TempStorage temp[WARPS];
  const int warp = threadIdx.x / WIDTH;
  int items[ITEMS], rank[ITEMS];
  for (int i = 0; i < ITEMS; ++i) {
    items[i] = in[threadIdx.x * ITEMS + i];
    rank[i] = ranks[threadIdx.x * ITEMS + i];
  }
  Exchange(temp[warp]).ScatterToStriped(items, rank);
  for (int i = 0; i < ITEMS; ++i) out[threadIdx.x * ITEMS + i] = items[i];
}

template <int THREADS, int WIDTH>
__global__ void merge_sort_partial(const int* in, int* out, int valid) {
  using Sort = cub::WarpMergeSort<int, ITEMS, WIDTH>;
  constexpr int WARPS = THREADS / WIDTH;
  __shared__ typename Sort::TempStorage temp[WARPS];
  const int warp = threadIdx.x / WIDTH;
  int items[ITEMS];
  for (int i = 0; i < ITEMS; ++i) items[i] = in[threadIdx.x * ITEMS + i];
  Sort(temp[warp]).Sort(items, Less{}, valid, 1 << 30);
  for (int i = 0; i < ITEMS; ++i) out[threadIdx.x * ITEMS + i] = items[i];
}

template <int THREADS, int WIDTH>
__global__ void merge_sort(const int* in, int* out) {
  using Sort = cub::WarpMergeSort<int, ITEMS, WIDTH>;
  constexpr int WARPS = THREADS / WIDTH;
  __shared__ typename Sort::TempStorage temp[WARPS];
  const int warp = threadIdx.x / WIDTH;
  int items[ITEMS];
  for (int i = 0; i < ITEMS; ++i) items[i] = in[threadIdx.x * ITEMS + i];
  Sort(temp[warp]).Sort(items, Less{});
  for (int i = 0; i < ITEMS; ++i) out[threadIdx.x * ITEMS + i] = items[i];
}

template <int THREADS, int WIDTH>
void run() {
  const int n = THREADS * ITEMS;
  std::vector<int> host(n), got(n), want(n);
  unsigned seed = 12345u + THREADS * 7u + WIDTH;
  for (int i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    host[i] = static_cast<int>(seed >> 8) % 1000;
  }
  int *in, *out;
  cudaMalloc(&in, n * sizeof(int));
  cudaMalloc(&out, n * sizeof(int));
  cudaMemcpy(in, host.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  const int tile = WIDTH * ITEMS;
  // exchange: lane l of a logical warp gets the warp tile's items l, l + WIDTH, l + 2 WIDTH, ...
  for (int t = 0; t < THREADS; ++t) {
    const int w = t / WIDTH, l = t % WIDTH;
    for (int i = 0; i < ITEMS; ++i) {
      const int rank = i * WIDTH + l;  // striped position
      want[t * ITEMS + i] = host[w * tile + rank];
    }
  }
  cudaMemset(out, 0xff, n * sizeof(int));
  exchange<THREADS, WIDTH><<<1, THREADS>>>(in, out);
  cudaMemcpy(got.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost);
  printf("{\"primitive\": \"WarpExchange\", \"threads\": %d, \"width\": %d, \"ok\": %s}\n", THREADS, WIDTH,
         got == want ? "true" : "false");
  for (int w = 0; w < THREADS / WIDTH; ++w) {  // each logical warp's tile sorted, blocked
    std::vector<int> part(host.begin() + w * tile, host.begin() + (w + 1) * tile);
    std::sort(part.begin(), part.end());
    std::copy(part.begin(), part.end(), want.begin() + w * tile);
  }
  cudaMemset(out, 0xff, n * sizeof(int));
  merge_sort<THREADS, WIDTH><<<1, THREADS>>>(in, out);
  cudaMemcpy(got.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost);
  printf("{\"primitive\": \"WarpMergeSort\", \"threads\": %d, \"width\": %d, \"ok\": %s}\n", THREADS, WIDTH,
         got == want ? "true" : "false");
  // scatter: each logical warp's tile permuted by ranks (a rotation of its positions by 3)
  std::vector<int> ranks(n);
  for (int t = 0; t < THREADS; ++t) {
    for (int i = 0; i < ITEMS; ++i) ranks[t * ITEMS + i] = ((t % WIDTH) * ITEMS + i + 3) % tile;
  }
  for (int t = 0; t < THREADS; ++t) {  // striped result: lane l item i holds the item of rank i*W+l
    const int w = t / WIDTH, l = t % WIDTH;
    for (int i = 0; i < ITEMS; ++i) {
      const int rank = i * WIDTH + l;
      const int from = (rank - 3 + tile) % tile;  // the blocked position that has this rank
      want[t * ITEMS + i] = host[w * tile + from];
    }
  }
  int* dranks;
  cudaMalloc(&dranks, n * sizeof(int));
  cudaMemcpy(dranks, ranks.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(out, 0xff, n * sizeof(int));
  scatter<THREADS, WIDTH><<<1, THREADS>>>(in, dranks, out);
  cudaMemcpy(got.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost);
  printf("{\"primitive\": \"WarpExchange::ScatterToStriped\", \"threads\": %d, \"width\": %d, \"ok\": %s}\n",
         THREADS, WIDTH, got == want ? "true" : "false");
  // a partial tile: the first `valid` items of each logical warp's tile sorted, the rest the default
  const int valid = tile - 5;
  for (int w = 0; w < THREADS / WIDTH; ++w) {
    std::vector<int> part(host.begin() + w * tile, host.begin() + w * tile + valid);
    part.resize(tile, 1 << 30);
    std::sort(part.begin(), part.end());
    std::copy(part.begin(), part.end(), want.begin() + w * tile);
  }
  cudaMemset(out, 0xff, n * sizeof(int));
  merge_sort_partial<THREADS, WIDTH><<<1, THREADS>>>(in, out, valid);
  cudaMemcpy(got.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost);
  printf("{\"primitive\": \"WarpMergeSort(valid_items)\", \"threads\": %d, \"width\": %d, \"ok\": %s}\n",
         THREADS, WIDTH, got == want ? "true" : "false");
  cudaFree(dranks);
  cudaFree(in);
  cudaFree(out);
}

int main() {
  run<40, 8>();   // the issue's case: 5 logical warps, the last in a hardware warp of 8 lanes
  run<36, 4>();
  run<34, 2>();
  run<48, 16>();
  run<96, 16>();  // whole hardware warps: the control
  const cudaError_t err = cudaDeviceSynchronize();
  printf("{\"cuda\": \"%s\"}\n", cudaGetErrorString(err));
  return err == cudaSuccess ? 0 : 1;
}
