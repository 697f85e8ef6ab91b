# SPDX-License-Identifier: Apache-2.0
"""coop's own launches of numba-cuda-mlir kernels, without a GPU: the parameter layout of every
argument kind against the kernel's own PTX entry, memref descriptors from every array reader, the
prepared launch's slot writes (driver call faked), the argument types coop compiles for, and the
numba-cuda-mlir internals the launch path reads."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba_cuda_mlir", reason="numba-cuda-mlir is not installed")

import cuda.coop.numba_mlir as ncoop  # noqa: E402
from cuda import coop  # noqa: E402
from cuda.coop._args import MEMREF_ABI, Unsupported  # noqa: E402
from cuda.coop._launch import Layout
from cuda.coop._prepared import PreparedLaunch  # noqa: E402
from cuda.coop.numba_mlir import _launch, _ncm_hooks  # noqa: E402
from numba_cuda_mlir import types  # noqa: E402

from ._launch_fakes import fake_prepared  # noqa: E402


class CAI:
    """A device array known only by its ``__cuda_array_interface__``."""

    def __init__(self, ptr: int, shape: tuple[int, ...], dtype: str = "float32", strides: Any = None) -> None:
        self.__cuda_array_interface__ = {
            "shape": shape,
            "typestr": np.dtype(dtype).str,
            "data": (ptr, False),
            "strides": strides,
            "version": 3,
        }


def echo(out, a2, n, x, c64, c128, pair, flag, h, u8, a3):  # type: ignore[no-untyped-def]
    items = coop.ThreadData(1, "float32")
    items[0] = 0
    if flag:
        items[0] = a2[0, 0] + n + x + c64.real + c128.imag + pair[0] + pair[1] + h + u8 + a3[0, 0, 0]
    coop.block.store(out, items)


SIG = (
    types.float32[::1],
    types.float32[:, :],
    types.int32,
    types.float64,
    types.complex64,
    types.complex128,
    types.UniTuple(types.float64, 2),
    types.boolean,
    types.float16,
    types.uint8,
    types.float32[:, :, ::1],
)

_PTX_BYTES = {"u8": 1, "b16": 2, "u16": 2, "u32": 4, "f32": 4, "u64": 8, "f64": 8, "b32": 4, "b64": 8}


def _entry_params(ptx: str) -> list[int]:
    """The byte size of each parameter of the PTX's kernel entry."""
    start = ptx.index(".entry")
    head = ptx[start : ptx.index(")", start)]
    sizes = []
    for line in head.splitlines()[1:]:
        m = re.search(r"\.param (?:\.align \d+ )?\.(\w+) \S+?(?:\[(\d+)\])?,?$", line.strip())
        if m:
            kind, count = m.groups()
            sizes.append(int(count) if count else _PTX_BYTES[kind])
    return sizes


def test_layout_matches_the_kernels_entry_parameters() -> None:
    """One pointer per PTX parameter, each over slots that hold it: a memref is 3 + 2 x rank 8-byte
    parameters, a complex64 one 8-byte parameter, a complex128 one 16-byte parameter over two slots,
    a tuple its members, every other scalar one slot."""
    ptx = ncoop.compile(echo, SIG, block=32, arch="sm_90a", output="ptx").code
    sizes = _entry_params(ptx.decode() if isinstance(ptx, bytes) else ptx)
    layout = Layout([_launch.kernel_spec(t) for t in SIG])
    assert len(layout.starts) == len(sizes), (layout.starts, sizes)
    spans = [b - a for a, b in zip(layout.starts, [*layout.starts[1:], layout.slots], strict=True)]
    for i, (size, span) in enumerate(zip(sizes, spans, strict=True)):
        assert size <= 8 * span, f"parameter {i}: {size} bytes in {span} slots"
        assert size > 8 * (span - 1), f"parameter {i}: {size} bytes take fewer slots than {span}"
    assert layout.slots == 5 + 7 + 1 + 1 + 1 + 2 + 2 + 1 + 1 + 1 + 9


@pytest.mark.parametrize(
    ("shape", "strides", "want"),
    [
        ((6,), None, (6, 1)),
        ((3, 4), None, (3, 4, 4, 1)),
        ((3, 4), (4, 12), (3, 4, 1, 3)),  # F order
        ((3, 4), (32, 8), (3, 4, 8, 2)),  # a strided view
    ],
)
def test_memref_descriptor_of_an_array(shape: tuple[int, ...], strides: Any, want: tuple[int, ...]) -> None:
    ptr = 0x7F00_0000_1000
    key, values = _launch.MARSHAL.read_one(CAI(ptr, shape, "float32", strides))
    assert values == (ptr, ptr, 0, *want)
    assert key[:4] == ("cai", np.dtype(np.float32), len(shape), "C" if strides is None else key[3])


def test_memref_refuses_strides_that_are_not_whole_items() -> None:
    with pytest.raises(Unsupported, match="not multiples of its item size"):
        _launch.MARSHAL.read_one(CAI(0x1000, (3, 4), "float32", (16, 2)))
    assert MEMREF_ABI.fmt(2) == "QQq" + "qqqq"


def test_argument_types_from_keys() -> None:
    """coop compiles for the types numba-cuda-mlir gives the same arguments: arrays from their keys
    (dtype, rank, layout, read-only), scalars and tuples as numba-cuda-mlir types them."""
    from numba_cuda_mlir import cuda

    disp = cuda.jit(echo)
    args = [
        CAI(0x1000, (8,)),
        CAI(0x2000, (3, 4), "float32", (32, 8)),
        np.int32(3),
        2.5,
        np.complex64(1 + 2j),
        1j,
        (1.0, 2.0),
        True,
        np.float16(1),
        np.uint8(2),
        CAI(0x3000, (2, 3, 4)),
    ]
    keys = [_launch.MARSHAL.read_one(a)[0] for a in args]
    got = _launch.argument_types(disp, keys, args, "echo")
    want = tuple(disp.typeof_pyval(a) for a in args)
    assert got[0] == types.float32[::1] and got[1] == types.Array(types.float32, 2, "A")
    assert got[2:] == want[2:]
    assert got[10] == types.float32[:, :, ::1]


def _prepared(argtypes: list[Any], names: str) -> tuple[PreparedLaunch, list[tuple[Any, ...]]]:
    return fake_prepared([_launch.kernel_spec(t) for t in argtypes], names, _launch.MARSHAL)


def test_prepared_launch_writes_both_memref_pointers() -> None:
    """An array's data pointer is the memref's allocated and aligned pointer: a raw pointer, a CUDA
    array and the same array again write both; the offset stays 0; scalars and a complex128 land
    in their slots."""
    p, calls = _prepared([types.float32[::1], types.float32[::1], types.float32, types.complex128], "xyac")
    buf = p._params.buffer
    p.set_args([CAI(0x1000, (8,)), CAI(0x2000, (8,)), 1.5, 3 - 4j])
    assert list(buf[0:5]) == [0x1000, 0x1000, 0, 8, 1]
    assert list(buf[5:10]) == [0x2000, 0x2000, 0, 8, 1]
    assert np.frombuffer(bytes(buf)[80:84], np.float32)[0] == 1.5
    assert tuple(np.frombuffer(bytes(buf)[88:104], np.float64)) == (3.0, -4.0)
    p.launch(0x3000, 0x4000, 2.0, 1j)
    assert list(buf[0:3]) == [0x3000, 0x3000, 0] and list(buf[5:8]) == [0x4000, 0x4000, 0]
    assert len(calls) == 1
    # one pointer per parameter: 5 + 5 memref fields, the float, the complex128 (one, over 2 slots)
    pointers = list(p._params.pointers)
    assert len(pointers) == 12 and pointers[11] - pointers[10] == 8
    with pytest.raises(coop.CoopTypeError, match=r"argument 0 \(x\): dtype float64"):
        p.launch(CAI(0x5000, (8,), "float64"), 0x4000, 2.0, 1j)
    assert list(buf[0:2]) == [0x3000, 0x3000], "a refused launch changes no slot"


def test_prepare_refuses_what_only_the_launcher_passes() -> None:
    """A host array and a wrong argument count are refused before anything compiles."""
    kernel = ncoop.jit(echo)
    with pytest.raises(coop.CoopTypeError, match="takes the kernel's 11 arguments"):
        kernel.prepare(1, 32, np.zeros(4, np.float32))
    with pytest.raises(coop.CoopTypeError, match=r"argument 0 \(out\): a NumPy array is in host memory"):
        kernel.prepare(1, 32, *([np.zeros(4, np.float32)] * 11))


def test_launch_path_internals_are_where_it_expects() -> None:
    """The numba-cuda-mlir internals the launch path reads (``check()`` names them)."""
    _ncm_hooks.check()
    from numba_cuda_mlir import cuda

    disp = cuda.jit(echo)
    assert _ncm_hooks.fast_path_blocker(disp) is None
    assert "debug" in str(_ncm_hooks.fast_path_blocker(cuda.jit(echo, debug=True, opt=False)))
    assert _launch.is_device_array(_ncm_hooks.device_array_class())
    assert not _launch.is_device_array(CAI)
