// SPDX-License-Identifier: Apache-2.0
// Issue 22's prototype of a one-kernel grid scan (benchmarks/grid_proto.py; its docstring says what
// it checks and times): CUB's ScanTileState and TilePrefixCallbackOp (decoupled look-back), block
// order by an atomic ticket, and a workspace of a header and two tile-state areas that alternate
// between launches. Its own layout, not coop/grid.cuh's (the catalog row came after). The script
// defines GRID_PROTO_BLOCK and GRID_PROTO_ITEMS and adds an extern "C" kernel per item type.
#include <cub/agent/single_pass_scan_operators.cuh>
#include <cub/block/block_scan.cuh>

struct coop_int3
{
  int x, y, z;
};
__device__ __forceinline__ coop_int3 operator+(coop_int3 a, coop_int3 b)
{
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}

// The workspace: this header, then two tile-state areas, each on a 256-byte boundary; launch e scans
// in area e % 2 and invalidates, for the next launch, area (e + 1) % 2.
struct alignas(16) coop_grid_header
{
  unsigned int ticket; // tiles handed out in this launch
  unsigned int done; // blocks that finished their scan in this launch
  unsigned int epoch; // launches so far
  unsigned int capacity; // tiles per area
};
constexpr size_t COOP_GRID_AREAS_AT = 256;

template <typename T>
struct coop_grid
{
  using TileState = cub::ScanTileState<T>;

  static __host__ __device__ size_t area_stride(unsigned int capacity)
  {
    size_t bytes = 0;
    TileState::AllocationSize(int(capacity), bytes);
    return (bytes + 255) & ~size_t(255);
  }
  static __device__ __forceinline__ TileState area(void* ws, unsigned int capacity, unsigned int epoch)
  {
    size_t bytes = 0;
    TileState::AllocationSize(int(capacity), bytes);
    TileState state;
    char* at = static_cast<char*>(ws) + COOP_GRID_AREAS_AT + (epoch & 1u) * area_stride(capacity);
    state.Init(int(capacity), at, bytes);
    return state;
  }
  static __device__ __forceinline__ void invalidate(cub::ScanTileState<T, true>& s, int tile)
  {
    typename TileState::TxnWord word{};
    reinterpret_cast<typename TileState::TileDescriptor*>(&word)->status =
      typename TileState::StatusWord(cub::SCAN_TILE_INVALID);
    s.d_tile_descriptors[TileState::TILE_STATUS_PADDING + tile] = word;
  }
  static __device__ __forceinline__ void invalidate(cub::ScanTileState<T, false>& s, int tile)
  {
    using Status                                           = typename TileState::StatusWord;
    s.d_tile_status[TileState::TILE_STATUS_PADDING + tile] = Status(cub::SCAN_TILE_INVALID);
  }
};

// One thread per tile of both areas (CUB's own InitializeStatus), and the header.
template <typename T>
__device__ void coop_grid_init(void* ws, unsigned int capacity)
{
  if (blockIdx.x == 0 && threadIdx.x == 0)
  {
    *static_cast<coop_grid_header*>(ws) = coop_grid_header{0, 0, 0, capacity};
  }
  for (unsigned int e = 0; e < 2; ++e)
  {
    auto state = coop_grid<T>::area(ws, capacity, e);
    state.InitializeStatus(int(capacity));
  }
}

__device__ __forceinline__ int coop_grid_tile_index(void* ws, int* slot)
{
  coop_grid_header* h = static_cast<coop_grid_header*>(ws);
  if (threadIdx.x == 0)
  {
    if (gridDim.x * gridDim.y * gridDim.z > h->capacity)
    {
      __trap();
    }
    *slot = int(atomicAdd(&h->ticket, 1u));
  }
  __syncthreads();
  return *slot;
}

template <typename T, int BLOCK_THREADS, int ITEMS_PER_THREAD>
struct coop_grid_exclusive_sum
{
  using BlockScanT = cub::BlockScan<T, BLOCK_THREADS>;
  using Prefix     = cub::TilePrefixCallbackOp<T, ::cuda::std::plus<>, typename coop_grid<T>::TileState>;
  struct TempStorage
  {
    typename BlockScanT::TempStorage scan;
    typename Prefix::TempStorage prefix;
  };

  static __device__ __forceinline__ void
  run(TempStorage& ts, T (&items)[ITEMS_PER_THREAD], T (&out)[ITEMS_PER_THREAD], void* ws, int tile, T& through)
  {
    coop_grid_header* h         = static_cast<coop_grid_header*>(ws);
    const unsigned int grid     = gridDim.x * gridDim.y * gridDim.z;
    const unsigned int capacity = h->capacity;
    const unsigned int epoch    = *reinterpret_cast<volatile unsigned int*>(&h->epoch);
    auto state                  = coop_grid<T>::area(ws, capacity, epoch);
    auto next                   = coop_grid<T>::area(ws, capacity, epoch + 1);
    for (unsigned int i = tile + threadIdx.x * grid; i < capacity; i += BLOCK_THREADS * grid)
    {
      coop_grid<T>::invalidate(next, int(i));
    }
    if (tile == 0)
    {
      T aggregate;
      BlockScanT(ts.scan).ExclusiveSum(items, out, aggregate);
      if (threadIdx.x == 0)
      {
        state.SetInclusive(0, aggregate);
      }
      through = aggregate;
    }
    else
    {
      Prefix prefix(state, ts.prefix, ::cuda::std::plus<>{}, tile);
      BlockScanT(ts.scan).ExclusiveSum(items, out, prefix);
      __syncthreads();
      through = prefix.GetInclusivePrefix();
    }
    __syncthreads();
    if (threadIdx.x == 0)
    {
      __threadfence();
      if (atomicAdd(&h->done, 1u) == grid - 1)
      {
        __threadfence();
        h->ticket = 0;
        h->done   = 0;
        h->epoch  = epoch + 1;
      }
    }
  }
};

constexpr int GRID_PROTO_TILE = GRID_PROTO_BLOCK * GRID_PROTO_ITEMS;

// The exclusive cumsum kernel of item type T: a ticket, an optional pseudo-random delay per tile (so
// that blocks finish out of order), the block's items, the scan, the tile's inclusive prefix.
template <typename T>
__device__ __forceinline__ void
grid_proto_cumsum(const T* src, T* dst, T* through_out, void* ws, long long n, unsigned int delay)
{
  using Scan = coop_grid_exclusive_sum<T, GRID_PROTO_BLOCK, GRID_PROTO_ITEMS>;
  __shared__ typename Scan::TempStorage ts;
  __shared__ int slot;
  const int tile = coop_grid_tile_index(ws, &slot);
  if (delay) // blocks finish out of order: a pseudo-random wait per tile
  {
    const unsigned int ns = (unsigned(tile) * 2654435761u >> 20) % delay;
    for (unsigned int k = 0; k < ns; k += 1000)
    {
      __nanosleep(1000);
    }
  }
  const T coop_zero{};
  T items[GRID_PROTO_ITEMS], out[GRID_PROTO_ITEMS];
  const long long base = (long long) tile * GRID_PROTO_TILE + threadIdx.x * GRID_PROTO_ITEMS;
  for (int j = 0; j < GRID_PROTO_ITEMS; ++j)
  {
    items[j] = base + j < n ? src[base + j] : coop_zero;
  }
  T through;
  Scan::run(ts, items, out, ws, tile, through);
  for (int j = 0; j < GRID_PROTO_ITEMS; ++j)
  {
    if (base + j < n)
    {
      dst[base + j] = out[j];
    }
  }
  if (threadIdx.x == 0)
  {
    through_out[tile] = through;
  }
}
