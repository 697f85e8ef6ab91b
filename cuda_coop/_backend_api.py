# SPDX-License-Identifier: Apache-2.0
"""The one module a backend imports from the core (besides the public ``cuda.coop``).

A backend (``cuda.coop.numba``, ``cuda.coop.cutlass``) is an adapter: how its DSL spells values, how
a call reaches the core, where the bundle is attached. Everything it needs from the core is named
here and nowhere else; ``tests/test_backend_face.py`` fails when a backend imports another private
core module. Like ``cuda.coop`` itself, importing this module loads no DSL, no CUDA binding and
needs no GPU.

The face is what this module imports: ``__all__`` is derived from the imports (each name written
once), grouped by the core module each comes from; docs/contributing.rst says what each is for.
"""

# ruff: noqa: F401  (every import here is re-exported: __all__ is derived from them)

from __future__ import annotations

from ._args import (
    ALIGN,
    HOST,
    MEMREF_ABI,
    NUMBA_ABI,
    SCALAR,
    TUPLE,
    UNKNOWN_DEVICE,
    ArrayABI,
    ArraySpec,
    Key,
    Marshal,
    Rejection,
    ScalarSpec,
    Spec,
    TupleSpec,
    Unsupported,
    aligned,
    check_workspaces,
    describe,
    device_array_reader,
    layout_of,
    numpy_dtype,
    problem_of,
    spec,
)
from ._bundle import BUNDLE_PARTS, normalize_arch
from ._bundle import prefetch as prefetch_bundles
from ._catalog import CATALOG, CHOICES, SCOPES
from ._choices import AlgorithmEnumMeta
from ._compiled import CompiledKernel, kernel_jobs
from ._dims import PORTABLE_CLUSTER_BLOCKS, normalize_block_dims, normalize_cluster_dims
from ._dtypes import (
    DTYPES,
    dtype_named,
    field_offsets,
    fields_of,
    is_complex,
    supported_name,
    tuple_dtype,
    tuple_name,
)
from ._emit import KernelAdapter, emit_call
from ._errors import (
    CoopBackendError,
    CoopCompileError,
    CoopError,
    CoopLaunchConfigError,
    CoopTypeError,
    CoopValueError,
    call_site,
    causes,
    current_call_site,
    short_traceback,
    site,
)
from ._kernel_api import TempStorage, ThreadData, export_namespace
from ._kinds import Arg, Form, Shape, Slot, TempStorageUse, temp_storage_options
from ._launch import (
    DEFAULT_DYNAMIC_SHARED,
    BoundPlan,
    ConfiguredLaunch,
    LaunchCache,
    LaunchPlan,
    Layout,
    allow_dynamic_shared,
    cluster_of,
    configured,
    current_context,
    current_device,
    dim3,
    shared_bytes,
)
from ._link import Input as LinkInput
from ._link import link, link_exact, parallel_links, side_by_side
from ._nvshmem import library_init as nvshmem_library_init
from ._nvshmem import variables_used as nvshmem_variables_used
from ._operators import BOOL, FunctionTypes, UserFunction, builtin_alias, python_function
from ._prepared import PreparedLaunch, arg_names, prepare_launch
from ._primitive import (
    Launch,
    Plan,
    Primitive,
    Resolver,
    check_items_per_thread,
)
from ._registry import register_on_import
from ._render import is_bundle_function, kernel_prologue, temp_storage_symbol
from ._requests import Request
from ._sass import CubinReport, disassemble, inspect_cubin
from ._session import TraceSession, compiling, current
from ._stats import compile_stats
from ._streams import ADDRESSES, device_address, stream_handle
from ._writers import Arm, generate

#: The face: every name imported above (private names and ``annotations`` aside), in import order.
__all__ = [name for name in dict(globals()) if not name.startswith("_") and name != "annotations"]
