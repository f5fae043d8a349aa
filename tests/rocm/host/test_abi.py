"""The kernel ABI is declared once (rocm_backend/abi/structs.py): the committed C header
hip/abi.h is exactly what c_header.py generates from it, and g++ lays out every field of
every argument struct at the offset, with the size, the Python packer uses."""

import shutil
import subprocess

import pytest

from rocm_backend.abi import c_header, structs


def test_committed_header_is_the_generated_one():
    assert c_header.HEADER.read_text() == c_header.header_text(), (
        "rocm_backend/hip/abi.h is stale: run `python -m rocm_backend.abi.c_header`")


def test_every_struct_and_constant_is_in_the_header():
    text = c_header.header_text()
    for layout in structs.ABIS.values():
        assert f"struct {layout.name} {{" in text
    for _, macro, value in structs.CONSTANTS + structs.OVERRIDABLE:
        assert f"#define {macro} {value}" in text
    for macro, value, _ in structs.FLAGS:
        assert f"#define {macro} {value} " in text


def test_the_sources_define_no_struct_or_constant_of_the_header():
    """Each is declared once: no .hip/.h file besides abi.h defines them again."""
    names = [f"struct {layout.name} {{" for layout in structs.ABIS.values()]
    names += [f"struct {nested.name} {{" for nested in structs.NESTED]
    names += [f"#define {macro} " for _, macro, _ in structs.CONSTANTS + structs.OVERRIDABLE]
    names += [f"#define {macro} " for macro, _, _ in structs.FLAGS]
    for path in c_header.HEADER.parent.iterdir():
        if path.name != c_header.HEADER.name and path.suffix in (".h", ".hip"):
            text = path.read_text()
            for name in names:
                assert name not in text, (path.name, name)


def _host_program():
    """C++ that prints ``struct field offset size`` for every flattened field of every
    struct, and ``struct __size__ sizeof 0``."""
    lines = ['#include <stdio.h>', '#include <stddef.h>', '#include "abi.h"', "int main() {"]
    for layout in structs.ABIS.values():
        s = layout.name
        for flat, _, _, _, path in layout.flat:
            lines.append(f'printf("{s} {flat} %zu %zu\\n", offsetof({s}, {path}), sizeof((({s}*)0)->{path}));')
        lines.append(f'printf("{s} __size__ %zu 0\\n", sizeof({s}));')
    lines += ["return 0;", "}"]
    return "\n".join(lines) + "\n"


def test_gxx_lays_out_every_field_as_the_python_side(tmp_path):
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ not found: this test compiles hip/abi.h for the host")
    src, exe = tmp_path / "abi_layout.cpp", tmp_path / "abi_layout"
    src.write_text(_host_program())
    subprocess.run([gxx, "-std=c++17", "-I", str(c_header.HEADER.parent), str(src), "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    got = {}
    for line in out.splitlines():
        struct_name, field, offset, size = line.split()
        got[(struct_name, field)] = (int(offset), int(size))
    checked = 0
    for layout in structs.ABIS.values():
        assert got[(layout.name, "__size__")][0] == layout.size, layout.name
        for flat, kind, count, offset, _ in layout.flat:
            assert got[(layout.name, flat)] == (offset, layout.field_bytes(kind, count)), (layout.name, flat)
            checked += 1
    assert checked + len(structs.ABIS) == len(got) and len(structs.ABIS) == 12
