// SPDX-License-Identifier: Apache-2.0
// benchmarks/_launch_cutlass.py's floor: an NVRTC kernel with the CuTe kernel's parameters, launched by
// a pre-packed cuLaunchKernel through ctypes.
extern "C" __global__ void k(const int* s, int* d, int a, float b)
{
  int i = blockIdx.x * 512 + threadIdx.x;
  for (int j = 0; j < 4; ++j)
  {
    d[i + 128 * j] = s[i + 128 * j] * a + (int) b;
  }
}
