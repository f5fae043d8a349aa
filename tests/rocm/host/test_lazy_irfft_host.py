"""scipy.fft's ``irfft(rfft(x) * response)`` in lazy mode through the rocm backend's own
paths on the host (host_exec.py: its kernels and the generated fused kernel compiled with
g++; library_model.py's hipFFT on the same memory): the pending ``spectrum * response``
and the transform's normalization run as one fused kernel writing the C2R's input (the
hooks ``irfft_scratch_factor``/``irfft_scratch``), where eager mode launches the
multiply, the scaling copy and the C2R; the results are eager mode's bit for bit, the
product reads right afterwards, and the policy keeps recording the multiply."""

import numpy as np
import pytest

import candlewick as cw
from candlewick.fusion import lazy_policy
from host_exec import build, device_factory
from rocm_backend import ops
from rocm_backend.codegen import fused_source

pytest.importorskip("scipy.linalg.lapack")  # library_model imports it
from library_model import fft_module  # noqa: E402

ROWS, N = 3, 12  # (1/12 is no power of two: scaling before or after the transform differ in bits)


class _Spec:
    def __init__(self, name):
        self.name, self.abi, self.body = name, "cw_fused_args", f"{name}(a);"


def _chain(factor):
    def chain(spectrum, response):
        return (spectrum * response) * factor
    return chain


def _inputs():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((ROWS, N)).astype(np.float32)
    response = (np.exp(-np.arange(N // 2 + 1, dtype=np.float32) / 4)
                * np.exp(1j * np.arange(N // 2 + 1, dtype=np.float32))).astype(np.complex64)
    return x, response


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    """The eager kernels the case runs (complex64 products, copies) and the fused kernels
    of the chain lazy mode records (the product times each norm's factor: traced by
    ``cw.fuse`` on cpu, whose graph is the one lazy mode builds)."""
    x, response = _inputs()
    spectrum = np.fft.rfft(x).astype(np.complex64)
    specs = [s for s in ops.TABLE.values()
             if (s.key[0] == "binary" and s.key[2] == "complex64" and s.key[1] in ops.kernel_key(cw.backend.BinaryOp.MULTIPLY))
             or s.key[0] in ("copy",)]
    entries, names = [], set()
    for factor in (1.0 / N, 1.0 / np.sqrt(N)):
        graph = cw.fuse(_chain(float(factor))).graph_for(cw.asarray(spectrum), cw.asarray(response))
        plan = fused_source.plan(graph)
        assert plan is not None, "the generator covers a complex64 product and scaling"
        entries.append(plan.source[len(fused_source.prelude()):])
        for k in plan.kernels:
            if k.spec.name not in names:
                names.add(k.spec.name)
                specs.append(_Spec(k.spec.name))
    return build(tmp_path_factory.mktemp("lazy_irfft_host"), [], specs,
                 extra_lines=[fused_source.HELPERS, *entries])


@pytest.fixture
def device(lib, monkeypatch, tmp_path):
    from rocm_backend.bindings import hipfft

    rt, dev = device_factory(lib, monkeypatch, tmp_path)()
    monkeypatch.setattr(hipfft, "_api", fft_module())
    monkeypatch.setattr(hipfft, "_resolved", {})
    lazy_policy.reset()
    monkeypatch.setattr(lazy_policy, "CONSUME_BYTES", 0)  # (these arrays are small)
    yield rt, dev
    lazy_policy.reset()


def _names(rt):
    return [name for name, *_ in rt.launches]


@pytest.mark.parametrize("norm", ["backward", "ortho"])
def test_one_fused_kernel_writes_the_transforms_input(device, norm, monkeypatch):
    rt, dev = device
    monkeypatch.setattr(lazy_policy, "RECORD_BYTES", 0)
    x_host, r_host = _inputs()
    x, response = cw.asarray(x_host, device=dev), cw.asarray(r_host, device=dev)
    spectrum = cw.fft.rfft(x)
    del rt.launches[:]
    want = cw.to_numpy(cw.fft.irfft(spectrum * response, norm=norm))
    eager = _names(rt)
    assert len(eager) == 2 and not any(n.startswith("fz") for n in eager)  # the product, the scaling copy
    for _ in range(4):  # past lazy_policy.REPLAYS: the policy keeps recording the product
        del rt.launches[:]
        with cw.lazy():
            got = cw.to_numpy(cw.fft.irfft(spectrum * response, norm=norm))
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
        lazy = _names(rt)
        assert len(lazy) == 1 and lazy[0].startswith("fz"), lazy


def test_the_consumed_product_reads_right_and_operands_stay(device, monkeypatch):
    rt, dev = device
    monkeypatch.setattr(lazy_policy, "RECORD_BYTES", 0)
    x_host, r_host = _inputs()
    x, response = cw.asarray(x_host, device=dev), cw.asarray(r_host, device=dev)
    spectrum = cw.fft.rfft(x)
    before = cw.to_numpy(spectrum).copy()
    want_product = cw.to_numpy(spectrum * response)
    want = cw.to_numpy(cw.fft.irfft(spectrum * response))
    with cw.lazy():
        product = spectrum * response
        y = cw.fft.irfft(product)
        assert product._storage.real is None
    assert np.array_equal(cw.to_numpy(y), want)
    assert np.array_equal(cw.to_numpy(product), want_product)  # computed at the block's end
    assert np.array_equal(cw.to_numpy(spectrum), before)
