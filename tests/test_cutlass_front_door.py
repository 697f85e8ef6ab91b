# SPDX-License-Identifier: Apache-2.0
"""cuda.coop.cutlass.compile as a CuTe user expects it, without a GPU: the target architecture
(chosen as CuTe chooses it, reported by inspect()) and every cute.compile option, each of which
works or raises a typed error naming it."""

import os
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")

import cuda.coop.cutlass as cutlass_coop  # noqa: E402
import cutlass.cute as cute  # noqa: E402
from cuda import coop  # noqa: E402
from cuda.coop._sass import _sections, cubin_arch  # noqa: E402
from cuda.coop.cutlass import _arch, _options  # noqa: E402
from cutlass.base_dsl import compiler  # noqa: E402

from ._cute_kernels import copy_host, fake_tensor  # noqa: E402

N = 4 * 512


@pytest.fixture(scope="module")
def host() -> Any:
    return copy_host("int32", (128, 1, 1), 4, "direct")


def _compile(host: Any, *, bracket: Any = None, **kwargs: Any) -> Any:
    compile_ = cutlass_coop.compile if bracket is None else cutlass_coop.compile[bracket]
    return compile_(host, fake_tensor("int32", N), fake_tensor("int32", N), **kwargs)


def _no_env_arch(monkeypatch: pytest.MonkeyPatch, gpu: str | None) -> None:
    monkeypatch.delenv(_arch.ENV, raising=False)
    monkeypatch.setattr(_arch, "current_gpu", lambda: gpu)


# --- architecture -------------------------------------------------------------------------------


def test_default_arch_is_cute_dsl_arch_and_inspect_reports_it(host: Any) -> None:
    assert os.environ.get(_arch.ENV) == "sm_90a"  # conftest, on a machine without a GPU
    compiled = _compile(host)
    report = compiled.inspect()
    assert compiled.arch == report.arch == "sm_90a"
    assert report.summary().splitlines()[0].startswith(f"cubin: {report.size} bytes for sm_90a,")


@pytest.mark.parametrize(
    ("given", "want"), [("sm_100a", "sm_100a"), ("90a", "sm_90a"), ("compute_80", "sm_80")]
)
def test_explicit_arch_reaches_cute_and_the_link(host: Any, given: str, want: str) -> None:
    compiled = _compile(host, arch=given)
    assert compiled.arch == want and compiled.inspect().arch == want
    assert compiled.inspect().calls == 0


def test_gpu_arch_option_is_the_arch(host: Any) -> None:
    assert _compile(host, options="--gpu-arch sm_100a").inspect().arch == "sm_100a"
    assert _compile(host, bracket=compiler.GPUArch("sm_100a")).arch == "sm_100a"
    with pytest.raises(coop.CoopValueError, match="arch='sm_90a' contradicts the option --gpu-arch sm_100a"):
        _compile(host, arch="sm_90a", options="--gpu-arch sm_100a")


def test_the_current_gpu_is_the_default_without_cute_dsl_arch(
    host: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_env_arch(monkeypatch, "sm_100a")
    assert _compile(host).inspect().arch == "sm_100a"


def test_no_arch_and_no_gpu_is_a_typed_error_that_says_how(
    host: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_env_arch(monkeypatch, None)
    with pytest.raises(coop.CoopValueError, match=r"no GPU here.*pass arch='sm_90a'.*CUTE_DSL_ARCH"):
        _compile(host)


@pytest.mark.parametrize(
    ("arch", "error", "match"),
    [
        ("sm_9", coop.CoopValueError, "arch='sm_9' is not a CUDA architecture: write 'sm_'"),
        (
            "sm_75",
            coop.CoopValueError,
            "arch='sm_75' is not an architecture CuTe DSL compiles for; use one of sm_80",
        ),
        (
            90,
            coop.CoopTypeError,
            r"arch must be a string such as 'sm_90a', got 90 \(did you mean arch='sm_90a' or 'sm_90'\?\)",
        ),
        (9.0, coop.CoopTypeError, "arch must be a string"),
    ],
)
def test_bad_arch_names_the_argument(host: Any, arch: Any, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        _compile(host, arch=arch)


def test_bad_cute_dsl_arch_names_the_variable(host: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(_arch.ENV, "sm_9x")
    with pytest.raises(coop.CoopValueError, match="CUTE_DSL_ARCH='sm_9x' is not a CUDA architecture"):
        _compile(host)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90", "sm_90a", "sm_100a", "sm_100f", "sm_120a"])
def test_cubin_arch_reads_the_elf_flags_and_ptxas_arch(arch: str) -> None:
    from cuda.core import Program, ProgramOptions

    source = 'extern "C" __global__ void k(int* p) { p[0] = 1; }'
    code = bytes(Program(source, "c++", ProgramOptions(arch=arch)).compile("cubin").code)
    assert cubin_arch(code) == arch
    # without the ptxas note, the ELF flags still give the SM number (CUDA 13: bits 8-15)
    stripped = code.replace(b"-arch sm_", b"-arch xx_")
    assert cubin_arch(stripped) == arch.rstrip("af")


# --- options ------------------------------------------------------------------------------------


def test_every_cute_compile_option_is_handled_one_way() -> None:
    """A new option in the DSL fails here until it is decided (and is refused by name meanwhile)."""
    names = {cls.__name__ for cls in compiler._OPTION_REGISTRY}
    handled = _options.PASSED | _options.MAPPED | _options.DUMPS | set(_options.REFUSED)
    assert names == handled, (names - handled, handled - names)


def test_unknown_option_class_is_refused_by_name(host: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_options, "PASSED", _options.PASSED - {"EnableAssertions"})
    with pytest.raises(coop.CoopValueError, match="option EnableAssertions=True is unknown to cuda.coop"):
        _compile(host, bracket=compiler.EnableAssertions)


def _sections_of(compiled: Any) -> set[str]:
    return {name for name, *_ in _sections(compiled.cubin)}


def test_line_info_reaches_the_linked_cubin(host: Any) -> None:
    assert ".nv_debug_line_sass" not in _sections_of(_compile(host))
    assert ".nv_debug_line_sass" in _sections_of(_compile(host, bracket=cute.GenerateLineInfo))
    assert ".nv_debug_line_sass" in _sections_of(_compile(host, options="--generate-line-info"))


def test_opt_level_zero_reaches_libnvvm_and_nvjitlink(host: Any) -> None:
    default = _compile(host)
    o0 = _compile(host, options="--opt-level 0").inspect()
    assert o0.calls > 0 and o0.leftover_symbols  # not optimised: the wrappers stay calls
    o2 = _compile(host, bracket=compiler.OptLevel(2))
    assert o2.cubin == default.cubin  # libNVVM and nvJitLink know 0 and 3 only


def test_ptxas_options_reach_the_link() -> None:
    host = copy_host("float64", (128, 1, 1), 16, "transpose")
    n = 16 * 128 * 4

    def registers(**kwargs: Any) -> int:
        compiled = cutlass_coop.compile(host, fake_tensor("float64", n), fake_tensor("float64", n), **kwargs)
        return next(iter(compiled.inspect().registers.values()))

    assert registers(options="--ptxas-options -O0") != registers()
    assert registers(options="--ptxas-options '-O0 -v'") == registers(options="--ptxas-options=-O0")


def test_dumps_are_of_the_linked_kernel(host: Any, tmp_path: Path) -> None:
    compiled = _compile(host, options=f"--keep-cubin --keep-ptx --keep-sass --dump-dir {tmp_path}")
    files = {p.suffix: p for p in tmp_path.iterdir()}
    assert set(files) == {".cubin", ".ptx", ".sass"}, files
    assert files[".cubin"].read_bytes() == compiled.cubin == compiled.compiled.__cubin__
    assert files[".cubin"].name.endswith(".sm_90a.cubin")
    ptx = files[".ptx"].read_text()
    assert ".target sm_90a" in ptx and "coop_block" not in ptx  # the wrappers are inlined
    assert f".entry {compiled.inspect().functions[0]}(" in ptx and "cvtlass" not in ptx  # its own name
    assert "CALL" not in files[".sass"].read_text() and "LDG" in files[".sass"].read_text()


def test_environment_dumps_are_of_the_linked_kernel(
    host: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dsl = cutlass_coop._cute_hooks.dsl_of(host)
    monkeypatch.setattr(dsl.envar, "keep_sass", True)  # CUTE_DSL_KEEP_SASS=1
    compiled = _compile(host, options=f"--dump-dir {tmp_path}")
    files = {p.suffix: p for p in tmp_path.iterdir()}
    assert set(files) == {".cubin", ".sass"} and files[".cubin"].read_bytes() == compiled.cubin


@pytest.mark.parametrize(
    ("bracket", "options"),
    [
        (compiler.EnablePYIR, None),
        (compiler.FrontendNext, None),
        (compiler.DisableCuteExtCompile, None),
        (compiler.EnableAssertions, None),
        (None, "--enable-assertions"),
        (None, "--host-target linux-aarch64"),
        (None, "--remark-filter .*"),
        (None, "warnings{nvvm}"),
        (None, "warnings"),
        (None, "remarks{ptx}"),
        (None, "iket"),
        ((compiler.OptLevel(1), cute.GenerateLineInfo(True)), "--enable-assertions"),
    ],
    # a class's name, an instance's class name (its repr has its address, which differs between
    # pytest-xdist's workers and makes them refuse to run), a string's repr
    ids=lambda v: (
        "+".join(type(o).__name__ for o in v)
        if isinstance(v, tuple)
        else getattr(v, "__name__", None) or repr(v)
    ),
)
def test_options_that_pass_to_cute_compile_and_inline(host: Any, bracket: Any, options: Any) -> None:
    report = _compile(host, bracket=bracket, options=options).inspect()
    assert report.calls == 0 and not report.leftover_symbols and report.arch == "sm_90a"


def test_file_writing_options_write_their_files(host: Any, tmp_path: Path) -> None:
    locs, remarks = tmp_path / "locs.json", tmp_path / "remarks.yaml"
    _compile(host, options=f"--flatten-locs-output-json-path {locs} --remark-output {remarks}")
    assert locs.is_file() and remarks.is_file()


@pytest.mark.parametrize(
    ("bracket", "options", "name"),
    [
        (None, "--rdc", "RDC"),
        (compiler.RDC, None, "RDC"),
        (compiler.DeviceTarget, None, "DeviceTarget"),
        (None, "--link-libraries /tmp/lib.o", "LinkLibraries"),
    ],
)
def test_refused_options_name_themselves_and_why(host: Any, bracket: Any, options: Any, name: str) -> None:
    with pytest.raises(coop.CoopValueError, match=f"cute.compile option {name}: not supported .*: "):
        _compile(host, bracket=bracket, options=options)


def test_pipeline_flags_the_bridge_sets_are_refused(host: Any) -> None:
    with pytest.raises(coop.CoopValueError, match="pipeline option llvm-only= .* is set by cuda.coop"):
        _compile(host, bracket=compiler.ExtraCompilerOpts("llvm-only=false"))


def test_malformed_options_are_typed_errors(host: Any) -> None:
    with pytest.raises(coop.CoopValueError, match="options='--bogus' is malformed: .*malformed"):
        _compile(host, options="--bogus")
    with pytest.raises(coop.CoopTypeError, match="options= must be a string as cute.compile takes it"):
        _compile(host, options=["--rdc"])
    with pytest.raises(coop.CoopTypeError, match=r"compile\[3\]: each entry must be a cute.compile option"):
        _compile(host, bracket=3)


def test_compile_without_coop_calls_keeps_the_options() -> None:
    @cute.kernel
    def kernel(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        tidx, _, _ = cute.arch.thread_idx()
        dst[tidx] = src[tidx]

    @cute.jit
    def plain(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        kernel(src, dst).launch(grid=(1, 1, 1), block=(128, 1, 1))

    with pytest.raises(coop.CoopValueError, match="option RDC"):
        _compile(plain, options="--rdc")
    compiled = _compile(plain, arch="sm_100a")
    assert compiled.arch == "sm_100a" and compiled.cubin == b""


def test_tvm_ffi_entry_launches_the_linked_cubin(host: Any) -> None:
    """--enable-tvm-ffi (cute.EnableTVMFFI): CuTe's TVM-FFI post-compile hook attaches its entry and
    the bridge's swap runs after it, so the module the TVM-FFI entry loads holds the linked cubin."""
    pytest.importorskip("tvm_ffi", reason="apache-tvm-ffi is not installed")
    from cuda.coop.cutlass import _cute_hooks

    compiled = _compile(host, options="--enable-tvm-ffi")
    assert compiled.tvm_ffi and _cute_hooks.is_tvm_ffi(compiled.compiled)
    assert _cute_hooks.device_binary(compiled.compiled.ir_module) == compiled.cubin
    with pytest.raises(coop.CoopValueError, match="compiled with TVM-FFI.*call it directly"):
        compiled.prepare()
    plain = _compile(host)
    assert not plain.tvm_ffi and _cute_hooks.device_binary(plain.compiled.ir_module) == plain.cubin
