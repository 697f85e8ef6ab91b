# SPDX-License-Identifier: Apache-2.0
"""cuda.coop.cutlass: reserved for the CUTLASS CuTe DSL backend (not in this release)."""

from cuda.coop._errors import CoopBackendError

raise CoopBackendError(
    "the CUTLASS CuTe DSL backend is not part of this release of cuda-coop yet; "
    "use the Numba backend (cuda.coop.numba)"
)
