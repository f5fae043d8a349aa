"""The rocm backend's optional group "inplace" (families/inplace.py) end to end on the CPU:
candlewick's in-place operators, ``x[mask] = v`` and NumPy's ``out=`` on a rocm device
whose element-wise kernels are compiled for the host (host_exec.py), against NumPy on the
same data. The destination is the kernels' operand 0 at its own layout (contiguous fast
path and strided launch), an operand that overlaps it other than element for element is
copied first (NumPy's result), and no result storage is allocated."""

import numpy as np
import pytest

import candlewick as cw
from host_exec import build, device_factory
from rocm_backend import ops
from rocm_backend.families.ew_launch import column_grid

KEYS = {("copy", 1), ("copy", 4), ("copy", 8), ("fill", 1), ("fill", 4), ("fill", 8), ("transpose", 4),
        ("transpose", 8), ("where", 1), ("where", 2), ("where", 4), ("where", 8), ("where", 16), ("binary", "add", "float32"), ("binary", "add", "float64"),
        ("binary", "subtract", "float64"), ("binary", "multiply", "float32"), ("binary", "add", "int32"),
        ("binary", "bitwise_or", "bool"), ("unary", "negative", "float64"), ("unary", "sqrt", "float32"),
        ("unary", "abs", "complex64"), ("compare", "greater", "float64"), ("binary", "multiply", "complex64"),
        ("binary", "multiply", "complex128")}


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    specs = [s for s in ops.TABLE.values() if tuple(s.key) in KEYS]
    return build(tmp_path_factory.mktemp("inplace_host"), ["transpose.hip"], specs)


@pytest.fixture
def dev(lib, monkeypatch, tmp_path):
    return device_factory(lib, monkeypatch, tmp_path)(warp=64)[1]


def _data(shape, dtype, seed=3):
    rng = np.random.default_rng(seed)
    return (rng.integers(1, 9, shape) * 0.5).astype(dtype) if np.dtype(dtype).kind == "f" else \
        rng.integers(1, 9, shape).astype(dtype)


UPDATES = [  # (name, dtype, the update, spelt the same for candlewick and NumPy arrays)
    ("x += y", np.float32, lambda x, y: x.__iadd__(y)),
    ("x += y float64", np.float64, lambda x, y: x.__iadd__(y)),
    ("x *= 2.0", np.float32, lambda x, y: x.__imul__(2.0)),
    ("x[:12] += y[12:] (an operand at an offset)", np.float32, lambda x, y: x[:12].__iadd__(y[12:])),
    ("x[:12] *= 3.0", np.float32, lambda x, y: x[:12].__imul__(3.0)),
    ("x[::2] += 1 (rows)", np.float64, lambda x, y: x[::2].__iadd__(1.0)),
    ("stepped columns", np.int32, lambda x, y: x[:, 1::3].__iadd__(y[:, ::3])),
    ("broadcast row", np.float32, lambda x, y: x.__iadd__(y[2])),
    ("reversed destination", np.float64, lambda x, y: x[::-1, ::-1].__isub__(y)),
    ("transposed operand", np.float64, lambda x, y: x.__iadd__(y.T)),
    ("x[1:] += x[:-1]", np.float64, lambda x, y: x[1:].__iadd__(x[:-1])),
    ("x[:-1] += x[1:]", np.float32, lambda x, y: x[:-1].__iadd__(x[1:])),
    ("x += x.T", np.float64, lambda x, y: x.__iadd__(x.T)),
    ("x -= x[::-1]", np.float64, lambda x, y: x.__isub__(x[::-1])),
    ("x += x[0] (a row of x spread)", np.float32, lambda x, y: x.__iadd__(x[0])),
]


@pytest.mark.parametrize("name,dtype,update", UPDATES, ids=[u[0] for u in UPDATES])
def test_in_place_operators_match_numpy(dev, name, dtype, update):
    h, g = _data((24, 24), dtype), _data((24, 24), dtype, seed=5)
    x, y = cw.asarray(h, device=dev), cw.asarray(g, device=dev)
    update(x, y)
    update(h, g)
    np.testing.assert_array_equal(cw.to_numpy(x), h)


def test_an_update_allocates_no_result(dev, monkeypatch):
    x, y = cw.ones((64, 64), dtype=cw.float32, device=dev), cw.ones((64, 64), dtype=cw.float32, device=dev)
    mask = cw.asarray(np.arange(64 * 64).reshape(64, 64) % 3 == 0, device=dev)
    asked = []
    allocate = dev.allocator.allocate
    monkeypatch.setattr(dev.allocator, "allocate", lambda nbytes: asked.append(nbytes) or allocate(nbytes))
    x += y
    x *= 2.0
    x[::2] += 1.0
    np.add(x, y, out=x)
    assert asked == []  # the operands view the destination element for element: no copy either
    x[1:] += x[:-1]  # an overlapping operand: copied once, the size of the operand
    assert asked == [63 * 64 * 4]
    expected = np.full((64, 64), 5.0, np.float32)
    expected[::2] += 1.0
    expected[1:] += expected[:-1].copy()
    np.testing.assert_array_equal(cw.to_numpy(x), expected)
    asked.clear()
    x[mask] = 0.5
    assert asked == []  # where_into takes the scalar itself and writes x itself
    expected[np.arange(64 * 64).reshape(64, 64) % 3 == 0] = 0.5
    np.testing.assert_array_equal(cw.to_numpy(x), expected)


def test_numpy_out_and_masks_write_the_device_array(dev):
    h = _data((6, 8), np.float32)
    x = cw.asarray(h, device=dev)
    assert np.sqrt(x, out=x) is x
    np.testing.assert_allclose(cw.to_numpy(x), np.sqrt(h), rtol=1e-6)
    a, b = _data((6, 8), np.float64), _data((6, 8), np.float64, seed=9)
    flags = cw.zeros((6, 8), dtype=cw.bool, device=dev)
    np.greater(cw.asarray(a, device=dev), cw.asarray(b, device=dev), out=flags[:, ::-1].T.T)
    np.testing.assert_array_equal(cw.to_numpy(flags)[:, ::-1], a > b)
    m = cw.asarray(a > 2.0, device=dev)
    z = cw.asarray(b, device=dev)
    z[m] = -1.0
    expected = b.copy()
    expected[a > 2.0] = -1.0
    np.testing.assert_array_equal(cw.to_numpy(z), expected)
    bits = cw.asarray(np.arange(12) % 3 == 0, device=dev)
    bits[1:] |= bits[:-1]
    hb = np.arange(12) % 3 == 0
    hb[1:] |= hb[:-1].copy()
    np.testing.assert_array_equal(cw.to_numpy(bits), hb)


def test_a_complex_array_written_through_its_real_view(dev):
    """``np.abs(z, out=z.real)``: the destination (float32) and the operand (complex64) share
    one buffer at different element sizes: the operand is read whole first."""
    zh = (_data(10, np.float32) + 1j * _data(10, np.float32, seed=8)).astype(np.complex64)
    z = cw.asarray(zh, device=dev)
    np.abs(z, out=cw.real(z))
    expected = zh.copy()
    expected.real = np.abs(zh)
    np.testing.assert_allclose(cw.to_numpy(z), expected, rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8, np.bool_])
@pytest.mark.parametrize("n", [1, 7, 64, 1001])
def test_mask_fill_takes_the_contiguous_path(dev, monkeypatch, dtype, n):
    """``x[mask] = v`` (scalar v, mask of x's shape): one contiguous where pass reading v
    once (CW_FLAG_A), as torch's masked_fill_, not the strided launch; odd sizes give the
    vector path's tail, offset views an unaligned start."""
    from rocm_backend.families import inplace
    h = _data(n + 3, dtype)
    mh = np.arange(n + 3) % 3 != 1
    x, m = cw.asarray(h, device=dev), cw.asarray(mh, device=dev)
    strided = []
    monkeypatch.setattr(inplace, "launch_ew", lambda *a, **k: strided.append(a))
    v = True if dtype is np.bool_ else 5
    xv, mv = x[3:], m[3:]
    xv[mv] = v
    x[m[::-1][::-1]] = v
    expected = h.copy()
    expected[3:][mh[3:]] = v
    expected[mh] = v
    np.testing.assert_array_equal(cw.to_numpy(x), expected)
    assert strided == []
    z = cw.asarray(h, device=dev)
    z[m] = cw.asarray(np.asarray(v, dtype), device=dev)  # a 0-d array value: the same path
    expected = h.copy()
    expected[mh] = v
    np.testing.assert_array_equal(cw.to_numpy(z), expected)
    assert strided == []


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16, np.uint8])
def test_where_contiguous_path_across_blocks(dev, dtype):
    """The where kernel's contiguous path gives each thread two vectors a step for narrow
    types (as the binary kernels): over several blocks, with a last block that pairs some
    vectors and leaves single ones, a tail of elements, and an offset view (unaligned, the
    element path): x[mask] = v, a spread 0-d value, and the out-of-place where of arrays."""
    n = 5 * 1024 + 333
    h, g = _data(n + 1, dtype), _data(n + 1, dtype, seed=7)
    mh = np.random.default_rng(4).random(n + 1) < 0.5
    x, y, m = cw.asarray(h, device=dev), cw.asarray(g, device=dev), cw.asarray(mh, device=dev)
    x[m] = 3.0 if np.dtype(dtype).kind == "f" else 3  # (a float: advanced_indexing.mask_fill's case)
    xv = x[1:]
    xv[m[1:]] = cw.asarray(np.asarray(5, dtype), device=dev)
    w = cw.where(m, x, y)
    expected = h.copy()
    expected[mh] = 3
    expected[1:][mh[1:]] = 5
    np.testing.assert_array_equal(cw.to_numpy(x), expected)
    np.testing.assert_array_equal(cw.to_numpy(w), np.where(mh, expected, g))


def test_one_strided_axis(dev):
    """``x[::2] += 1`` and kin coalesce to one strided axis, which the kernels' index
    decode takes without a division (hip/common.h) and the host packs alone
    (ew_launch.launch_strided_1d): stepped, reversed, offset and spread (stride 0)
    operands on 1-D layouts, binary, unary and where (a scalar value, a reversed mask)."""
    h, g = _data(1001, np.float64), _data(1001, np.float64, seed=7)
    x, y = cw.asarray(h, device=dev), cw.asarray(g, device=dev)
    x[::2] += 1.0
    x[1::3] -= y[::-3]
    x[5:505] += y[7]
    np.negative(x[::-5], out=x[::-5])
    mh = np.arange(1001) % 3 == 1
    m = cw.asarray(mh, device=dev)
    x[::2][m[::2]] = 7.0
    x[1::2][m[::-2][1:]] = 3.0
    h[::2] += 1.0
    h[1::3] -= g[::-3]
    h[5:505] += g[7]
    np.negative(h[::-5], out=h[::-5])
    h[::2][mh[::2]] = 7.0
    h[1::2][mh[::-2][1:]] = 3.0
    np.testing.assert_array_equal(cw.to_numpy(x), h)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32, np.uint8, np.bool_, np.complex128])
def test_mask_fill_passes_the_scalar_to_the_kernel(dev, monkeypatch, dtype):
    """``x[mask] = v`` with a Python scalar v: where_into gets v itself (no device array of
    it: nothing allocated) and the where kernel reads it from its scalar slot, on the
    contiguous path and on the strided one (a stepped destination, a transposed mask, a
    reversed one), for every item size."""
    v = True if dtype is np.bool_ else (2.5 - 1.5j) if dtype is np.complex128 else 7
    h = _data((12, 10), dtype)
    mh = (np.arange(120).reshape(12, 10) % 3) != 1
    x, m = cw.asarray(h, device=dev), cw.asarray(mh, device=dev)
    asked = []
    allocate = dev.allocator.allocate
    monkeypatch.setattr(dev.allocator, "allocate", lambda nbytes: asked.append(nbytes) or allocate(nbytes))
    x[m] = v
    x[::2][m[::2]] = v
    xt = x.T
    xt[m.T] = v
    x[:, ::-3][m[:, :4]] = v
    assert asked == []
    expected = h.copy()
    expected[mh] = v
    expected[::2][mh[::2]] = v
    expected.T[mh.T] = v
    expected[:, ::-3][mh[:, :4]] = v
    np.testing.assert_array_equal(cw.to_numpy(x), expected)


def test_one_strided_axis_takes_several_elements_per_thread(dev):
    """Past one element per thread of the capped grid (this device: 3 multiprocessors, so
    96 blocks), the binary kernels' one-strided-axis path gives each thread
    CW_STRIDED_ITEMS elements a step, all loaded before any is stored: every element of
    each step must land once, with its own operands (a stepped destination, a reversed
    operand, a scalar, a tail that ends mid-step)."""
    n = 96 * 256 * 4 + 1001  # a step past the grid's threads x 4, then a partial one
    h, g = _data(2 * n + 1, np.float32), _data(2 * n + 1, np.float32, seed=7)
    x, y = cw.asarray(h, device=dev), cw.asarray(g, device=dev)
    x[::2] += 1.0
    x[1::2] += y[::-2][1:]
    h[::2] += 1.0
    h[1::2] += g[::-2][1:]
    np.testing.assert_array_equal(cw.to_numpy(x), h)


@pytest.mark.parametrize("dtype", [np.complex64, np.float64, np.complex128])
def test_eight_byte_types_take_the_strided_steps(dev, dtype):
    """complex64 and float64 take the one/two-strided-axes steps (a spectrum times a
    response broadcast down its rows, X - mean, a stepped view) past one step of the capped
    grid, each element once with its own operands; complex128 keeps the general decode.
    Results are NumPy's."""
    rows, cols = 300, 401  # 120300 elements: past the 96 x 256 x 4 of one step
    rng = np.random.default_rng(11)

    def data(*shape):
        v = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if np.dtype(dtype).kind == "c" else 0)
        return v.astype(dtype)

    h, r, c = data(rows, cols), data(cols), data(rows, 1)
    x, xr, xc = (cw.asarray(v, device=dev) for v in (h, r, c))
    op = (lambda a, b: a * b) if np.dtype(dtype).kind == "c" else (lambda a, b: a - b)
    # a complex product may round its parts once (fused multiply-add) where NumPy rounds twice
    rtol = {np.complex64: 1e-6, np.complex128: 1e-15}.get(dtype, 0)

    def same(got, want):
        np.testing.assert_allclose(cw.to_numpy(got), want, rtol=rtol, atol=0)

    same(op(x, xr), op(h, r))  # row broadcast: two axes
    same(op(x[:, ::-2], xc), op(h[:, ::-2], c))
    same(op(x.T[::2], xr[::2, None]), op(h.T[::2], r[::2, None]))
    flat, other = data(2 * rows * cols + 1), data(rows * cols + 1)
    f, o = cw.asarray(flat, device=dev), cw.asarray(other, device=dev)
    same(op(f[::2], o[::-1]), op(flat[::2], other[::-1]))  # one axis


def test_column_grid():
    """Whole rows a grid (a multiple of the row's threads), four elements a thread where
    that holds a unit, else one unit, else none (the full entry's decode)."""
    from types import SimpleNamespace

    h200 = SimpleNamespace(multiprocessors=132)
    assert column_grid(781 * 2049, 2049, 128, h200) == 2049  # scipy.fft's spectrum rows
    assert column_grid(781 * 8193, 8193, 128, h200) == 8193  # past the cap: one unit
    assert column_grid(4096 * 4096, 4096, 128, h200) == 4224
    assert column_grid(200000 * 8, 8, 128, h200) == 3125
    assert column_grid(96 * 40, 40, 128, h200) == 5  # 8 blocks of four a thread, down to a unit of 5
    assert column_grid(3 * 1001, 1001, 128, h200) == 0  # three rows of 1001: the decode


def test_few_long_rows_take_the_full_entry(lib, monkeypatch, tmp_path):
    """A two-axes layout of fewer rows than a whole-rows grid's threads hold takes the op's
    full entry (the general decode), not the column steps: NumPy's results."""
    rt, dev = device_factory(lib, monkeypatch, tmp_path)(warp=64)
    h, r = _data((3, 1001), np.float32), _data(1001, np.float32, seed=4)
    x, xr = cw.asarray(h, device=dev), cw.asarray(r, device=dev)
    np.testing.assert_array_equal(cw.to_numpy(x + xr), h + r)
    np.testing.assert_array_equal(cw.to_numpy(x[:, ::2] * 2.0), h[:, ::2] * 2.0)
    assert {name for name, _, _ in rt.launches} == {"binary_add_float32", "binary_multiply_float32"}


@pytest.mark.parametrize("cols", [8, 3, 96, 40, 401], ids=lambda c: f"{c} columns")
def test_short_rows_broadcast_take_one_column_per_thread(lib, monkeypatch, tmp_path, cols):
    """The two-axes column steps on whole-rows grids (ew_launch.column_grid: this device's
    96 blocks of 128 rounded to whole rows, or one unit of 401 blocks): each thread keeps
    one column and steps its row (no division per element): KMeans's x2 - d, d + c2 and its
    one-hot compare, a column and a row spread down a matrix, past several steps and ending
    mid-step. Two-axes layouts take their own entry (binary_column_*, compare_column_*), so
    that these steps' registers do not set the occupancy of every other binary launch.
    Results are NumPy's."""
    rt, dev = device_factory(lib, monkeypatch, tmp_path)(warp=64)
    rows = 96 * 256 * 4 * 3 // cols + 7
    rng = np.random.default_rng(cols)
    d = rng.standard_normal((rows, cols)).astype(np.float32)
    x2 = rng.standard_normal((rows, 1)).astype(np.float32)
    c2 = rng.standard_normal(cols).astype(np.float32)
    cd, cx2, cc2 = (cw.asarray(v, device=dev) for v in (d, x2, c2))
    np.testing.assert_array_equal(cw.to_numpy(cx2 + cd), x2 + d)
    np.testing.assert_array_equal(cw.to_numpy(cd + cc2), d + c2)
    np.testing.assert_array_equal(cw.to_numpy(cd[::-1] * cc2[::-1]), d[::-1] * c2[::-1])
    near = rng.standard_normal((rows, 1))
    centers = rng.standard_normal(cols)
    cn, cc = cw.asarray(near, device=dev), cw.asarray(centers, device=dev)
    np.testing.assert_array_equal(cw.to_numpy(cn > cc), near > centers)  # both operands spread
    np.testing.assert_array_equal(cw.to_numpy(cn - cc), near - centers)
    assert {name for name, _, _ in rt.launches} == {
        "binary_column_add_float32", "binary_column_multiply_float32", "compare_column_greater_float64",
        "binary_column_subtract_float64"}


def test_steps_grid_gives_each_thread_four_elements():
    """A binary over one strided axis: a grid of STRIDED_ITEMS elements a thread (1.6M
    elements on the H200's 132 multiprocessors: 1563 blocks, not the cap's 4224)."""
    from types import SimpleNamespace

    from rocm_backend.families.ew_launch import steps_grid

    h200 = SimpleNamespace(multiprocessors=132)
    assert steps_grid(1600000, 256, h200) == 1563
    assert steps_grid(1 << 26, 256, h200) == 4224
    assert steps_grid(16, 256, h200) == 1


@pytest.mark.parametrize("shift", [0, 4], ids=["aligned", "bases at 4 bytes"])
def test_complex64_row_broadcast_at_any_base(lib, monkeypatch, tmp_path, shift):
    """The two-axes steps (scipy.fft's spectrum times a response) assume no 8-byte alignment
    of complex64 (two floats to the kernels; memory of another library may hold complex64
    at a 4-byte boundary): NumPy's products either way, through binary_column."""
    from candlewick.opdefs import BinaryOp
    from rocm_backend.families.ew_launch import launch_ew

    rt, dev = device_factory(lib, monkeypatch, tmp_path)(warp=64)
    rows, cols = 301, 2049 // 9  # odd rows of 227 complex64, past one step of the capped grid
    rng = np.random.default_rng(5)
    h = (rng.standard_normal((rows, cols)) + 1j * rng.standard_normal((rows, cols))).astype(np.complex64)
    r = (rng.standard_normal(cols) + 1j * rng.standard_normal(cols)).astype(np.complex64)

    def padded(z):  # the complex64 data ``shift`` bytes past a float32 array's base
        return cw.asarray(np.concatenate([np.zeros(shift // 4, np.float32), z.view(np.float32).ravel()]), device=dev)

    x, row, out = padded(h), padded(r), padded(np.zeros_like(h))
    c64 = cw.complex64
    launch_ew(dev, ("binary", BinaryOp.MULTIPLY, c64),
              (rows, cols), [(out._storage.ptr + shift, 0, (cols, 1)), (x._storage.ptr + shift, 0, (cols, 1)),
                             (row._storage.ptr + shift, 0, (0, 1))], name="multiply", dtype=c64)
    got = cw.to_numpy(out)[shift // 4:].view(np.complex64).reshape(rows, cols)
    np.testing.assert_allclose(got, h * r, rtol=1e-6, atol=0)
    assert {name for name, _, _ in rt.launches} >= {"binary_column_multiply_complex64"}
