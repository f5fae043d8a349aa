"""Generated chains of element-wise operations and their comparison with the eager
path: shared by the tests of ``candlewick.fuse`` (test_fuse.py) and of lazy mode
(test_lazy.py).

A program draws arrays of two shapes that broadcast, Python scalars and mixed dtypes that
promote, optionally ending in a reduction whose result is broadcast back (the softmax
pattern). Results are compared bit for bit, except, on a device that compiles the graph
(``fusion`` capability), float sums and products (reassociated) and transcendental
functions (rounded by the device's math library inside another kernel): those within
tolerance.
"""

import os

import numpy as np
from hypothesis import strategies as st

import candlewick as cw

UNARY = {
    "negative": cw.negative, "abs": cw.abs, "square": cw.square, "sign": cw.sign, "floor": cw.floor,
    "exp": lambda v: cw.exp(cw.clip(v, -20, 20)), "tanh": cw.tanh, "sin": cw.sin,
    "sqrt_abs": lambda v: cw.sqrt(cw.abs(v)), "log1p_abs": lambda v: cw.log1p(cw.abs(v)),
}
BINARY = {
    "add": cw.add, "subtract": cw.subtract, "multiply": cw.multiply, "maximum": cw.maximum,
    "minimum": cw.minimum, "where_greater": lambda a, b: cw.where(a > b, a, b),
    "divide": lambda a, b: a / (cw.abs(b) + 1),
}
SCALARS = st.one_of(st.integers(-3, 3), st.floats(-2.5, 2.5, allow_nan=False, width=32), st.booleans())
DTYPES = [cw.float32, cw.float64, cw.int16, cw.int32, cw.float16]
REDUCTIONS = ["sum", "max", "min", "mean", "prod"]
# each new graph is a kernel compile on a device with the fusion capability:
# tools/gpu_run.sh runs fewer examples there
EXAMPLES = int(os.environ.get("CANDLEWICK_FUSION_EXAMPLES", "60"))


@st.composite
def programs(draw):
    """(steps, reduction): steps refer to earlier values by index (0: x, 1: y)."""
    steps = []
    for k in range(draw(st.integers(1, 8))):
        pool = 2 + k
        kind = draw(st.sampled_from(["unary", "binary", "scalar", "astype"]))
        if kind == "unary":
            steps.append(("unary", draw(st.sampled_from(sorted(UNARY))), draw(st.integers(0, pool - 1))))
        elif kind == "binary":
            steps.append(("binary", draw(st.sampled_from(sorted(BINARY))), draw(st.integers(0, pool - 1)),
                          draw(st.integers(0, pool - 1))))
        elif kind == "scalar":
            steps.append(("scalar", draw(st.sampled_from(["add", "multiply", "subtract", "maximum"])),
                          draw(st.integers(0, pool - 1)), draw(SCALARS), draw(st.booleans())))
        else:
            steps.append(("astype", draw(st.sampled_from(["float32", "float64", "int32"])),
                          draw(st.integers(0, pool - 1))))
    reduction = draw(st.one_of(st.none(), st.tuples(st.sampled_from(REDUCTIONS), st.booleans())))
    return steps, reduction


def build(program):
    steps, reduction = program

    def fn(x, y):
        values = [x, y]
        for step in steps:
            if step[0] == "unary":
                v = values[step[2]]
                if step[1] in ("exp", "tanh", "sin", "sqrt_abs", "log1p_abs") and not cw.isdtype(v.dtype, "real floating"):
                    v = v.astype(cw.float64)
                values.append(UNARY[step[1]](v))
            elif step[0] == "binary":
                values.append(BINARY[step[1]](values[step[2]], values[step[3]]))
            elif step[0] == "scalar":
                _, op, i, s, reflected = step
                f = getattr(cw, op)
                values.append(f(s, values[i]) if reflected else f(values[i], s))
            else:
                values.append(values[step[2]].astype(getattr(cw, step[1])))
        out = values[-1]
        if out.dtype == cw.bool:
            out = out.astype(cw.int32)
        if reduction is None:
            return out
        name, broadcast_back = reduction
        if name == "mean" and not cw.isdtype(out.dtype, "real floating"):
            out = out.astype(cw.float32)
        r = getattr(cw, name)(out, axis=-1, keepdims=True)
        return out - r if broadcast_back else (r, out)

    return fn


@st.composite
def chain_cases(draw):
    """(program, x, y): a program and its two host operands (y x's shape or its last axis)."""
    program = draw(programs())
    dtypes = draw(st.tuples(st.sampled_from(DTYPES), st.sampled_from(DTYPES)), label="dtypes")
    shape = draw(st.sampled_from([(5,), (3, 4), (2, 3, 7), (1, 6)]), label="shape")
    broadcast = draw(st.booleans(), label="broadcast")
    rng = np.random.default_rng(draw(st.integers(0, 2**16), label="seed"))
    return program, host_array(dtypes[0], shape, rng), host_array(dtypes[1], shape[-1:] if broadcast else shape, rng)


def host_array(dtype, shape, rng):
    if cw.isdtype(dtype, "integral"):
        return rng.integers(-4, 5, shape).astype(cw.to_numpy(cw.asarray(0, dtype=dtype)).dtype)
    return (rng.standard_normal(shape) * 2).astype(cw.to_numpy(cw.asarray(0, dtype=dtype)).dtype)


TRANSCENDENTAL = {"exp", "tanh", "sin", "log1p_abs"}


def reassociates(device, program):
    """Compared within tolerance on a compiling device: reassociated sums, and
    transcendental functions (which may round differently inside a fused kernel)."""
    steps, reduction = program
    if "fusion" not in device.capabilities:
        return False
    return (reduction is not None and reduction[0] in ("sum", "mean", "prod")) or any(
        step[0] == "unary" and step[1] in TRANSCENDENTAL for step in steps)


def same(got, want, loose):
    got, want = cw.to_numpy(got), cw.to_numpy(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    if loose and got.dtype.kind == "f":
        eps = float(np.finfo(got.dtype).eps)
        scale = max(1.0, float(np.max(np.abs(np.nan_to_num(want, posinf=0, neginf=0)), initial=0)))
        np.testing.assert_allclose(got, want, rtol=64 * eps, atol=64 * eps * scale * want.shape[-1])
    else:
        np.testing.assert_array_equal(got, want)
