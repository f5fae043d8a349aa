"""Special functions NumPy lacks or gets wrong, vectorized: erf, gelu, sigmoid, silu,
complex log1p (accuracy), complex expm1, tanh and sign (special values, overflow) and
real floor_divide (infinite operands).

``erf`` follows the piecewise rational approximations of fdlibm's ``s_erf.c``
(Sun Microsystems, 1993; the coefficients below are its published constants), which
stay within one ulp in float64. It is evaluated in float64 for every floating input,
so float32 and lower results are the correctly rounded erf almost everywhere.
"""

import numpy as np

_F64 = np.dtype(np.float64)

# |x| < 0.84375: erf(x) = x + x * P(x^2) / Q(x^2)
_PP = (1.28379167095512558561e-01, -3.25042107247001499370e-01, -2.84817495755985104766e-02,
       -5.77027029648944159157e-03, -2.37630166566501626084e-05)
_QQ = (1.0, 3.97917223959155352819e-01, 6.50222499887672944485e-02, 5.08130628187576562776e-03,
       1.32494738004321644526e-04, -3.96022827877536812320e-06)
# 0.84375 <= |x| < 1.25: erf(x) = erx + P(s) / Q(s), s = |x| - 1
_ERX = 8.45062911510467529297e-01
_PA = (-2.36211856075265944077e-03, 4.14856118683748331666e-01, -3.72207876035701323847e-01,
       3.18346619901161753674e-01, -1.10894694282396677476e-01, 3.54783043256182359371e-02,
       -2.16637559486879084300e-03)
_QA = (1.0, 1.06420880400844228286e-01, 5.40397917702171048937e-01, 7.18286544141962662868e-02,
       1.26171219808761642112e-01, 1.36370839120290507362e-02, 1.19844998467991074170e-02)
# 1.25 <= |x| < 1/0.35: erfc(x) = exp(-x^2 - 0.5625 + R(1/x^2) / S(1/x^2)) / x
_RA = (-9.86494403484714822705e-03, -6.93858572707181764372e-01, -1.05586262253232909814e+01,
       -6.23753324503260060396e+01, -1.62396669462573470355e+02, -1.84605092906711035994e+02,
       -8.12874355063065934246e+01, -9.81432934416914548592e+00)
_SA = (1.0, 1.96512716674392571292e+01, 1.37657754143519042600e+02, 4.34565877475229228821e+02,
       6.45387271733267880336e+02, 4.29008140027567833386e+02, 1.08635005541779435134e+02,
       6.57024977031928170135e+00, -6.04244152148580987438e-02)
# 1/0.35 <= |x| < 6: the same form with these coefficients
_RB = (-9.86494292470009928597e-03, -7.99283237680523006574e-01, -1.77579549177547519889e+01,
       -1.60636384855821916062e+02, -6.37566443368389627722e+02, -1.02509513161107724954e+03,
       -4.83519191608651397019e+02)
_SB = (1.0, 3.03380607434824582924e+01, 3.25792512996573918826e+02, 1.53672958608443695994e+03,
       3.19985821950859553908e+03, 2.55305040643316442583e+03, 4.74528541206955367215e+02,
       -2.24409524465858183362e+01)
# fdlibm switches between _RA and _RB on the high word 0x4006DB6E (just below 1/0.35)
_RA_LIMIT = float(np.array(0x4006DB6E00000000, np.uint64).view(np.float64))
_HIGH_WORD = np.uint64(0xFFFFFFFF00000000)


def _poly(coeffs, t):
    """Horner evaluation of sum(coeffs[i] * t**i)."""
    acc = np.full_like(t, coeffs[-1])
    for c in coeffs[-2::-1]:
        acc *= t
        acc += c
    return acc


def _erfc_tail(ax):
    """erfc(|x|) for 1.25 <= |x| < 6 (so erf = 1 - this)."""
    s = 1.0 / (ax * ax)
    near = ax < _RA_LIMIT
    ratio = np.empty_like(ax)
    ratio[near] = _poly(_RA, s[near]) / _poly(_SA, s[near])
    far = ~near
    ratio[far] = _poly(_RB, s[far]) / _poly(_SB, s[far])
    # z = ax with its low 32 bits cleared makes -z*z exact; the rest goes to a 2nd exp
    z = (ax.view(np.uint64) & _HIGH_WORD).view(np.float64)
    return np.exp(-z * z - 0.5625) * np.exp((z - ax) * (z + ax) + ratio) / ax


def erf64(x):
    """erf of a float64 array (any shape), NaN-propagating, erf(+-inf) = +-1."""
    x = np.asarray(x, _F64)
    ax = np.abs(x)
    out = np.ones_like(x)  # |x| >= 6 (and inf): erf rounds to 1
    small = ax < 0.84375
    xs = x[small]
    z = xs * xs
    out[small] = xs + xs * (_poly(_PP, z) / _poly(_QQ, z))  # signed already
    mid = (ax >= 0.84375) & (ax < 1.25)
    s = ax[mid] - 1.0
    out[mid] = _ERX + _poly(_PA, s) / _poly(_QA, s)
    tail = (ax >= 1.25) & (ax < 6.0)
    out[tail] = 1.0 - _erfc_tail(ax[tail])
    big_or_mid_or_tail = ~small
    out[big_or_mid_or_tail] = np.copysign(out[big_or_mid_or_tail], x[big_or_mid_or_tail])
    nan = np.isnan(x)
    out[nan] = x[nan]
    return out


def erf(x):
    """erf in the input's floating dtype (float64 internally, rounded once)."""
    return erf64(x).astype(x.dtype, copy=False)


def gelu(x):
    """x * ((1 + erf(x / sqrt 2)) / 2), evaluated in float64 and rounded once (the factor
    halved first: x * (1 + erf) overflows for float64 x near its maximum)."""
    x64 = np.asarray(x, _F64)
    return (x64 * ((1.0 + erf64(x64 * np.sqrt(0.5))) * 0.5)).astype(x.dtype, copy=False)


def _sigmoid64(x64):
    # exp is only taken of -|x|, so it never overflows
    e = np.exp(-np.abs(x64))
    return np.where(x64 >= 0, 1.0, e) / (1.0 + e)


def sigmoid(x):
    """1 / (1 + exp(-x)), evaluated in float64 and rounded once (float32 alone loses
    digits where the result is subnormal, e.g. silu(-96))."""
    return _sigmoid64(np.asarray(x, _F64)).astype(x.dtype, copy=False)


def silu(x):
    """x * sigmoid(x), evaluated in float64 and rounded once."""
    x64 = np.asarray(x, _F64)
    return (x64 * _sigmoid64(x64)).astype(x.dtype, copy=False)


def complex_log1p(z):
    """log1p of complex z without forming 1 + z for small z (NumPy's complex log1p does,
    losing every digit of a tiny z): log|1+z| = log1p(2x + x^2 + y^2) / 2,
    arg(1+z) = atan2(y, 1+x). Large and non-finite z keep NumPy's log1p, except where
    its |1 + z| overflows for a finite z (both parts near the dtype's maximum): there
    NumPy's complex log, which scales, gives the finite log|1 + z|."""
    out = np.log1p(z)
    small = np.abs(z) < 0.5  # False for NaN/inf
    if np.count_nonzero(small):
        zs = z[small]
        x, y = zs.real, zs.imag
        out[small] = _complex(0.5 * np.log1p(x * (2 + x) + y * y), np.arctan2(y, 1 + x))
    overflowed = np.isposinf(out.real) & np.isfinite(z)  # (-inf: z = -1, exact)
    if np.count_nonzero(overflowed):
        out[overflowed] = np.log(1 + z[overflowed])
    return out


def _complex(re, im):
    # built part by part: re + 1j * im would turn an infinite im into nan + inf j
    out = np.empty(re.shape, np.result_type(re.dtype, np.complex64))
    out.real = re
    out.imag = im
    return out


def complex_expm1(z):
    """exp(z) - 1 with the C99/Array API special values and full accuracy for small z.

    NumPy's complex expm1 evaluates the finite-z formula below everywhere, so infinite
    parts give NaN where the standard wants e.g. expm1(inf + 0j) = inf + 0j. Non-finite z
    take exp(z) - 1 (NumPy's complex exp follows C99); finite z take
    Re = expm1(x) cos y - 2 sin^2(y/2), Im = exp(x) sin y (exactly y when y is +-0)."""
    out = np.exp(z) - 1
    finite = np.isfinite(z)
    if np.count_nonzero(finite):
        zf = z[finite]
        x, y = zf.real, zf.imag
        half = np.sin(y / 2)
        re = np.expm1(x) * np.cos(y) - 2 * half * half
        im = np.where(y == 0, y, np.exp(x) * np.sin(y))
        # the standard: expm1(+-0 + 0j) = +0 + 0j, where expm1(-0) cos 0 - 0 is -0
        re = np.where((x == 0) & (y == 0), 0.0, re)
        out[finite] = _complex(re, im)
    return out


def complex_tanh(z):
    """NumPy's complex tanh, except for an infinite real part: the standard's
    tanh(+inf + yj) = 1 + 0j for positive finite y (and, by tanh(conj z) = conj tanh z,
    1 - 0j for negative y), where NumPy takes the zero's sign from sin 2y."""
    out = np.tanh(z)
    infinite = np.isinf(z.real)
    if np.count_nonzero(infinite):
        zi = z[infinite]
        out[infinite] = _complex(np.copysign(1.0, zi.real), np.copysign(0.0, zi.imag))
    return out


def complex_tan(z):
    """-1j * tanh(1j * z), the standard's definition of tan's special cases, formed part
    by part (multiplying by 1j would turn 0 * inf into NaN)."""
    w = complex_tanh(_complex(-z.imag, z.real))
    return _complex(w.imag, -w.real)


def floor_divide(a, b, signature=None):
    """Real floor division with the standard's primary results for infinite operands
    (inf // 2 = inf, 1 // -inf = -0), which are floor(a / b); NumPy follows Python's
    divmod there (NaN, -1). ``signature`` is the ufuncs' (computing in a wider type)."""
    wide = {} if signature is None else {"signature": signature}
    out = np.floor_divide(a, b, **wide)
    infinite = np.isinf(a) | np.isinf(b)
    if np.count_nonzero(infinite):
        exact = np.floor(np.true_divide(a, b, **wide))
        out = np.where(infinite, exact, out).astype(out.dtype, copy=False)
    return out


def complex_sign(z):
    """z / |z| (0 for 0), scaled by max(|Re z|, |Im z|) first so that neither |z| nor
    the quotient overflows or underflows (NumPy's sign of 1e308 - 1e308j is -1j)."""
    x, y = z.real, z.imag
    scale = np.maximum(np.abs(x), np.abs(y))  # NaN if either part is NaN
    zero = scale == 0
    scale = np.where(zero, 1, scale)
    xs, ys = x / scale, y / scale
    magnitude = np.hypot(xs, ys)  # in [1, sqrt 2] for finite nonzero z
    # sign(+-0 +-0j) = 0 + 0j, both zeros positive (the standard)
    return _complex(np.where(zero, 0.0, xs / magnitude), np.where(zero, 0.0, ys / magnitude))
