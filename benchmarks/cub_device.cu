// SPDX-License-Identifier: Apache-2.0
// CUB's device-wide algorithms in C++, the reference rows of benchmarks/grid.py (issue 22):
// DeviceScan::InclusiveSum / ExclusiveSum over int32 and float32, DeviceSelect::Flagged (a flags
// array of x > 0) and DeviceSelect::If (the predicate x > 0, the one-kernel compaction's design).
// The data are those of grid.py's rows, made here by the same rules (integers in [-8, 8] for the
// scans, so that float sums are exact in any order; a standard normal for the compaction, here a
// Box-Muller transform of a 64-bit LCG): the rows compare times, and each row checks its own
// result on the host.
//
//     nvcc -O3 -std=c++17 -arch=sm_90 -I<cccl headers> cub_device.cu -o cub_device
//     ./cub_device LOG2N     -> one JSON object per line
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                   \
  do                                                                                  \
  {                                                                                   \
    cudaError_t e_ = (call);                                                          \
    if (e_ != cudaSuccess)                                                            \
    {                                                                                 \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(2);                                                                   \
    }                                                                                 \
  } while (0)

struct Positive
{
  __host__ __device__ bool operator()(float v) const
  {
    return v > 0.0f;
  }
};

// median of 30 timed calls after 3 untimed ones, in ms (CUDA events on the default stream)
template <class F>
static float median_ms(F&& fn)
{
  for (int i = 0; i < 3; ++i)
  {
    fn();
  }
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<float> t;
  for (int i = 0; i < 30; ++i)
  {
    CHECK(cudaEventRecord(a));
    fn();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  return 0.5f * (t[14] + t[15]);
}

static uint64_t lcg(uint64_t& s)
{
  s = s * 6364136223846793005ull + 1442695040888963407ull;
  return s >> 11;
}

template <class T>
static void scans(size_t n, const char* name)
{
  std::vector<T> h(n);
  uint64_t s = 22;
  for (auto& v : h)
  {
    v = static_cast<T>(static_cast<int>(lcg(s) % 17) - 8);
  }
  T *x, *y;
  CHECK(cudaMalloc(&x, n * sizeof(T)));
  CHECK(cudaMalloc(&y, n * sizeof(T)));
  CHECK(cudaMemcpy(x, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  size_t bytes = 0, more = 0;
  CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, x, y, n));
  CHECK(cub::DeviceScan::ExclusiveSum(nullptr, more, x, y, n));
  bytes = std::max(bytes, more);
  void* tmp;
  CHECK(cudaMalloc(&tmp, bytes));
  float inc = median_ms([&] {
    cub::DeviceScan::InclusiveSum(tmp, bytes, x, y, n);
  });
  std::vector<T> got(n);
  CHECK(cudaMemcpy(got.data(), y, n * sizeof(T), cudaMemcpyDeviceToHost));
  bool ok = true;
  T acc   = 0;
  for (size_t i = 0; i < n && ok; ++i)
  {
    ok = (got[i] == (acc += h[i]));
  }
  float exc = median_ms([&] {
    cub::DeviceScan::ExclusiveSum(tmp, bytes, x, y, n);
  });
  std::printf(
    "{\"row\": \"scan\", \"type\": \"%s\", \"inclusive_ms\": %.5f, \"exclusive_ms\": %.5f, "
    "\"temp_bytes\": %zu, \"ok\": %s}\n",
    name,
    inc,
    exc,
    bytes,
    ok ? "true" : "false");
  CHECK(cudaFree(tmp));
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
}

static void selects(size_t n)
{
  std::vector<float> h(n);
  std::vector<char> f(n);
  uint64_t s = 7;
  for (size_t i = 0; i < n; ++i)
  {
    double u1 = (lcg(s) + 1.0) / 9007199254740993.0, u2 = lcg(s) / 9007199254740992.0;
    h[i] = static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
    f[i] = h[i] > 0.0f;
  }
  float *x, *y;
  char* flags;
  int* count;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  CHECK(cudaMalloc(&flags, n));
  CHECK(cudaMalloc(&count, sizeof(int)));
  CHECK(cudaMemcpy(x, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(flags, f.data(), n, cudaMemcpyHostToDevice));
  size_t bytes = 0, more = 0;
  CHECK(cub::DeviceSelect::Flagged(nullptr, bytes, x, flags, y, count, n));
  CHECK(cub::DeviceSelect::If(nullptr, more, x, y, count, n, Positive{}));
  bytes = std::max(bytes, more);
  void* tmp;
  CHECK(cudaMalloc(&tmp, bytes));
  size_t want = 0;
  for (size_t i = 0; i < n; ++i)
  {
    want += f[i];
  }
  auto check = [&] {
    int m = 0;
    CHECK(cudaMemcpy(&m, count, sizeof(int), cudaMemcpyDeviceToHost));
    if (static_cast<size_t>(m) != want)
    {
      return false;
    }
    std::vector<float> got(m);
    CHECK(cudaMemcpy(got.data(), y, m * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0, j = 0; i < n; ++i)
    {
      if (f[i] && got[j++] != h[i])
      {
        return false;
      }
    }
    return true;
  };
  float flagged = median_ms([&] {
    cub::DeviceSelect::Flagged(tmp, bytes, x, flags, y, count, n);
  });
  bool ok       = check();
  float pred    = median_ms([&] {
    cub::DeviceSelect::If(tmp, bytes, x, y, count, n, Positive{});
  });
  ok            = ok && check();
  std::printf("{\"row\": \"select\", \"type\": \"float32\", \"flagged_ms\": %.5f, \"if_ms\": %.5f, "
              "\"selected\": %zu, \"ok\": %s}\n",
              flagged,
              pred,
              want,
              ok ? "true" : "false");
  CHECK(cudaFree(tmp));
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  CHECK(cudaFree(flags));
  CHECK(cudaFree(count));
}

int main(int argc, char** argv)
{
  size_t n = size_t(1) << (argc > 1 ? std::atoi(argv[1]) : 28);
  scans<int32_t>(n, "int32");
  scans<float>(n, "float32");
  selects(n);
  return 0;
}
