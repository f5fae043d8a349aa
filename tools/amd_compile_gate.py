"""AMD compile gate: compile HIP sources with AMD's own hipRTC for an AMD GPU
architecture, on a machine with no GPU.

hip-python is pointed at AMD's libamdhip64 (ROCm 5.2 from Debian's
``libamdhip64-dev``, where hipRTC lives inside libamdhip64.so.5): a folder
with ``lib/libamdhip64.so`` and ``lib/libhiprtc.so`` linking to it becomes
``ROCM_PATH`` before hip-python opens either library.  ROCm 5.2's hipRTC
pre-includes its fp16 header and knows no gfx94x target.

Library use:  ``compile_for_amd(source, name, options=(), arch="gfx90a") -> bytes``
CLI:          ``python tools/amd_compile_gate.py [--arch gfx90a] [--jobs N]``
              compiles every module ``rocm_backend.all_kernel_sources()``
              yields, sample kernels generated for fused graphs and the custom
              kernels the rocm tests generate (or tools/hip_on_cuda/tests/sample_kernel.hip
              when the backend does not provide that function) and exits non-zero
              with the compiler log on the first failure.
"""

import argparse
import concurrent.futures
import ctypes
import glob
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "tools" / "hip_on_cuda" / "tests" / "sample_kernel.hip"
AMD_LIB_GLOBS = ("/opt/rocm/lib/libamdhip64.so.[0-9]*", "/opt/rocm*/lib/libamdhip64.so.[0-9]*",
                 "/usr/lib/x86_64-linux-gnu/libamdhip64.so.[0-9]*")


class AmdCompileError(RuntimeError):
    """hipRTC refused a source; the message names the kernel module and holds the log."""


def _amd_libamdhip64():
    env = os.environ.get("AMD_LIBAMDHIP64")
    candidates = [env] if env else [p for g in AMD_LIB_GLOBS for p in sorted(glob.glob(g))]
    for path in candidates:
        if path and os.path.exists(path):
            return path
    raise AmdCompileError(
        "AMD's libamdhip64 not found (apt-get install libamdhip64-dev, or set AMD_LIBAMDHIP64)")


def prepare_environment():
    """Point hip-python at AMD's runtime (once, before hip-python loads it)."""
    if os.environ.get("CANDLEWICK_AMD_ROCM_PATH"):
        return os.environ["CANDLEWICK_AMD_ROCM_PATH"]
    lib = _amd_libamdhip64()
    probe = ctypes.CDLL(lib)
    if hasattr(probe, "hipOnCudaLoadError"):
        raise AmdCompileError(f"{lib} is the HIP-on-CUDA shim, not AMD's runtime")
    root = Path(tempfile.gettempdir()) / f"candlewick-amd-rocm-{os.getuid()}"
    (root / "lib").mkdir(parents=True, exist_ok=True)
    for name in ("libamdhip64.so", "libhiprtc.so"):
        link = root / "lib" / name
        if not (link.is_symlink() and os.readlink(link) == lib):
            tmp = link.with_suffix(f".tmp{os.getpid()}")
            tmp.unlink(missing_ok=True)
            tmp.symlink_to(lib)
            tmp.replace(link)
    os.environ["ROCM_PATH"] = str(root)
    os.environ["CANDLEWICK_AMD_ROCM_PATH"] = str(root)
    return str(root)


def _hiprtc():
    prepare_environment()
    from hip import hiprtc

    return hiprtc


def _log(hiprtc, prog):
    _, size = hiprtc.hiprtcGetProgramLogSize(prog)
    buf = bytearray(max(int(size), 1))
    hiprtc.hiprtcGetProgramLog(prog, buf)
    return buf.rstrip(b"\0").decode(errors="replace")


def compile_for_amd(source: str, name: str, options=(), arch="gfx90a") -> bytes:
    """Compile ``source`` with AMD's hipRTC for ``arch``; the code object bytes.

    Raises AmdCompileError (with the kernel module's name and the compiler log)
    when hipRTC does not produce code."""
    hiprtc = _hiprtc()
    src = source.encode() if isinstance(source, str) else source
    err, prog = hiprtc.hiprtcCreateProgram(src, name.encode(), 0, [], [])
    if int(err) != 0:
        raise AmdCompileError(f"{name}: hiprtcCreateProgram failed: {err!r}")
    try:
        opts = [f"--offload-arch={arch}".encode()] + [
            o.encode() if isinstance(o, str) else o for o in options]
        (err,) = hiprtc.hiprtcCompileProgram(prog, len(opts), opts)
        log = _log(hiprtc, prog)
        if int(err) != 0:
            raise AmdCompileError(f"{name} ({arch}): {err!r}\n{log}")
        err, size = hiprtc.hiprtcGetCodeSize(prog)
        code = bytearray(int(size))
        if int(err) != 0 or not size or int(hiprtc.hiprtcGetCode(prog, code)[0]) != 0:
            raise AmdCompileError(f"{name} ({arch}): no code object\n{log}")
        return bytes(code)
    finally:
        hiprtc.hiprtcDestroyProgram(prog.createRef())


def kernel_sources():
    """(name, source, options) for everything the rocm backend can generate."""
    sys.path.insert(0, str(ROOT))
    try:
        import rocm_backend
    except Exception as exc:  # noqa: BLE001 - fall back to the sample, but say why
        print(f"amd_compile_gate: rocm_backend not importable ({exc!r}); using the sample")
        rocm_backend = None
    if rocm_backend is not None and hasattr(rocm_backend, "all_kernel_sources"):
        sources = [tuple(item) for item in rocm_backend.all_kernel_sources()] + fused_samples()
        sources += custom_kernel_samples()
        return sources, "rocm_backend.all_kernel_sources, fused samples and the tests' custom kernels"
    return [("sample_kernel", SAMPLE.read_text(), [])], str(SAMPLE.relative_to(ROOT))


def fused_samples():
    """(name, source, options) of kernels generated for ``candlewick.fuse`` graphs (the
    rows schedule, the general one with a column reduction, a vectorized element-wise
    chain, float16 and integer dtypes, a float argument); [] when this backend has no fusion generator."""
    try:
        import numpy as np

        import candlewick as cw
        from rocm_backend.codegen import fused_source
    except ImportError:
        return []

    def softmax(x):
        e = cw.exp(x - cw.max(x, axis=-1, keepdims=True))
        return e / cw.sum(e, axis=-1, keepdims=True)

    def logsumexp(x):  # the float32 sum of exp(x - max) with the hardware exp (fused_rows._sum_exps)
        m = cw.max(x, axis=-1, keepdims=True)
        return m[..., 0] + cw.log(cw.sum(cw.exp(x - m), axis=-1))

    def chain(x, i, slope):  # slope: a float argument, a run-time scalar of the kernels
        y = cw.where(x > 0, x, x * slope) + cw.clip(i, 0, 9)
        return cw.sum(cw.tanh(y) * 2.0, axis=0), cw.sqrt(cw.abs(y)).astype(cw.float16)

    x = cw.asarray(np.ones((64, 1024), np.float32))
    i = cw.asarray(np.ones((1024,), np.int16))
    out = []
    for fn, args in ((softmax, (x,)), (softmax, (x.astype(cw.float16),)), (logsumexp, (x,)),
                     (logsumexp, (x.astype(cw.float64),)), (chain, (x, i, 0.5))):
        plan = fused_source.plan(cw.fuse(fn).graph_for(*args))
        out.append((plan.module, plan.source, list(fused_source.COMPILE_OPTIONS)))
    return out


# the test files whose custom kernels the gate compiles besides tests/rocm/host/custom_kernel_cases.py
# (which also holds the conformance suite's and tests/rocm/gpu's): run on the available backends
# with tools/custom_kernel_recorder.py recording every kernel they make
TESTED_KERNEL_FILES = ("tests/custom_kernels", "tests/rocm/host/test_custom_kernels_fake.py")


def custom_kernel_samples():
    """(name, source, options) of every custom kernel the tests make (the ElementwiseKernel
    and ReductionKernel calls' generated sources, the RawKernel sources: those of
    tests/rocm/host/custom_kernel_cases.py and those ``tested_kernels`` records) and of the C
    subset's type oracle (static_asserts that hipRTC gives each expression the C subset
    accepts the type the subset gives it); [] when this backend has no custom-kernel
    generator."""
    try:
        from rocm_backend.codegen import custom_source
    except ImportError:
        return []
    sys.path.insert(0, str(ROOT / "tests" / "rocm" / "host"))
    import custom_kernel_cases as cases

    definitions, raws = tested_kernels()
    definitions = cases.definitions() + definitions
    raws = [(r.name, r.source, ()) for r in cases.RAW] + raws
    out, seen = [], set()
    for defn in definitions:
        src = (custom_source.elementwise if defn.kind == "elementwise" else custom_source.reduction)(defn)
        if src.module not in seen:
            seen.add(src.module)
            out.append((src.module, src.source, list(custom_source.DEFAULT_OPTIONS + defn.options)))
    for name, code, options in raws:
        module, text = custom_source.raw(code, name)
        if module not in seen:
            seen.add(module)
            out.append((module, text, list(options)))
    oracle, _ = cases.type_oracle_source()
    out.append(("custom_type_oracle", oracle, []))
    return out


def tested_kernels():
    """([KernelDefinition], [(name, code, options)]) of the kernels the tests of
    TESTED_KERNEL_FILES make, recorded while pytest runs them here (kernels of a test
    marked ``not_compiled``, refused on purpose, left out). Exits if those tests fail:
    a failed test may have stopped before making its kernels."""
    import pytest

    sys.path.insert(0, str(ROOT / "tools"))
    from custom_kernel_recorder import KernelRecorder

    recorder = KernelRecorder()
    status = pytest.main(["-q", "-p", "no:cacheprovider", "--no-header", "-W", "ignore::pytest.PytestAssertRewriteWarning",
                          *[str(ROOT / f) for f in TESTED_KERNEL_FILES]], plugins=[recorder])
    if status != 0:
        sys.exit(f"amd_compile_gate: the tests of {', '.join(TESTED_KERNEL_FILES)} failed (exit status {status}); "
                 f"their kernels were not all recorded")
    return list(recorder.definitions), list(recorder.raw)


def _compile_one(job):
    name, source, options, arch = job
    start = time.perf_counter()
    try:
        code = compile_for_amd(source, name, options, arch)
    except AmdCompileError as exc:
        return name, None, str(exc), time.perf_counter() - start
    return name, len(code), "", time.perf_counter() - start


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--arch", default="gfx90a")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    prepare_environment()
    sources, origin = kernel_sources()
    jobs = [(name, src, list(opts), args.arch) for name, src, opts in sources]
    start = time.perf_counter()
    failures = []
    ctx = __import__("multiprocessing").get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(max_workers=max(1, args.jobs), mp_context=ctx) as pool:
        for name, size, error, seconds in pool.map(_compile_one, jobs):
            if error:
                failures.append(error)
                print(f"FAILED {name} ({seconds:.1f} s)")
            else:
                print(f"ok     {name}: {size} bytes ({seconds:.1f} s)")
    total = time.perf_counter() - start
    if failures:
        print("\n\n".join(failures), file=sys.stderr)
        print(f"amd_compile_gate: {len(failures)} of {len(jobs)} modules from {origin} "
              f"FAILED for {args.arch}", file=sys.stderr)
        return 1
    print(f"amd_compile_gate: compiled {len(jobs)} kernel modules from {origin} with AMD hipRTC "
          f"for {args.arch} in {total:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
