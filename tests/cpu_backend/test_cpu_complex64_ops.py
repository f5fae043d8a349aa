"""cpu_backend.complex64_ops: complex64 multiply is NumPy's complex128 product of the
widened operands rounded once to complex64, bit for bit (a NaN's sign aside), through
candlewick._native.complex64_multiply where it was built (its AVX-512, AVX2 and scalar
loops: runs of every length around their 8- and 4-element steps), for every operand form
the storage hands the kernel; and the corner cases NumPy's own complex64 loop misses."""

import numpy as np
import pytest

import candlewick as cw
from cpu_backend import complex64_ops
from cpu_backend.error import QuietBlock
from cpu_backend.ops import BINARY_RAW

C64, C128 = np.dtype(np.complex64), np.dtype(np.complex128)
F32 = np.dtype(np.float32)
SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1, -1, 0.5, 3.4e38, -3.4e38, 1.5e-45, 1.9e19, 6e18,
                     1 + 2**-12, 1 - 2**-12], F32)
SIZES = (1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 100, 4099)
native = pytest.mark.skipif(complex64_ops._native_multiply is None, reason="candlewick._native not built")


def kernel():
    return BINARY_RAW["multiply"]["complex64"][0]


def reference(a, b):
    return np.multiply(a, b, signature=(C128, C128, None)).astype(C64)


def operands(n, rng):
    """Every pair of special parts, random bit patterns (subnormal, huge, NaN parts), and
    values that cancel (a * conj(a) rotated by a hair)."""
    grid = (SPECIALS[:, None] + 1j * SPECIALS[None, :]).astype(C64).ravel()
    yield np.resize(np.repeat(grid, grid.size), n), np.resize(np.tile(grid, grid.size), n)
    bits = lambda: rng.integers(0, 2**32, (n, 2), dtype=np.uint64).astype(np.uint32).view(C64)[:, 0]  # noqa: E731
    yield bits(), bits()
    a = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(C64)
    yield a, (np.conj(a) * np.complex64(1 + 1e-6j)).astype(C64)


def variants(a, b):
    """The operand forms the storage hands the kernel: flat, 0-d (either side), reversed,
    strided, broadcast both ways."""
    yield a, b
    yield a, np.array(b[0], C64)
    yield np.array(a[0], C64), b
    yield a[::-1], b[::-1]
    m = a[1::2].size
    yield a[::2][:m], b[1::2]
    yield a.reshape(-1, 1)[:5], b.reshape(1, -1)
    yield a[None, :], np.stack([b, a])


def same(got, want):
    assert got.dtype == want.dtype == C64 and got.shape == want.shape
    parts_got, parts_want = np.ascontiguousarray(got).reshape(-1).view(F32), np.ascontiguousarray(want).reshape(-1).view(F32)
    nan = np.isnan(parts_want)
    assert np.array_equal(np.isnan(parts_got), nan)
    np.testing.assert_array_equal(parts_got.view(np.uint32)[~nan], parts_want.view(np.uint32)[~nan])


@pytest.mark.parametrize("n", SIZES)
def test_multiply_is_the_complex128_product_rounded_once(n):
    rng = np.random.default_rng(n)
    with QuietBlock():
        for a, b in operands(n, rng):
            for x, y in variants(a, b):
                same(np.asarray(kernel()(x, y)), reference(x, y))


@native
@pytest.mark.parametrize("widest", [0, 1, 2])
@pytest.mark.parametrize("n", SIZES)
def test_each_c_loop_gives_the_complex128_product_rounded_once(n, widest):
    from candlewick import _native

    rng = np.random.default_rng(n)
    with QuietBlock():
        for a, b in operands(n, rng):
            for x, y in variants(a, b):
                shape = np.broadcast_shapes(x.shape, y.shape)
                out = np.empty(shape, C64)
                _native.complex64_multiply(np.broadcast_to(x, shape), np.broadcast_to(y, shape), out, widest)
                same(out, reference(x, y))


@native
def test_multiply_runs_in_c(monkeypatch):
    calls = []

    def counted(a, b, out):
        calls.append(out.shape)
        return complex64_ops.__dict__["_real_native"](a, b, out)

    monkeypatch.setitem(complex64_ops.__dict__, "_real_native", complex64_ops._native_multiply)
    monkeypatch.setattr(complex64_ops, "_native_multiply", counted)
    x = cw.asarray(np.full((3, 5), 1 + 2j, C64))
    y = cw.asarray(np.full(5, 3 - 1j, C64))
    np.testing.assert_array_equal(cw.to_numpy(x * y), np.full((3, 5), (1 + 2j) * (3 - 1j), C64))
    assert calls == [(3, 5)]
    # a complex128 operand (not the storage's case) takes NumPy's path
    with QuietBlock():
        same(kernel()(np.ones(4, C64), np.array(1 + 1e-9j)), reference(np.ones(4, C64), np.array(1 + 1e-9j)))
    assert len(calls) == 1


def test_multiply_keeps_the_parts_that_cancel_or_overflow_in_single_precision():
    # re = (1 + 2^-11)(1 + 2^-13) - (1 + 2^-12)^2 = 2^-13 exactly: NumPy's complex64 loop
    # rounds one product first (2^-13 (1 + 2^-11) on the AVX-512 VM)
    z = np.array([(1 + 2**-11) + (1 + 2**-12) * 1j], C64)
    w = np.array([(1 + 2**-13) + (1 + 2**-12) * 1j], C64)
    # a*c = 3.61e38 overflows float32 where the parts (3.25e38, 2.28e38) do not (a loop
    # without fused multiply-adds gives inf)
    big = np.array([1.9e19 + 6e18j], C64)
    with QuietBlock():
        assert kernel()(z, w)[0].real == 2.0**-13
        got = kernel()(big, big)
    same(got, reference(big, big))
    assert np.isfinite(got).all()
    assert cw.to_numpy(cw.asarray(z) * cw.asarray(w))[0].real == 2.0**-13
    assert np.isfinite(cw.to_numpy(cw.asarray(big) * cw.asarray(big))).all()


def test_without_the_c_module_the_numpy_path_runs(monkeypatch):
    monkeypatch.setattr(complex64_ops, "_native_multiply", None)
    wide = BINARY_RAW["add"]["complex64"][0]  # any kernel: it is handed back as it is
    assert complex64_ops.multiply(wide) is wide


@native
def test_native_multiply_checks_its_arguments():
    from candlewick import _native

    a = np.ones(4, C64)
    with pytest.raises(TypeError):
        _native.complex64_multiply(a, a.astype(C128), np.empty(4, C64))
    with pytest.raises(ValueError):
        _native.complex64_multiply(a, np.ones(5, C64), np.empty(4, C64))
    with pytest.raises((TypeError, ValueError, BufferError)):
        _native.complex64_multiply(a, a, np.broadcast_to(np.empty(1, C64), (4,)))  # read-only out
    out = np.zeros(4, C64)
    for args in [(a, a), (a, a, out, 2, 2)]:
        with pytest.raises(TypeError, match=r"candlewick\._native\.complex64_multiply\(a, b, out, widest=2\) takes 3 or 4 arguments"):
            _native.complex64_multiply(*args)
    with pytest.raises(TypeError, match=r"complex64_multiply\(.*\): widest must be an int, not float"):
        _native.complex64_multiply(a, a, out, 1.0)
    assert (out == 0).all()
