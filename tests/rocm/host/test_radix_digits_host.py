"""radix_digits (hip/radix_digits.hip) run on the CPU (host_exec.py's harness), its digit totals
against NumPy's counts of the class keys' digits: keys read (radix_digits_k*) or made from the
source (radix_digits_enc_*) of every key type and decoding, every number of passes counted,
descending keys, NaNs and zeros of both signs, rows spread over blocks and blocks over rows,
sources that start off 16-byte alignment and strided sources (the one-element-a-load path)."""

import ctypes

import numpy as np
import pytest

from candlewick import dtypes as dt
from host_exec import build
from rocm_backend import ops
from rocm_backend.abi import structs
from rocm_backend.codegen.sources import MODULE_FILES
from rocm_backend.families.sort import _decoding

RADIX_ARGS = structs.RADIX_ARGS


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    specs = [s for s in ops.TABLE.values() if s.key[0] == "radix" and s.key[1] in ("digits", "digits_enc")]
    return build(tmp_path_factory.mktemp("radix_digits"), ["sort.hip", *MODULE_FILES[ops.SORT_MODULE]], specs)


def _source(dtype, n, rng):
    """n elements of ``dtype`` with repeats, the extremes, zeros of both signs and NaNs (floats)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(n) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        x[rng.random(n) < 0.2] = rng.integers(-3, 3, dtype=np.int64).astype(dtype)  # a digit many keys share
        x[:2] = info.min, info.max
        return x
    x = rng.standard_normal(n).astype(dtype)
    bits = x.view(f"u{dtype.itemsize}")
    for frac, value in ((0.1, 0.0), (0.1, -0.0), (0.05, np.inf), (0.05, -np.inf)):
        x[rng.random(n) < frac] = value
    nan = rng.random(n) < 0.1  # NaNs of every sign and payload
    one = np.array(1, bits.dtype)
    top = one << np.array(8 * dtype.itemsize - 1, bits.dtype)
    mant = (one << np.array(np.finfo(dtype).nmant, bits.dtype)) - one
    bits[nan] = np.array(np.nan, dtype).view(bits.dtype) | (rng.integers(0, 1 << 62, n, dtype=np.uint64).astype(
        bits.dtype) & mant)[nan] | np.where(rng.random(n) < 0.5, top, 0).astype(bits.dtype)[nan]
    return x


def _keys(x, descending, classes):
    """(key type, the sort's keys of x: cw_radix<S>::key with the flip; ``classes``: each made its
    class's, cw_radix_class: both zeros +0.0's, every NaN all ones)."""
    size = 4 if x.dtype.itemsize <= 4 else 8
    kt = np.dtype(f"u{size}")
    bits = 1 if x.dtype == np.bool_ else 8 * x.dtype.itemsize
    all_ = (1 << bits) - 1
    if x.dtype == np.bool_:
        k = x.astype(kt)
    elif x.dtype.kind == "f":
        b = x.view(f"u{x.dtype.itemsize}").astype(kt)
        sign = kt.type(1 << (bits - 1))
        k = np.where(b & sign, ~b & kt.type(all_), b | sign)
        if classes:
            mag = b & kt.type((1 << (bits - 1)) - 1)
            inf = np.array(np.inf, x.dtype).view(f"u{x.dtype.itemsize}").astype(kt)
            k = np.where(mag == 0, sign, np.where(mag > inf, kt.type(all_), k))
    else:
        k = x.view(f"u{x.dtype.itemsize}").astype(kt)
        if x.dtype.kind == "i":
            k = k ^ kt.type(1 << (bits - 1))
    return kt, (k ^ kt.type(all_ if descending else 0)).astype(kt)


def _fields(dtype, descending):
    """(mask, decode, inf) of RADIX_ARGS for ``dtype`` (families/sort.py's _decoding)."""
    d = {np.dtype(d.numpy): d for d in dt.ALL_DTYPES if not d.is_complex}[np.dtype(dtype)]
    return _decoding(d, 1 if d.is_bool else 8 * d.itemsize, descending)


def _run(lib, x, rows, L, chunk, grid, shift, descending, enc, offset=0, stride=1):
    """radix_digits' totals (rows, passes counted, 256) of ``rows`` rows of L keys (row r at
    x[offset + r * L * stride ...] one ``stride`` apart when ``enc``), against NumPy's."""
    size = 4 if x.dtype.itemsize <= 4 else 8
    bits = 1 if x.dtype == np.bool_ else 8 * x.dtype.itemsize
    mask, decode, inf = _fields(x.dtype, descending)
    kt, classes = _keys(x, descending, True)
    rows_of = np.stack([classes[offset + r * L * stride:][:L * stride:stride] for r in range(rows)])
    passes = shift // 8 if shift else (bits + 7) // 8
    want = np.stack([np.stack([np.bincount((rows_of[r] >> kt.type(8 * q)).astype(np.int64) & 255, minlength=256)
                               for q in range(passes)]) for r in range(rows)])
    blocks = -(-L // chunk)
    counts = np.zeros(8 + rows * ((bits + 7) // 8) * 256 + 64, np.uint64)
    if enc:
        name = f"radix_digits_enc_k{size}_b{x.dtype.itemsize}"
        src, keys_in, src_row = x, 0, L * stride
    else:  # the keys as radix_keys writes them (no classes made): contiguous rows
        name = f"radix_digits_k{size}"
        keys = np.ascontiguousarray(np.stack([_keys(x, descending, False)[1][r * L:(r + 1) * L] for r in range(rows)]))
        src, keys_in, src_row, offset, stride = x, keys.ctypes.data, 0, 0, 1
        rows_of = None
    args = RADIX_ARGS.pack([keys_in, 0, 0, 0, counts.ctypes.data, L, rows, chunk, blocks, shift, bits, 0, 0,
                            src.ctypes.data if enc else 0, offset, stride, src_row, mask, decode, inf])
    buf = ctypes.create_string_buffer(args, len(args))
    order = np.random.default_rng(grid).permutation(grid).astype(np.int32)  # blocks in any order
    err = getattr(lib, f"cwh_{name}")(buf, grid, 1, structs.RADIX_BLOCK, 1, 32, order.ctypes.data_as(ctypes.c_void_p))
    assert err is None, err.decode()
    got = counts[8:8 + rows * ((bits + 7) // 8) * 256].reshape(rows, (bits + 7) // 8, 256)[:, :passes]
    np.testing.assert_array_equal(got, want)
    assert not counts[8 + rows * ((bits + 7) // 8) * 256:].any()  # nothing past the totals


@pytest.mark.parametrize("dtype", ["float64", "int64", "uint64", "float32", "int32", "uint32", "float16", "int16",
                                   "uint16", "int8", "uint8", "bool"])
@pytest.mark.parametrize("enc", [True, False], ids=["made", "read"])
@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
def test_every_pass_counted(lib, dtype, enc, descending):
    """Every pass's digits of 3 rows of 2500 keys (ranges of 700: blocks cross rows)."""
    x = _source(dtype, 3 * 2500 + 16, np.random.default_rng(1))
    _run(lib, x, 3, 2500, 700, 4, 0, descending, enc)


@pytest.mark.parametrize("dtype, shift", [("float64", 40), ("int64", 32), ("float64", 24), ("uint64", 8),
                                          ("float64", 56), ("float32", 8), ("int16", 8), ("float32", 24)])
def test_the_passes_below_a_shift(lib, dtype, shift):
    """An argsort's count of the passes up to its first pass of items: 5 and 4 of 8 (the counts
    fixed at compile time), and any other number (checked a digit)."""
    x = _source(dtype, 2 * 3001, np.random.default_rng(2))
    _run(lib, x, 2, 3001, 512, 3, shift, False, True)
    _run(lib, x, 2, 3001, 512, 5, shift, True, False)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "int8", "bool"])
@pytest.mark.parametrize("offset, stride", [(1, 1), (3, 1), (0, 3), (2, 5)])
def test_unaligned_and_strided_sources(lib, dtype, offset, stride):
    """Rows that start off 16-byte alignment or whose elements are a stride apart: one element a load."""
    x = _source(dtype, offset + 2 * 1500 * stride + 8, np.random.default_rng(3))
    _run(lib, x, 2, 1500, 400, 3, 0, False, True, offset, stride)


@pytest.mark.parametrize("grid", [1, 2, 7, 40])
def test_any_number_of_blocks(lib, grid):
    """One block over every range of every row, down to blocks of no range (more blocks than ranges)."""
    x = _source("float64", 5 * 1800, np.random.default_rng(4))
    _run(lib, x, 5, 1800, 600, grid, 0, False, True)
    _run(lib, x, 5, 1800, 600, grid, 40, True, True)
