// SPDX-License-Identifier: Apache-2.0
// benchmarks/launch.py's plain kernel for CuPy's rows (CuPy's RawKernel compiles it): y[i] = x[i] + 1.
extern "C" __global__ void add1(const float* x, float* y, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
  {
    y[i] = x[i] + 1.0f;
  }
}
