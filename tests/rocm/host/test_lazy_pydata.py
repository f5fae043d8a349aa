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

#: the cases the stand-ins run (PCA, Ridge and LDA need hipSOLVER's SVD or real values; the
#: SciPy cases need SCIPY_ARRAY_API set before anything in the test process imports SciPy:
#: pydata_fake.py runs them)
CASES = ("StandardScaler", "pairwise_distances", "KMeans-like loop")


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
    assert sum(lazy.values()) <= sum(eager.values())
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
