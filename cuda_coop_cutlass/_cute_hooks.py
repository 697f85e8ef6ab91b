# SPDX-License-Identifier: Apache-2.0
"""Every CuTe DSL internal the CUTLASS backend touches, in one place.

nvidia-cutlass-dsl 4.8.1 offers no public API for these; ``tests/test_cutlass_hooks.py`` fails
loudly, naming the hook, if an upgrade moves one.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

from cuda.coop._backend_api import CoopBackendError, CoopTypeError, is_bundle_function

KERNELS_BINARY = "kernels_binary"  # host-module global holding the device binary
#: the ``gpu.module`` attribute listing the bitcode files of ``cute.extern(source=cute.BitCode(...))``
LINK_LIBRARIES = "link-libraries"
# the LLVM dialect's attribute of a `convergent` function (llvm.func; LLVM IR's `convergent`)
CONVERGENT = "convergent"
#: libNVVM's data layout (the short LLVM NVPTX one makes nvJitLink refuse the module).
NVVM_DATA_LAYOUT = (
    "e-p:64:64:64-p6:32:32:32-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32"
    "-f64:64:64-f128:128:128-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64-a:8:8"
)


def check() -> None:
    """Raise CoopBackendError naming the first hook that this nvidia-cutlass-dsl lacks."""
    import cutlass.base_dsl.compiler as compiler
    import cutlass.cute as cute
    from cutlass._mlir.dialects import llvm
    from cutlass.base_dsl.dsl import BaseDSL

    jit_executor = importlib.import_module("cutlass.cutlass_dsl.cuda_jit_executor")
    needed = [
        (cute, "_get_launch_facts"),
        (importlib.import_module("cutlass.cute.launch_facts"), "_current_kernel"),
        (importlib.import_module("cutlass.cute.launch_facts").LaunchFacts, "exact_cluster_dim"),
        (importlib.import_module("cutlass.cute.launch_facts").LaunchFacts, "cluster_launch"),
        (cute, "ffi"),
        (compiler, "PostCompileHookContext"),
        (compiler, "ExtraCompilerOpts"),
        (compiler, "PtxasOptions"),
        (compiler, "CompileCallable"),
        (compiler, "CompileOptions"),
        (compiler, "_parse_compile_options_from_str"),
        (compiler, "_OPTION_REGISTRY"),
        (compiler, "LinkLibraries"),
        (llvm, "translate_module_to_llvmir"),
        (llvm, "intr_assume"),
        (llvm, "getelementptr"),
        (llvm, "GEPNoWrapFlags"),
        (BaseDSL, "_lazy_initialize_dsl"),
        (jit_executor.CudaDialectJitCompiledFunction, "library"),
        (importlib.import_module("cutlass._mlir.ir").InsertionPoint, "current"),
        (importlib.import_module("cutlass._mlir.ir"), "OpView"),
    ]
    if getattr(getattr(compiler, "LinkLibraries", None), "_option_name", LINK_LIBRARIES) != LINK_LIBRARIES:
        needed.append((compiler.LinkLibraries, f"_option_name {LINK_LIBRARIES!r}"))
    if not {"__enter__", "__exit__"} <= set(vars(compiler.PostCompileHookContext)):
        needed.append((compiler.PostCompileHookContext, "__enter__ (its own)"))
    for owner, name in needed:  # statically: a class property may raise when read (InsertionPoint.current)
        try:
            inspect.getattr_static(owner, name)
        except AttributeError:
            raise CoopBackendError(
                f"nvidia-cutlass-dsl changed: {getattr(owner, '__name__', owner)}.{name} is gone; "
                "this cuda-coop needs nvidia-cutlass-dsl 4.8.x"
            ) from None


def insertion_block() -> Any:
    """The MLIR block the DSL is appending ops to."""
    from cutlass._mlir import ir

    return ir.InsertionPoint.current.block


def is_operation(owner: Any) -> bool:
    """Whether an MLIR value's owner is an operation (not a block, for a block argument)."""
    from cutlass._mlir import ir

    return isinstance(owner, (ir.Operation, ir.OpView))


def c_pointers(value: Any) -> Any:
    """A CuTe tensor's or pointer's C pointers, as its compiled function takes them."""
    return value.__c_pointers__()


def is_cute_object(value: Any) -> bool:
    """Whether ``value`` is already a CuTe runtime object (it passes its C pointers itself)."""
    return hasattr(value, "__c_pointers__")


def has_engine(compiled: Any) -> bool:
    """Whether a compiled CuTe function has an execution engine (False when it was compiled with
    no way to run here, e.g. ahead of time for another GPU)."""
    return getattr(compiled, "engine", 1) is not None


def dsl_of(host: Any) -> Any:
    """The DSL object behind a ``@cute.jit`` function."""
    from cutlass.base_dsl.dsl import BaseDSL

    func = host
    while hasattr(func, "__wrapped__"):
        func = func.__wrapped__
    BaseDSL._lazy_initialize_dsl(func)
    dsl = getattr(func, "_dsl_object", None)
    if dsl is None:
        raise CoopBackendError(f"{getattr(host, '__name__', host)!r} is not a @cute.jit function")
    return dsl


def option_class(name: str) -> Any:
    """A ``cute.compile`` option class by name (``cutlass.base_dsl.compiler.<name>``)."""
    from cutlass.base_dsl import compiler

    return getattr(compiler, name)


def bracket_options(bracket: Any) -> Any:
    """CuTe's ``CompileOptions`` of ``cute.compile[bracket]`` (CuTe's own error if an entry is not a
    compile option)."""
    from cutlass.base_dsl import compiler

    return compiler.CompileCallable(bracket)._compile_options


def parse_options(text: str) -> Any:
    """CuTe's ``CompileOptions`` of an ``options=`` string (CuTe's own error if it is malformed)."""
    from cutlass.base_dsl import compiler

    return compiler._parse_compile_options_from_str(text)


def merge_options(into: Any, parsed: Any) -> Any:
    """``into`` with every option that ``parsed`` sets away from its default, and ``parsed``'s debug
    selectors and ptxas diagnostics (where both set an option, ``parsed`` wins)."""
    for cls, opt in parsed.options.items():
        if opt.value != cls._default:
            into.options[cls] = opt
    into._debug_selectors |= parsed._debug_selectors
    into._ptxas_diagnostics_enabled |= parsed._ptxas_diagnostics_enabled
    return into


def apply_environment(options: Any, dsl: Any) -> None:
    """Apply the DSL's environment variables (``CUTE_DSL_LINEINFO``, ``CUTE_DSL_KEEP_CUBIN``, ...)
    to ``options``, as CuTe does at each compile."""
    options.apply_envar_settings(dsl.envar, "cuda_coop")


_ENV_DUMPS = ("keep_ptx", "keep_cubin", "keep_sass")


@contextlib.contextmanager
def env_dumps_off(dsl: Any) -> Iterator[None]:
    """Within: CuTe ignores ``CUTE_DSL_KEEP_PTX/CUBIN/SASS`` (its dumps would show the kernel
    without its CUB code, and the first pass has no cubin to dump); the bridge writes them."""
    envar = dsl.envar
    saved = {name: getattr(envar, name) for name in _ENV_DUMPS}
    for name in _ENV_DUMPS:
        setattr(envar, name, False)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(envar, name, value)


def set_option(options: Any, name: str, value: Any) -> None:
    """Set one option of a ``CompileOptions``."""
    options.options[option_class(name)].value = value


def add_pipeline_flag(options: Any, flag: str) -> None:
    """Append a raw pipeline flag (``name=value``) to the options' ``ExtraCompilerOpts``."""
    extra = options.options[option_class("ExtraCompilerOpts")]
    extra.value = f"{extra.value} {flag}".strip()


def compile_with(options: Any) -> Any:
    """``cute.compile`` bound to exactly this ``CompileOptions`` object (CuTe fills in its dump paths,
    which :func:`dump_path` reads afterwards)."""
    from cutlass.base_dsl import compiler

    callable_ = compiler.CompileCallable()
    callable_._compile_options = options
    return callable_


def dump_path(options: Any, dsl: Any, compiled: Any, arch: str, kind: str) -> str:
    """Where CuTe dumps a compile's ``cubin``, ``ptx`` or ``sass``: ``<dump dir>/<function name>``
    then ``.<arch>.cubin``, ``.<arch>.ptx`` or ``.sass`` (the dump directory from the options,
    else ``CUTE_DSL_DUMP_DIR``)."""
    directory = options.options[option_class("DumpDir")].value or dsl.envar.dump_dir
    suffix = "sass" if kind == "sass" else f"{arch}.{kind}"
    return os.path.join(str(directory), f"{compiled.function_name}.{suffix}")


def set_artifacts(compiled: Any, artifacts: dict[str, Any]) -> None:
    """Make ``compiled.__cubin__`` / ``__ptx__`` / ``__sass__`` show the linked kernel."""
    if compiled.artifacts is None:
        return
    for kind, data in artifacts.items():
        setattr(compiled.artifacts, kind.upper(), data)


def launch_block_dims() -> tuple[tuple[int, int, int] | None, str] | None:
    """``(exact block dims or None if dynamic, kernel name)`` of the CuTe kernel being traced, or
    None when no CuTe kernel is being traced on this thread."""
    import cutlass.cute as cute
    from cutlass.base_dsl.common import DSLRuntimeError
    from cutlass.cute import launch_facts

    try:
        kernel = launch_facts._current_kernel(None)
    except Exception:
        return None
    try:
        dims = cute._get_launch_facts().exact_block_dim
    except DSLRuntimeError:  # no static launch facts
        dims = None
    return (tuple(int(d) for d in dims) if dims is not None else None), _symbol_name(kernel)  # type: ignore[return-value]


def launch_cluster_dims() -> tuple[tuple[int, int, int] | None, bool]:
    """``(exact cluster dims or None, whether the launch has a cluster)`` of the CuTe kernel being
    traced (the dims are None for a launch without a cluster, and for one whose cluster is dynamic or
    whose preferred and fallback clusters differ)."""
    import cutlass.cute as cute
    from cutlass.base_dsl.common import DSLRuntimeError

    try:
        facts = cute._get_launch_facts()
    except DSLRuntimeError:  # no static launch facts
        return None, False
    dims = facts.exact_cluster_dim
    return (tuple(int(d) for d in dims) if dims is not None else None), bool(facts.cluster_launch)  # type: ignore[return-value]


def _symbol_name(op: Any) -> str:
    from cutlass._mlir import ir

    return str(ir.StringAttr(op.attributes["sym_name"]).value)


@contextlib.contextmanager
def post_compile_hook(dsl: Any, hook: Callable[[Any], None]) -> Iterator[None]:
    """Run ``hook(lowered_module)`` after CuTe's pass pipeline, for the compiles inside.

    CuTe's TVM-FFI path installs a post-compile hook of its own (``PostCompileHookContext``, which
    replaces the one in place) to attach its entry function; while this context is active, such an
    inner hook runs first and ``hook`` after it, so the linked cubin reaches the TVM-FFI module too."""
    from cutlass.base_dsl import compiler

    context = compiler.PostCompileHookContext
    enter = context.__dict__["__enter__"]
    provider = dsl.compiler_provider

    def chained_enter(self: Any) -> Any:
        entered = enter(self)
        inner = self.hook
        if self.compiler is provider and inner is not hook:

            def both(module: Any) -> None:
                inner(module)
                hook(module)

            self.compiler._post_compile_hook = both
        return entered

    context.__enter__ = chained_enter
    try:
        with context(provider, hook), env_dumps_off(dsl):
            yield
    finally:
        context.__enter__ = enter


def device_llvm_ir(module: Any) -> tuple[str, list[str]]:
    """LLVM IR text of the lowered module's ``gpu.module`` and the names of its kernels; the
    declarations of the bundle's functions (``cute.ffi`` declares them plain) are ``convergent``
    (see ``cuda.coop._render.BUNDLE_SYMBOL_PREFIX``)."""
    from cutlass._mlir import ir
    from cutlass._mlir.dialects import llvm

    with module.context, ir.Location.unknown():
        gpu = next(op for op in module.body.operations if op.operation.name == "gpu.module")
        device = ir.Module.create()
        device.operation.attributes["llvm.target_triple"] = ir.StringAttr.get("nvptx64-nvidia-cuda")
        device.operation.attributes["llvm.data_layout"] = ir.StringAttr.get(NVVM_DATA_LAYOUT)
        at = ir.InsertionPoint(device.body)
        kernels = []
        for op in gpu.regions[0].blocks[0].operations:
            attrs = op.operation.attributes
            if "gpu.kernel" in attrs or "nvvm.kernel" in attrs:
                kernels.append(str(ir.StringAttr(attrs["sym_name"]).value))
            copy = op.operation.clone(at)
            if _is_declaration(op) and is_bundle_function(_symbol_name(op.operation)):
                copy.attributes[CONVERGENT] = ir.UnitAttr.get()
        return str(llvm.translate_module_to_llvmir(device.operation)), kernels


def _is_declaration(op: Any) -> bool:
    """Whether ``op`` is an ``llvm.func`` without a body (an external function)."""
    return op.operation.name == "llvm.func" and not op.operation.regions[0].blocks


def device_link_libraries(module: Any) -> tuple[str, ...]:
    """The bitcode files the lowered module's ``gpu.module`` names for linking: CuTe records the
    ``source=cute.BitCode(path)`` of each ``cute.extern`` function the kernels call in the module's
    ``link-libraries`` attribute (``cutlass.base_dsl.ffi``), and links them itself through its
    ``LinkLibraries`` option (``link-libraries``); coop's full-LTO route links them instead."""
    from cutlass._mlir import ir

    gpu = next((op for op in module.body.operations if op.operation.name == "gpu.module"), None)
    if gpu is None or LINK_LIBRARIES not in gpu.operation.attributes:
        return ()
    paths = ir.ArrayAttr(gpu.operation.attributes[LINK_LIBRARIES])
    return tuple(dict.fromkeys(str(ir.StringAttr(p).value) for p in paths))


def loaded_library(compiled: Any) -> int:
    """The ``CUlibrary`` handle of a CuTe compiled function's device code, loaded first if it is not
    (CuTe's ``library`` property: the one library its launches use, on every device), as nvshmem4py's
    ``cute_compile_helper`` hands it to ``nvshmem.core.library_init``.

    Raises:
        CoopBackendError: the function has no loadable device code (no kernel, or no JIT engine).
    """
    try:
        return int(compiled.library)
    except (AttributeError, RuntimeError) as exc:
        raise CoopBackendError(f"CuTe loaded no device library for this function ({exc})") from exc


def _kernels_binary(module: Any) -> Any:
    """The host module's ``@kernels_binary`` global op (the device binary CuTe's launcher loads), or
    None."""
    from cutlass._mlir import ir

    for op in module.body.operations:
        attrs = op.operation.attributes
        if (
            op.operation.name == "llvm.mlir.global"
            and ir.StringAttr(attrs["sym_name"]).value == KERNELS_BINARY
        ):
            return op
    return None


def swap_device_binary(module: Any, cubin: bytes) -> None:
    """Replace the host module's ``@kernels_binary`` with ``cubin`` (same kernels, same ABI)."""
    from cutlass._mlir import ir
    from cutlass._mlir.dialects import llvm

    with module.context, ir.Location.unknown():
        op = _kernels_binary(module)
        if op is None:
            raise CoopBackendError(f"CuTe's host module has no @{KERNELS_BINARY}: the DSL changed")
        attrs = op.operation.attributes
        attrs["global_type"] = ir.TypeAttr.get(llvm.ArrayType.get(ir.IntegerType.get_signless(8), len(cubin)))
        attrs["value"] = ir.StringAttr.get(cubin)
        module.operation.verify()


def is_tvm_ffi(compiled: Any) -> bool:
    """Whether CuTe compiled the function with its TVM-FFI entry (``--enable-tvm-ffi``)."""
    if "tvm_ffi" not in sys.modules:  # CuTe's TVM-FFI path imports it: without it, no such function
        return False
    from cutlass.cutlass_dsl import tvm_ffi_provider

    return isinstance(compiled, tvm_ffi_provider.TVMFFIJitCompiledFunctionBase)


def device_binary(module: Any) -> bytes | None:
    """The bytes of the host module's ``@kernels_binary`` (what the launcher loads), if it has one."""
    from cutlass._mlir import ir

    op = _kernels_binary(module)
    return None if op is None else bytes(ir.StringAttr(op.operation.attributes["value"]).value_bytes)


def extern_call(symbol: str, args: list[Any], is_int: list[bool]) -> None:
    """Emit ``call @symbol(...)`` in the kernel being traced: each argument a pointer, or an
    ``i32`` where ``is_int`` says so (the C ABI of a bundle wrapper)."""
    import cutlass
    import cutlass.cute as cute
    from cutlass._mlir.dialects import llvm

    ptr = llvm.PointerType.get()
    cute.ffi(name=symbol, params_types=[cutlass.Int32 if i else ptr for i in is_int])(*args)


def call_at_kernel_entry(symbol: str) -> None:
    """Emit ``call @symbol()`` at the start of the entry block of the kernel being traced (before
    anything the kernel's code traced so far put there)."""
    import cutlass.cute as cute
    from cutlass._mlir import ir
    from cutlass.cute import launch_facts

    kernel = launch_facts._current_kernel(None)
    entry = kernel.regions[0].blocks[0]
    with ir.InsertionPoint.at_block_begin(entry):
        cute.ffi(name=symbol, params_types=[])()


def call_returning_pointer(symbol: str) -> Any:
    """Emit ``call ptr @symbol()`` (a caller-owned scratch accessor) and return the pointer."""
    import cutlass.cute as cute
    from cutlass._mlir.dialects import llvm

    return cute.ffi(name=symbol, params_types=[], return_type=llvm.PointerType.get())()


def _enclosing_module(op: Any) -> Any:
    while op is not None and op.name not in ("gpu.module", "builtin.module"):
        op = op.parent
    if op is None:
        raise CoopBackendError("no enclosing module while tracing a CuTe kernel (the DSL changed?)")
    return op


def define_operator(symbol: str, element_type: Any, function: Any, result_type: Any = None) -> None:
    """Define ``void symbol(R* out, const T* a, const T* b)`` in the device module being traced:
    ``function`` traced on two values of ``element_type`` (a CuTe numeric type, or a list of them
    for a struct: the function then takes and returns tuples), its result converted to
    ``result_type`` (the same forms; None: a C++ ``bool``, stored as one byte 0 or 1, as a
    comparator returns). The bundle declares it ``extern "C"`` and full LTO inlines it. Defined once
    per module."""
    import cutlass
    from cutlass._mlir import ir
    from cutlass._mlir.dialects import func, llvm

    module = _enclosing_module(ir.InsertionPoint.current.block.owner)
    if symbol in ir.SymbolTable(module.operation):
        return
    ptr = llvm.PointerType.get()
    with ir.InsertionPoint.at_block_begin(module.regions[0].blocks[0]):
        fn = func.FuncOp(symbol, ([ptr, ptr, ptr], []))
    entry = fn.add_entry_block()
    with ir.InsertionPoint(entry):
        out, a, b = entry.arguments
        value = function(_load(element_type, a), _load(element_type, b))
        if result_type is None:  # a truth value (Boolean, i1) widened to C++'s one-byte bool
            llvm.store(cutlass.Uint8(cutlass.Boolean(value)).ir_value(), out)
        elif isinstance(result_type, list):  # a struct: stored whole
            if not isinstance(value, tuple) or len(value) != len(result_type):
                raise CoopTypeError(
                    f"the operator {getattr(function, '__qualname__', function)!r} must return a tuple of "
                    f"{len(result_type)} values (one per field of the items), got {value!r}"
                )
            _store_fields(result_type, value, out)
        else:
            llvm.store(result_type(value).ir_value(), out)
        func.ReturnOp([])


def _struct_type(fields: list[Any]) -> Any:
    """The LLVM literal struct of ``fields`` (CuTe numeric types): laid out with natural alignment,
    as the bundle's C struct is."""
    from cutlass._mlir.dialects import llvm

    return llvm.StructType.get_literal([t.mlir_type for t in fields])


def _load(element_type: Any, pointer: Any) -> Any:
    """The value ``pointer`` holds: a CuTe numeric, or for a struct (a list of its fields' types) the
    tuple of its fields (one load of the whole struct: LLVM keeps it in registers, where field
    addresses made by integer arithmetic sent it to local memory)."""
    from cutlass._mlir.dialects import llvm

    if isinstance(element_type, list):
        whole = llvm.load(_struct_type(element_type), pointer)
        return tuple(t(llvm.extractvalue(t.mlir_type, whole, [k])) for k, t in enumerate(element_type))
    return element_type(llvm.load(element_type.mlir_type, pointer))


def _store_fields(result_type: list[Any], values: tuple[Any, ...], pointer: Any) -> None:
    from cutlass._mlir.dialects import llvm

    whole = llvm.mlir_undef(_struct_type(result_type))
    for k, (t, v) in enumerate(zip(result_type, values, strict=True)):
        whole = llvm.insertvalue(whole, t(v).ir_value(), [k])
    llvm.store(whole, pointer)


def llvm_pointer(pointer: Any) -> Any:
    """A CuTe pointer as an LLVM pointer of its address space."""
    return pointer.to_llvm_ptr()


def tile_pointer(base: Any, offset: Any) -> Any:
    """The generic LLVM pointer to item ``offset`` of a CuTe pointer ``base`` (the C ABI's ``void*``).

    For global memory the base is cast to a generic pointer first and LLVM is told the alignment CuTe
    knows of it (its type's, e.g. a tensor's ``assumed_align``: an ``llvm.assume`` with an
    ``"align"`` bundle); the offset is applied to the generic pointer. Once the bundle is inlined, a
    wrapper's runtime alignment check of the tile (``striped_vectors``, ``vectorize``'s words) then
    folds where the offset is provably a multiple of the vector, and only the vector path is left."""
    import cutlass
    from cutlass._mlir import ir
    from cutlass._mlir.dialects import arith, llvm
    from cutlass.base_dsl.enums import AddressSpace

    if base.memspace != AddressSpace.gmem:
        return generic_pointer(base if isinstance(offset, int) and offset == 0 else base + offset)
    ptr = llvm.PointerType.get()
    generic = llvm.addrspacecast(ptr, base.to_llvm_ptr())
    if base.alignment > 1:
        true = arith.constant(ir.IntegerType.get_signless(1), 1)
        align = arith.constant(ir.IntegerType.get_signless(64), base.alignment)
        tags = ir.ArrayAttr.get([ir.StringAttr.get("align")])
        llvm.intr_assume(true, [generic, align], [2], op_bundle_tags=tags)
    if isinstance(offset, int) and offset == 0:
        return generic
    index = cutlass.Int64(offset).ir_value()
    dynamic = -(2**31)  # MLIR's marker of a dynamic GEP index
    return llvm.getelementptr(
        ptr, generic, [index], [dynamic], base.dtype.mlir_type, llvm.GEPNoWrapFlags.none
    )


def generic_pointer(pointer: Any) -> Any:
    """A CuTe pointer to global or shared memory as a generic LLVM pointer (the C ABI's ``void*``)."""
    from cutlass._mlir.dialects import llvm
    from cutlass.base_dsl.enums import AddressSpace

    value = pointer.to_llvm_ptr()
    if pointer.memspace == AddressSpace.smem:
        value = llvm.addrspacecast(llvm.PointerType.get(), value)
    return value


# --- launching --------------------------------------------------------------------------------


def tensor_layout(value: Any) -> tuple[Any, tuple[Any, ...], tuple[Any, ...], int, Any, Any, bool] | None:
    """``(element type, shape, stride, alignment, dynamic-shape mask, dynamic-stride mask,
    32-bit strides)`` of a host-side CuTe tensor (``from_dlpack`` or fake), else None."""
    from cutlass.cute.runtime import _FakeTensor, _Tensor

    if type(value) not in (_Tensor, _FakeTensor):
        return None
    dtype = value.element_type
    align = value._assumed_align or max(1, dtype.width // 8)
    return (
        dtype,
        tuple(value.shape),
        tuple(value.stride),
        int(align),
        tuple(value.dynamic_shapes_mask),
        tuple(value.dynamic_strides_mask),
        bool(value._use_32bit_stride),
    )


def from_dlpack(value: Any, align: int, dynamic: bool) -> Any:
    """``cute.runtime.from_dlpack(value, assumed_align=align)``, its layout marked dynamic if asked."""
    from cutlass.cute.runtime import from_dlpack as convert

    tensor = convert(value, assumed_align=align)
    return tensor.mark_layout_dynamic() if dynamic else tensor


def tensor_data_ptr(tensor: Any) -> int:
    """The data address of a ``from_dlpack`` tensor."""
    return int(tensor.data_ptr)


def runtime_arguments(
    compiled: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[list[str], list[Any]]:
    """Names of the compiled function's runtime parameters (constexpr ones left out) and the values
    ``args``/``kwargs`` (given as to the ``@cute.jit`` function) bind to them."""
    execution_args = getattr(compiled, "execution_args", None)
    if execution_args is None:
        return [], []
    try:
        values = list(execution_args.get_rectified_args_from_original_args(args, kwargs))
    except Exception:
        return [], []
    return list(execution_args.signature.parameters), values


def runtime_parameters(compiled: Any) -> list[tuple[str, Any]]:
    """``(name, annotation)`` of each runtime parameter of a CuTe compiled function."""
    return [(n, p.annotation) for n, p in compiled.execution_args.signature.parameters.items()]


def rectify(compiled: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
    """Runtime arguments in parameter order (CuTe's binding: defaults, keywords)."""
    return list(compiled.execution_args.get_rectified_args(args, kwargs))


def runtime_signature(compiled: Any) -> Any:
    """The ``inspect.Signature`` of a CuTe compiled function's runtime parameters."""
    return compiled.execution_args.signature


def marshal(compiled: Any, values: list[Any]) -> tuple[list[int], Any]:
    """CuTe's marshalling of runtime arguments: the address of each C argument, and the objects that
    own them (keep them alive)."""
    exe_args, adapted = compiled.execution_args.generate_execution_args(tuple(values), {})
    return [a.value if hasattr(a, "value") else int(a) for a in exe_args], (values, adapted, exe_args)


def leaf_count(value: Any) -> int:
    """How many C arguments CuTe marshals ``value`` into (1 for an adapted object)."""
    from cutlass.base_dsl.typing import get_c_pointers

    if hasattr(value, "__c_pointers__") or isinstance(value, (list, tuple)):
        return len(get_c_pointers(value))
    return 1


def executor(compiled: Any) -> tuple[Any, Any, list[int], Any]:
    """``(host entry, CUDA result slot or None, trailing packed arguments, executor)`` of a CuTe
    compiled function bound to the current device: its host entry takes ``void*[]`` holding the
    address of each C argument, then the result slot's address, then the kernels' handles.

    Raises:
        CoopBackendError: the function has no JIT engine (built for another architecture).
    """
    if getattr(compiled, "engine", None) is None:
        raise CoopBackendError(
            "this function was compiled ahead of time for an architecture the machine's GPU (or its "
            "absence) cannot run; load its cubin with cuda.core, or compile for this GPU"
        )
    ex = compiled.to(None)
    extras = []
    if ex._has_cuda_result:
        extras.append(int(ex._cuda_result_addr))
    extras += [int(p.value or 0) for p in (ex._kernel_ptrs or [])]
    return ex.capi_func, ex.cuda_result, extras, ex


def descriptor_size(dynamic_extents: int, dynamic_strides: int) -> int:
    """Bytes of the C descriptor CuTe builds for a ``from_dlpack`` tensor (64-bit strides) whose
    layout has that many dynamic extents and strides: the data pointer, each dynamic extent as an
    int32, then, 8-byte aligned, each dynamic stride as an int64 (a static layout: the pointer only).
    ``copy_descriptor`` checks every field it copies against the tensor."""
    size = 8 + 4 * dynamic_extents
    if dynamic_strides:
        size = (size + 7) // 8 * 8 + 8 * dynamic_strides
    return size


def descriptor_buffer(rank: int) -> Any:
    """A zeroed ctypes buffer that holds the C descriptor of any tensor of rank ``rank``
    (8-byte words; word 0 is the data pointer)."""
    import ctypes

    return (ctypes.c_uint64 * ((descriptor_size(rank, rank) + 7) // 8))()


def copy_descriptor(tensor: Any, layout: Any, into: Any) -> int:
    """Copy the C descriptor of a ``from_dlpack`` tensor into ``into`` (a :func:`descriptor_buffer`),
    which then owns it: it keeps neither the tensor nor the DLPack capsule (the caller's array)
    alive. ``layout`` is the tensor's :func:`tensor_layout`. Returns the descriptor's size.

    Raises:
        CoopBackendError: the copy is not the data pointer, dynamic extents and strides that
            :func:`descriptor_size` describes (the DSL changed its descriptor).
    """
    import ctypes

    _dtype, shape, stride, _align, dynamic_shape, dynamic_stride, wide = layout
    extents = [int(s) for s, d in zip(shape, dynamic_shape, strict=False) if d]
    strides = [int(s) for s, d in zip(stride, dynamic_stride, strict=False) if d]
    size = descriptor_size(len(extents), len(strides))
    if wide or size > ctypes.sizeof(into):
        raise CoopBackendError(f"a CuTe tensor descriptor of {size} bytes does not fit its buffer")
    ctypes.memmove(into, tensor.__c_pointers__()[0], size)
    base = ctypes.addressof(into)
    at = (8 + 4 * len(extents) + 7) // 8 * 8
    copied = [
        int(into[0]),
        *(ctypes.c_int32.from_address(base + 8 + 4 * i).value for i in range(len(extents))),
        *(ctypes.c_int64.from_address(base + at + 8 * i).value for i in range(len(strides))),
    ]
    if copied != [tensor_data_ptr(tensor), *extents, *strides]:
        raise CoopBackendError(
            "CuTe's tensor descriptor is no longer {data pointer, int32 dynamic extents, int64 dynamic "
            "strides} (the DSL changed)"
        )
    return size


def is_runtime_tensor(value: Any) -> bool:
    """Whether ``value`` is a CuTe runtime tensor (``from_dlpack``), which has a C descriptor."""
    from cutlass.cute.runtime import _Tensor

    return type(value) is _Tensor


def plain_reentry(compiled: Any) -> bool:
    """Whether a call of a CuTe compiled function only marshals its arguments: no specialization
    record checked at each call (CuTe's "F-SPEC") and no trailing workspace arguments."""
    return getattr(compiled, "_pyir_spec", None) is None and not getattr(compiled, "total_added_arguments", 0)


def is_context_free(executor: Any) -> bool:
    """Whether an executor's host entry takes no per-context kernel handles (CuTe's CUDA-library
    executors: one entry serves every device and context)."""
    return not getattr(executor, "_kernel_ptrs", None)


def cuda_error(code: int) -> Exception:
    """The exception CuTe's call raises for a host entry that returned CUDA error ``code``."""
    from cutlass.base_dsl.runtime import cuda as cuda_helpers

    return cuda_helpers.create_cuda_runtime_error(code, cuda_helpers.cudart.cudaError_t)


_POINTER: list[type] = []


def pointer_info(value: Any) -> tuple[Any, int, int] | None:
    """``(element type, address, alignment)`` of a CuTe runtime pointer (``make_ptr``), else None."""
    if not _POINTER:
        from cutlass.cute.runtime import _Pointer

        _POINTER.append(_Pointer)
    if type(value) is not _POINTER[0]:
        return None
    return value.dtype, int(value._pointer), int(value._assumed_align)


def numeric_type(annotation: Any) -> Any:
    """The CuTe numeric type of a scalar parameter, or None."""
    from cutlass.base_dsl.typing import Numeric

    return annotation if isinstance(annotation, type) and issubclass(annotation, Numeric) else None


def owning_c_pointer(numeric: Any) -> Any:
    """A ``c_void_p`` to a CuTe numeric value's C storage; the storage lives as long as it does."""
    return numeric.__c_pointers__()[0]


def raw_scalar(value: Any) -> tuple[Any, str] | None:
    """``(the Numeric class, the MLIR type's text)`` of a raw MLIR scalar value, as ``cutlass.select_``
    and other ``arith`` builders return it (an ``ir.Value``, not a CuTe ``Numeric``), with the class
    None where the type does not say it (a signless integer: signed or unsigned is the caller's);
    None for anything else."""
    from cutlass import Boolean, Numeric
    from cutlass._mlir import ir

    if isinstance(value, Numeric) or not isinstance(value, ir.Value):
        return None
    ty = value.type
    if ir.FloatType.isinstance(ty):
        return Numeric.from_mlir_type(ty), str(ty)
    if ir.IntegerType.isinstance(ty):
        return (Boolean if ir.IntegerType(ty).width == 1 else None), str(ty)
    return None
