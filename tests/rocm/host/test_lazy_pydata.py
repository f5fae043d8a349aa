"""bench/pydata_e2e.py's cases in ``cw.lazy()`` against eager mode on the fake HIP runtime
(pydata_fake.py, which also times them): lazy mode may fuse launches away but must not
add any (no eager kernel launched more often than eager mode launches it: no producer
re-run per consumer, no reduction split into more launches) nor any read of the device
or wait for it. The shapes are long enough (20 000 rows) for the column reductions to get
no fused plan, so their graphs are replayed, as on the GPU's 200 000 rows."""

import importlib.util
import pathlib

import pytest

import pydata_fake  # tests/rocm/host is on pytest's pythonpath

# by path: this folder is no package, and the name "rocm" belongs to hip-python
_spec = importlib.util.spec_from_file_location("rocm_fake_hip", pathlib.Path(__file__).with_name("fake_hip.py"))
fake_hip = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fake_hip)

pytest.importorskip("sklearn")

#: the cases the stand-ins run (LDA needs real values: the zeros make a negative shape; the
#: SciPy cases need SCIPY_ARRAY_API set before anything in the test process imports SciPy:
#: pydata_fake.py runs them)
CASES = ("StandardScaler", "pairwise_distances", "KMeans-like loop", "Ridge", "PCA full", "PCA randomized")


@pytest.fixture(scope="module")
def host():
    return pydata_fake.bench_module().host_data(20_000, 16)


@pytest.fixture
def fake(monkeypatch, tmp_path):
    from rocm_backend import RocmBackend

    monkeypatch.setenv("CANDLEWICK_KERNEL_CACHE", str(tmp_path / "kc"))
    rt = fake_hip.install(monkeypatch)
    pydata_fake.install(rt, fake_hip.OK, monkeypatch.setattr)
    return rt, RocmBackend().device(0)


@pytest.mark.parametrize("case", CASES)
def test_lazy_mode_adds_no_launch_and_no_host_read(fake, host, case):
    rt, device = fake
    eager, eager_reads = pydata_fake.one_call(rt, device, case, host, lazy=False)
    lazy, lazy_reads = pydata_fake.one_call(rt, device, case, host, lazy=True)
    more = {name: (eager[name], n) for name, n in lazy.items() if not name.startswith("fz") and n > eager[name]}
    assert more == {}, f"eager kernels launched more often in lazy mode (eager, lazy): {more}"
    # the device's work items: a fused kernel may copy where eager mode copies through the
    # runtime (Ridge's ``asarray(X, copy=True)``, fused with the check of the next call)
    copies = "hipMemcpyDtoDAsync"
    assert sum(lazy.values()) + lazy_reads.pop(copies, 0) <= sum(eager.values()) + eager_reads.pop(copies, 0)
    assert lazy_reads == eager_reads


def test_one_call_consumed_at_once_runs_the_eager_kernel(fake):
    """``x * y`` read at once by ``matmul``: a graph of one primitive call fuses nothing
    (irfft is the exception: test_lazy_irfft_host.py), so it runs the eager kernel, with no
    kernel of its own to generate and compile; two calls still fuse into one kernel."""
    import numpy as np

    import candlewick as cw

    rt, device = fake
    x = cw.asarray(np.ones((4, 8), np.float32), device=device)
    y = cw.asarray(np.ones((4, 8), np.float32), device=device)
    with cw.lazy():
        one = x * y
        del rt.launches[:]
        cw.matmul(one, x.T)  # not recorded: the product runs first
    assert [name for name, *_ in rt.launches][:1] == [b"binary_flat_multiply_float32"]
    with cw.lazy():
        two = x * y + 1.0
        del rt.launches[:]
        cw.matmul(two, x.T)
    assert rt.launches[0][0].startswith(b"fz") and not any(n.startswith(b"binary") for n, *_ in rt.launches)


def test_standard_scalers_transform_runs_as_one_kernel(fake, host, monkeypatch):
    """StandardScaler's transform, ``X = asarray(X, copy=True); X -= mean; X /= scale``: in
    lazy mode the copy and both updates are one graph (candlewick/fusion/lazy_write.py),
    a fused kernel in place of the copy and the two column updates (X read once and
    written once, not three times each). RECORD_BYTES lowered so that this X (1.3 MB)
    records as the GPU's 205 MB does."""
    from candlewick.fusion import lazy_policy

    monkeypatch.setattr(lazy_policy, "RECORD_BYTES", 1 << 20)
    rt, device = fake
    eager, _ = pydata_fake.one_call(rt, device, "StandardScaler", host, lazy=False)
    copies = rt.calls["hipMemcpyDtoDAsync"]
    lazy, _ = pydata_fake.one_call(rt, device, "StandardScaler", host, lazy=True)
    updates = ("binary_column_subtract_float32", "binary_column_divide_float32")
    assert [eager[name] for name in updates] == [1, 1] and [lazy[name] for name in updates] == [0, 0]
    assert sum(lazy.values()) < sum(eager.values()) and any(name.startswith("fz") for name in lazy)
    assert rt.calls["hipMemcpyDtoDAsync"] < copies


@pytest.mark.parametrize("before", [("Ridge",), ("PCA full", "PCA randomized", "Ridge")])
def test_standard_scalers_transform_fuses_again_after_ridges_centering(fake, host, monkeypatch, before):
    """Ridge's centering runs the transform's copy and subtraction alone, replayed, until
    they run at once (the counts are per call: the same shapes and dtypes), and they run
    ahead there (lazy_ahead); in the same process StandardScaler's transform then ran as
    eager mode's calls. From the copy's ``PROBE``-th run at once (a probe: recorded, not
    run ahead, with the update on X and the division) the transform is one fused kernel
    again, in every later call. ``before``: the cases run first (bench/pydata_e2e's
    order)."""
    from candlewick.fusion import lazy_policy

    monkeypatch.setattr(lazy_policy, "RECORD_BYTES", 1 << 20)
    monkeypatch.setattr(lazy_policy, "PROBE", 4)
    monkeypatch.setattr(lazy_policy, "RUN_AHEAD", True)
    import candlewick as cw

    rt, device = fake
    lazy_policy.reset()
    pe = pydata_fake.bench_module()
    data = {k: cw.asarray(v, device=device) for k, v in host.items()}
    for case in before:
        for _ in range(lazy_policy.REPLAYS + 2):
            pe.lazy_pairs.call(pe.CASES[case], data, True)
    fused = []
    for _ in range(2 * lazy_policy.PROBE):
        del rt.launches[:]
        pe.lazy_pairs.call(pe.CASES["StandardScaler"], data, True)
        names = [name for name, *_ in rt.launches]
        fused.append(b"binary_column_subtract_float32" not in names and any(n.startswith(b"fz") for n in names))
    assert not fused[0] and True in fused and all(fused[fused.index(True):]), fused
    lazy_policy.reset()


@pytest.mark.parametrize("copy_first", [False, True], ids=["PCA", "Ridge"])
def test_a_column_mean_and_the_centered_copy_split(fake, monkeypatch, copy_first):
    """PCA's centering in lazy mode, ``mean = sum(X, axis=0) / n; Xc = asarray(X,
    copy=True); Xc -= mean``, and Ridge's, the copy first and its sum: the generator has
    no kernel for a column sum over 20 000 rows, so the graph is split
    (candlewick/fusion/lazy_split.py): the eager column sum (of X itself in Ridge's order:
    the copy's bytes), then the division and the update as fused kernels; the update of
    the pending copy reads X (lazy_storage._two), so no copy of X is made in any run. Once
    the sum and the division run at once (lazy_policy.REPLAYS, RECORD_BYTES) the update
    is a graph of one call, replayed, then run at once too: eager mode's kernels but the
    copy."""
    import numpy as np

    import candlewick as cw
    from candlewick.fusion import lazy_policy

    monkeypatch.setattr(lazy_policy, "RECORD_BYTES", 1 << 20)
    rt, device = fake
    X = cw.asarray(np.ones((20_000, 16), np.float32), device=device)

    def centered():
        if copy_first:
            Xc = cw.asarray(X, copy=True)
            mean = cw.sum(Xc, axis=0) / X.shape[0]
        else:
            mean = cw.sum(X, axis=0) / X.shape[0]
            Xc = cw.asarray(X, copy=True)
        Xc -= mean
        return mean, Xc

    runs = []
    for lazy in (False,) + (True,) * (lazy_policy.REPLAYS + 2):
        rt.calls.clear()
        del rt.launches[:]
        with cw.lazy(lazy):
            done = centered()
        names = [n.decode() for n, *_ in rt.launches]
        del done
        print("NAMES", copy_first, names)
        if lazy:
            # the mean's 16 values, then Xc, with no copy of X
            assert names.count("reduce_cols_vec_sum_float32") == 1 and len(names) == 3, names
            assert rt.calls["hipMemcpyDtoDAsync"] == 0
            runs.append(names)
    assert all(names[-1].startswith("fz") for names in runs[:lazy_policy.REPLAYS])  # split: fused
    assert runs[-1] == ["reduce_cols_vec_sum_float32", "binary_flat_divide_float32", "binary_column_subtract_float32"]
