"""NumPy dtype interop: every candlewick dtype converts with ``np.dtype``, equals (and
hashes like) the NumPy dtype of the same type, and every function that takes a dtype
accepts NumPy dtypes and dtype names, with a clear error for one candlewick lacks."""

import ml_dtypes
import numpy as np
import pytest

import candlewick as cw
from candlewick import dtypes as _dt
from candlewick.errors import DTypeError

NUMPY_OF = {
    "bool": np.bool_, "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
    "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
    "float16": np.float16, "bfloat16": ml_dtypes.bfloat16, "float32": np.float32,
    "float64": np.float64, "complex64": np.complex64, "complex128": np.complex128,
}
NAMES = [d.name for d in _dt.ALL_DTYPES]


def test_every_dtype_is_covered():
    assert sorted(NUMPY_OF) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_np_dtype_converts_and_compares_equal(name):
    dtype, scalar_type = getattr(cw, name), NUMPY_OF[name]
    assert np.dtype(dtype) == np.dtype(scalar_type)
    assert dtype == np.dtype(scalar_type) and np.dtype(scalar_type) == dtype
    assert dtype == scalar_type
    assert not (dtype != np.dtype(scalar_type))
    assert hash(dtype) == hash(np.dtype(scalar_type))
    assert dtype in {np.dtype(scalar_type)} and np.dtype(scalar_type) in {dtype}
    # NumPy reads it wherever it takes a dtype
    assert np.zeros(2, dtype=dtype).dtype == np.dtype(scalar_type)


@pytest.mark.parametrize("name", NAMES)
def test_differs_from_every_other_type(name):
    dtype = getattr(cw, name)
    for other in NAMES:
        if other != name:
            assert dtype != getattr(cw, other)
            assert dtype != np.dtype(NUMPY_OF[other])
            assert dtype != other and not (other == dtype)
    # its own name compares equal, as NumPy's dtype does ("float32" == np.dtype("float32"));
    # a Python type, an unknown name or None does not
    assert dtype == name and name == dtype
    assert dtype != "not-a-dtype" and dtype is not None
    if name not in ("float64", "complex128", "bool"):
        assert dtype != float and dtype != complex


@pytest.mark.parametrize("spelling", [np.float32, np.dtype("float32"), "float32", "f4"])
def test_functions_accept_numpy_dtypes_and_names(spelling, device):
    x = cw.asarray([1.0, 2.0], device=device)
    assert cw.astype(x, spelling).dtype is cw.float32
    assert x.astype(spelling).dtype is cw.float32
    assert cw.zeros(2, dtype=spelling, device=device).dtype is cw.float32
    assert cw.full((2,), 3, dtype=spelling, device=device).dtype is cw.float32
    assert cw.arange(3, dtype=spelling, device=device).dtype is cw.float32
    assert cw.linspace(0, 1, 3, dtype=spelling, device=device).dtype is cw.float32
    assert cw.eye(2, dtype=spelling, device=device).dtype is cw.float32
    assert cw.asarray([1, 2], dtype=spelling, device=device).dtype is cw.float32
    assert cw.sum(x, dtype=spelling).dtype is cw.float32
    assert cw.result_type(spelling, cw.float16) is cw.float32
    assert cw.can_cast(cw.float16, spelling)
    assert cw.finfo(spelling).bits == 32
    assert cw.isdtype(spelling, "real floating") and cw.isdtype(cw.float32, np.dtype(spelling))
    assert cw.fft.fftfreq(4, dtype=spelling, device=device).dtype is cw.float32


def test_bfloat16_through_ml_dtypes(device):
    x = cw.asarray([1.0, 2.5], dtype=ml_dtypes.bfloat16, device=device)
    assert x.dtype is cw.bfloat16 and x.dtype == np.dtype(ml_dtypes.bfloat16)
    assert cw.astype(x, "bfloat16").dtype is cw.bfloat16


@pytest.mark.parametrize("bad", [np.dtype("datetime64[s]"), np.dtype(object), "U3", np.str_])
def test_numpy_dtype_without_candlewick_equal_is_refused(bad, device):
    x = cw.asarray([1.0], device=device)
    with pytest.raises(DTypeError, match=r"astype: dtype: NumPy dtype .* has no candlewick equal"):
        cw.astype(x, bad)
    with pytest.raises(DTypeError, match="no candlewick equal"):
        cw.zeros(2, dtype=bad, device=device)
    # as a kind it is simply not the dtype
    if not isinstance(bad, str):
        assert cw.isdtype(cw.float64, bad) is False


@pytest.mark.parametrize("bad", ["not-a-dtype", 3, 1.5, [1, 2]])
def test_non_dtypes_are_refused(bad, device):
    x = cw.asarray([1.0], device=device)
    with pytest.raises(DTypeError, match="astype: dtype"):
        cw.astype(x, bad)
    with pytest.raises(DTypeError, match="astype: dtype must be a dtype"):
        cw.astype(x, x)


@pytest.mark.parametrize("name", NAMES)
def test_reads_as_numpys_dtype(name):
    """kind, char, itemsize and every other NumPy dtype attribute are NumPy's, and code
    that checks ``isinstance(dtype, np.dtype)`` (xarray, pandas) takes it as one."""
    dtype, numpy_dtype = getattr(cw, name), np.dtype(NUMPY_OF[name])
    for attribute in ("kind", "char", "itemsize", "type", "str", "num", "byteorder", "alignment", "isnative"):
        assert getattr(dtype, attribute) == getattr(numpy_dtype, attribute), attribute
    assert isinstance(dtype, np.dtype) and type(dtype) is _dt.DType
    for spelling in (numpy_dtype.str, numpy_dtype.char, name):
        assert (dtype == spelling) == (numpy_dtype == spelling), spelling  # as NumPy compares
    assert np.issubdtype(dtype, numpy_dtype.type) and np.result_type(dtype) == numpy_dtype


def test_array_dtype_compares_with_numpy_spellings(device):
    x = cw.asarray([1, 2], dtype=cw.int64, device=device)
    assert x.dtype == "int64" and x.dtype == "i8" and x.dtype == np.int64 and x.dtype == np.dtype("int64")
    assert x.dtype != "int32" and x.dtype != np.float64
    assert x.dtype.kind == "i" and x.dtype.char == np.dtype("int64").char and x.dtype.itemsize == 8


def test_standard_dtype_objects_keep_their_attributes():
    assert cw.float32.category == "real floating" and cw.float32.name == "float32"
    assert repr(cw.float32) == "candlewick.float32"
    assert cw.float32 is _dt.from_name("float32")


@pytest.mark.parametrize("name", NAMES)
def test_numpy_testing_compares_dtypes(name):
    # numpy.testing.assert_equal takes a complex candlewick dtype for complex data (its
    # ``dtype`` attribute) and splits it with np.real / np.imag: NumPy 2.5 recursed
    # without end there (SciPy 1.18's test_interface.py::TestAsLinearOperator::test_xp)
    dtype, numpy_dtype = getattr(cw, name), np.dtype(NUMPY_OF[name])
    real, imag = np.real(dtype), np.imag(dtype)
    assert type(real) is type(numpy_dtype) and real == numpy_dtype and imag == 0 and type(imag) is int
    for a, b in ((dtype, numpy_dtype), (numpy_dtype, dtype), (dtype, dtype)):
        np.testing.assert_equal(a, b)
    other = cw.float32 if name != "float32" else cw.float64
    for a, b in ((dtype, other), (other, dtype), (np.dtype(other.numpy), dtype)):
        with pytest.raises(AssertionError):
            np.testing.assert_equal(a, b)
