"""Custom kernels on the rocm device: every case of tests/rocm/host/custom_kernel_cases.py (the
kernels tools/amd_compile_gate.py compiles with AMD's hipRTC) compiled by the device's
hipRTC and run, against the cpu backend's C subset on the same arguments (bit for bit
where every operation is exact, within the math library's ulps otherwise); raw
parameters and RawKernels against NumPy; a compile error carrying the compiler's log and
the user's line."""

import numpy as np
import pytest

import candlewick as cw
import custom_kernel_cases as cases  # tests/rocm/host is on pytest's pythonpath
from candlewick.errors import KernelCompileError


def _close(got, want, ulps, what):
    got, want = cw.to_numpy(got), cw.to_numpy(want)
    assert got.dtype == want.dtype and got.shape == want.shape, what
    if ulps == 0:
        same = got.reshape(-1).view(np.uint8).tobytes() == want.reshape(-1).view(np.uint8).tobytes()
        assert same or np.array_equal(got, want, equal_nan=True), f"{what}: {got} != {want}"
        return
    eps = float(np.finfo(want.real.dtype if want.dtype.kind in "fc" else np.float32).eps)
    scale = max(1.0, float(np.nanmax(np.abs(want))) if want.size else 1.0)
    np.testing.assert_allclose(got, want, rtol=ulps * eps, atol=ulps * eps * scale, err_msg=what)


@pytest.mark.parametrize("case", cases.CASES, ids=lambda c: c.name)
def test_kernels_match_the_cpu_subset(rocm, cpu, case):
    got = case.kernel(*[cases.on(rocm, a) for a in case.args], **{k: cases.on(rocm, v) for k, v in case.kwargs.items()})
    want = case.kernel(*[cases.on(cpu, a) for a in case.args], **{k: cases.on(cpu, v) for k, v in case.kwargs.items()})
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.device is rocm
        _close(g, w, case.ulps, f"{case.name} output {k}")


@pytest.mark.parametrize("case", cases.ROCM_ONLY, ids=lambda c: c.name)
def test_raw_parameters(rocm, case):
    got = case.kernel(*[cases.on(rocm, a) for a in case.args], **case.kwargs)
    np.testing.assert_array_equal(cw.to_numpy(got), case.expected())


def test_raw_kernels(rocm):
    rng = np.random.default_rng(5)
    x, y = rng.standard_normal(1000).astype(np.float32), rng.standard_normal(1000).astype(np.float32)
    z = cw.empty((1000,), dtype=cw.float32, device=rocm)
    cases.RAW_KERNELS["cw_test_add"](4, 256, (cw.asarray(x, device=rocm), cw.asarray(y, device=rocm), z, 1000))
    np.testing.assert_array_equal(cw.to_numpy(z), x + y)

    out = cw.zeros((7,), dtype=cw.float64, device=rocm)
    cases.RAW_KERNELS["cw_test_pack"](1, 64, (out, -5, 2.5, -300, 2**63 + 11, True, 0.75, -(2**40)))
    assert cw.to_numpy(out).tolist() == [-5, 2.5, -300, float(2**63 + 11), 1, 0.75, float(-(2**40))]

    data = rng.integers(-100, 100, 6 * 256).astype(np.float32)
    sums = cw.empty((6,), dtype=cw.float32, device=rocm)
    cases.RAW_KERNELS["cw_test_block_sum"]((2, 3), 256, (cw.asarray(data, device=rocm), sums))
    np.testing.assert_array_equal(cw.to_numpy(sums), data.reshape(6, 256).sum(axis=1))

    flipped = cw.empty((1000,), dtype=cw.float32, device=rocm)
    cases.RAW_KERNELS["cw_test_dynamic_shared"](4, 256, (cw.asarray(x, device=rocm), flipped, 1000),
                                                shared_mem=256 * 4)
    want = np.concatenate([np.pad(x, (0, 24))[k:k + 256][::-1] for k in range(0, 1024, 256)])[:1000]
    np.testing.assert_array_equal(cw.to_numpy(flipped), want)


@pytest.mark.not_compiled
def test_a_compile_error_carries_the_log_and_the_users_line(rocm):
    broken = cw.ElementwiseKernel("T x", "T y", "T t = x;\ny = t * undefined_name;", "gpu_broken")
    with pytest.raises(KernelCompileError) as info:
        broken(cw.zeros((3,), dtype=cw.float32, device=rocm))
    err = info.value
    assert (err.part, err.line, err.text) == ("body", 2, "y = t * undefined_name;")
    assert "undefined_name" in err.log
    raw = cw.RawKernel('extern "C" __global__ void gpu_raw_broken(float* x) {\n    x[0] = oops;\n}',
                       "gpu_raw_broken")
    with pytest.raises(KernelCompileError) as info:
        raw.compile(rocm)
    assert (info.value.part, info.value.line) == ("source", 2)
