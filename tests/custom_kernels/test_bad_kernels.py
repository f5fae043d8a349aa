"""Bad custom kernels and bad calls: each error a candlewick error naming the kernel and the
parameter (or, for code, the part and line), raised before anything runs."""

import numpy as np
import pytest

import candlewick as cw
from candlewick.errors import (ArgumentTypeError, ArgumentValueError, DTypeError, KernelCompileError, OutOfRangeError,
                               ReadOnlyError, ShapeError, UnsupportedOperation)

ADD = cw.ElementwiseKernel("T x, T y", "T z", "z = x + y;", "add")


def _cpu(*arrays):
    return [cw.asarray(a) for a in arrays]


@pytest.mark.parametrize("body,line,why", [
    ("z = x +;", 1, "expected an expression"),
    ("float t = x;\nfor (int k = 0; k < 3; ++k) t += k;\nz = t;", 2, "loops"),
    ("z = x;\nz = y[0];", 2, "indexing"),
    ("z = fmod(x, y);", 1, r"fmod\(\) is not a function of the C subset"),
    ("z = x % y;", 1, "fmod is not part"),
    ("x = 1;", 1, "'x' is an in parameter"),
    ("z = q;", 1, "undeclared identifier 'q'"),
    ("float t;\nz = t;", 2, "read before"),
    ("z = pow(x, 2);", 1, "cast the integer ones"),
    ("z = min(x, 1);", 1, "one real type"),
    ("#define TWO 2\nz = x;", 1, "preprocessor"),
    ("z = x; return;", 1, "return"),
])
@pytest.mark.not_compiled
def test_code_outside_the_c_subset_names_its_line(body, line, why):
    k = cw.ElementwiseKernel("float32 x, float32 y", "float32 z", body, "bad")
    with pytest.raises(KernelCompileError, match=why) as info:
        k(*_cpu(np.ones(3, np.float32), np.ones(3, np.float32)))
    err = info.value
    assert err.part == "body" and err.line == line
    assert err.text == body.split("\n")[line - 1] and "ElementwiseKernel 'bad'" in str(err)


@pytest.mark.not_compiled
def test_reduction_parts_are_named():
    x = cw.asarray(np.ones(4, np.float32))
    with pytest.raises(KernelCompileError, match="reduce_expr") as info:
        cw.ReductionKernel("T x", "T y", "x", "a - b", "y = a;", "0", "r")(x)
    assert info.value.part == "reduce_expr"
    with pytest.raises(KernelCompileError) as info:
        cw.ReductionKernel("T x", "T y", "x * q", "a + b", "y = a;", "0", "r")(x)
    assert info.value.part == "map_expr" and info.value.line == 1
    with pytest.raises(KernelCompileError) as info:
        cw.ReductionKernel("T x", "T y", "x", "a + b", "y = a;\ny = b;", "0", "r")(x)
    assert info.value.part == "post_map_expr" and info.value.line == 2


@pytest.mark.parametrize("in_params,why", [
    ("float32", "expected '\\[raw\\] type name'"),
    ("float31 x", "unknown type 'float31'"),
    ("T x, T x", "used twice"),
    ("T i", "not a usable parameter name"),
    ("const T x", "unknown keyword 'const'"),
])
def test_bad_parameter_lists(in_params, why):
    with pytest.raises(ArgumentValueError, match=why):
        cw.ElementwiseKernel(in_params, "T z", "z = 0;", "k")


def test_wrong_number_and_types_of_arguments_name_the_parameter():
    x32, x64 = cw.asarray(np.ones(3, np.float32)), cw.asarray(np.ones(3))
    with pytest.raises(ArgumentTypeError, match=r"takes 2 arguments \(x, y\), or 3 with the outputs \(z\); got 1"):
        ADD(x32)
    with pytest.raises(DTypeError, match="type T is float32 .* parameter 'T y' is float64"):
        ADD(x32, x64)
    with pytest.raises(ArgumentTypeError, match="'T y' takes a candlewick array or a scalar, got 'a'"):
        ADD(x32, "a")
    typed = cw.ElementwiseKernel("int16 x, int16 y", "int16 z", "z = x + y;", "typed")
    with pytest.raises(DTypeError, match="'int16 x' takes int16 arrays, got a float32 array"):
        typed(x32, 1)
    x16 = cw.asarray(np.ones(3, np.int16))
    with pytest.raises(DTypeError, match="parameter 'y' takes int16, got 2.5"):
        typed(x16, 2.5)
    with pytest.raises(OutOfRangeError, match="parameter 'y'"):
        typed(x16, 70000)
    with pytest.raises(DTypeError, match="cannot tell the type T"):
        cw.ElementwiseKernel("int32 n", "T y", "y = n;", "untyped")(1, size=3)


def test_bad_outputs_name_the_parameter():
    x = cw.asarray(np.ones((2, 3), np.float32))
    with pytest.raises(ArgumentValueError, match="output for parameter 'z' has shape \\(3,\\)"):
        ADD(x, x, cw.zeros((3,), dtype=cw.float32))
    with pytest.raises(ReadOnlyError, match="parameter 'z'"):
        ADD(x, x, cw.broadcast_to(cw.zeros((3,), dtype=cw.float32), (2, 3)))
    with pytest.raises(ShapeError, match="parameter 'y' has shape \\(4,\\)"):
        ADD(x, cw.asarray(np.ones(4, np.float32)))
    with pytest.raises(ArgumentValueError, match="pass size="):
        cw.ElementwiseKernel("T a", "T y", "y = a;", "s")(1.0)


def test_raw_parameters_need_a_compiling_device_and_contiguous_arrays():
    gather = cw.ElementwiseKernel("raw T table, int32 k", "T y", "y = table[k];", "gather")
    table = cw.asarray(np.arange(10.0))
    k = cw.asarray(np.array([1, 2], np.int32))
    with pytest.raises(ArgumentValueError, match="parameter 'table' is a pointer but its array .* not C-contiguous"):
        gather(table[::2], k)
    with pytest.raises(UnsupportedOperation, match="raw parameter 'table'.*C subset"):
        gather(table, k)


def test_raw_kernel_on_cpu_is_unsupported_and_signatures_are_checked():
    src = 'extern "C" __global__ void scale(float* x, float s, int n) { }'
    k = cw.RawKernel(src, "scale")
    assert [(p.name, p.pointer, p.dtype) for p in k.params] == [("x", True, cw.float32), ("s", False, cw.float32),
                                                                 ("n", False, cw.int32)]
    x = cw.asarray(np.ones(4, np.float32))
    with pytest.raises(UnsupportedOperation, match="cpu does not compile kernels"):
        k(1, 4, (x, 2.0, 4))
    with pytest.raises(ArgumentTypeError, match=r"takes 3 arguments \(x, s, n\), got 2"):
        k(1, 4, (x, 2.0))
    with pytest.raises(ArgumentTypeError, match="parameter 'x' \\(float\\*\\) takes a candlewick array"):
        k(1, 4, (np.ones(4, np.float32), 2.0, 4))
    with pytest.raises(ArgumentValueError, match="grid must be"):
        k(0, 4, (x, 2.0, 4))
    with pytest.raises(ArgumentValueError, match="no __global__ function named 'other'"):
        cw.RawKernel(src, "other")
    with pytest.raises(ArgumentValueError, match='extern "C"'):
        cw.RawKernel("__global__ void f(float* x) {}", "f")
    with pytest.raises(ArgumentValueError, match="parameter 'p' of 'f' has type 'my_struct'"):
        cw.RawKernel('extern "C" __global__ void f(my_struct p) {}', "f")
