# SPDX-License-Identifier: Apache-2.0
"""Backends reach the core through one face, ``cuda.coop._backend_api``, and nothing else private."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import cuda.coop
import pytest
from cuda.coop import _backend_api
from cuda.coop._registry import BACKENDS

ROOT = Path(__file__).resolve().parents[1]
#: backend name -> the folder of its package in the source tree
FOLDERS = {
    "numba": ROOT / "cuda_coop" / "numba",
    "cutlass": ROOT / "cuda_coop_cutlass",
    "numba_mlir": ROOT / "cuda_coop" / "numba_mlir",
}
FACE = "cuda.coop._backend_api"
#: what the two Numba-like backends share (their front door, their kernel side over a ``Dsl``): it
#: reaches the core through the face too, and imports no DSL
NUMBA_LIKE = "cuda.coop._numba_like"
SHARED = {"numba": NUMBA_LIKE, "numba_mlir": NUMBA_LIKE}


def _imports(path: Path, package: str) -> list[tuple[int, str, list[str]]]:
    """Every import of ``path``, a module of ``package`` (lazy imports inside functions too), as
    (line, absolute module, names)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name, []) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:  # relative: resolve against the backend's own package
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                assert base, f"{path}:{node.lineno}: relative import above cuda"
                module = ".".join([*base, module] if module else base)
            found.append((node.lineno, module, [a.name for a in node.names]))
    return found


def _files(backend: str) -> list[tuple[Path, str]]:
    """The backend's modules (subpackages too), each with the package it belongs to."""
    folder = FOLDERS[backend]
    out = []
    for path in sorted(folder.rglob("*.py")):
        parts = path.parent.relative_to(folder).parts
        out.append((path, ".".join([BACKENDS[backend], *parts])))
    return out


def _private_core_imports(path: Path, package: str, shared: str = "") -> list[str]:
    bad = []
    for line, module, names in _imports(path, package):
        where = f"{path.name}:{line}"
        parts = module.split(".")
        if parts[:2] != ["cuda", "coop"] or module == FACE:
            continue
        if shared and (module == shared or module.startswith(shared + ".")):
            continue
        if len(parts) == 2:  # from cuda.coop import X: only public names
            bad += [f"{where} imports cuda.coop.{n}" for n in names if n.startswith("_")]
        elif parts[2].startswith("_"):
            bad.append(f"{where} imports {module}")
    return bad


def test_every_registered_backend_has_a_checked_folder() -> None:
    assert set(FOLDERS) == set(BACKENDS)
    for folder in FOLDERS.values():
        assert (folder / "__init__.py").is_file()


@pytest.mark.parametrize("backend", sorted(FOLDERS))
def test_backend_imports_no_private_core_module_but_the_face(backend: str) -> None:
    files = _files(backend)
    assert files
    bad = [b for f, package in files for b in _private_core_imports(f, package, SHARED.get(backend, ""))]
    assert not bad, f"import these through {FACE} (add them there if missing):\n" + "\n".join(bad)


def _shared_files() -> list[tuple[Path, str]]:
    folder = ROOT / "cuda_coop" / "_numba_like"
    return [(path, NUMBA_LIKE) for path in sorted(folder.glob("*.py"))]


def test_numba_like_shared_code_imports_the_face_only_and_no_dsl() -> None:
    """cuda.coop._numba_like is written once for numba-cuda and numba-cuda-mlir: it takes the core
    through the face, each DSL's names from the ``Dsl`` a backend gives it, never a DSL module."""
    files = _shared_files()
    assert files
    bad = [b for f, package in files for b in _private_core_imports(f, package, NUMBA_LIKE)]
    dsl = ("numba", "numba_cuda_mlir", "llvmlite", "cutlass", "cuda.coop.numba", "cuda.coop.cutlass")
    bad += [
        f"{f.name}:{line} imports {module}"
        for f, package in files
        for line, module, _names in _imports(f, package)
        if any(module == m or module.startswith(m + ".") for m in dsl)
    ]
    assert not bad, "\n".join(bad)


def test_no_package_edits_its_import_path() -> None:
    """Every module is imported by its own name from its own folder: no package appends to its
    ``__path__`` (the numba-cuda-mlir kernel side once borrowed the Numba backend's modules so)."""
    bad = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for folder in ("cuda_coop", "cuda_coop_cutlass")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(), str(path)))
        if (isinstance(node, ast.Name) and node.id == "__path__")
        or (isinstance(node, ast.Attribute) and node.attr == "__path__")
    ]
    assert not bad, "\n".join(bad)


def test_the_guard_sees_a_private_import(tmp_path: Path) -> None:
    folder = tmp_path / "numba"
    folder.mkdir()
    probe = folder / "_probe.py"
    probe.write_text(
        "from cuda.coop._session import current\n"
        "from cuda.coop import _link, block\n"
        "from .. import _render\n"
        "def f():\n    import cuda.coop._dtypes\n"
    )
    bad = _private_core_imports(probe, "cuda.coop.numba")
    assert [b.split(" imports ")[1] for b in bad] == [
        "cuda.coop._session",
        "cuda.coop._link",
        "cuda.coop._render",
        "cuda.coop._dtypes",
    ]


def test_face_names_are_all_there_and_public_ones_are_the_same_objects() -> None:
    for name in _backend_api.__all__:
        assert hasattr(_backend_api, name), name
    for name in set(_backend_api.__all__) & set(cuda.coop.__all__):
        assert getattr(_backend_api, name) is getattr(cuda.coop, name), name


def test_face_imports_no_dsl_binding_or_driver() -> None:
    heavy = ("numba", "cutlass", "cuda.bindings", "cuda.core", "cuda.cccl", "numpy")
    code = (
        "import sys, cuda.coop._backend_api\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {heavy!r} or m.startswith({heavy!r})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_qualified_namespace_is_derived_from_the_catalog(backend: str) -> None:
    """Each backend package exports the scopes, ThreadData, TempStorage and every choice enum, the
    same objects as ``cuda.coop`` and in the same order, after its own entry points."""
    pytest.importorskip(
        {"numba": "numba.cuda", "cutlass": "cutlass.cute", "numba_mlir": "numba_cuda_mlir"}[backend]
    )
    module = __import__(BACKENDS[backend], fromlist=["__all__"])
    shared = cuda.coop.__all__[: cuda.coop.__all__.index("register")]
    assert module.__all__[-len(shared) :] == shared
    for name in shared:
        assert getattr(module, name) is getattr(cuda.coop, name), name


#: What only a backend's hooks module may touch: its DSL's internal modules, and attributes (or
#: names given to getattr) that are not the DSL's public API. Each is named by that module's check().
HOOKS = {
    "numba": (
        "_numba_hooks.py",
        (
            "numba.cuda.descriptor",
            "numba.cuda.compiler",
            "numba.cuda.codegen",
            "numba.cuda.cudadrv.driver",
            "numba.cuda.cudadrv.linkable_code",
            "numba.cuda.dispatcher",
            "numba.cuda.core.imputils",
            "numba.cuda.typing.templates.builtin_registry",
        ),
        {
            "_numba_type_",
            "_cuda_coop_session",
            "_linking_files",
            "_codelibrary",
            "active_code_library",
            "add_linking_file",
            "argument_types",
            "cooperative",
        },
    ),
    "numba_mlir": (
        "_ncm_hooks.py",
        (
            "numba_cuda_mlir.tools",
            "numba_cuda_mlir.descriptor",
            "numba_cuda_mlir.linker",
            "numba_cuda_mlir.mlir_lowering",
            "numba_cuda_mlir.numba_cuda.cudadrv.driver",
            "numba_cuda_mlir.numba_cuda.core.typeinfer",
            "numba_cuda_mlir.numba_cuda.cudadrv.devicearray",
            "numba_cuda_mlir.compiler",
            "numba_cuda_mlir._whole_function_planners",
        ),
        {
            "_numba_type_",
            "_cached_cc",
            "link_external_item",
            "_Linker",
            "_codelibrary",
            "_handle",
            "_requires_launch_config",
            "_literal_arg_positions",
            "_module_setup_callbacks",
            "_planner_registry",
            "cooperative",
        },
    ),
    "cutlass": (
        "_cute_hooks.py",
        ("cutlass._mlir", "cutlass.base_dsl"),
        {"__c_pointers__", "engine", "_dsl_object", "_current_kernel"},
    ),
}


def _dsl_internals(path: Path, package: str, modules: tuple[str, ...], attrs: set[str]) -> list[str]:
    bad = []
    for line, module, _names in _imports(path, package):
        if any(module == m or module.startswith(m + ".") for m in modules):
            bad.append(f"{path.name}:{line} imports {module}")
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        name = None
        if isinstance(node, ast.Attribute) and node.attr in attrs:
            name = node.attr
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in attrs:
            name = node.value
        if name:
            bad.append(f"{path.name}:{node.lineno} uses {name}")
    return bad


@pytest.mark.parametrize("backend", sorted(HOOKS))
def test_dsl_internals_only_in_the_hooks_module(backend: str) -> None:
    hooks, modules, attrs = HOOKS[backend]
    files = [(f, package) for f, package in _files(backend) if f.name != hooks]
    bad = [b for f, package in files for b in _dsl_internals(f, package, modules, attrs)]
    assert not bad, f"move these into {hooks} (and name them in its check()):\n" + "\n".join(bad)


def test_numba_kernel_side_does_not_import_the_host_side() -> None:
    """cuda.coop.numba is split by job: kernel/ (typing, lowering, types, prescan, barriers) runs while
    numba-cuda compiles; host/ (dispatcher, launch, marshalling, AOT, options) before and after. The
    kernel side needs nothing of the host side."""
    bad = [
        f"{path.name}:{line} imports {module}"
        for path, package in _files("numba")
        if package.endswith(".kernel")
        for line, module, _names in _imports(path, package)
        if module.startswith("cuda.coop.numba.host")
    ]
    assert not bad, "\n".join(bad)
