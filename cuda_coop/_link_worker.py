# SPDX-License-Identifier: Apache-2.0
"""The link worker: a child process that runs nvJitLink for cuda.coop (see ``_link``).

Run as a script (``python _link_worker.py NVJITLINK``), so it imports nothing of the parent's
program: only the standard library and ``cuda.bindings``. It loads the nvJitLink library file
NVJITLINK (its parent's; empty: the one cuda.bindings finds), reads requests from stdin and answers
on stdout, each a frame (8-byte little-endian length, then a pickle), and exits at the end of its
input.

* first answer: ``("ready", nvjitlink version, library path)``;
* request ``(inputs, options, output)`` with ``inputs`` as ``(InputType name, bytes, name)``;
* answer ``("ok", bytes)`` or ``("error", message, log)``.
"""

from __future__ import annotations

import pickle
import sys
from typing import Any, BinaryIO


def read_frame(stream: BinaryIO) -> Any:
    """The next frame's object, or None at the end of the stream."""
    head = stream.read(8)
    if len(head) < 8:
        return None
    size = int.from_bytes(head, "little")
    body = stream.read(size)
    if len(body) < size:
        return None
    return pickle.loads(body)


def write_frame(stream: BinaryIO, obj: Any) -> None:
    body = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(len(body).to_bytes(8, "little") + body)
    stream.flush()


def link(inputs: list[tuple[str, bytes, str]], options: list[str], output: str) -> tuple[Any, ...]:
    from cuda.bindings import nvjitlink

    try:
        handle = nvjitlink.create(len(options), options)
    except nvjitlink.nvJitLinkError as exc:  # options it does not take: no handle, no log
        return ("error", f"{exc} (options: {' '.join(options)})", "")
    try:
        for kind, data, name in inputs:
            nvjitlink.add_data(handle, getattr(nvjitlink.InputType, kind), data, len(data), name)
        nvjitlink.complete(handle)
        if output == "ptx":
            out = bytearray(nvjitlink.get_linked_ptx_size(handle))
            nvjitlink.get_linked_ptx(handle, out)
        else:
            out = bytearray(nvjitlink.get_linked_cubin_size(handle))
            nvjitlink.get_linked_cubin(handle, out)
        return ("ok", bytes(out))
    except nvjitlink.nvJitLinkError as exc:
        log = bytearray(nvjitlink.get_error_log_size(handle))
        nvjitlink.get_error_log(handle, log)
        return ("error", str(exc), log.decode(errors="replace").rstrip("\0"))
    finally:
        nvjitlink.destroy(handle)


def preload(path: str) -> None:
    """Load the library file ``path`` (if given) before cuda.bindings loads its library: cuda.bindings
    loads through cuda.pathfinder, which takes a library already loaded, so this process then uses
    its parent's NVRTC or nvJitLink, not one that its own search would find (another toolkit on the
    loader's path, another wheel)."""
    if path:
        import ctypes

        ctypes.CDLL(path)


def library_file(lib: str) -> str | None:
    """The file of the CUDA library ``lib`` (``"nvrtc"``, ``"nvJitLink"``) this process uses, as
    cuda.pathfinder (which cuda.bindings loads through) finds it, or None if it cannot tell. Worker
    processes are given their parent's and :func:`preload` it: a worker must use its parent's
    library, whose identity keys what the worker compiles or links."""
    try:
        from cuda.pathfinder import load_nvidia_dynamic_lib

        return str(load_nvidia_dynamic_lib(lib).abs_path)
    except Exception:  # pathfinder missing or the library found elsewhere: the versions remain
        return None


def library() -> tuple[tuple[int, ...], str]:
    """The nvJitLink version and library file this process uses (the parent compares them with its
    own; a mismatch means it links by itself)."""
    from cuda.bindings import nvjitlink

    return tuple(nvjitlink.version()), library_file("nvJitLink") or "unknown"


def main() -> None:
    preload(sys.argv[1] if len(sys.argv) > 1 else "")
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing but frames on the pipe
    write_frame(stdout, ("ready", *library()))
    while (request := read_frame(stdin)) is not None:
        write_frame(stdout, link(*request))


if __name__ == "__main__":
    main()
