"""How often the rocm backend's host reads wait for the device, counted on the CPU with its
real kernels compiled for the host (host_exec.py): a host read is one wait however many
index checks are pending (their flags are copied before the drain that serves the read),
unique asks the device for one count whatever it returns, and the gathers and scatters
that compress and unique make of their own indices take no index check (no flag for the
next read to fetch, no check launch). LinearDiscriminantAnalysis's fit on a GPU is a
string of such reads (bench/pydata_e2e.py): each wait is a round trip the device idles
through. Results are checked against NumPy; an index out of range still raises at the
read that follows it."""

import numpy as np
import pytest

from candlewick.errors import IndexOutOfBoundsError
from candlewick.layout import Layout

WAITS = ("hipStreamSynchronize", "hipEventSynchronize", "hipDeviceSynchronize")


@pytest.fixture
def dev(scan_sort_exec):
    """(the device, ``counted(fn)``: fn's result and the waits, device-to-host copies and
    kernel launches of that one call)."""
    rt, device = scan_sort_exec

    def counted(fn):
        rt.calls.clear()
        del rt.launches[:]
        result = fn()
        return result, {"waits": sum(rt.calls[n] for n in WAITS), "reads": rt.calls["hipMemcpyDtoHAsync"],
                        "launches": len(rt.launches)}

    return device, counted


LABELS = np.random.default_rng(3).integers(0, 3, 300).astype(np.int64)  # LDA's y: three classes
LINE = Layout.contiguous(LABELS.shape)


@pytest.mark.parametrize("asked", [(False, False, False), (False, True, False), (False, False, True),
                                   (True, True, True)])
def test_unique_reads_one_count_and_leaves_no_check_pending(dev, asked):
    """unique_values/_inverse/_counts/_all: one read and one wait (the runs' count, which
    every result shares), and the next host read one copy and one wait."""
    device, counted = dev
    y = device.storage_from_host(LABELS)
    (values, count, first, inverse, sizes), calls = counted(lambda: y.unique(LINE, *asked))
    assert (calls["reads"], calls["waits"]) == (1, 1)
    want = np.unique(LABELS, return_index=True, return_inverse=True, return_counts=True)
    assert count == want[0].size
    for storage, expected in zip((first, inverse, sizes), want[1:]):
        if storage is not None:
            got, calls = counted(lambda: storage.to_host(Layout.contiguous(expected.shape)))
            np.testing.assert_array_equal(got, expected)
            assert (calls["reads"], calls["waits"]) == (1, 1)
    got, calls = counted(lambda: values.to_host(Layout.contiguous((count,))))
    np.testing.assert_array_equal(got, want[0])
    assert (calls["reads"], calls["waits"]) == (1, 1)


@pytest.mark.parametrize("rows", [(), (4,)])
def test_compress_reads_its_count_once_and_checks_nothing(dev, rows):
    """x[mask] of a vector and of rows (the kept positions searched in the mask's scan,
    then a gather of them, unchecked): one read, and the next read one wait."""
    device, counted = dev
    x = np.arange(LABELS.size * int(np.prod(rows)), dtype=np.float32).reshape(LABELS.shape + rows)
    mask = LABELS == 1
    s, m = device.storage_from_host(x), device.storage_from_host(mask)
    (out, count), calls = counted(lambda: s.compress(Layout.contiguous(x.shape), m, LINE))
    assert (calls["reads"], calls["waits"]) == (1, 1)
    assert count == mask.sum()
    got, calls = counted(lambda: out.to_host(Layout.contiguous((count,) + rows)))
    np.testing.assert_array_equal(got, x[mask])
    assert (calls["reads"], calls["waits"]) == (1, 1)


def test_a_read_after_checked_takes_waits_once_and_raises_at_that_read(dev):
    """Index checks pending (a user's take, twice): the read copies their flags and its
    values, then waits once; an index out of range raises IndexOutOfBoundsError naming the
    operation at that read, as before (and the one after it reads normally)."""
    device, counted = dev
    base = np.arange(40, dtype=np.float32).reshape(10, 4)
    s = device.storage_from_host(base)
    good = device.storage_from_host(np.array([3, -1], np.int64))
    outs = [s.index_select(Layout.contiguous(base.shape), good, Layout.contiguous((2,)), 0) for _ in range(2)]
    got, calls = counted(lambda: outs[1].to_host(Layout.contiguous((2, 4))))
    np.testing.assert_array_equal(got, base[[3, -1]])
    assert calls["waits"] == 1 and calls["reads"] == 2  # the flags' copy and the values'
    bad = device.storage_from_host(np.array([1, 10], np.int64))
    out = s.index_select(Layout.contiguous(base.shape), bad, Layout.contiguous((2,)), 0)
    with pytest.raises(IndexOutOfBoundsError, match="index_select"):
        out.to_host(Layout.contiguous((2, 4)))
    got, calls = counted(lambda: out.to_host(Layout.contiguous((2, 4))))
    np.testing.assert_array_equal(got, np.stack([base[1], np.zeros(4, np.float32)]))
    assert (calls["reads"], calls["waits"]) == (1, 1)


def test_a_scatter_out_of_range_still_writes_nothing_and_raises_at_the_read(dev):
    """The user's scatter keeps its check pass: nothing written, the error at the read."""
    device, counted = dev
    dst = device.storage_from_host(np.zeros(6, np.float32))
    src = device.storage_from_host(np.ones(2, np.float32))
    line = Layout.contiguous((6,))
    _, calls = counted(lambda: dst.scatter(line, device.storage_from_host(np.array([2, 6], np.int64)),
                                           Layout.contiguous((2,)), src, Layout.contiguous((2,)), 0))
    assert calls["launches"] == 2  # the check, then the writes (skipped)
    with pytest.raises(IndexOutOfBoundsError, match="scatter"):
        dst.to_host(line)
    np.testing.assert_array_equal(dst.to_host(line), np.zeros(6, np.float32))


def test_small_reads_copy_through_a_pinned_slot(dev, monkeypatch):
    """A host read up to STAGED_MAX bytes is copied into one of the device's pinned slots and
    from there into the array (a copy into pageable memory waits inside the copy call);
    a larger one straight into the array. Values equal either way, one wait each."""
    from rocm_backend.runtime import host_reads

    device, counted = dev
    targets = []
    real = host_reads.hip.memcpy_dtoh_async
    monkeypatch.setattr(host_reads.hip, "memcpy_dtoh_async",
                        lambda dst, *rest: (targets.append(dst), real(dst, *rest))[1])
    for n in (3, host_reads.STAGED_MAX // 4, host_reads.STAGED_MAX // 4 + 1):
        x = np.arange(n, dtype=np.float32)
        s = device.storage_from_host(x)
        targets.clear()
        out = np.empty(n, np.float32)
        _, calls = counted(lambda: s.buffer.copy_to_host(out))
        np.testing.assert_array_equal(out, x)
        assert calls["waits"] == 1 and len(targets) == 1
        assert (targets[0] == out.ctypes.data) == (n * 4 > host_reads.STAGED_MAX)
