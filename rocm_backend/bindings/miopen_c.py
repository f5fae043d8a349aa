"""[bindings] MIOpen's C API through ctypes (``libMIOpen.so``): the library, its
descriptors, and the calls the nn primitives make (``miopen.py`` holds a device's handle,
plans, workspace and the rule of which failures decline a problem).

MIOpen has no Python binding; this module binds the few entry points the nn primitives
need. The library is looked for in ``$ROCM_PATH/lib``, ``/opt/rocm/lib`` and then on the
loader path; when it is missing (or its handle cannot be created) ``library()`` says why
and the nn primitives use the im2col + GEMM fallback instead. Nothing here raises at
import; a failed call raises ``error.MIOpenError``.

A convolution *plan* (``ConvPlan``) holds the tensor and convolution descriptors of one
problem and the algorithm ``miopenFindConvolutionForwardAlgorithm`` picked for it.
Pooling is inference only (``do_backward = 0``), with the index type set explicitly.
"""

import ctypes as C
import os
import threading

from candlewick import dtypes as dt

from ..error import MIOpenError

# miopenDataType_t
_DTYPE = {dt.float16: 0, dt.float32: 1, dt.bfloat16: 5, dt.float64: 6}
CONVOLUTION, TRANSPOSE = 0, 1  # miopenConvolutionMode_t
POOL_MAX, POOL_AVG, POOL_AVG_INCLUSIVE = 0, 1, 2  # miopenPoolingMode_t
INDEX_UINT32 = 2  # miopenIndexType_t


class ConvAlgoPerf(C.Structure):
    """miopenConvAlgoPerf_t: a union of algorithm enums, the time (ms), the workspace."""

    _fields_ = [("algo", C.c_int), ("time", C.c_float), ("memory", C.c_size_t)]


_vp, _int, _ip, _sz = C.c_void_p, C.c_int, C.POINTER(C.c_int), C.c_size_t
_SIGNATURES = {
    "miopenCreateWithStream": [C.POINTER(_vp), _vp],
    "miopenDestroy": [_vp],
    "miopenGetVersion": [C.POINTER(_sz), C.POINTER(_sz), C.POINTER(_sz)],
    "miopenCreateTensorDescriptor": [C.POINTER(_vp)],
    "miopenSetTensorDescriptor": [_vp, _int, _int, _ip, _ip],
    "miopenDestroyTensorDescriptor": [_vp],
    "miopenCreateConvolutionDescriptor": [C.POINTER(_vp)],
    "miopenInitConvolutionNdDescriptor": [_vp, _int, _ip, _ip, _ip, _int],
    "miopenSetConvolutionGroupCount": [_vp, _int],
    "miopenSetTransposeConvNdOutputPadding": [_vp, _int, _ip],
    "miopenGetConvolutionNdForwardOutputDim": [_vp, _vp, _vp, _ip, _ip],
    "miopenDestroyConvolutionDescriptor": [_vp],
    "miopenConvolutionForwardGetWorkSpaceSize": [_vp, _vp, _vp, _vp, _vp, C.POINTER(_sz)],
    "miopenFindConvolutionForwardAlgorithm": [_vp, _vp, _vp, _vp, _vp, _vp, _vp, _vp, _int, _ip,
                                              C.POINTER(ConvAlgoPerf), _vp, _sz, C.c_bool],
    "miopenConvolutionForward": [_vp, _vp, _vp, _vp, _vp, _vp, _vp, _int, _vp, _vp, _vp, _vp, _sz],
    "miopenCreatePoolingDescriptor": [C.POINTER(_vp)],
    "miopenSet2dPoolingDescriptor": [_vp, _int, _int, _int, _int, _int, _int, _int],
    "miopenSetPoolingIndexType": [_vp, _int],
    "miopenPoolingForward": [_vp, _vp, _vp, _vp, _vp, _vp, _vp, _vp, C.c_bool, _vp, _sz],
    "miopenDestroyPoolingDescriptor": [_vp],
}
_ONE, _ZERO = C.c_float(1.0), C.c_float(0.0)
_lock = threading.Lock()
_library = None  # (lib or None, path, reason)


def _candidates():
    roots = [os.environ.get("ROCM_PATH"), os.environ.get("HIP_PATH"), "/opt/rocm"]
    paths = [os.path.join(r, "lib", "libMIOpen.so") for r in roots if r]
    return paths + ["libMIOpen.so", "libMIOpen.so.1"]


def library():
    """(ctypes library or None, path, reason it is unusable or '')."""
    global _library
    with _lock:
        if _library is None:
            _library = _load()
        return _library


def _load():
    errors = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            errors.append(f"{path}: no such file")
            continue
        try:
            lib = C.CDLL(path)
        except OSError as exc:
            errors.append(str(exc))
            continue
        try:
            for name, args in _SIGNATURES.items():
                fn = getattr(lib, name)
                fn.argtypes, fn.restype = args, C.c_int
        except AttributeError as exc:
            errors.append(f"{path}: {exc}")
            continue
        return lib, path, ""
    return None, "", "libMIOpen.so not found: " + "; ".join(errors)


def version(lib):
    major, minor, patch = _sz(), _sz(), _sz()
    if lib.miopenGetVersion(C.byref(major), C.byref(minor), C.byref(patch)) != 0:
        return "unknown"
    return f"{major.value}.{minor.value}.{patch.value}"


def call(lib, name, *args):
    status = getattr(lib, name)(*args)
    if status != 0:
        raise MIOpenError(name, status)


def _ints(values):
    return (C.c_int * len(values))(*[int(v) for v in values])


class Descriptors:
    """Owned MIOpen descriptors of one plan, destroyed with it."""

    def __init__(self, lib):
        self.lib, self.items = lib, []

    def create(self, kind):
        handle = _vp()
        call(self.lib, f"miopenCreate{kind}Descriptor", C.byref(handle))
        self.items.append((kind, handle))
        return handle

    def tensor(self, dtype, shape, channels_last=False):
        """A packed tensor of ``shape`` (N, C, spatial...): NCHW order, or channels-last
        (NHWC) memory order described by strides, as MIOpen takes layouts."""
        order = list(range(len(shape)))
        if channels_last:
            order = [0] + order[2:] + [1]
        strides, acc = [0] * len(shape), 1
        for axis in reversed(order):
            strides[axis] = acc
            acc *= max(int(shape[axis]), 1)
        call(self.lib, "miopenSetTensorDescriptor", desc := self.create("Tensor"), _DTYPE[dtype], len(shape),
              _ints(shape), _ints(strides))
        return desc

    def destroy(self):
        for kind, handle in reversed(self.items):
            getattr(self.lib, f"miopenDestroy{kind}Descriptor")(handle)
        self.items = []


class ConvPlan:
    """Descriptors and the algorithm Find chose for one convolution problem."""

    def __init__(self, lib, key):
        mode, dtype, x_shape, w_shape, y_shape, stride, padding, dilation, groups, out_pad, nhwc = key
        self.key = key
        self.descs = Descriptors(lib)
        self.x = self.descs.tensor(dtype, x_shape, nhwc)
        self.w = self.descs.tensor(dtype, w_shape, nhwc)
        self.y = self.descs.tensor(dtype, y_shape, nhwc)
        self.conv = self.descs.create("Convolution")
        call(lib, "miopenInitConvolutionNdDescriptor", self.conv, 2, _ints(padding), _ints(stride),
              _ints(dilation), mode)
        if groups != 1:
            call(lib, "miopenSetConvolutionGroupCount", self.conv, groups)
        if mode == TRANSPOSE and any(out_pad):
            call(lib, "miopenSetTransposeConvNdOutputPadding", self.conv, 2, _ints(out_pad))
        nd, dims = C.c_int(), (C.c_int * 8)()
        call(lib, "miopenGetConvolutionNdForwardOutputDim", self.conv, self.x, self.w, C.byref(nd), dims)
        got = tuple(dims[i] for i in range(nd.value))
        if got != tuple(y_shape):
            self.descs.destroy()
            raise MIOpenError(f"miopenGetConvolutionNdForwardOutputDim ({got} != {tuple(y_shape)})", 3)
        self.algo, self.workspace, self.find_ms = None, 0, 0.0
        self.alive = True

    def release(self):
        """Destroy the descriptors (the plan is unusable afterwards)."""
        self.alive = False
        self.descs.destroy()


def create_handle(lib, stream_address):
    """A MIOpen handle bound to the stream at ``stream_address``."""
    handle = _vp()
    call(lib, "miopenCreateWithStream", C.byref(handle), _vp(stream_address))
    return handle


def forward_function(lib):
    """miopenConvolutionForward with its argument types declared: plain ints convert in C."""
    forward = lib.miopenConvolutionForward
    forward.argtypes = [_vp, _vp, _vp, _vp, _vp, _vp, _vp, _int, _vp, _vp, _vp, _vp, _sz]
    return forward


#: addresses of the float scalars 1 and 0 (alpha, beta of every call)
ONE, ZERO = C.addressof(_ONE), C.addressof(_ZERO)


def workspace_size(lib, handle, plan):
    size = _sz()
    call(lib, "miopenConvolutionForwardGetWorkSpaceSize", handle, plan.w, plan.x, plan.conv, plan.y,
         C.byref(size))
    return size.value


def find_algorithm(lib, handle, plan, x_ptr, w_ptr, y_ptr, ws_ptr, ws_size):
    """(algorithm, workspace bytes) Find picks for ``plan`` on the given buffers."""
    perf, count = (ConvAlgoPerf * 4)(), C.c_int()
    call(lib, "miopenFindConvolutionForwardAlgorithm", handle, plan.x, _vp(x_ptr), plan.w, _vp(w_ptr),
         plan.conv, plan.y, _vp(y_ptr), 4, C.byref(count), perf, _vp(ws_ptr), ws_size, False)
    if count.value < 1:
        raise MIOpenError("miopenFindConvolutionForwardAlgorithm (no algorithm)", 6)
    return perf[0].algo, int(perf[0].memory)


def pooling_forward(lib, handle, mode, dtype, x_ptr, x_shape, y_ptr, y_shape, kernel, stride, padding):
    """Queue max/average pooling forward (inference: no index workspace)."""
    descs = Descriptors(lib)
    try:
        x, y = descs.tensor(dtype, x_shape), descs.tensor(dtype, y_shape)
        pool = descs.create("Pooling")
        call(lib, "miopenSet2dPoolingDescriptor", pool, mode, kernel[0], kernel[1], padding[0], padding[1],
             stride[0], stride[1])
        call(lib, "miopenSetPoolingIndexType", pool, INDEX_UINT32)
        call(lib, "miopenPoolingForward", handle, pool, C.byref(_ONE), x, _vp(x_ptr), C.byref(_ZERO), y,
             _vp(y_ptr), False, None, 0)
    finally:
        descs.destroy()


def shim_note(lib):
    """The HIP-on-CUDA shim's reason when cuDNN could not be loaded (not part of MIOpen)."""
    fn = getattr(lib, "miopenOnCudaLoadError", None)
    if fn is None:
        return ""
    fn.restype, fn.argtypes = C.c_char_p, []
    why = (fn() or b"").decode(errors="replace")
    return f" ({why})" if why else ""
