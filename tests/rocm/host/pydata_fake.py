"""bench/pydata_e2e.py's cases on the fake HIP runtime, eagerly and in ``cw.lazy()``:
what one call queues (kernel launches by name, host reads, synchronizations,
device-to-device copies) and its host time, with no device.

    python tests/rocm/host/pydata_fake.py [--samples 20000] [--features 16] [--cases A,B]

The rocm backend runs on fake_hip's runtime: reads from the device give zeros
(linalg_fft_host_path.zero_reads: the same zeros eagerly and lazily, so scikit-learn's
checks take the same branches), hipSOLVER, hipFFT and hipBLAS's GEMM and trsm are no-ops,
launches are counted and run nothing. A case the stand-ins cannot run (LDA: the zeros make
a negative shape) is reported and skipped. The host time is this process's CPU time
(``timing.interleaved`` with ``time.process_time``), the fake's Python launch included
on both sides: lazy mode's own host work shows as the difference.
test_lazy_pydata.py pins the counts; the GPU figures are bench/pydata_e2e.py's.
"""

import collections
import pathlib
import sys
import types

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]

_DATA_TYPES = ("HIP_R_16F", "HIP_R_16BF", "HIP_R_32F", "HIP_R_64F", "HIP_C_32F", "HIP_C_64F")
_BLAS_ENUMS = {"hipblasComputeType_t": ("HIPBLAS_COMPUTE_32F", "HIPBLAS_COMPUTE_64F"),
               "hipblasOperation_t": ("HIPBLAS_OP_N", "HIPBLAS_OP_T", "HIPBLAS_OP_C"),
               "hipblasGemmAlgo_t": ("HIPBLAS_GEMM_DEFAULT",),
               "hipblasSideMode_t": ("HIPBLAS_SIDE_LEFT", "HIPBLAS_SIDE_RIGHT"),
               "hipblasFillMode_t": ("HIPBLAS_FILL_MODE_LOWER", "HIPBLAS_FILL_MODE_UPPER"),
               "hipblasDiagType_t": ("HIPBLAS_DIAG_NON_UNIT", "HIPBLAS_DIAG_UNIT")}


def _plain(obj, name, value, raising=False):
    setattr(obj, name, value)


def install(rt, ok, setattr_=_plain):
    """Zero reads, no-op hipSOLVER/hipFFT (linalg_fft_host_path's) and a no-op counted
    hipBLAS GEMM and trsm with their enums on the fake runtime ``rt`` (``setattr_``: a monkeypatch's,
    to put everything back after a test)."""
    import linalg_fft_host_path  # tests/rocm/host is on the path (pytest's pythonpath, or main())

    linalg_fft_host_path.install_libraries(rt, ok, setattr_)
    setattr_(rt.hip, "hipDataType", types.SimpleNamespace(**{n: n for n in _DATA_TYPES}), raising=False)
    for enum, names in _BLAS_ENUMS.items():
        setattr_(rt.hipblas, enum, types.SimpleNamespace(**{n: n for n in names}), raising=False)
    for name in ("hipblasGemmStridedBatchedEx", "hipblasStrsm", "hipblasDtrsm"):  # (the tall SVD's R^-1: trsm)
        setattr_(rt.hipblas, name, rt._counted(name, lambda *args: (ok,)), raising=False)


def bench_module():
    """bench/pydata_e2e.py, imported by path (bench/ is no package)."""
    import importlib.util

    if "pydata_e2e" not in sys.modules:
        sys.path.insert(0, str(ROOT / "bench"))  # (it imports bench/harness.py and timing.py by name)
        spec = importlib.util.spec_from_file_location("pydata_e2e", ROOT / "bench" / "pydata_e2e.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["pydata_e2e"] = module
        spec.loader.exec_module(module)
    return sys.modules["pydata_e2e"]


#: the runtime's calls that read the device back or wait for it, and its device-to-device copies
COUNTED_CALLS = ("hipMemcpyDtoHAsync", "hipStreamSynchronize", "hipEventSynchronize", "hipMemcpyDtoDAsync")


def one_call(rt, device, case, host, lazy):
    """(kernel launches by name, {host read or copy call: count}) of one call of ``case`` in the
    steady state (two calls first: kernels compiled, graphs cached)."""
    import candlewick as cw

    pe = bench_module()
    fn = pe.CASES[case]
    data = {k: cw.asarray(v, device=device) for k, v in host.items()}
    for _ in range(2):
        pe.lazy_pairs.call(fn, data, lazy)
    rt.calls.clear()
    del rt.launches[:]
    pe.lazy_pairs.call(fn, data, lazy)
    names = collections.Counter(n.decode() if isinstance(n, bytes) else n for n, *_ in rt.launches)
    return names, {k: rt.calls[k] for k in COUNTED_CALLS if rt.calls[k]}


def main():
    import argparse
    import os
    import tempfile
    import time

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=20000)
    parser.add_argument("--features", type=int, default=16)
    parser.add_argument("--cases", default=None, help="comma-separated case names (default: all)")
    args = parser.parse_args()
    sys.path[:0] = [str(ROOT), str(HERE), str(ROOT / "bench")]  # this checkout, fake_hip, timing
    os.environ.setdefault("CANDLEWICK_KERNEL_CACHE", tempfile.mkdtemp(prefix="cw_pydata_fake_"))
    import fake_hip

    rt = fake_hip.install()
    install(rt, fake_hip.OK)
    import candlewick as cw
    import timing
    from rocm_backend import RocmBackend

    device = RocmBackend().device(0)
    pe = bench_module()
    host = pe.host_data(args.samples, args.features)
    cases = args.cases.split(",") if args.cases else list(pe.CASES)
    print(f"fake HIP runtime, {args.samples} x {args.features}: per call, eager / lazy")
    print("| case | launches | host reads and copies | host ms (process time) | kernels only in one |\n|---|---|---|---|---|")
    for case in cases:
        try:
            eager = one_call(rt, device, case, host, False)
            lazy = one_call(rt, device, case, host, True)
        except Exception as exc:  # noqa: BLE001 - a case the stand-ins cannot run
            print(f"| {case} | not run on the fake: {type(exc).__name__}: {str(exc)[:80]} | | | |")
            continue
        data = {k: cw.asarray(v, device=device) for k, v in host.items()}
        fn = pe.CASES[case]
        times = timing.interleaved({"eager": lambda: pe.lazy_pairs.call(fn, data, False),
                                    "lazy": lambda: pe.lazy_pairs.call(fn, data, True)}, rounds=5, timer=time.process_time)
        differ = sorted(set(eager[0]) ^ set(lazy[0]))
        print(f"| {case} | {sum(eager[0].values())} / {sum(lazy[0].values())} | {sum(eager[1].values())} / "
              f"{sum(lazy[1].values())} | {times['eager'] * 1e3:.3f} / {times['lazy'] * 1e3:.3f} | "
              f"{', '.join(differ[:6])}{' ...' if len(differ) > 6 else ''} |")


if __name__ == "__main__":
    main()
