"""Host-side decisions of the rocm linalg and fft op families, without a GPU: the hipFFT
advanced layouts chosen for any input view (checked by running them through a NumPy model
of hipFFT's (n, stride, distance, batch) addressing), the plan cache's LRU policy, the
hipSOLVER routine names, and the batching thresholds."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from candlewick.layout import Layout
from rocm_backend.families import fft as rfft
from rocm_backend.families import linalg, linalg_spectral
from rocm_backend.bindings.hipsolver import routine_name


def _advanced_fft(flat_in, offset, n, istride, idist, batch, flat_out, ostride, odist):
    """hipFFT's rank-1 advanced layout: transform b reads in[offset + b*idist + j*istride]
    and writes out[b*odist + j*ostride]."""
    j = np.arange(n)
    for b in range(batch):
        flat_out[b * odist + j * ostride] = np.fft.fft(flat_in[offset + b * idist + j * istride])


@st.composite
def strided_case(draw):
    ndim = draw(st.integers(1, 4))
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=ndim, max_size=ndim)))
    perm = draw(st.permutations(range(ndim)))
    # a permuted view of a larger buffer, every axis possibly stepped and reversed
    steps = [draw(st.integers(1, 2)) * draw(st.sampled_from([1, -1])) for _ in range(ndim)]
    axis = draw(st.integers(0, ndim - 1))
    return shape, tuple(perm), steps, axis


@settings(max_examples=150, deadline=None)
@given(strided_case())
def test_fft_layouts_match_numpy(case):
    shape, perm, steps, axis = case
    base_shape = tuple(shape[perm.index(i)] * abs(steps[i]) for i in range(len(shape)))
    base = np.arange(int(np.prod(base_shape)), dtype=np.complex128) * (1 + 0.5j)
    view = np.transpose(base.reshape(base_shape)[tuple(slice(None, None, s) for s in steps)], perm)
    strides = tuple(s // 16 for s in view.strides)
    offset = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // 16
    layout = Layout(view.shape, strides, offset)
    plan = rfft.input_plan(layout, axis)
    flat, shp = base, view.shape
    if plan is None:  # the op family copies it contiguous with the axis last
        axes = [i for i in range(len(shp)) if i != axis] + [axis]
        flat, layout = np.ascontiguousarray(np.transpose(view, axes)).reshape(-1), \
            Layout.contiguous(tuple(shp[i] for i in axes))
        plan = rfft.input_plan(layout, len(shp) - 1)
        assert plan is not None, "a contiguous axis-last copy is always planable"
    istride, idist, batch = plan
    n = shp[axis]
    ostride, odist, direct = rfft.output_plan(shp, axis, n)
    out = np.zeros(view.size, np.complex128)
    _advanced_fft(flat, layout.offset, n, istride, idist, batch, out, ostride, odist)
    if direct:
        got = out.reshape(shp)
    else:
        before, after = int(np.prod(shp[:axis])), int(np.prod(shp[axis + 1:]))
        got = out.reshape(before, after, n).transpose(0, 2, 1).reshape(shp)
    np.testing.assert_allclose(got, np.fft.fft(view, axis=axis), rtol=1e-12, atol=1e-9)


def test_input_plan_uses_views_in_place():
    c = Layout.contiguous((3, 4, 5))
    assert rfft.input_plan(c, 2) == (1, 5, 12)          # last axis: unit stride, rows apart
    assert rfft.input_plan(c, 0) == (20, 1, 20)         # first axis: the rest is one batch dim
    assert rfft.input_plan(c, 1) is None                # middle axis: two batch dims
    t = Layout.contiguous((8, 6)).transpose_last2()     # x.T (6 x 8) along either axis
    assert rfft.input_plan(t, 0) == (1, 6, 8) and rfft.input_plan(t, 1) == (6, 1, 6)
    assert rfft.input_plan(Layout((4, 6), (6, -1), 5), 1) is None   # reversed: copied


def test_real_input_aligned_as_complex():
    assert rfft.input_aligned("D2Z", 0x1000, 8) and not rfft.input_aligned("D2Z", 0x1008, 8)
    assert not rfft.input_aligned("R2C", 0x1004, 4) and rfft.input_aligned("C2C", 0x1008, 8)


class _Recorder:
    def __init__(self):
        self.created, self.destroyed, self.drains = [], [], 0

    def create(self, key):
        self.created.append(key)
        return f"plan{key}"

    def destroy(self, plan):
        self.destroyed.append(plan)

    def drain(self):
        self.drains += 1


def test_plan_cache_is_a_bounded_lru():
    r = _Recorder()
    cache = rfft.PlanCache(r.create, r.destroy, r.drain, capacity=2)
    assert cache.get("a") == "plana" and cache.get("b") == "planb"
    assert cache.get("a") == "plana" and r.created == ["a", "b"]     # a hit creates nothing
    cache.get("c")                                                    # evicts b, the least recent
    assert r.destroyed == ["planb"] and r.drains == 1 and len(cache) == 2
    cache.get("b")
    assert r.destroyed == ["planb", "plana"] and r.created == ["a", "b", "c", "b"]


def test_plan_cache_prepares_each_plans_exec_once_and_drops_it_with_the_plan():
    """Each runner call makes its device current once, hit or miss."""
    r, prepared, uses = _Recorder(), [], []

    def prepare(kind, plan, inverse):
        prepared.append((kind, plan, inverse))
        return lambda src, dst: (plan, inverse, src, dst)

    cache = rfft.PlanCache(r.create, r.destroy, r.drain, capacity=2, prepare=prepare, use=lambda: uses.append(1))
    a, b = ("R2C", 8), ("C2C", 8)
    assert cache.runner(a)(1, 2) == ("plan('R2C', 8)", False, 1, 2)
    assert cache.runner(b, True)(3, 4) == ("plan('C2C', 8)", True, 3, 4)
    cache.runner(a), cache.runner(b, True)                       # hits: nothing made again
    assert len(prepared) == 2 and len(r.created) == 2
    cache.runner(b)                                              # the other direction: its own exec, same plan
    assert len(prepared) == 3 and len(r.created) == 2
    cache.runner(("C2R", 8))                                     # evicts a (the runner hits kept b recent)
    assert r.destroyed == ["plan('R2C', 8)"]
    cache.runner(a)                                              # a's exec went with its plan
    assert prepared[-1] == ("R2C", "plan('R2C', 8)", False) and len(r.created) == 4
    assert r.destroyed == ["plan('R2C', 8)", "plan('C2C', 8)"]
    assert len(uses) == 7


@pytest.mark.parametrize("letter, routine, name", [
    ("S", "getrf", "hipsolverSgetrf"), ("Z", "orgqr", "hipsolverZungqr"),
    ("C", "orgqr_bufferSize", "hipsolverCungqr_bufferSize"), ("D", "orgqr_bufferSize", "hipsolverDorgqr_bufferSize"),
    ("C", "syevd", "hipsolverCheevd"), ("Z", "syevjBatched_bufferSize", "hipsolverZheevjBatched_bufferSize"),
    ("S", "syevjBatched", "hipsolverSsyevjBatched"), ("Z", "gesvdjBatched", "hipsolverZgesvdjBatched"),
])
def test_routine_names(letter, routine, name):
    assert routine_name(letter, routine) == name


def test_batching_thresholds():
    assert linalg.use_batched_lu(1024, 64) and not linalg.use_batched_lu(1, 64)
    assert not linalg.use_batched_lu(8, linalg.LU_BATCHED_MAX_N + 1)
    assert linalg_spectral.use_batched_jacobi(1024, 64) and not linalg_spectral.use_batched_jacobi(1, 8)
    assert not linalg_spectral.use_batched_jacobi(4, linalg_spectral.EIGH_JACOBI_MAX_N + 1)
    assert linalg_spectral.use_batched_svd(1024, 64, 32) and not linalg_spectral.use_batched_svd(2, 65, 3)


def test_colmajor_reading():
    from rocm_backend.families.linalg_common import colmajor_as_rowmajor

    a = np.arange(2 * 3 * 4).reshape(2, 3, 4)
    buf = np.ascontiguousarray(np.swapaxes(a, -1, -2)).reshape(-1)   # column-major matrices
    lay = colmajor_as_rowmajor((2,), 3, 4, 3, 12)
    view = np.lib.stride_tricks.as_strided(buf, lay.shape, [s * buf.itemsize for s in lay.strides])
    assert (view == a).all() and lay.strides == (12, 1, 3)
