// SPDX-License-Identifier: Apache-2.0
// coop.block.load and store with algorithm="striped_vectors": included by a unit with such a
// request (benchmarks/rows_cub.cu moves its rows with the same class).
#pragma once

#include <cub/block/block_load.cuh>
#include <cub/block/block_store.cuh>

#include <cuda/std/bit>
#include <cuda/std/memory>
#include <cuda/std/type_traits>

// algorithm="striped_vectors": item r * V + k of thread t is item (r * THREADS + t) * V + k of the
// tile. Where the tile is a pointer aligned to a run of V > 1 items, CUB's striped load/store moves
// each run as one vector word (a warp's access covers 32 consecutive runs); elsewhere (V = 1, a
// misaligned tile, a strided view's iterator), and for partial tiles, item by item in the same
// arrangement. algorithm="striped" is V = 1 (CUB's striped arrangement). A partial tile's loop ends
// at the first run that no thread has: `valid` is the same in every thread, so the exit is a
// uniform branch and a tile's tail costs no guarded accesses (CUB's StoreDirectStriped guards every
// item; a compaction's store of the kept items, half a tile, ran twice the stores it needed).
template <int BYTES>
struct coop_run_word;
template <>
struct coop_run_word<1>
{
  using type = unsigned char;
};
template <>
struct coop_run_word<2>
{
  using type = unsigned short;
};
template <>
struct coop_run_word<4>
{
  using type = unsigned int;
};
template <>
struct coop_run_word<8>
{
  using type = uint2;
};
template <>
struct coop_run_word<16>
{
  using type = uint4;
};

template <typename T, int THREADS, int ITEMS, int V>
struct coop_striped_runs
{
  static_assert(ITEMS % V == 0, "whole runs");
  static constexpr int RUNS = ITEMS / V;
  struct run
  {
    T item[V];
  };
  using word = typename coop_run_word<sizeof(run)>::type;
  static_assert(sizeof(word) == sizeof(run), "a run is one word");

  static __device__ __forceinline__ int at(int tid, int j)
  {
    return ((j / V) * THREADS + tid) * V + j % V;
  }

  // No thread has item j or a later one of a tile of `valid` items (the same in every thread): the
  // first item of j's run in thread 0 is past the tile. Tested at a run's first item only.
  static __device__ __forceinline__ bool past(int j, int valid)
  {
    return j % V == 0 && (j / V) * THREADS * V >= valid;
  }

  // The tile's runs as words, `src` aligned to a word (the caller knows it: benchmarks/rows_cub.cu).
  static __device__ __forceinline__ void LoadWords(int tid, const T* src, T (&items)[ITEMS])
  {
    word words[RUNS];
    cub::LoadDirectStriped<THREADS>(tid, reinterpret_cast<const word*>(src), words);
#pragma unroll
    for (int r = 0; r < RUNS; ++r)
    {
      const run v = ::cuda::std::bit_cast<run>(words[r]);
#pragma unroll
      for (int k = 0; k < V; ++k)
      {
        items[r * V + k] = v.item[k];
      }
    }
  }

  template <typename Src>
  static __device__ __forceinline__ void Load(int tid, Src src, T (&items)[ITEMS])
  {
    if constexpr (V > 1 && ::cuda::std::is_pointer_v<Src>)
    {
      if (::cuda::std::is_sufficiently_aligned<sizeof(word)>(src))
      {
        LoadWords(tid, src, items);
        return;
      }
    }
#pragma unroll
    for (int j = 0; j < ITEMS; ++j)
    {
      items[j] = src[at(tid, j)];
    }
  }

  template <typename Src>
  static __device__ __forceinline__ void Load(int tid, Src src, T (&items)[ITEMS], int valid)
  {
#pragma unroll
    for (int j = 0; j < ITEMS; ++j)
    {
      if (past(j, valid))
      {
        break;
      }
      if (at(tid, j) < valid)
      {
        items[j] = src[at(tid, j)];
      }
    }
  }

  template <typename Src>
  static __device__ __forceinline__ void Load(int tid, Src src, T (&items)[ITEMS], int valid, T oob)
  {
#pragma unroll
    for (int j = 0; j < ITEMS; ++j)
    {
      items[j] = at(tid, j) < valid ? src[at(tid, j)] : oob;
    }
  }

  // The tile's runs as words, `dst` aligned to a word.
  static __device__ __forceinline__ void StoreWords(int tid, T* dst, const T (&items)[ITEMS])
  {
    word words[RUNS];
#pragma unroll
    for (int r = 0; r < RUNS; ++r)
    {
      run v;
#pragma unroll
      for (int k = 0; k < V; ++k)
      {
        v.item[k] = items[r * V + k];
      }
      words[r] = ::cuda::std::bit_cast<word>(v);
    }
    cub::StoreDirectStriped<THREADS>(tid, reinterpret_cast<word*>(dst), words);
  }

  template <typename Dst>
  static __device__ __forceinline__ void Store(int tid, Dst dst, const T (&items)[ITEMS])
  {
    if constexpr (V > 1 && ::cuda::std::is_pointer_v<Dst>)
    {
      if (::cuda::std::is_sufficiently_aligned<sizeof(word)>(dst))
      {
        StoreWords(tid, dst, items);
        return;
      }
    }
#pragma unroll
    for (int j = 0; j < ITEMS; ++j)
    {
      dst[at(tid, j)] = items[j];
    }
  }

  template <typename Dst>
  static __device__ __forceinline__ void Store(int tid, Dst dst, const T (&items)[ITEMS], int valid)
  {
#pragma unroll
    for (int j = 0; j < ITEMS; ++j)
    {
      if (past(j, valid))
      {
        break;
      }
      if (at(tid, j) < valid)
      {
        dst[at(tid, j)] = items[j];
      }
    }
  }
};
