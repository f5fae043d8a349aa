"""The batched-transpose copy (hip/transpose.hip) on CPU: when storage.copy/assign
choose it, and a NumPy mirror of the kernel's index map against the strided view."""

import itertools

import numpy as np
import pytest

from rocm_backend.families.copies import transposed_copy_plan


def mirror(flat, offset, plan):
    """out[b][r][c] = in[offset + b*sB + r + c*sC], as the kernel writes it."""
    b, r, c, s_b, s_c = plan
    bi, ri, ci = np.meshgrid(np.arange(b), np.arange(r), np.arange(c), indexing="ij")
    return flat[offset + bi * s_b + ri + ci * s_c].reshape(-1)


@pytest.mark.parametrize("shape", [(2, 3, 17, 19), (1, 64, 56, 56), (3, 40, 20), (48, 33)])
def test_every_permutation_copies_like_numpy(shape):
    base = np.arange(int(np.prod(shape)), dtype=np.int64)
    planned = 0
    for perm in itertools.permutations(range(len(shape))):
        view = base.reshape(shape).transpose(perm)
        strides = tuple(s // 8 for s in view.strides)
        dst = tuple(s // 8 for s in np.empty(view.shape).strides)
        plan = transposed_copy_plan(view.shape, dst, strides)
        if plan is None:
            continue
        planned += 1
        np.testing.assert_array_equal(mirror(base, 0, plan), view.reshape(-1))
    assert planned, "no permutation of a transposable shape took the tiled path"


def test_nchw_nhwc_both_ways_and_offsets():
    n, c, h, w = 2, 24, 5, 7
    base = np.arange(3 + n * c * h * w, dtype=np.int64)
    nchw = base[3:].reshape(n, c, h, w)
    to_nhwc = nchw.transpose(0, 2, 3, 1)
    plan = transposed_copy_plan(to_nhwc.shape, (h * w * c, w * c, c, 1), (c * h * w, w, 1, h * w))
    assert plan == (n, h * w, c, c * h * w, h * w)
    np.testing.assert_array_equal(mirror(base, 3, plan), to_nhwc.reshape(-1))
    nhwc = np.ascontiguousarray(to_nhwc).reshape(-1)
    back = transposed_copy_plan((n, c, h, w), (c * h * w, h * w, w, 1), (h * w * c, 1, w * c, c))
    np.testing.assert_array_equal(mirror(nhwc, 0, back), nchw.reshape(-1))


def test_small_or_unit_stride_views_keep_the_generic_copy():
    assert transposed_copy_plan((3, 64), (64, 1), (1, 3)) is None  # R too small for tiles
    assert transposed_copy_plan((64, 64), (64, 1), (64, 1)) is None  # already contiguous
    assert transposed_copy_plan((64, 64), (64, 1), (2, 128)) is None  # no unit stride
    assert transposed_copy_plan((4, 4, 4), (16, 4, 1), (1, 4, 16)) is None
