"""The shim's hipDeviceProp_tR0600 and hipPointerAttribute_t agree, field by
field, with the structs hip-python 10 reads (no GPU needed: needs gcc and
hip-python).  A value written at the shim's offset of each field must come
back from hip-python's getter for that field."""

import ctypes
import shutil
import subprocess
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[3] / "tools" / "hip_on_cuda" / "src"
SKIP_FIELDS = {"uuid", "arch", "hdpMemFlushCntl", "hdpRegFlushCntl", "reserved", "hipReserved"}


@pytest.fixture(scope="module")
def hip():
    try:
        from hip import hip
    except Exception as exc:  # noqa: BLE001
        pytest.skip(f"hip-python not importable: {exc!r}")
    if not shutil.which("gcc"):
        pytest.skip("gcc not found")
    return hip


def c_layout(tmp_path, struct, fields):
    """{field: (offset, size)} and sizeof(struct), from the shim's own header."""
    lines = [f'printf("%s %zu %zu\\n", "{f}", offsetof({struct}, {f}), '
             f"sizeof((({struct} *)0)->{f}));" for f in fields]
    src = tmp_path / "layout.c"
    src.write_text('#include <stdio.h>\n#include <stddef.h>\n#include "hip_types.h"\n'
                   "int main(void) {\n" + "\n".join(lines)
                   + f'\nprintf("__size__ %zu 0\\n", sizeof({struct}));\nreturn 0;\n}}\n')
    exe = tmp_path / "layout"
    subprocess.run(["gcc", "-std=gnu11", "-I", str(SRC), "-o", str(exe), str(src)], check=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    table = {}
    for line in out.splitlines():
        name, off, size = line.split()
        table[name] = (int(off), int(size))
    return table


def check_struct(obj, layout, fields):
    base = obj.as_c_void_p().value
    size = obj.c_sizeof()
    assert layout.pop("__size__")[0] == size
    for i, field in enumerate(fields):
        off, nbytes = layout[field]
        ctypes.memset(base, 0, size)
        current = getattr(obj, field)
        if isinstance(current, str):
            marker = f"F{i}x".encode()
            ctypes.memmove(base + off, marker, len(marker))
            assert getattr(obj, field) == marker.decode(), field
        elif isinstance(current, bytes):
            marker = bytes(range(1 + i % 200, 1 + i % 200 + len(current)))
            ctypes.memmove(base + off, marker, len(marker))
            assert bytes(getattr(obj, field)) == marker, field
        elif isinstance(current, (list, tuple)):
            count = len(current)
            vals = [1000 * i + k + 1 for k in range(count)]
            ctypes.memmove(base + off, (ctypes.c_int * count)(*vals), nbytes)
            assert list(getattr(obj, field)) == vals, field
        else:
            value = 1000 + i
            ctypes.memmove(base + off, value.to_bytes(nbytes, "little"), nbytes)
            got = getattr(obj, field)
            got = got.value if hasattr(got, "value") and not isinstance(got, int) else got
            assert int(got) == value, field


def test_device_prop_layout_matches_hip_python(hip, tmp_path):
    props = hip.hipDeviceProp_t()
    fields = [f for f in props.PROPERTIES() if f not in SKIP_FIELDS]
    layout = c_layout(tmp_path, "hipDeviceProp_tR0600", fields)
    check_struct(props, layout, fields)


def test_pointer_attribute_layout_matches_hip_python(hip, tmp_path):
    attr = hip.hipPointerAttribute_t()
    fields = ["device", "isManaged", "allocationFlags", "devicePointer", "hostPointer"]
    layout = c_layout(tmp_path, "hipPointerAttribute_t", fields + ["type"])
    off_type = layout.pop("type")[0]
    check_struct(attr, layout, fields)
    ctypes.memset(attr.as_c_void_p().value, 0, attr.c_sizeof())
    ctypes.memmove(attr.as_c_void_p().value + off_type, (2).to_bytes(4, "little"), 4)
    assert int(attr.type) == 2  # hipMemoryTypeDevice
