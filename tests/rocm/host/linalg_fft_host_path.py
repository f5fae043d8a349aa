"""Host time and device work per call of the rocm backend's fft and Cholesky paths, on the
CPU: fake_hip's runtime (calls that do nothing) and hipSOLVER/hipFFT stand-ins that do
nothing either, each call counted into the runtime's ``calls``.

    python tests/rocm/host/linalg_fft_host_path.py [--reps 2000] [--profile CASE]

prints, per case, the host µs per call (the fastest of 7 batches of ``--reps`` calls,
after warm-up: host time only, no device runs) and what one call queues: kernel launches
(``FakeRuntime.launches``) and library/runtime calls (``FakeRuntime.calls``).
``--profile CASE`` adds cProfile's table of that case ($SORT: its order, default tottime). test_linalg_fft_host_path.py pins
the counts. The cases are bench/linalg_fft.py's that missed their target on the H100:
fft along the last axis of (1024, 4096) complex64, rfftn over (4096, 4096) float32 and
cholesky of (1024, 64, 64) float32.
"""

import ctypes
import os
import time
import types

FFT_KINDS = ("C2C", "Z2Z", "R2C", "D2Z", "C2R", "Z2D")
# the runtime's calls that queue or wait for device work (the rest: bookkeeping)
DEVICE_CALLS = ("hipMemcpyDtoDAsync", "hipMemcpyHtoDAsync", "hipMemcpyDtoHAsync", "hipMemsetAsync",
                "hipStreamSynchronize", "hipEventRecord", "hipEventSynchronize")


def _counted(rt, name, result):
    def call(*args):
        rt.calls[name] += 1
        return result

    call.__name__ = name
    return call


#: the members of hipSOLVER's enums its callers name (each stands for itself)
_SOLVER_ENUM_MEMBERS = ("HIPSOLVER_EIG_MODE_NOVECTOR", "HIPSOLVER_EIG_MODE_VECTOR", "HIPSOLVER_FILL_MODE_UPPER",
                        "HIPSOLVER_FILL_MODE_LOWER", "HIPSOLVER_OP_N", "HIPSOLVER_OP_T", "HIPSOLVER_OP_C",
                        "HIPBLAS_FILL_MODE_UPPER", "HIPBLAS_FILL_MODE_LOWER", "HIPBLAS_OP_N", "HIPBLAS_OP_T",
                        "HIPBLAS_OP_C", "HIPSOLVER_EIG_TYPE_1")


def noop_solver(rt):
    """A hipSOLVER whose potrf routines (and handle calls) succeed and do nothing."""
    mod = types.ModuleType("hip.hipsolver")
    mod.hipsolverFillMode_t = types.SimpleNamespace(HIPBLAS_FILL_MODE_UPPER=121, HIPBLAS_FILL_MODE_LOWER=122)
    mod.hipsolverOperation_t = types.SimpleNamespace(HIPBLAS_OP_N=111, HIPBLAS_OP_T=112, HIPBLAS_OP_C=113)
    mod.hipsolverCreate = _counted(rt, "hipsolverCreate", (0, "solver-handle"))
    mod.hipsolverSetStream = _counted(rt, "hipsolverSetStream", (0,))
    for letter in "SDCZ":
        for routine in ("potrf", "potrfBatched"):
            name = f"hipsolver{letter}{routine}"
            setattr(mod, name, _counted(rt, name, (0,)))
            setattr(mod, name + "_bufferSize", _counted(rt, name + "_bufferSize", (0, 16)))

    def other(name):
        """Every other routine (the SVD's, QR's, eigh's, their infos and parameters) succeeds
        and does nothing; an enum type gives each member its own name."""
        if name.startswith("__"):
            raise AttributeError(name)
        if name.endswith("_t"):
            return types.SimpleNamespace(**{m: m for m in _SOLVER_ENUM_MEMBERS})
        if name.endswith("_bufferSize"):
            result = (0, 16)
        elif name.startswith("hipsolverCreate") or (name.startswith("hipsolverDn") and "Info" in name):
            result = (0, name + "-handle")
        else:
            result = (0,)
        fn = _counted(rt, name, result)
        setattr(mod, name, fn)
        return fn

    mod.__getattr__ = other
    return mod


def noop_fft(rt):
    """A hipFFT whose plans and transforms succeed and do nothing."""
    mod = types.ModuleType("hip.hipfft")
    mod.HIPFFT_FORWARD, mod.HIPFFT_BACKWARD = -1, 1
    mod.hipfftType_t = types.SimpleNamespace(**{f"HIPFFT_{k}": k for k in FFT_KINDS})
    mod.hipfftPlanMany = _counted(rt, "hipfftPlanMany", (0, "plan"))
    mod.hipfftSetStream = _counted(rt, "hipfftSetStream", (0,))
    mod.hipfftDestroy = _counted(rt, "hipfftDestroy", (0,))
    for kind in FFT_KINDS:
        setattr(mod, "hipfftExec" + kind, _counted(rt, "hipfftExec" + kind, (0,)))
    return mod


def zero_reads(rt, ok):
    """Device-to-host reads give zeros (hipSOLVER's ``info``: every matrix factored)."""
    def dtoh(dst, src, nbytes, stream):
        rt.calls["hipMemcpyDtoHAsync"] += 1
        ctypes.memset(int(dst), 0, nbytes)
        return (ok,)

    rt.hip.hipMemcpyDtoHAsync = dtoh


def install_libraries(rt, ok, setattr_=setattr):
    """The stand-ins in place of hip-python's hipsolver/hipfft (``setattr_``: a
    monkeypatch's, to put everything back after a test)."""
    from rocm_backend.bindings import hipfft, hipsolver

    zero_reads(rt, ok)
    setattr_(hipsolver, "_api", noop_solver(rt))
    setattr_(hipfft, "_api", noop_fft(rt))


def cases(dev):
    """{name: a call of the namespace} on arrays of the fake device ``dev``."""
    import candlewick as cw
    from candlewick import dtypes as dt
    from candlewick.array import wrap

    def array(shape, dtype):
        return wrap(dev.empty(shape, dtype), shape, dtype, dev)

    x, r, a = array((1024, 4096), dt.complex64), array((4096, 4096), dt.float32), array((1024, 64, 64), dt.float32)
    return {"fft (1024, 4096) complex64, last axis": lambda: cw.fft.fft(x),
            "rfftn (4096, 4096) float32": lambda: cw.fft.rfftn(r, axes=(-2, -1)),
            "cholesky (1024, 64, 64) float32": lambda: cw.linalg.cholesky(a)}


def one_call(rt, fn):
    """(kernel names launched, {call: count}) of one call of ``fn`` in the steady state (after
    warm-up calls: the caching allocator alternates between two addresses for a buffer,
    so the pointer arrays cached per address are both made by then)."""
    for _ in range(3):
        fn()
    rt.calls.clear()
    del rt.launches[:]
    fn()
    return [name.decode() if isinstance(name, bytes) else name for name, *_ in rt.launches], dict(rt.calls)


def host_us(fn, reps=2000, batches=7):
    """Host µs per call: the fastest of ``batches`` batches of ``reps`` calls, after warm-up."""
    for _ in range(50):
        fn()
    best = float("inf")
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        best = min(best, (time.perf_counter() - t0) / reps * 1e6)
    return best


def main():
    import argparse
    import cProfile
    import pathlib
    import pstats
    import sys

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--profile", default=None, help="a case name's first word (fft, rfftn, cholesky)")
    args = parser.parse_args()
    here = pathlib.Path(__file__).resolve().parent
    sys.path[:0] = [str(here.parents[2]), str(here)]  # this checkout's packages, then fake_hip
    import fake_hip
    from rocm_backend import RocmBackend

    rt = fake_hip.install()
    install_libraries(rt, fake_hip.OK)
    dev = RocmBackend().device(0)
    print("| case | host µs per call | kernel launches | library and runtime calls |\n|---|---|---|---|")
    for name, fn in cases(dev).items():
        launches, calls = one_call(rt, fn)
        shown = ", ".join(f"{k} {v}" for k, v in sorted(calls.items()))
        print(f"| {name} | {host_us(fn, args.reps):.1f} | {len(launches)} {launches} | {shown} |")
        if args.profile and name.startswith(args.profile):
            def calls_of(fn=fn):
                for _ in range(args.reps):
                    fn()  # each result dropped, as in the timing

            profile = cProfile.Profile()
            profile.runcall(calls_of)
            pstats.Stats(profile).sort_stats(os.environ.get("SORT", "tottime")).print_stats(30)


if __name__ == "__main__":
    main()
