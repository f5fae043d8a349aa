"""Probe section launch_params: what one kernel launch costs the host, by the size of the
kernel's argument struct and by how the arguments are passed.

Empty kernels taking one struct of S bytes are compiled with hipRTC (through the shim)
and launched 100 per synchronize (bench/run_gpu.shallow) through:
* hipModuleLaunchKernel with ``extra`` (HIP_LAUNCH_PARAM_BUFFER_POINTER: the backend's way),
* hipModuleLaunchKernel with ``kernelParams`` (one pointer to the struct),
* libcuda's cuLaunchKernel with ``kernelParams`` (the floor the shim forwards to).
Also the cost of a bare ctypes call with the launch's 11 arguments into a no-op C
function built here with gcc (what ctypes itself adds on this host).
"""

import ctypes
import os
import subprocess
import tempfile

from run_gpu import shallow

SIZES = (16, 32, 64, 128, 256, 448, 1024, 2048, 4000)


def _source():
    lines = []
    for s in SIZES:
        lines.append(f"struct cw_probe_p{s} {{ unsigned char b[{s}]; }};")
        # reads one byte so the argument is not dropped; the branch is never taken
        lines.append(f'extern "C" __global__ void cw_probe_k{s}(cw_probe_p{s} p) '
                     f'{{ if (threadIdx.x == 4096) ((unsigned char*)0)[0] = p.b[{s - 1}]; }}')
    return "\n".join(lines) + "\n"


def c_function(source, symbol):
    """ctypes ``symbol`` (returning a C int) of the C ``source``, built here with gcc."""
    with tempfile.TemporaryDirectory() as tmp:
        c_file, so_file = os.path.join(tmp, "probe.c"), os.path.join(tmp, "libprobe.so")
        with open(c_file, "w") as f:
            f.write(source)
        subprocess.run(["gcc", "-O2", "-shared", "-fPIC", c_file, "-o", so_file], check=True)
        fn = getattr(ctypes.CDLL(so_file), symbol)  # stays mapped once the file is gone
    fn.restype = ctypes.c_int
    return fn


def _noop_call_cost(sync):
    """Microseconds of a ctypes call with 11 launch-like arguments into a no-op C function."""
    fn = c_function("int cw_noop11(void* f, unsigned a, unsigned b, unsigned c, unsigned d, unsigned e, "
                    "unsigned g, unsigned s, void* st, void** p, void** x) { return 0; }\n", "cw_noop11")
    a, s, x = ctypes.c_void_p(1), ctypes.c_void_p(2), ctypes.c_void_p(3)
    return shallow(lambda: fn(a, 1, 1, 1, 128, 1, 1, 0, s, None, x), sync)


def launch_params(dev, torch, cupy):
    from hip import hip

    from rocm_backend.error import check
    from rocm_backend.kernels import compile_source, runtime

    rt = runtime(dev)
    sync = dev.synchronize
    raw = rt.launcher.raw
    stream = rt.launcher.stream_arg
    print(f"ctypes call, 11 arguments, no-op C function: {_noop_call_cost(sync):.2f} us")
    code = compile_source("cw_probe_params", _source(), [], dev.arch)
    dev.make_current()
    module = check("hipModuleLoadData", hip.hipModuleLoadData(code))
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
        cu_launch = cuda.cuLaunchKernel
        cu_launch.restype = ctypes.c_int
    except OSError:
        cu_launch = None
    keep = []
    for s in SIZES:
        fn = check("hipModuleGetFunction", hip.hipModuleGetFunction(module, f"cw_probe_k{s}".encode()))
        fn_arg = ctypes.c_void_p(int(fn))
        buf = ctypes.create_string_buffer(s)
        size = ctypes.c_size_t(s)
        extra = (ctypes.c_void_p * 5)(1, ctypes.addressof(buf), 2, ctypes.addressof(size), 3)
        extra_arg = ctypes.c_void_p(ctypes.addressof(extra))
        params = (ctypes.c_void_p * 1)(ctypes.addressof(buf))
        params_arg = ctypes.c_void_p(ctypes.addressof(params))
        keep += [buf, size, extra, params]
        row = [f"{s:5d} B:"]
        for label, call in (
            ("hip extra", lambda: raw(fn_arg, 1, 1, 1, 128, 1, 1, 0, stream, None, extra_arg)),
            ("hip kernelParams", lambda: raw(fn_arg, 1, 1, 1, 128, 1, 1, 0, stream, params_arg, None)),
            ("cu kernelParams", (lambda: cu_launch(fn_arg, 1, 1, 1, 128, 1, 1, 0, stream, params_arg, None))
             if cu_launch is not None else None),
        ):
            if call is None:
                continue
            status = call()
            sync()
            if status:
                row.append(f"{label} status {status}")
                continue
            row.append(f"{label} {shallow(call, sync):.2f} us")
        print("  ".join(row), flush=True)
    if torch is not None:
        t = torch.arange(16, dtype=torch.float32, device="cuda")
        print(f"torch x + x, 100 per synchronize: {shallow(lambda: t + t, torch.cuda.synchronize):.2f} us")
        print(f"torch x.zero_(), 100 per synchronize: {shallow(lambda: t.zero_(), torch.cuda.synchronize):.2f} us")
