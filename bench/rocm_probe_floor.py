"""Probe section launch_floor: the host cost of one kernel launch with no Python at all,
beside whole tiny ops of candlewick, torch and CuPy timed the same way on the same host.

The issue's target for a 16-element op is 6 µs of host time. A launch loop written in C
(built here with gcc, timed with clock_gettime) calls, 100 launches per synchronize:
* libcuda's cuLaunchKernel on the backend's 16-element fill kernel (its real argument
  block, passed through ``extra`` as the backend does): what the driver alone costs,
* the shim's hipModuleLaunchKernel the same way: what the HIP-on-CUDA forwarding adds.
What is left of 6 µs after the driver's share is what any library, in any language, has
for its own work per op on this host.
"""

import ctypes
import statistics


from rocm_probe_launch import c_function
from run_gpu import Lib, shallow, tiny_ops

_C_SOURCE = r"""
#include <time.h>
typedef int (*launch_fn)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                         unsigned, void *, void **, void **);
typedef int (*sync_fn)(void *);

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* ns per launch of each round (per_sync launches, then a synchronize outside the
   timing) into out_ns[rounds]; returns the first failing status, 0 when all ran */
int cw_launch_floor(launch_fn launch, sync_fn sync, void *fn, void *stream, void **extra,
                    int per_sync, int rounds, double *out_ns) {
    for (int r = 0; r < rounds; ++r) {
        int status = sync(stream);
        if (status) return status;
        double t0 = now_ns();
        for (int i = 0; i < per_sync; ++i) {
            status = launch(fn, 1, 1, 1, 128, 1, 1, 0, stream, 0, extra);
            if (status) return status;
        }
        out_ns[r] = (now_ns() - t0) / per_sync;
    }
    return sync(stream);
}
"""

PER_SYNC = 100
ROUNDS = 300


def _address(cfunc):
    return ctypes.c_void_p(ctypes.cast(cfunc, ctypes.c_void_p).value)


def _c_loop(floor, launch, sync, fn_arg, stream_arg, extra_arg):
    """(best, median) µs per launch of the C loop, or the failing status."""
    out = (ctypes.c_double * ROUNDS)()
    status = floor(_address(launch), _address(sync), fn_arg, stream_arg, extra_arg, PER_SYNC, ROUNDS, out)
    if status:
        return f"status {status}"
    values = sorted(v / 1e3 for v in out)
    return f"best {values[0]:.2f} us, median {statistics.median(values):.2f} us"


def launch_floor(dev, torch, cupy, fill):
    """``fill``: rocm_probe.fill_kernel's (runtime, kernel, buffer)."""
    from rocm_backend.argpack import EW_ARGS
    from rocm_backend.launch import loaded_function, loaded_runtime_path

    rt, kernel, buf = fill
    floor = c_function(_C_SOURCE, "cw_launch_floor")
    stream_arg = rt.launcher.stream_arg
    hip_path = loaded_runtime_path()
    hip_launch = loaded_function(hip_path, "hipModuleLaunchKernel")
    hip_sync = loaded_function(hip_path, "hipStreamSynchronize")
    print(f"C loop, shim hipModuleLaunchKernel, {PER_SYNC} per synchronize: "
          f"{_c_loop(floor, hip_launch, hip_sync, kernel.fn_arg, stream_arg, EW_ARGS.extra_arg)}")
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError as exc:
        print("libcuda:", exc)
    else:
        # libcuda's extra array ends with CU_LAUNCH_PARAM_END = 0 (HIP's END is 3)
        size = ctypes.c_size_t(EW_ARGS.struct.size)
        cu_extra = (ctypes.c_void_p * 5)(1, ctypes.addressof(EW_ARGS.buffer), 2, ctypes.addressof(size), 0)
        print(f"C loop, libcuda cuLaunchKernel, {PER_SYNC} per synchronize: "
              f"{_c_loop(floor, cuda.cuLaunchKernel, cuda.cuStreamSynchronize, kernel.fn_arg, stream_arg, ctypes.cast(cu_extra, ctypes.c_void_p))}")
    sync = dev.synchronize
    print(f"Python ctypes, shim hipModuleLaunchKernel, {PER_SYNC} per synchronize: "
          f"{shallow(lambda: hip_launch(kernel.fn_arg, 1, 1, 1, 128, 1, 1, 0, stream_arg, None, EW_ARGS.extra_arg), sync):.2f} us")
    peers = [Lib(name, mod) for name, mod in (("torch", torch), ("cupy", cupy)) if mod is not None]
    for lib in [Lib("candlewick")] + peers:
        for label, fn in tiny_ops(lib).items():
            print(f"{lib.name} {label}, {PER_SYNC} per synchronize: {shallow(fn, lib.sync):.2f} us")
    del buf
