"""Dtype domains of the element-wise functions, as the 2024.12 standard states them.

Written from the standard's parameter descriptions ("Should have a floating-point data
type", "Should have a real-valued data type", ...), not from candlewick's own op
tables, so that a wrong domain in ``candlewick.opdefs`` shows up as a failure.
"""

from array_api_support import ALL, BOOL, COMPLEX, FLOAT, INTEGER, NUMERIC, REAL, REAL_FLOAT

UNARY = {
    "abs": NUMERIC, "acos": FLOAT, "acosh": FLOAT, "asin": FLOAT, "asinh": FLOAT,
    "atan": FLOAT, "atanh": FLOAT, "bitwise_invert": BOOL + INTEGER, "ceil": REAL,
    "conj": NUMERIC, "cos": FLOAT, "cosh": FLOAT, "exp": FLOAT, "expm1": FLOAT,
    "floor": REAL, "imag": COMPLEX, "isfinite": NUMERIC, "isinf": NUMERIC,
    "isnan": NUMERIC, "log": FLOAT, "log1p": FLOAT, "log2": FLOAT, "log10": FLOAT,
    "logical_not": BOOL, "negative": NUMERIC, "positive": NUMERIC, "real": NUMERIC,
    "reciprocal": FLOAT, "round": NUMERIC, "sign": NUMERIC, "signbit": REAL_FLOAT,
    "sin": FLOAT, "sinh": FLOAT, "sqrt": FLOAT, "square": NUMERIC, "tan": FLOAT,
    "tanh": FLOAT, "trunc": REAL,
}

BINARY = {
    "add": NUMERIC, "subtract": NUMERIC, "multiply": NUMERIC, "divide": FLOAT,
    "pow": NUMERIC, "atan2": REAL_FLOAT, "copysign": REAL_FLOAT, "hypot": REAL_FLOAT,
    "logaddexp": REAL_FLOAT, "nextafter": REAL_FLOAT, "bitwise_and": BOOL + INTEGER,
    "bitwise_or": BOOL + INTEGER, "bitwise_xor": BOOL + INTEGER,
    "bitwise_left_shift": INTEGER, "bitwise_right_shift": INTEGER,
    "floor_divide": REAL, "remainder": REAL, "maximum": REAL, "minimum": REAL,
    "logical_and": BOOL, "logical_or": BOOL, "logical_xor": BOOL,
    "equal": ALL, "not_equal": ALL, "less": REAL, "less_equal": REAL,
    "greater": REAL, "greater_equal": REAL,
}

# Out-of-domain inputs an implementation may accept instead of raising TypeError; an
# accepted call must then give NumPy's result for it.
#  - divide on integers: the standard says "may raise or return a real-valued
#    floating-point array"
#  - logical_*: "may accept real-valued data types; zeros are False, non-zeros True"
#    (NumPy extends the same truth rule to complex numbers)
#  - imag of a real-valued array: the standard says "should have a complex dtype";
#    NumPy returns zeros (as real() and conj() of real arrays are in the standard now)
PERMITTED_EXTENSIONS = {
    "divide": INTEGER,
    "logical_and": NUMERIC, "logical_or": NUMERIC, "logical_xor": NUMERIC, "logical_not": NUMERIC,
    "imag": REAL,
}

# Python operators and the function each one must match.
BINARY_OPERATORS = {
    "__add__": "add", "__sub__": "subtract", "__mul__": "multiply", "__truediv__": "divide",
    "__floordiv__": "floor_divide", "__mod__": "remainder", "__pow__": "pow",
    "__and__": "bitwise_and", "__or__": "bitwise_or", "__xor__": "bitwise_xor",
    "__lshift__": "bitwise_left_shift", "__rshift__": "bitwise_right_shift",
}
COMPARISON_OPERATORS = {
    "__eq__": "equal", "__ne__": "not_equal", "__lt__": "less", "__le__": "less_equal",
    "__gt__": "greater", "__ge__": "greater_equal",
}
UNARY_OPERATORS = {"__neg__": "negative", "__pos__": "positive", "__abs__": "abs",
                   "__invert__": "bitwise_invert"}
