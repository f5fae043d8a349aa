"""Complex element-wise functions where NumPy, our oracle elsewhere, is not the answer or
where backends split: pow of a complex zero (NumPy's rule, on every operand form) and
sign, log1p, log, sqrt, abs of finite values whose parts are near the dtype's maximum
(|z| overflows, the results do not), against cmath in double precision. Each case runs on
the device under test (every available backend); the thorough Hypothesis profile on rocm
found the first three families (see array_api_support.operand_elements, which now draws
them too)."""

import cmath
import math

import numpy as np
import pytest

import candlewick as cw
from array_api_support import COMPLEX, assert_values, dt, to_np

NAN = float("nan")
INF = float("inf")
# exponents of a complex zero base: NumPy 2's rule is 1 for b == 0, 0 for Re b > 0 (any
# Im b, even NaN or infinite), NaN + NaN j otherwise
EXPONENTS = [1 + 1j, -1 + 1j, 1j, 0j, 2 + 0j, 0.5 + 0j, -1 + 0j, -0.5 + 0j, 1 - 1j, 200 + 0j,
             complex(INF, 1), complex(1, INF), complex(1, NAN), complex(NAN, 0), complex(-INF, 0),
             complex(0, NAN), complex(-0.0, 0.0), 1e-30 + 3j]


def _pow_of_zero(b):
    if b == 0:
        return 1 + 0j
    if b.real > 0:
        return 0j
    return complex(NAN, NAN)


@pytest.mark.parametrize("name", COMPLEX)
def test_pow_of_a_complex_zero_follows_numpy(name):
    # the exponents as the dtype holds them (1e-30 is 0 in complex64)
    held = np.array(EXPONENTS, dtype=name)
    expected = np.array([_pow_of_zero(complex(b)) for b in held], dtype=name)
    exps = cw.asarray(held)
    zeros = cw.asarray(np.array([complex(0.0, 0.0), complex(-0.0, 0.0), complex(0.0, -0.0)] * 6, dtype=name))
    for what, out in (("pow(0, x2)", cw.pow(0, exps)),  # the thorough run's find (Python 0 first)
                      ("pow(0j, x2)", cw.pow(0j, exps)),
                      ("pow(zeros, x2)", cw.pow(zeros, exps)),
                      ("zeros ** x2", zeros ** exps)):
        assert_values(out, expected, what=f"{what} ({name}): ")
    for b, want in zip(EXPONENTS, expected):
        # a Python scalar exponent (the backends' scalar kernels)
        assert_values(cw.pow(zeros[:1], b), np.array([want]), what=f"pow(zeros, {b!r}) ({name}): ")


def _near_overflow(name):
    big = float(np.finfo(np.float32 if name == "complex64" else np.float64).max)
    edge = big / math.sqrt(2)  # |z| at the maximum (the thorough run's find, for complex128)
    return np.array([complex(edge, edge), complex(big, big), complex(-big, big / 3), complex(big, -0.5),
                     complex(0.25, -big), complex(-big, -big), complex(-edge, edge), complex(big / 2, big)],
                    dtype=name)


def _abs(z):
    return math.hypot(z.real, z.imag)  # inf where |z| is beyond the maximum


# the references, in double precision on the dtype's values (each rounded once to the
# dtype): sign(z) = exp(i arg z), a formula that never forms |z|
REFERENCES = {"sign": lambda z: cmath.exp(1j * cmath.phase(z)), "log1p": lambda z: cmath.log(1 + z),
              "log": cmath.log, "sqrt": cmath.sqrt, "abs": _abs}


@pytest.mark.parametrize("name", COMPLEX)
@pytest.mark.parametrize("fname", sorted(REFERENCES))
def test_complex_functions_near_overflow_match_cmath(fname, name):
    z = _near_overflow(name)
    out = getattr(cw, fname)(cw.asarray(z))
    ref = REFERENCES[fname]
    real_name = "float32" if name == "complex64" else "float64"
    with np.errstate(over="ignore"):
        expected = np.array([ref(complex(v)) for v in z], dtype=real_name if fname == "abs" else name)
    assert out.dtype == dt(real_name if fname == "abs" else name)
    if fname != "abs":  # finite, though |z| (or |1 + z|) overflows
        assert np.isfinite(to_np(out)).all(), f"{fname}({name}): {to_np(out)!r}"
    # a few ulp: the backends' libm and the formulas differ in the last bits
    assert_values(out, expected, rtol=4 * float(np.finfo(real_name).eps), what=f"{fname}({name}): ")
