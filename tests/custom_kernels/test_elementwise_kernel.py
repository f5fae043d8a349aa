"""``candlewick.ElementwiseKernel`` on every backend under test: C++'s meaning of the body
(types, promotions, conversions, integer division, branches), broadcasting, strides,
given outputs, type placeholders and scalars. On cpu the body runs in the C subset (a
graph of primitives), on rocm as a generated HIP kernel: the expectations here are C++'s,
worked out by hand, and hold on both."""

import numpy as np
import pytest

import candlewick as cw


def _np(x):
    return cw.to_numpy(x)


def run(device, in_params, out_params, body, *args, **kwargs):
    kernel = cw.ElementwiseKernel(in_params, out_params, body, "k")
    args = [cw.asarray(a, device=device) if isinstance(a, np.ndarray) else a for a in args]
    return kernel(*args, **kwargs)


def test_cupy_example_squared_difference_broadcasts(device):
    x = np.arange(10, dtype=np.float32).reshape(2, 5)
    y = np.arange(5, dtype=np.float32)
    z = run(device, "T x, T y", "T z", "z = (x - y) * (x - y);", x, y)
    assert z.dtype == cw.float32 and z.shape == (2, 5) and z.device is device
    np.testing.assert_array_equal(_np(z), (x - y) ** 2)


def test_integer_division_and_remainder_truncate_toward_zero(device):
    x = np.array([-7, 7, -7, 7, 9, -9, 0], np.int32)
    y = np.array([2, 2, -2, -2, 4, 4, 5], np.int32)
    q, r = run(device, "int32 x, int32 y", "int32 q, int32 r", "q = x / y; r = x % y;", x, y)
    assert _np(q).tolist() == [-3, 3, 3, -3, 2, -2, 0]
    assert _np(r).tolist() == [-1, 1, -1, 1, 1, -1, 0]


def test_usual_arithmetic_conversions(device):
    a = np.array([-1, 100], np.int8)
    body = """
        lt = a < 1u;                 // a becomes unsigned: -1 is 4294967295
        w = a - 1u;                  // unsigned arithmetic wraps
        h = a / 2 * 2.0;             // int division first, then double
        f = a * 0.1f;                // float, not double
        d = a * 0.1;                 // double
        s = (unsigned char)200 << 1; // promoted to int before the shift
        c = (signed char)(a + 200);  // converted back, wrapping
    """
    lt, w, h, f, d, s, c = run(device, "int8 a", "bool lt, uint32 w, float64 h, float32 f, float64 d, int32 s, int8 c",
                               body, a)
    assert _np(lt).tolist() == [False, False]
    assert _np(w).tolist() == [4294967294, 99]
    assert _np(h).tolist() == [0.0, 100.0]
    assert _np(f).tolist() == [float(np.float32(-1) * np.float32(0.1)), float(np.float32(100) * np.float32(0.1))]
    assert _np(d).tolist() == [-0.1, 100 * 0.1]
    assert _np(s).tolist() == [400, 400]
    assert _np(c).tolist() == [np.int8(-1 + 200 - 256), np.int8(300 - 256)]


def test_locals_branches_and_compound_assignment(device):
    x = np.array([3.0, -0.5, -4.0, 0.0], np.float32)
    body = """
        float t = x;
        int c = 0;
        if (x > 0) { t = t * 2; c += 1; }
        else if (x < -1) { t = -t; c = 2; }
        else { c--; int unused = 5; }
        int k = 0;
        k += 2.7;                    // converted back to int: 2
        k++;
        y = t + k;
        n = c;
        m = x > 0 ? c : 0.5;         // int and double: double
    """
    y, n, m = run(device, "float32 x", "float32 y, int32 n, float64 m", body, x)
    assert _np(y).tolist() == [9.0, 2.5, 7.0, 3.0]
    assert _np(n).tolist() == [1, -1, 2, -1]
    assert _np(m).tolist() == [1.0, 0.5, 0.5, 0.5]


def test_math_functions_round_and_nan_aware_min_max(device):
    x = np.array([2.5, -2.5, 0.5, np.nan, 1.25], np.float64)
    body = "r = round(x); e = rint(x); lo = fmin(x, 1.0); hi = max(x, 0.75); t = trunc(x) + floor(x) + ceil(x);"
    r, e, lo, hi, t = run(device, "float64 x", "T r, T e, T lo, T hi, T t", body, x, np.empty(5), np.empty(5),
                          np.empty(5), np.empty(5), np.empty(5))
    np.testing.assert_array_equal(_np(r), [3.0, -3.0, 1.0, np.nan, 1.0])
    np.testing.assert_array_equal(_np(e), [2.0, -2.0, 0.0, np.nan, 1.0])
    np.testing.assert_array_equal(_np(lo), [1.0, -2.5, 0.5, 1.0, 1.0])  # a NaN operand gives the other one
    np.testing.assert_array_equal(_np(hi), [2.5, 0.75, 0.75, 0.75, 1.25])
    np.testing.assert_array_equal(_np(t), [7.0, -7.0, 1.0, np.nan, 4.0])


def test_float16_values_are_floats_rounded_once_when_stored(device):
    x = np.array([0.1, 1000.0, -3.3], np.float16)
    y = run(device, "T x", "T y", "y = x * 3 + x / 7;", x)
    assert y.dtype == cw.float16
    want = (x.astype(np.float32) * np.float32(3) + x.astype(np.float32) / np.float32(7)).astype(np.float16)
    np.testing.assert_array_equal(_np(y), want)


def test_scalars_placeholders_and_flat_index(device):
    ramp = cw.ElementwiseKernel("T a, T b", "T y", "y = a * i + b;", "ramp")
    y = ramp(0.5, 1.0, size=6, device=device)
    assert y.dtype == cw.float64 and _np(y).tolist() == [1.0, 1.5, 2.0, 2.5, 3.0, 3.5]
    x = cw.asarray(np.arange(4, dtype=np.int16), device=device)
    z = ramp(x, 2)  # T from the array; the int scalar converted to int16
    assert z.dtype == cw.int16 and _np(z).tolist() == [2, 3, 6, 11]


def test_strided_inputs_and_a_given_strided_output(device):
    x = np.arange(35, dtype=np.float64).reshape(5, 7)
    out = cw.zeros((7, 10), dtype=cw.float64, device=device)
    k = cw.ElementwiseKernel("T x, T y", "T z", "z = x - y;", "sub")
    res = k(cw.asarray(x, device=device).T, cw.asarray(np.arange(5.0), device=device)[::-1], out[:, ::2])
    assert res.shape == (7, 5)
    full = _np(out)
    np.testing.assert_array_equal(full[:, ::2], x.T - np.arange(5.0)[::-1])
    assert not full[:, 1::2].any()


def test_an_output_left_unassigned_keeps_its_values(device):
    out = cw.asarray(np.full(4, 7.0), device=device)
    x = cw.asarray(np.array([1.0, -1.0, 2.0, -2.0]), device=device)
    k = cw.ElementwiseKernel("T x", "T y", "if (x > 0) y = x;", "partial")
    k(x, out)
    assert _np(out).tolist() == [1.0, 7.0, 2.0, 7.0]


def test_no_return_and_return_tuple(device):
    x = cw.asarray(np.ones(3, np.float32), device=device)
    out = cw.zeros((3,), dtype=cw.float32, device=device)
    assert cw.ElementwiseKernel("T x", "T y", "y = x + 1;", "inc", no_return=True)(x, out) is None
    assert _np(out).tolist() == [2.0, 2.0, 2.0]
    got = cw.ElementwiseKernel("T x", "T y", "y = x;", "copy1", return_tuple=True)(x)
    assert isinstance(got, tuple) and len(got) == 1


def test_in_lazy_mode_pending_work_reaches_the_kernel(device):
    x = cw.asarray(np.arange(6, dtype=np.float32), device=device)
    out = cw.zeros((6,), dtype=cw.float32, device=device)
    k = cw.ElementwiseKernel("T x", "T y", "y = x * x;", "lazy_sq")
    with cw.lazy():
        y = x * 2 + 1  # recorded, not yet run
        k(y, out)
        z = k(y)
    assert _np(out).tolist() == [float(v) for v in (np.arange(6) * 2 + 1) ** 2]
    assert _np(z).tolist() == _np(out).tolist()
