"""CPU-only checks of the ROCm backend's generated tables, argument packing, kernel
cache and import-time behaviour (no GPU, no hip-python needed)."""

import re

import pytest

from candlewick import dtypes as dt
from candlewick.errors import UnsupportedOperation
from candlewick.opdefs import BinaryOp, CompareOp, ReduceOp, ScanOp, UnaryOp
from rocm_backend import backend, kernels, ops
from rocm_backend.abi import ew_operands, structs
from rocm_backend.codegen import sources


def test_every_op_and_dtype_of_opdefs_has_a_kernel():
    for family, enum in (("unary", UnaryOp), ("binary", BinaryOp), ("compare", CompareOp)):
        for op in enum:
            for d in op.dtypes():
                assert ops.kernel_key(family, op, d) in ops.TABLE, (family, op, d)
    for op in ReduceOp:
        for d in op.dtypes():
            for shape in ("rows", "cols"):
                assert ops.kernel_key("reduce", shape, op, d) in ops.TABLE
    for op in ScanOp:
        for d in op.dtypes():
            assert ops.kernel_key("scan", op, d) in ops.TABLE
    for src in dt.ALL_DTYPES:
        for dst in dt.ALL_DTYPES:
            if not src.is_complex or dst.is_complex or dst.is_bool:
                assert ops.kernel_key("astype", src, dst) in ops.TABLE
    for d in dt.ALL_DTYPES:
        for family in ("copy", "fill", "where", "take", "row_copy", "put"):
            assert ops.kernel_key(family, d.itemsize) in ops.TABLE
    for d in dt.REAL_FLOATING:
        assert all(ops.kernel_key("rand", kind, d) in ops.TABLE for kind in ("uniform", "normal"))
    for d in dt.INTEGER:
        assert ops.kernel_key("matmul", d) in ops.TABLE


def test_kernel_names_are_unique_and_generated_from_the_table():
    names = [spec.name for spec in ops.TABLE.values()]
    assert len(names) == len(set(names))
    for module, specs in ops.MODULES.items():
        source = sources.module_entry_points(module)
        for spec in specs:
            assert f" {spec.name}({spec.abi} a)" in source


def test_every_functor_and_body_the_table_names_exists_in_the_sources():
    prelude = sources.prelude()
    defined = set(re.findall(r"struct\s+(op_\w+|red_\w+|scan_\w+)", prelude))
    defined |= set(re.findall(r"#define CW_UNARY_\w+\((\w+)", prelude))
    defined |= {f"op_{m}" for m in re.findall(r"CW_UNARY_(?:FDC|ROUNDING)\((\w+),", prelude)}
    own = "".join((sources.HIP_DIR / f).read_text() for files in sources.MODULE_FILES.values() for f in files)
    bodies = set(re.findall(r"__device__ inline void (cw_\w+)\(", prelude + own))
    for spec in ops.TABLE.values():
        for name in re.findall(r"\b((?:op|red|scan)_\w+)\b", spec.body):
            assert name in defined, (spec.name, name)
        body = re.match(r"(cw_\w+)", spec.body).group(1)
        assert body in bodies, (spec.name, body)


def test_sources_use_no_literal_warp_size_and_include_no_headers():
    for name in sources.PRELUDE_FILES:
        text = (sources.HIP_DIR / name).read_text()
        assert "#include" not in text, name
        assert not re.search(r"\b(32|64)\b.*(lane|warp|wave)", text, re.I), name


def test_table_keys_have_one_form():
    """Every key is a tuple of str and int (ops by value, dtypes by name): the hot paths'
    keys of interned strings find the same entries as lookups with enums and DTypes."""
    for key, spec in ops.TABLE.items():
        assert key == spec.key and all(type(part) in (str, int) for part in key), key
    assert ops.lookup(("binary", BinaryOp.ADD, dt.float32)) is ops.TABLE[("binary", "add", "float32")]


def test_lookup_outside_the_table_is_unsupported_operation():
    with pytest.raises(UnsupportedOperation) as info:
        ops.lookup(("unary", UnaryOp.EXP, dt.int32), "exp", dt.int32)
    assert "rocm" in str(info.value) and "int32" in str(info.value)


def test_ew_values_pack_and_coalesce():
    values = ew_operands.ew_values((4, 5), [(0x1000, 3, (5, 1)), (0x2000, 0, (5, 1))], b"\1" * 8)
    packed = structs.EW_ARGS.pack(values)
    assert len(packed) == structs.EW_ARGS.size
    n, ndim, flags = values[:3]
    assert (n, ndim) == (20, 1) and flags & structs.CONTIGUOUS and flags & structs.INDEX32
    # a transposed operand keeps two dims and no fast path
    values = ew_operands.ew_values((4, 5), [(0x1000, 0, (5, 1)), (0x2000, 0, (1, 4))])
    assert values[1] == 2 and not values[2] & structs.CONTIGUOUS
    # > 2^31 elements: 64-bit index decoding
    values = ew_operands.ew_values((1 << 16, 1 << 16), [(0x1000, 0, (1 << 16, 1)), (0x2000, 0, (1, 1 << 16))])
    assert not values[2] & structs.INDEX32


def test_split_dims_keeps_pieces_within_max_dims():
    shape = (2,) * 10
    strides = tuple(2 ** (2 * i) for i in range(10))  # never mergeable
    pieces = list(ew_operands.split_dims(shape, [(0x10, 0, strides), (0x20, 0, tuple(reversed(strides)))]))
    assert len(pieces) == 4
    for piece_shape, piece_ops in pieces:
        assert len(piece_shape) == 8


def test_disk_cache_roundtrip_corruption_and_foreign_entries(tmp_path):
    key = kernels.cache_key("src", ["-O3"], "gfx90a", "hiprtc-5.2")
    kernels.write_cache_entry(tmp_path, key, b"code-object")
    path = tmp_path / f"{key}.co"
    assert kernels.read_cache_entry(path, key) == b"code-object"
    other = kernels.cache_key("src", ["-O3"], "gfx942", "hiprtc-5.2")
    assert other != key
    assert kernels.read_cache_entry(path, other) is None  # foreign: another key's file
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))
    assert kernels.read_cache_entry(path, key) is None  # corrupt: hash mismatch
    path.write_bytes(b"garbage")
    assert kernels.read_cache_entry(path, key) is None
    assert not list(tmp_path.glob(".tmp-*"))  # atomic writes leave no temporaries


def test_cache_dir_is_private(tmp_path, monkeypatch):
    monkeypatch.setenv("CANDLEWICK_KERNEL_CACHE", str(tmp_path / "kc"))
    path = kernels._ensure_cache_dir()
    assert path == tmp_path / "kc" and (path.stat().st_mode & 0o777) == 0o700


def test_all_kernel_sources_cover_every_kernel():
    seen = set()
    for name, source, options in backend.all_kernel_sources():
        assert isinstance(options, list)
        seen |= {spec.name for spec in ops.MODULES[name]}
        assert source.startswith("// ---- abi.h")
    assert seen == {spec.name for spec in ops.TABLE.values()}


def test_import_and_probe_never_raise_without_rocm():
    import rocm_backend

    ok, reason = rocm_backend.BACKEND.probe()
    assert isinstance(ok, bool)
    if not ok:
        assert reason and any(s in reason for s in ("hip-python", "libamdhip64", "hipGetDeviceCount"))
