"""In-place updates on a rocm device (docs/inplace.md; rocm_backend/families/inplace.py)
at sizes past the conformance suite's: NumPy's results for every overlap kind, and no
device memory taken beyond the inputs (the allocator's high-water mark,
``candlewick.memory_stats``) where no operand overlaps the destination."""

import threading

import numpy as np
import pytest

import candlewick as cw
from rocm_backend.runtime.allocator import round_size

N = 1 << 20


def _data(shape, dtype=np.float32, seed=0):
    return np.random.default_rng(seed).uniform(0.5, 2.0, shape).astype(dtype)


def _extra_bytes(device, update):
    """Device memory above what was in use that ``update()`` takes at its peak (the
    allocator's high-water mark: PyTorch's ``max_memory_allocated``)."""
    cw.synchronize(device)
    before = cw.memory_stats(device)["in_use_bytes"]
    cw.reset_peak_memory_stats(device)
    update()
    cw.synchronize(device)
    return cw.memory_stats(device)["peak_in_use_bytes"] - before


def test_updates_take_no_device_memory(rocm):
    h, g = _data(N), _data(N, seed=1)
    mask_h = np.arange(N) % 3 == 0
    x, y, mask = (cw.asarray(a, device=rocm) for a in (h, g, mask_h))

    def add():
        x.__iadd__(y)

    def scale():
        x.__imul__(2.0)

    def masked():
        x[mask] = 0.5

    def stepped():
        view = x[::2]
        view += 1.0

    def numpy_out():
        np.add(x, y, out=x)

    for update in (add, scale, masked, stepped, numpy_out):  # (masked: where_into takes the scalar itself)
        assert _extra_bytes(rocm, update) == 0, update.__name__
    # NumPy's result of the same updates in the same order
    h += g
    h *= 2.0
    h[mask_h] = 0.5
    h[::2] += 1.0
    np.add(h, g, out=h)
    np.testing.assert_array_equal(cw.to_numpy(x), h)


def test_an_overlapping_operand_is_copied_once(rocm):
    h = _data(N)
    x = cw.asarray(h, device=rocm)

    def shifted():
        view = x[1:]
        view += x[:-1]

    assert _extra_bytes(rocm, shifted) == round_size((N - 1) * 4)
    h[1:] += h[:-1].copy()
    np.testing.assert_array_equal(cw.to_numpy(x), h)


UPDATES = {  # spelt the same for candlewick and NumPy arrays; NumPy's own result is the reference
    "x += x.T": lambda a: a.__iadd__(a.T),
    "x -= x[::-1]": lambda a: a.__isub__(a[::-1]),
    "x[1:] *= x[:-1]": lambda a: a[1:].__imul__(a[:-1]),
    "x[:, ::2] += x[:, 1::2]": lambda a: a[:, ::2].__iadd__(a[:, 1::2]),
    "x += x[0]": lambda a: a.__iadd__(a[0]),
}


@pytest.mark.parametrize("name", UPDATES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.complex64])
def test_overlaps_give_numpy_results(rocm, dtype, name):
    h = (np.arange(512 * 512) % 7 + 1).reshape(512, 512).astype(dtype)
    x = cw.asarray(h, device=rocm)
    UPDATES[name](x)
    UPDATES[name](h)
    np.testing.assert_array_equal(cw.to_numpy(x), h)


def test_threads_lose_no_update(rocm):
    x = cw.zeros(1 << 16, dtype=cw.float32, device=rocm)
    barrier = threading.Barrier(4)

    def work():
        barrier.wait()
        for _ in range(100):
            np.add(x, 1.0, out=x)

    workers = [threading.Thread(target=work) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    np.testing.assert_array_equal(cw.to_numpy(x), np.full(1 << 16, 400.0, np.float32))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8, np.float64])
def test_one_strided_axis_past_the_grid(rocm, dtype):
    """``x[::2] += 1`` and ``x[1::2] += y[::-2]`` at 2^24 elements, past the capped grid's
    threads: the binary kernels' one-strided-axis path gives each thread several elements
    a step on narrow types (CW_STRIDED_ITEMS, hip/binary.hip), one on wide ones; and
    ``x[mask] = v`` with the scalar read from the kernel's slot, on strided views."""
    n = (1 << 24) + 1001
    h, g = (np.arange(n) % 7).astype(dtype), (np.arange(n) % 5).astype(dtype)
    mask_h = np.arange(n) % 3 == 1
    x, y, mask = cw.asarray(h, device=rocm), cw.asarray(g, device=rocm), cw.asarray(mask_h, device=rocm)
    x[::2] += 1
    x[1::2] += y[::-2][1:]
    x[::-3][mask[::3]] = 2
    h[::2] += 1
    h[1::2] += g[::-2][1:]
    h[::-3][mask_h[::3]] = 2
    np.testing.assert_array_equal(cw.to_numpy(x), h)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64, np.int8, np.bool_])
def test_mask_fill_over_whole_arrays(rocm, dtype):
    """``x[mask] = v`` over a whole array of 2^24 + 1001 elements and over an offset view
    (unaligned: the kernel's element path), and ``where(mask, x, y)`` of arrays: the where
    kernel's contiguous path, two vectors a thread a step for narrow types (cw_where,
    hip/elementwise.hip), then the last vectors and the tail's elements."""
    n = (1 << 24) + 1001
    h, g = (np.arange(n) % 7).astype(dtype), (np.arange(n) % 5).astype(dtype)
    mask_h = np.random.default_rng(2).random(n) < 0.5
    x, y, mask = cw.asarray(h, device=rocm), cw.asarray(g, device=rocm), cw.asarray(mask_h, device=rocm)
    v = True if dtype is np.bool_ else 3 if dtype is np.int8 else 0.5  # (a float: the short path, mask_fill)
    x[mask] = v
    view = x[1:]
    view[mask[:-1]] = not v if dtype is np.bool_ else 2
    w = cw.where(mask, x, y)
    h[mask_h] = v
    h[1:][mask_h[:-1]] = not v if dtype is np.bool_ else 2
    np.testing.assert_array_equal(cw.to_numpy(x), h)
    np.testing.assert_array_equal(cw.to_numpy(w), np.where(mask_h, h, g))
