// SPDX-License-Identifier: Apache-2.0
// coop.grid.*: what every unit with a grid request includes: the workspace's header and tile-state
// areas (coop.grid.ScanState lays them out the same way on the host), the class template of
// coop.grid.tile_index (coop_grid_tile) and that of the grid scans (coop_grid_scan).
#pragma once

#include <cub/agent/single_pass_scan_operators.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/util_ptx.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/functional>
#include <cuda/std/type_traits>

// coop's grid scans: CUB's BlockScan whose prefix callback is CUB's decoupled look-back
// (TilePrefixCallbackOp) on a cub::ScanTileState in the caller's workspace (coop.grid.ScanState):
// a header, then two tile-state areas on 256-byte boundaries. Launch e scans in area e % 2 and its
// blocks reset area (e + 1) % 2 for the next launch (the launch before used it and has ended); the
// last tile, once its look-back is done, resets the tickets and advances e. Only the workspace's
// creation initialises it.
using coop_grid_words = unsigned long long*; // the workspace, as the kernel passes it

// Every block reads the first 16 bytes once (one L2 request, not cached in L1) and takes a ticket
// with one atomic; the ticket has a 128-byte line of its own, so that the atomics of every block of
// the grid do not queue the header's reads behind them.
struct alignas(16) coop_grid_header
{
  unsigned int magic; // coop.grid.MAGIC: an initialised workspace
  unsigned int layout; // sizeof(T) << 1 | single word
  unsigned int capacity; // tiles per area
  unsigned int epoch; // launches so far
  unsigned int unused[28];
  unsigned int ticket; // tiles handed out in this launch (byte 128)

  static constexpr unsigned int MAGIC = 0x706F6F63u; // coop.grid.MAGIC
  static constexpr unsigned int BYTES = 256; // coop.grid.HEADER_BYTES: the areas follow

  // magic, layout, capacity, epoch
  static __device__ __forceinline__ uint4 read(coop_grid_words ws)
  {
    return __ldcg(reinterpret_cast<const uint4*>(ws));
  }
};

template <typename T>
struct coop_grid_area
{
  static constexpr bool single         = sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8;
  using State                          = cub::ScanTileState<T, single>;
  static constexpr unsigned int layout = (unsigned(sizeof(T)) << 1) | unsigned(single);
  static constexpr int padding         = State::TILE_STATUS_PADDING;

  static __device__ __forceinline__ size_t round(size_t n)
  {
    return (n + 255) & ~size_t(255);
  }
  // an area: the statuses (one TxnWord each, with the values where `single`), then partial and
  // inclusive values, each on 256 bytes (coop.grid.area_bytes)
  static __device__ __forceinline__ size_t status_bytes(unsigned int capacity)
  {
    if constexpr (single)
    {
      return round((padding + size_t(capacity)) * sizeof(typename State::TxnWord));
    }
    else
    {
      return round((padding + size_t(capacity)) * sizeof(typename State::StatusWord));
    }
  }
  static __device__ __forceinline__ size_t values_bytes(unsigned int capacity)
  {
    return single ? 0 : round((padding + size_t(capacity)) * sizeof(T));
  }
  static __device__ __forceinline__ size_t bytes(unsigned int capacity)
  {
    return status_bytes(capacity) + 2 * values_bytes(capacity);
  }
  // The tile states of the area that launch `epoch` scans in.
  static __device__ __forceinline__ State at(coop_grid_words ws, unsigned int capacity, unsigned epoch)
  {
    char* base = reinterpret_cast<char*>(ws) + coop_grid_header::BYTES + (epoch & 1u) * bytes(capacity);
    State state;
    if constexpr (single)
    {
      state.d_tile_descriptors = reinterpret_cast<typename State::TxnWord*>(base);
    }
    else
    {
      const size_t status    = status_bytes(capacity);
      state.d_tile_status    = reinterpret_cast<typename State::StatusWord*>(base);
      state.d_tile_partial   = reinterpret_cast<T*>(base + status);
      state.d_tile_inclusive = reinterpret_cast<T*>(base + status + values_bytes(capacity));
    }
    return state;
  }
  static __device__ __forceinline__ void invalidate(State& state, unsigned int tile)
  {
    if constexpr (single)
    {
      // the status alone (no launch reads this area before the next one; a whole TxnWord of
      // constants can make ptxas spill around the loop to build the 16-byte store)
      reinterpret_cast<typename State::TileDescriptor*>(state.d_tile_descriptors + padding + tile)->status =
        typename State::StatusWord(cub::SCAN_TILE_INVALID);
    }
    else
    {
      state.d_tile_status[padding + tile] = typename State::StatusWord(cub::SCAN_TILE_INVALID);
    }
  }
};

// Which tile coop.grid.tile_index hands a block (coop.GridTileOrder).
enum class coop_grid_tile_order
{
  ticket, // in the order blocks reach the call: an atomic on the workspace, shared by a barrier
  block, // the block's linear index, as CUB's DeviceScan and DeviceSelect take it
};

// The block's tile: a ticket (thread 0 takes it, the block shares it) or the block's linear index.
template <int BLOCK_DIM_X, int BLOCK_DIM_Y, int BLOCK_DIM_Z, coop_grid_tile_order ORDER>
class coop_grid_tile
{
public:
  struct TempStorage
  {
    int tile;
  };
  __device__ __forceinline__ explicit coop_grid_tile(TempStorage& storage)
      : storage_(storage)
  {}
  __device__ __forceinline__ int Take(coop_grid_words ws)
  {
    if constexpr (ORDER == coop_grid_tile_order::block)
    {
      // no read of the workspace: the scan's first warp checks its header before any write (Open)
      return int(blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z));
    }
    else
    {
      coop_grid_header* h = reinterpret_cast<coop_grid_header*>(ws);
      if (cub::RowMajorTid(BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z) == 0)
      {
        const uint4 header = coop_grid_header::read(ws);
        if (header.x != coop_grid_header::MAGIC || gridDim.x * gridDim.y * gridDim.z > header.z)
        {
          __trap(); // not a coop.grid.ScanState, or one for fewer tiles than this grid's blocks
        }
        storage_.tile = int(atomicAdd(&h->ticket, 1u));
      }
      __syncthreads();
      return storage_.tile;
    }
  }

private:
  TempStorage& storage_;
};

// The look-back's backoff while predecessors are not ready: CUB's DeviceScan tuning for sm_90 and
// later (cub/device/dispatch/tuning/tuning_scan.cuh: sums of primitive items, by size, float and
// double apart), else TilePrefixCallbackOp's default (350, 450). What it gives the one-kernel
// cumsum: benchmarks/RESULTS.md ("Grid scans at CUB's speed").
template <typename T, bool SUM>
struct coop_grid_delay
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  static constexpr bool tuned =
    SUM && ::cuda::std::is_arithmetic_v<T> && !::cuda::std::is_same_v<T, bool> && sizeof(T) <= 8;
  static constexpr bool fp           = ::cuda::std::is_floating_point_v<T>;
  static constexpr unsigned int size = sizeof(T);
  static constexpr unsigned int delay =
    size == 1   ? 168
    : size == 2 ? 376
    : size == 4 ? (fp ? 688 : 648)
                : (fp ? 576 : 632);
  static constexpr unsigned int l2_write =
    size == 1   ? 1140
    : size == 2 ? 1125
    : size == 4 ? (fp ? 1140 : 1245)
                : (fp ? 1215 : 1290);
  using type = ::cuda::std::conditional_t<tuned,
                                          cub::detail::fixed_delay_constructor_t<delay, l2_write>,
                                          cub::detail::default_delay_constructor_t<T>>;
#else
  using type = cub::detail::default_delay_constructor_t<T>;
#endif
};

template <typename T, int BLOCK_DIM_X, cub::BlockScanAlgorithm ALGORITHM, int BLOCK_DIM_Y, int BLOCK_DIM_Z>
class coop_grid_scan
{
  using BlockScanT = cub::BlockScan<T, BLOCK_DIM_X, ALGORITHM, BLOCK_DIM_Y, BLOCK_DIM_Z>;
  using Area       = coop_grid_area<T>;
  using State      = typename Area::State;
  template <typename Op>
  using Delay = typename coop_grid_delay<T, ::cuda::std::is_same_v<Op, ::cuda::std::plus<>>>::type;
  template <typename Op>
  using Prefix                 = cub::TilePrefixCallbackOp<T, Op, State, Delay<Op>>;
  static constexpr int THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
  enum Mode
  {
    EXCLUSIVE_SUM,
    INCLUSIVE_SUM,
    EXCLUSIVE_SCAN,
    INCLUSIVE_SCAN
  };

public:
  struct TempStorage
  {
    typename BlockScanT::TempStorage scan;
    typename Prefix<::cuda::std::plus<>>::TempStorage prefix; // its layout is the operator's for any
  };

  __device__ __forceinline__ explicit coop_grid_scan(TempStorage& storage)
      : storage_(storage)
  {}

  // ``results``: what the caller asks for besides the items, in this order: the inclusive prefix
  // through this tile (``total``), then, when PREFIX, the tile's exclusive prefix (``tile_prefix``)
  template <bool PREFIX, int N, typename... Results>
  __device__ __forceinline__ void ExclusiveSum(T (&x)[N], T (&out)[N], coop_grid_words ws, int tile, Results&... results)
  {
    Run<EXCLUSIVE_SUM, false, PREFIX>(x, out, ::cuda::std::plus<>{}, x[0], ws, tile, results...);
  }
  template <bool PREFIX, int N, typename... Results>
  __device__ __forceinline__ void InclusiveSum(T (&x)[N], T (&out)[N], coop_grid_words ws, int tile, Results&... results)
  {
    Run<INCLUSIVE_SUM, false, PREFIX>(x, out, ::cuda::std::plus<>{}, x[0], ws, tile, results...);
  }
  template <bool PREFIX, int N, typename Op, typename... Results>
  __device__ __forceinline__ void
  ExclusiveScan(T (&x)[N], T (&out)[N], Op op, coop_grid_words ws, int tile, Results&... results)
  {
    Run<EXCLUSIVE_SCAN, false, PREFIX>(x, out, op, x[0], ws, tile, results...);
  }
  template <bool PREFIX, int N, typename Op, typename... Results>
  __device__ __forceinline__ void
  ExclusiveScanInit(T (&x)[N], T (&out)[N], T& init, Op op, coop_grid_words ws, int tile, Results&... results)
  {
    Run<EXCLUSIVE_SCAN, true, PREFIX>(x, out, op, init, ws, tile, results...);
  }
  template <bool PREFIX, int N, typename Op, typename... Results>
  __device__ __forceinline__ void
  InclusiveScan(T (&x)[N], T (&out)[N], Op op, coop_grid_words ws, int tile, Results&... results)
  {
    Run<INCLUSIVE_SCAN, false, PREFIX>(x, out, op, x[0], ws, tile, results...);
  }
  template <bool PREFIX, int N, typename Op, typename... Results>
  __device__ __forceinline__ void
  InclusiveScanInit(T (&x)[N], T (&out)[N], T& init, Op op, coop_grid_words ws, int tile, Results&... results)
  {
    Run<INCLUSIVE_SCAN, true, PREFIX>(x, out, op, init, ws, tile, results...);
  }

private:
  TempStorage& storage_;

  // CUB's look-back on the tile states that the header names, as BlockScan's prefix callback. The
  // first warp opens the workspace (checks the header, resets its share of the next launch's area)
  // at its first use of it, before any write: a workspace for another item size or fewer tiles is
  // refused before it is written.
  template <typename Op>
  struct Lookback
  {
    uint4 header;
    coop_grid_words ws;
    int tile;
    unsigned int grid;
    int rank;
    typename Prefix<Op>::TempStorage& storage;
    Op op;
    State state; // set by Open

    // the whole first warp
    __device__ __forceinline__ void Open()
    {
      if (header.x != coop_grid_header::MAGIC || header.y != Area::layout || grid > header.z || unsigned(tile) >= grid)
      {
        __trap(); // not a workspace for items of this size and this grid, or not this launch's tile
      }
      state      = Area::at(ws, header.z, header.w);
      State next = Area::at(ws, header.z, header.w + 1);
      for (unsigned int i = unsigned(tile) + unsigned(rank) * grid; i < header.z; i += 32u * grid)
      {
        Area::invalidate(next, i);
      }
    }
    // the whole first warp: the tile's exclusive prefix
    __device__ __forceinline__ T operator()(T aggregate)
    {
      Open();
      return Prefix<Op>(state, storage, op, tile)(aggregate);
    }
    // after a barrier that follows the look-back
    __device__ __forceinline__ T ExclusivePrefix()
    {
      return Prefix<Op>(state, storage, op, tile).GetExclusivePrefix();
    }
    __device__ __forceinline__ T InclusivePrefix()
    {
      return Prefix<Op>(state, storage, op, tile).GetInclusivePrefix();
    }
  };

  // The tile's block scan; ``last`` is the block's aggregate (a T: the tile alone) or the look-back's
  // prefix callback (CUB's BlockScan overloads on it; no initial value with a callback)
  template <Mode MODE, bool INIT, int N, typename Op, typename Last>
  __device__ __forceinline__ void Scan(T (&x)[N], T (&out)[N], Op op, const T& init, Last& last)
  {
    BlockScanT scan(storage_.scan);
    if constexpr (MODE == EXCLUSIVE_SUM)
    {
      scan.ExclusiveSum(x, out, last);
    }
    else if constexpr (MODE == INCLUSIVE_SUM)
    {
      scan.InclusiveSum(x, out, last);
    }
    else if constexpr (MODE == EXCLUSIVE_SCAN)
    {
      if constexpr (INIT)
      {
        scan.ExclusiveScan(x, out, init, op, last);
      }
      else
      {
        scan.ExclusiveScan(x, out, op, last);
      }
    }
    else
    {
      if constexpr (INIT)
      {
        scan.InclusiveScan(x, out, init, op, last);
      }
      else
      {
        scan.InclusiveScan(x, out, op, last);
      }
    }
  }

  // the results, in the order of the methods' ``results``
  template <bool PREFIX>
  static __device__ __forceinline__ void Deliver(const T&, const T&)
  {}
  template <bool PREFIX>
  static __device__ __forceinline__ void Deliver(const T& through, const T& before, T& result)
  {
    result = PREFIX ? before : through;
  }
  template <bool PREFIX>
  static __device__ __forceinline__ void Deliver(const T& through, const T& before, T& total, T& prefix)
  {
    total  = through;
    prefix = before;
  }

  template <Mode MODE, bool INIT, bool PREFIX, int N, typename Op, typename... Results>
  __device__ __forceinline__ void
  Run(T (&x)[N], T (&out)[N], Op op, const T& init, coop_grid_words ws, int tile, Results&... results)
  {
    constexpr bool TOTAL = sizeof...(Results) == 1 + PREFIX;
    static_assert(sizeof...(Results) == TOTAL + PREFIX, "coop: a total and a tile prefix at most");
    using Storage = typename Prefix<Op>::TempStorage;
    static_assert(sizeof(Storage) == sizeof(storage_.prefix), "coop: look-back storage per op");
    const int rank          = cub::RowMajorTid(BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z);
    const unsigned int grid = gridDim.x * gridDim.y * gridDim.z;
    // The first warp (ranks 0-31: BLOCK_DIM_X >= 32) does all that touches the workspace. Each of
    // its lanes loads the header here (one request for the warp) and nothing waits for it before
    // the tile's first use of the workspace (Lookback::Open, after the block scan's warp scans):
    // the L2 round trip overlaps the scan instead of holding up the warp. The epoch is stable
    // while it is read: the last tile advances it only once its look-back has seen every tile's
    // status, and this tile publishes its status only after its load has returned.
    uint4 header = {};
    if (rank < 32)
    {
      header = coop_grid_header::read(ws);
    }
    Storage& lookback_storage = reinterpret_cast<Storage&>(storage_.prefix);
    Lookback<Op> lookback{header, ws, tile, grid, rank, lookback_storage, op, State()};
    T through, before;
    if (tile == 0)
    {
      T aggregate;
      Scan<MODE, INIT>(x, out, op, init, aggregate);
      if constexpr (INIT)
      {
        through = op(init, aggregate);
        before  = init;
      }
      else
      {
        through = aggregate;
        before  = T{}; // nothing precedes tile 0: 0 for a sum, undefined (as CUB's) for another op
      }
      if (rank < 32)
      {
        lookback.Open();
        if (rank == 0)
        {
          lookback.state.SetInclusive(0, through);
        }
      }
    }
    else if constexpr (THREADS % 32 == 0)
    {
      // CUB's BlockScan calls the prefix callback in the whole first warp
      Scan<MODE, false>(x, out, op, init, lookback);
      if constexpr (TOTAL || PREFIX)
      {
        // The first warp wrote the prefixes in the callback. BlockScan shares the prefix through a
        // barrier after it, which orders these reads (CUB's own agents read them so), in a block of
        // several warps; a block of one warp scanned by raking has no barrier there.
        if constexpr (THREADS == 32)
        {
          __syncwarp();
        }
        if constexpr (TOTAL)
        {
          through = lookback.InclusivePrefix();
        }
        if constexpr (PREFIX)
        {
          before = lookback.ExclusivePrefix();
        }
      }
    }
    else
    {
      // A block of a partial warp: CUB's BlockScan scans it by raking and calls the callback in its
      // raking threads, fewer than a warp here (24 of 48 threads), while the look-back's votes and
      // shuffles take the whole first warp (they would wait for ever). So the tile is scanned
      // alone, the whole first warp looks back, and every thread folds the prefix in.
      T aggregate;
      Scan<MODE, false>(x, out, op, init, aggregate);
      if (rank < 32)
      {
        lookback(aggregate);
      }
      __syncthreads(); // thread 0 wrote the prefixes
      before = lookback.ExclusivePrefix();
      _CCCL_PRAGMA_UNROLL_FULL()
      for (int i = 0; i < N; ++i)
      {
        out[i] = op(before, out[i]);
      }
      if constexpr (MODE == EXCLUSIVE_SUM || MODE == EXCLUSIVE_SCAN)
      {
        if (rank == 0)
        {
          out[0] = before; // the block scan left it undefined (no initial value)
        }
      }
      if constexpr (TOTAL)
      {
        through = lookback.InclusivePrefix();
      }
    }
    if (rank == 0 && unsigned(tile) == grid - 1)
    {
      // the last tile, its look-back done: every tile before it has published its status, so every
      // block has taken its ticket and read the epoch (no block of this launch reads them again)
      coop_grid_header* h = reinterpret_cast<coop_grid_header*>(ws);
      h->ticket           = 0;
      h->epoch            = header.w + 1;
    }
    Deliver<PREFIX>(through, before, results...);
  }
};
