# SPDX-License-Identifier: Apache-2.0
"""The prepared launch: ``prepare()`` of the Numba-family front doors checks a configuration and
its arguments once, then :class:`PreparedLaunch` rewrites only the argument slots of its parameter
buffer at each launch (through the plans of ``_launch``).
"""

from __future__ import annotations

import inspect
import struct
import sys
from collections.abc import Callable, Sequence
from typing import Any

from ._args import (
    ArraySpec,
    Key,
    Marshal,
    ScalarSpec,
    Unsupported,
    arg_names,
    check_grid_fits,
    problem_of,
    workspace_tiles,
)
from ._dims import normalize_block_dims
from ._errors import CoopTypeError, CoopValueError
from ._launch import (
    DEFAULT_DYNAMIC_SHARED,
    PACK_ERRORS,
    LaunchPlan,
    Params,
    cluster_of,
    dim3,
    note_tensor,
    shared_bytes,
    tensor_like_noted,
)
from ._streams import ADDRESSES, device_address, stream_handle
from ._writers import Arm, generate


def check_prepare_args(
    py_func: Callable[..., Any], args: Sequence[Any], names: Sequence[str], what: str, marshal: Marshal
) -> list[Key]:
    """The arguments' keys; typed errors, before anything compiles, for a wrong number of arguments
    and for arguments a prepared launch cannot pass (host arrays, tensors that require grad)."""
    try:
        params = list(inspect.signature(py_func).parameters)
    except (TypeError, ValueError):
        params = None
    if params is not None and len(args) != len(params):
        raise CoopTypeError(
            f"{what}: prepare(grid, block, *args) takes the kernel's {len(params)} arguments "
            f"({', '.join(params)}), got {len(args)}"
        )
    keys = []
    for i, a in enumerate(args):
        try:
            key, _ = marshal.read_one(a)
        except Unsupported as exc:
            raise CoopTypeError(f"{what}: argument {i} ({names[i]}): {exc}") from None
        problem = problem_of(key)
        if problem:
            raise problem[0](f"{what}: argument {i} ({names[i]}): {problem[1]}")
        keys.append(key)
    return keys


def prepare_launch(
    kernel: Any,
    grid: Any,
    block: Any,
    args: Sequence[Any],
    *,
    stream: Any,
    shared_mem: int,
    cluster: Any,
    marshal: Marshal,
    plan_of: Callable[[tuple[int, int, int], tuple[int, int, int] | None, list[Key]], LaunchPlan | str],
) -> PreparedLaunch:
    """A front door's ``prepare()``: the configuration and the arguments checked (before anything
    compiles), then ``plan_of(block dims, cluster dims, argument keys)`` gives the kernel's plan, or
    why only the DSL's own launch can launch it; the arguments marshalled into the handle.

    Raises:
        CoopTypeError: a wrong argument count, an argument no plan passes, a parameter type only
            the DSL's launch passes.
        CoopValueError: a kernel the DSL must launch itself (``plan_of`` says why).
        CoopLaunchConfigError: a bad grid, block, cluster or shared memory size.
    """
    what = kernel.__name__
    grid3 = dim3(grid, what=f"{what}: grid")
    dims = normalize_block_dims(block, what=f"{what}: block")
    handle = stream_handle(stream, what=f"{what}: stream")
    shmem = shared_bytes(shared_mem, what=what)
    clusters = cluster_of(grid3, cluster, what=what)
    names = arg_names(kernel.py_func, len(args))
    keys = check_prepare_args(kernel.py_func, args, names, what, marshal)
    check_grid_fits(what, grid3, workspace_tiles(keys))
    try:
        plan = plan_of(dims, clusters, keys)
    except Unsupported as exc:
        raise CoopTypeError(f"{what}: prepare() cannot pass {exc}; launch with kernel[grid, block]") from None
    if isinstance(plan, str):
        raise CoopValueError(f"{what}: prepare() is not available: {plan}; launch with kernel[grid, block]")
    prepared = PreparedLaunch(plan, grid3, dims, shmem, handle, names)
    prepared.set_args(args)
    return prepared


class PreparedLaunch:
    """A kernel launch bound once: configuration, stream, compiled kernel and parameter buffer.

    Made by ``prepare()`` of a cuda.coop.numba or cuda.coop.numba_mlir kernel. :meth:`launch`
    writes only the argument slots and calls ``cuLaunchKernel``; a launch that raises changes no
    slot. One handle per thread:
    a launch writes into the handle's buffer, so threads that launch concurrently each prepare
    their own.

    Attributes:
        grid: the grid, ``(x, y, z)``.
        block: the block, ``(x, y, z)``.
        shared_mem: dynamic shared memory bytes.
        stream: the stream handle launches go to (an int).
        device: the device the kernel was loaded on.
    """

    __slots__ = (
        "_args",
        "_call",
        "_launch_fn",
        "_names",
        "_nargs",
        "_ns",
        "_params",
        "_plan",
        "_set_all",
        "block",
        "device",
        "grid",
        "shared_mem",
        "stream",
    )

    def __init__(
        self,
        plan: LaunchPlan,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        shared_mem: int,
        stream: int,
        names: Sequence[str],
    ) -> None:
        from cuda.bindings import driver

        self._plan, self._names = plan, list(names)
        self.grid, self.block, self.shared_mem, self.stream = grid, block, shared_mem, stream
        if shared_mem > DEFAULT_DYNAMIC_SHARED:
            plan.allow_shared(shared_mem)
        self.device = plan.device
        self._params = Params(plan.layout.slots, plan.layout.starts)
        self._nargs = len(plan.layout.specs)
        self._set_all = self._compile_setters()
        self._launch_fn = plan.driver_launch
        self._call = (
            plan.function,
            *grid,
            *block,
            shared_mem,
            driver.CUstream(stream),
            self._params.address,
            0,
        )
        self._args: tuple[Any, ...] = ()

    def _where(self, i: int) -> str:
        return f"{self._plan.what}: argument {i} ({self._names[i]})"

    def _compile_setters(self) -> Callable[..., None]:
        """One function that writes every argument into its slots: per argument, the common case
        inline (a raw pointer for an array, a scalar of a kind seen before), else its setter."""
        torch = sys.modules.get("torch")
        torch_tensor = getattr(torch, "Tensor", None)
        ns: dict[str, Any] = {
            "buffer": self._params.buffer,
            "error": PACK_ERRORS,
            "Tensor": torch_tensor,
            "ADDRESSES": ADDRESSES,
        }
        arms = []
        for i, s in enumerate(self._plan.layout.specs):
            setter, kinds = self._setter(i)
            ns[f"s{i}"] = setter
            if isinstance(s, ArraySpec):
                # the data pointer's slots (numba-cuda: one; a memref: allocated and aligned)
                data = " = ".join(f"buffer[{self._plan.layout.offsets[i] + d}]" for d in s.data_slots)
                ns[f"r{i}"] = self._recorder(ns, i)
                ns[f"last{i}"] = ns[f"dt{i}"] = ns[f"sh{i}"] = ns[f"st{i}"] = ns[f"dv{i}"] = None
                # a kernel specialised on aligned data: the fast paths take aligned pointers only
                # a raw pointer: an address the 8-byte slot holds (ctypes would keep the low bits)
                fits = f" and 0 <= a{i} < ADDRESSES" + (f" and not a{i} % {s.align}" if s.align else "")
                cases: list[tuple[str, tuple[str, ...]]] = []
                if torch_tensor is not None:
                    # A tensor like the last one (dtype, shape, strides, device): only its data moves
                    # (the first test: the common case; its data pointer read once).
                    aligned = f" and not (p := a{i}.data_ptr()) % {s.align}" if s.align else ""
                    pointer = "p" if s.align else f"a{i}.data_ptr()"
                    cases.append(
                        (f"{tensor_like_noted(i)}{aligned}", (f"{data} = {pointer}", f"last{i} = None"))
                    )
                cases += [
                    (f"type(a{i}) is int{fits}", (f"{data} = a{i}", f"last{i} = None")),
                    # the DSL's device array of the last launch: in place
                    (f"a{i} is last{i}", ("pass",)),
                ]
                arms.append(Arm(tuple(cases), (f"s{i}(a{i})", f"r{i}(a{i})"), before=(f"global last{i}",)))
            elif kinds is not None:
                ns[f"k{i}"], ns[f"o{i}"] = kinds, 8 * self._plan.layout.offsets[i]
                ns[f"p{i}"] = struct.Struct("<" + s.fmt).pack_into
                packed = ("try:", f"    p{i}(buffer, o{i}, a{i})", "except error:", f"    s{i}(a{i})")
                arms.append(Arm(((f"type(a{i}) in k{i}", packed),), (f"s{i}(a{i})",)))
            else:
                arms.append(Arm(otherwise=(f"s{i}(a{i})",)))
        self._ns = ns
        return generate("set_all", arms, ns)

    def _recorder(self, ns: dict[str, Any], i: int) -> Callable[[Any], None]:
        """What the fast paths of array argument ``i`` compare the next argument with, taken from
        the one just written: the DSL's own device array itself (its metadata never changes), or a real
        torch tensor's dtype, shape, strides and device (a complex one always takes the full path:
        conjugation is per tensor)."""

        own = self._plan.marshal.is_own_array

        def record(a: Any) -> None:
            ns[f"last{i}"] = a if own(type(a)) else None
            note_tensor(ns, i, a)

        return record

    def _setter(self, i: int) -> tuple[Callable[[Any], None], set[type] | None]:
        """The function that validates and writes argument ``i`` into its slots, and (one-slot
        scalars) the set of Python types it accepted so far."""
        s = self._plan.layout.specs[i]
        buffer, offset = self._params.buffer, 8 * self._plan.layout.offsets[i]
        pack_into = struct.Struct("<" + s.fmt).pack_into
        ok: set[Key] = set()
        device = self._plan.device
        read_one = self._plan.marshal.read_one

        def check(key: Key) -> None:
            why = s.reject(key, device)
            if why:
                raise why[0](f"{self._where(i)}: {why[1]}")
            ok.add(key)

        if isinstance(s, ScalarSpec) and s.parts == 1 and s.enum is None:
            kinds: set[type] = set()

            def set_scalar(a: Any) -> None:
                kind = type(a)
                if kind not in kinds:
                    if not s.takes(kind):
                        raise CoopTypeError(f"{self._where(i)}: got {kind.__name__}, the kernel takes {s}")
                    kinds.add(kind)
                try:
                    pack_into(buffer, offset, a)
                except PACK_ERRORS:
                    raise CoopValueError(f"{self._where(i)}: {a!r} does not fit the kernel's {s}") from None

            return set_scalar, kinds

        def set_value(a: Any) -> None:
            if type(a) is int and isinstance(s, ArraySpec):  # a raw device pointer: the data slot
                device_address(a, what=self._where(i))
                if s.align and a % s.align:
                    raise CoopValueError(f"{self._where(i)}: {s.misaligned()}")
                for d in s.data_slots:
                    buffer[offset // 8 + d] = a
                return
            try:
                key, values = read_one(a)
            except Unsupported as exc:
                raise CoopTypeError(f"{self._where(i)}: {exc}") from None
            if key not in ok:
                check(key)
            try:
                pack_into(buffer, offset, *values)
            except PACK_ERRORS:
                raise CoopValueError(f"{self._where(i)}: {a!r} does not fit the kernel's {s}") from None

        return set_value, None

    def set_args(self, args: Sequence[Any]) -> None:
        """Write ``args`` into the argument slots (validating each), without launching."""
        if len(args) != self._nargs:
            raise CoopTypeError(
                f"{self._plan.what}: the prepared launch takes {self._nargs} arguments "
                f"({', '.join(self._names)}), got {len(args)}"
            )
        try:
            self._set_all(*args)
        except Exception:
            self._restore()
            raise
        self._args = tuple(args)

    def _restore(self) -> None:
        """Write the last accepted arguments back (a failed launch changes nothing)."""
        for i in range(self._nargs):  # the fast paths compare with nothing: every slot is rewritten
            if f"last{i}" in self._ns:
                self._ns[f"last{i}"] = self._ns[f"dt{i}"] = None
        if self._args:
            self._set_all(*self._args)

    def launch(self, *args: Any, stream: Any = None) -> None:
        """Launch, with ``args`` written into the argument slots (none: the last ones again).

        Args:
            *args: the kernel's arguments, each of the kind it was prepared with (same dtype, rank
                and layout); a Python int for an array argument replaces only its data pointer.
            stream: a stream for this launch only (default: the prepared one).

        Raises:
            CoopTypeError: an argument of another kind, dtype, rank or layout.
            CoopValueError: a scalar out of its type's range, or an array on another device.
        """
        if args:
            if len(args) != self._nargs:
                self.set_args(args)  # raises, naming the count
            try:
                self._set_all(*args)
            except Exception:
                self._restore()
                raise
            self._args = args  # keeps the arguments alive until the next launch
        call = self._call
        if stream is not None:
            from cuda.bindings import driver

            handle = stream_handle(stream, what=f"{self._plan.what}: stream")
            call = (*call[:8], driver.CUstream(handle), *call[9:])
        (err,) = self._launch_fn(*call)
        if err:
            raise self._plan.launch_error(err, self._plan.what)

    def __call__(self, *args: Any) -> None:
        """Same as :meth:`launch`."""
        self.launch(*args)

    def __repr__(self) -> str:
        specs = ", ".join(f"{n}: {s}" for n, s in zip(self._names, self._plan.layout.specs, strict=False))
        return f"<PreparedLaunch {self._plan.what}[{self.grid}, {self.block}] stream={self.stream} ({specs})>"
