"""An op-table kernel's first launch on the fake HIP runtime: it compiles that kernel alone
where the code-object cache lacks its module, and loads the whole module, compiling
nothing, where the cache holds it (``backend.precompile``'s modules, or an earlier
process's). The compiler is a recording stand-in: no hipRTC is needed."""

import hashlib
import re

import pytest

from rocm_backend import RocmBackend, kernels, ops
from rocm_backend.codegen.sources import kernel_source, module_source

ENTRY = re.compile(r'extern "C" __global__ void __launch_bounds__\([^)]*\) (\w+)\(')


@pytest.fixture
def compiled(monkeypatch):
    """The (name, entry points) of every source the stand-in compiler was given."""
    seen = []

    def stand_in(name, source, options, arch):
        seen.append((name, ENTRY.findall(source)))
        return hashlib.sha256((source + arch).encode()).digest()

    monkeypatch.setattr(kernels, "compile_source", stand_in)
    monkeypatch.setattr(kernels, "_code_memory", {})  # nothing of another test's in memory
    return seen


def _two_specs():
    module = "reduce_float32"
    specs = ops.MODULES[module][:2]
    assert len(specs) == 2 and specs[0].name != specs[1].name
    return module, specs


def test_a_first_launch_compiles_its_kernel_alone(fake, compiled):
    runtime, dev = fake
    module, (a, b) = _two_specs()
    loads = runtime.calls["hipModuleLoadData"]
    fa, fb = dev.kernels.function(a), dev.kernels.function(b)
    assert compiled == [(f"{module}.{a.name}", [a.name]), (f"{module}.{b.name}", [b.name])]
    assert runtime.calls["hipModuleLoadData"] == loads + 2  # a module of its own each
    assert (fa.name, fb.name) == (a.name.encode(), b.name.encode())
    assert dev.kernels.function(a) is fa and len(compiled) == 2  # then a dict hit
    # the same kernel in a new process (a new runtime): from the disk cache, not compiled
    kernels._code_memory.clear()
    again = kernels.KernelRuntime(RocmBackend().device(0), module_source, kernel_source)
    assert again.function(a).name == a.name.encode() and len(compiled) == 2


def test_a_module_in_the_cache_loads_whole(fake, compiled):
    runtime, dev = fake
    module, (a, b) = _two_specs()
    kernels.code_object(module, module_source(module), dev.arch)  # as backend.precompile does
    assert len(compiled) == 1 and len(compiled[0][1]) == len(ops.MODULES[module])
    kernels._code_memory.clear()  # read back from the disk cache
    loads = runtime.calls["hipModuleLoadData"]
    dev.kernels.function(a), dev.kernels.function(b)
    assert len(compiled) == 1  # nothing compiled
    assert runtime.calls["hipModuleLoadData"] == loads + 1  # one load for both kernels


def test_kernel_source_is_the_module_source_with_one_entry():
    module, (a, b) = _two_specs()
    whole, alone = module_source(module), kernel_source(a)
    assert ENTRY.findall(alone) == [a.name]
    assert ENTRY.findall(whole) == [spec.name for spec in ops.MODULES[module]]
    assert whole.startswith(alone[:alone.index(ops.entry_point(a))])  # the same prelude


def test_a_compile_error_names_the_kernel_and_its_module(fake, monkeypatch):
    _, dev = fake
    module, (a, _) = _two_specs()

    def failing(name, source, options, arch):
        raise kernels.RocmError("hiprtcCompileProgram", 6, "line 1: error")

    monkeypatch.setattr(kernels, "compile_source", failing)
    monkeypatch.setattr(kernels, "_code_memory", {})
    with pytest.raises(kernels.RocmError) as info:
        dev.kernels.function(a)
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert a.name in notes and module in notes


def test_a_kernel_the_table_does_not_list_compiles_its_module_source(fake, compiled, monkeypatch):
    # as tests/rocm/gpu/test_faults.py injects a broken or faulting module: the module's
    # own source is compiled, not the table's prelude with an entry point made up for it
    _, dev = fake
    source = 'extern "C" __global__ void __launch_bounds__(32) cw_own(int a) {}'
    original = dev.kernels.module_source
    monkeypatch.setattr(dev.kernels, "module_source", lambda m: source if m == "own_module" else original(m))
    spec = ops.KernelSpec(("test", "own"), "cw_own", "own_module", "cw_ew_args", "", 32)
    assert kernel_source(spec) is None
    dev.kernels.function(spec)
    assert compiled == [("own_module", ["cw_own"])]
