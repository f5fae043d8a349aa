"""The general eigenproblem kernel of rocm_backend/hip/eig.hip, run on the CPU.

No GPU here: host_exec.py has g++ compile eig.hip for the host (every thread of a block a
fiber: real barriers, shared memory, threads in a new random order between barriers, so a
missing barrier changes results). The kernel is called directly on host arrays for many
kinds of matrices (random, defective, triangular, Hermitian, repeated and nearly repeated
eigenvalues, zero, 1 x 1, sizes past the shared-memory capacity, non-finite, several block
widths), and once through the backend's own host path (``RocmStorage.eig`` with a strided
float32 view, the launch, the info check) with fake_hip's runtime on host memory.
Eigenvalues are compared with numpy.linalg.eigvals as sorted sets; eigenvectors by
A v = lambda v and unit norms.
"""

import ctypes

import numpy as np
import pytest

from candlewick import dtypes as dt
from candlewick.errors import LinAlgError
from candlewick.layout import Layout
from host_exec import build, device_factory
from rocm_backend import ops
from rocm_backend.abi.structs import EIG_ARGS, EIG_BLOCK, EIG_NONFINITE, EIG_SHARED_BYTES

SPECS = {d: ops.lookup(("eig", d.name)) for d in (dt.complex64, dt.complex128)}
EPS = {np.complex64: np.finfo(np.float32).eps, np.complex128: np.finfo(np.float64).eps}


def _wanted(spec):
    """The eig kernels and what the backend's path around them launches: copies and
    float32 -> complex64 conversion."""
    k = spec.key
    return k[0] in ("eig", "copy", "transpose", "fill") or k == ("astype", "float32", "complex64")


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    specs = [s for s in ops.TABLE.values() if _wanted(s)]
    return build(tmp_path_factory.mktemp("eig_host"), ["transpose.hip", "eig_schur.h", "eig.hip"], specs)


def run_kernel(lib, a, vectors=True, block=32, grid=None, real_input=False):
    """(values, vectors, info) of the kernel on host matrices ``a`` (..., n, n), complex
    (``real_input``: a real matrix in complex form, whose spectrum the kernel closes)."""
    a = np.ascontiguousarray(a)
    *batch, n, _ = a.shape
    count = int(np.prod(batch, dtype=np.int64))
    work = a.reshape(count, n, n).copy()
    values = np.full((count, n), np.nan, a.dtype)
    vecs = np.full((count, n, n), np.nan, a.dtype) if vectors else np.zeros(0, a.dtype)
    scratch = np.full(count * (n + n * n if vectors else n) + 1, np.nan, a.dtype)
    info = np.full(max(count, 1), 99, np.int32)
    args = EIG_ARGS.pack([work.ctypes.data, values.ctypes.data, vecs.ctypes.data if vectors else 0,
                          scratch.ctypes.data, info.ctypes.data, n, count, int(vectors), int(real_input)])
    buf = ctypes.create_string_buffer(args, len(args))
    gx = grid or max(count, 1)
    order = np.arange(gx, dtype=np.int32)
    spec = SPECS[dt.complex64 if a.dtype == np.complex64 else dt.complex128]
    err = getattr(lib, f"cwh_{spec.name}")(buf, gx, 1, block, 1, 32, order.ctypes.data_as(ctypes.c_void_p))
    assert err is None, err.decode()
    return values.reshape(*batch, n), vecs.reshape(*batch, n, n) if vectors else None, info[:count]


def check(a, w, v, info, scale=1.0):
    """Eigenvalues as a set against NumPy's; A v = lambda v; unit norms."""
    assert (info == 0).all(), info
    eps = EPS[a.dtype.type]
    n = a.shape[-1]
    norm_a = max(np.abs(a).max(initial=0.0), np.finfo(a.real.dtype).tiny)
    a64, w64 = a.astype(np.complex128), w.astype(np.complex128)
    tol = 64 * max(n, 1) * eps * norm_a * scale
    want = np.sort_complex(np.linalg.eigvals(a64).reshape(-1, n))
    got = np.sort_complex(w64.reshape(-1, n))
    # a set comparison robust to ties: each value near one of NumPy's and vice versa
    for g_row, w_row in zip(got, want):
        assert np.abs(g_row[:, None] - w_row[None, :]).min(axis=1).max(initial=0) <= tol * 4, (g_row, w_row)
        assert np.abs(w_row[:, None] - g_row[None, :]).min(axis=1).max(initial=0) <= tol * 4, (g_row, w_row)
    if v is None:
        return
    v64 = v.astype(np.complex128)
    np.testing.assert_allclose(np.linalg.norm(v64, axis=-2), 1.0, atol=64 * n * eps)
    resid = np.abs(a64 @ v64 - v64 * w64[..., None, :]).max(initial=0.0)
    assert resid <= tol, f"|A v - lambda v| = {resid:g} > {tol:g}"
    # the largest component of each vector is real (LAPACK geev's normalization)
    idx = np.abs(v64).argmax(axis=-2)
    top = np.take_along_axis(v64, idx[..., None, :], axis=-2)
    assert np.abs(top.imag).max(initial=0.0) == 0


def _complex(rng, shape, dtype):
    m = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return m.astype(dtype)


def _real(rng, shape, dtype):
    return rng.standard_normal(shape).astype(dtype)


def _cases(rng, dtype):
    """(name, matrices) of one complex dtype; real ones are real matrices in complex form."""
    real_dt = np.float32 if dtype == np.complex64 else np.float64
    jordan = np.diag(np.full(5, 2.0)) + np.diag(np.ones(4), 1)
    q, _ = np.linalg.qr(rng.standard_normal((6, 6)))
    repeated = q @ np.diag([1.0, 1.0, 1.0, -2.0, -2.0, 3.0]) @ q.T
    nearly = q @ np.diag([1.0, 1.0 + 1e-5, 1.0 - 1e-5, 2.0, 2.0 + 1e-6, 0.0]) @ q.T
    herm = _complex(rng, (3, 5, 5), np.complex128)
    herm = herm + np.conj(np.swapaxes(herm, -1, -2))
    return [
        ("random complex", _complex(rng, (4, 6, 6), dtype)),
        ("random real", _real(rng, (3, 7, 7), real_dt).astype(dtype)),
        ("rotation (complex pair of a real matrix)", np.array([[0.0, -1.0], [1.0, 0.0]], dtype)),
        ("defective Jordan block", jordan.astype(dtype)),
        ("upper triangular", np.triu(_complex(rng, (2, 5, 5), dtype))),
        ("lower triangular", np.tril(_complex(rng, (5, 5), dtype))),
        ("diagonal", np.diag(np.arange(1.0, 6.0)).astype(dtype)),
        ("Hermitian", herm.astype(dtype)),
        ("symmetric real", (lambda s: s + s.T)(_real(rng, (6, 6), real_dt)).astype(dtype)),
        ("repeated eigenvalues", repeated.astype(dtype)),
        ("nearly repeated eigenvalues", nearly.astype(dtype)),
        ("zero matrix", np.zeros((4, 4), dtype)),
        # exactly rank one: the Hessenberg columns shrink geometrically to tiny values
        ("rank one (all ones)", np.ones((2, 22, 22), dtype)),
        # eigenvalues equal to working precision: shifts rounding to a diagonal entry
        ("near identity", (np.eye(14) + 1e-7 * rng.standard_normal((12, 14, 14))).astype(dtype)),
        ("1 x 1", _complex(rng, (3, 1, 1), dtype)),
        ("2 x 2", _complex(rng, (2, 2), dtype)),
        ("tiny entries", _complex(rng, (5, 5), dtype) * (1e-30 if dtype == np.complex64 else 1e-200)),
        ("huge entries", _complex(rng, (5, 5), dtype) * (1e30 if dtype == np.complex64 else 1e200)),
        ("companion (roots 1..6)", np.eye(6, k=-1).astype(dtype) + np.pad(
            -np.poly(np.arange(1.0, 7.0))[1:][None, :], ((0, 5), (0, 0))).astype(dtype)),
    ]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=["complex64", "complex128"])
def test_matrix_kinds(lib, dtype):
    rng = np.random.default_rng(5)
    for name, a in _cases(rng, dtype):
        # the defective and nearly repeated cases have eigenvalues sensitive at
        # sqrt(eps) or eps^(1/5): wider tolerances for their values and residuals
        scale = {"defective Jordan block": 1 / EPS[dtype] ** 0.8 / 64,
                 "nearly repeated eigenvalues": 1e4 if dtype == np.complex64 else 1.0,
                 "companion (roots 1..6)": 1e3}.get(name, 1.0)
        w, v, info = run_kernel(lib, a)
        try:
            check(a, w, v, info, scale)
        except AssertionError as exc:
            raise AssertionError(f"{name}: {exc}") from None


@pytest.mark.parametrize("block", [1, 3, 32, EIG_BLOCK])
def test_block_widths_agree(lib, block):
    """Any number of threads (fewer than n, more than n, not a power of two) gives the
    same values and vectors: the threads only share the work."""
    a = _complex(np.random.default_rng(6), (2, 9, 9), np.complex128)
    w, v, info = run_kernel(lib, a, block=block)
    check(a, w, v, info)
    w1, v1, _ = run_kernel(lib, a, block=1)
    np.testing.assert_allclose(w, w1, atol=1e-13)
    np.testing.assert_allclose(v, v1, atol=1e-12)


def test_past_shared_memory_capacity(lib):
    """complex128 H and Z of n = 48 (72 KiB) exceed the shared capacity: global memory."""
    n = 48
    assert 2 * n * n * 16 > EIG_SHARED_BYTES
    a = _complex(np.random.default_rng(7), (n, n), np.complex128)
    w, v, info = run_kernel(lib, a, block=64)
    check(a, w, v, info)
    wv, _, info = run_kernel(lib, a, vectors=False, block=64)
    check(a, wv, None, info)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=["complex64", "complex128"])
def test_values_only(lib, dtype):
    """Without vectors only the active block is transformed: the same eigenvalues."""
    a = _complex(np.random.default_rng(8), (3, 8, 8), dtype)
    w, _, info = run_kernel(lib, a, vectors=False)
    check(a, w, None, info)
    w_full, _, _ = run_kernel(lib, a)
    check(a, w_full, None, info)


def test_fewer_blocks_than_matrices(lib):
    """Each block loops over the matrices gridDim apart (a batch past the grid)."""
    a = _complex(np.random.default_rng(9), (5, 4, 4), np.complex128)
    w, v, info = run_kernel(lib, a, grid=2)
    check(a, w, v, info)


def test_non_finite_sets_info(lib):
    a = _complex(np.random.default_rng(10), (3, 4, 4), np.complex128)
    a[1, 2, 3] = np.nan
    a[2, 0, 0] = np.inf
    w, v, info = run_kernel(lib, a)
    assert info.tolist() == [0, EIG_NONFINITE, EIG_NONFINITE]
    check(a[:1], w[:1], v[:1], info[:1])


def _conjugate_closed(w, v=None):
    """Each row of ``w`` equal to its own conjugate as a multiset, exactly (LAPACK's real
    Schur form: exact pairs, real eigenvalues with a zero imaginary part); a pair's vectors
    conjugates, a real eigenvalue's vector real."""
    for k, row in enumerate(w.reshape(-1, w.shape[-1])):
        assert np.array_equal(np.sort_complex(row), np.sort_complex(np.conj(row))), row
        if v is None:
            continue
        vecs = v.reshape(-1, *v.shape[-2:])[k]
        for i, lam in enumerate(row):
            if lam.imag == 0:
                assert not vecs[:, i].imag.any(), (i, vecs[:, i])
            elif lam.imag < 0:
                partners = [j for j in range(len(row)) if row[j] == np.conj(lam)]
                assert any(np.array_equal(vecs[:, i], np.conj(vecs[:, j])) for j in partners), i


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=["complex64", "complex128"])
@pytest.mark.parametrize("vectors", [True, False], ids=["vectors", "values"])
def test_real_input_gives_conjugate_pairs_exactly(lib, dtype, vectors):
    """A real matrix's spectrum closed under conjugation exactly, as NumPy's (LAPACK's dgeev)
    is: SciPy's tf2zpk test compares the roots with their conjugates bit for bit. Still
    NumPy's eigenvalues, A v = lambda v, unit norms."""
    rng = np.random.default_rng(12)
    real_dt = np.float32 if dtype == np.complex64 else np.float64
    comb = np.zeros(61)
    comb[0], comb[-1] = 1.0, -0.9  # z^60 - 0.9: 60 roots on a circle, 29 conjugate pairs and 2 real
    companion = np.eye(60, k=-1) + np.pad(-comb[1:][None, :] / comb[0], ((0, 59), (0, 0)))
    cases = [_real(rng, (4, 7, 7), real_dt), (lambda m: m + np.swapaxes(m, -1, -2))(_real(rng, (3, 6, 6), real_dt)),
             np.array([[0.0, -1.0], [1.0, 0.0]]), np.diag([3.0, -1.0, 2.0]), companion, np.zeros((3, 3)),
             np.eye(6, k=-1) + np.pad(-np.poly(np.arange(1.0, 7.0))[1:][None, :], ((0, 5), (0, 0)))]
    scales = [1.0, 1.0, 1.0, 1.0, 1e2, 1.0, 1e3]
    for a, scale in zip(cases, scales):
        a = a.astype(real_dt).astype(dtype)
        w, v, info = run_kernel(lib, a, vectors=vectors, block=64, real_input=True)
        check(a, w, v, info, scale)
        _conjugate_closed(w, v)
    symmetric = cases[1].astype(real_dt).astype(dtype)
    w, _, _ = run_kernel(lib, symmetric, vectors=vectors, real_input=True)
    assert not w.imag.any()  # a symmetric matrix's eigenvalues are real: no rounding left off the axis


@pytest.fixture
def device(lib, monkeypatch, tmp_path):
    return device_factory(lib, monkeypatch, tmp_path)


def test_through_the_backend(device):
    """RocmStorage.eig end to end: a transposed, offset float32 view (converted by the
    backend's astype kernel to a contiguous complex64 copy), batched; complex64 results;
    LinAlgError for NaN; empty batches."""
    rt, dev = device()
    rng = np.random.default_rng(11)
    a = rng.standard_normal((2, 5, 5)).astype(np.float32)
    buf = np.zeros(a.size + 3, np.float32)
    buf[3:] = np.ascontiguousarray(np.swapaxes(a, -1, -2)).reshape(-1)
    s = dev.storage_from_host(buf)
    w_s, v_s = s.eig(Layout((2, 5, 5), (25, 1, 5), 3))
    assert w_s.dtype is dt.complex64 and v_s.dtype is dt.complex64
    # one block per matrix, one warp (64 wide here) for n = 5
    assert [x for x in rt.launches if x[0].startswith("eig_")] == [("eig_complex64", (2, 1), (64, 1))]
    w = w_s.to_host(Layout.contiguous((2, 5)))
    v = v_s.to_host(Layout.contiguous((2, 5, 5)))
    check(a.astype(np.complex64), w, v, np.zeros(2, np.int32))
    _conjugate_closed(w, v)  # a real input: the backend asks the kernel to close the spectrum
    a[1, 0, 0] = np.nan
    bad = dev.storage_from_host(np.ascontiguousarray(a).reshape(-1))
    with pytest.raises(LinAlgError, match=r"linalg.eig: the matrix holds inf or NaN \(matrix 1"):
        bad.eig(Layout.contiguous((2, 5, 5)))
    empty_w, empty_v = bad.eig(Layout((0, 5, 5), (25, 5, 1), 0))
    assert empty_w.size == 0 and empty_v.size == 0


def test_info_messages(device):
    """raise_on_eig_info: the first failed matrix, non-finite or not converged."""
    from rocm_backend.families.linalg_eig import raise_on_eig_info

    _, dev = device()
    raise_on_eig_info(dev.storage_from_host(np.zeros(3, np.int32)), 3)
    with pytest.raises(LinAlgError, match=r"linalg.eig: the QR iteration did not converge for eigenvalue 2 "
                                          r"\(matrix 1 of the batch\)"):
        raise_on_eig_info(dev.storage_from_host(np.array([0, 3, EIG_NONFINITE], np.int32)), 3)
