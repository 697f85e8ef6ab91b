// SPDX-License-Identifier: Apache-2.0
// coop's complex product (coop/complex_multiplies.cuh) on ::cuda::std::complex. Included by a unit
// with complex numbers.
#pragma once

#include <cuda/std/complex>

#include <coop/complex_multiplies.cuh>

template <typename F>
struct coop_complex_multiplies<::cuda::std::complex<F>>
{
  __device__ __forceinline__ ::cuda::std::complex<F>
  operator()(const ::cuda::std::complex<F>& a, const ::cuda::std::complex<F>& b) const
  {
    return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
  }
};
