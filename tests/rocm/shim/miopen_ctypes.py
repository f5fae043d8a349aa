"""A minimal ctypes binding of MIOpen's C API, for testing the shim's
libMIOpen.so (the real rocm_backend has its own binding)."""

import ctypes as C

# miopenDataType_t
HALF, FLOAT, BFLOAT16, DOUBLE = 0, 1, 5, 6
# miopenConvolutionMode_t, miopenPoolingMode_t
CONVOLUTION, TRANSPOSE = 0, 1
POOL_MAX, POOL_AVG, POOL_AVG_INCLUSIVE = 0, 1, 2


class ConvAlgoPerf(C.Structure):
    _fields_ = [("fwd_algo", C.c_int), ("time", C.c_float), ("memory", C.c_size_t)]


class MIOpenError(RuntimeError):
    def __init__(self, name, status):
        super().__init__(f"{name} -> {status}")
        self.status = status


def load(path):
    lib = C.CDLL(path)
    vp, i, ip, sz = C.c_void_p, C.c_int, C.POINTER(C.c_int), C.c_size_t
    sigs = {
        "miopenCreate": [C.POINTER(vp)],
        "miopenDestroy": [vp],
        "miopenSetStream": [vp, vp],
        "miopenCreateTensorDescriptor": [C.POINTER(vp)],
        "miopenSet4dTensorDescriptor": [vp, i, i, i, i, i],
        "miopenSetTensorDescriptor": [vp, i, i, ip, ip],
        "miopenDestroyTensorDescriptor": [vp],
        "miopenCreateConvolutionDescriptor": [C.POINTER(vp)],
        "miopenInitConvolutionDescriptor": [vp, i, i, i, i, i, i, i],
        "miopenInitConvolutionNdDescriptor": [vp, i, ip, ip, ip, i],
        "miopenSetConvolutionGroupCount": [vp, i],
        "miopenDestroyConvolutionDescriptor": [vp],
        "miopenGetConvolutionForwardOutputDim": [vp, vp, vp, ip, ip, ip, ip],
        "miopenGetConvolutionNdForwardOutputDim": [vp, vp, vp, ip, ip],
        "miopenConvolutionForwardGetWorkSpaceSize": [vp, vp, vp, vp, vp, C.POINTER(sz)],
        "miopenFindConvolutionForwardAlgorithm": [vp, vp, vp, vp, vp, vp, vp, vp, i, ip,
                                                  C.POINTER(ConvAlgoPerf), vp, sz, C.c_bool],
        "miopenConvolutionForward": [vp, vp, vp, vp, vp, vp, vp, i, vp, vp, vp, vp, sz],
        "miopenCreatePoolingDescriptor": [C.POINTER(vp)],
        "miopenSet2dPoolingDescriptor": [vp, i, i, i, i, i, i, i],
        "miopenSetNdPoolingDescriptor": [vp, i, i, ip, ip, ip],
        "miopenSetPoolingIndexType": [vp, i],
        "miopenSetPoolingWorkSpaceIndexMode": [vp, i],
        "miopenGetPoolingForwardOutputDim": [vp, vp, ip, ip, ip, ip],
        "miopenPoolingGetWorkSpaceSizeV2": [vp, vp, C.POINTER(sz)],
        "miopenPoolingForward": [vp, vp, vp, vp, vp, vp, vp, vp, C.c_bool, vp, sz],
        "miopenDestroyPoolingDescriptor": [vp],
    }
    for name, args in sigs.items():
        fn = getattr(lib, name)
        fn.argtypes = args
        fn.restype = C.c_int
    lib.miopenGetErrorString.restype = C.c_char_p
    lib.miopenGetErrorString.argtypes = [C.c_int]
    return lib


def check(lib, name, *args):
    status = getattr(lib, name)(*args)
    if status != 0:
        raise MIOpenError(f"{name}: {lib.miopenGetErrorString(status).decode()}", status)


def ints(values):
    return (C.c_int * len(values))(*values)
