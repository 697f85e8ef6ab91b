// SPDX-License-Identifier: Apache-2.0
// coop's complex product (built-in operator "complex_mul"): (a + bi)(c + di) = (ac - bd) + (ad + bc)i
// (NumPy's formula), on a pair (re f0, im f1) of one float type. Complex numbers get the
// specialisation in coop/complex.cuh. Included by a unit with complex numbers or such pairs.
#pragma once

template <typename T>
struct coop_complex_multiplies
{
  __device__ __forceinline__ T operator()(const T& a, const T& b) const
  {
    return T{a.f0 * b.f0 - a.f1 * b.f1, a.f0 * b.f1 + a.f1 * b.f0};
  }
};
