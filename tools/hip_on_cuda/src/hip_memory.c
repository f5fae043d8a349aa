/*
 * hip_on_cuda: allocation, copies, memset, host memory, pointer queries and
 * the stream-ordered memory pool, forwarded to the CUDA driver API.
 * hipMemcpy/hipMemset (the non-Async forms) return only once the work is
 * done, as ROCm's runtime does.
 */
#include <stdint.h>
#include <string.h>

#include "hoc_cuda.h"
#include "hip_types.h"

#define DPTR(p) ((CUdeviceptr)(uintptr_t)(p))
HOC_API hipError_t hipMalloc(void **ptr, size_t size)
{
    if (!ptr)
        return hoc_ret(hipErrorInvalidValue);
    *ptr = NULL;
    if (size == 0)
        return hipSuccess; /* HIP returns a null pointer for 0 bytes */
    CTX_OR_RETURN();
    CUdeviceptr d = 0;
    int e = HOC_CU(hoc_cu.cuMemAlloc(&d, size));
    if (!e)
        *ptr = (void *)(uintptr_t)d;
    return e;
}

HOC_API hipError_t hipFree(void *ptr)
{
    if (!ptr)
        return hipSuccess;
    CTX_OR_RETURN();
    return HOC_CU(hoc_cu.cuMemFree(DPTR(ptr)));
}

HOC_API hipError_t hipMallocAsync(void **ptr, size_t size, hipStream_t stream)
{
    if (!ptr)
        return hoc_ret(hipErrorInvalidValue);
    *ptr = NULL;
    if (size == 0)
        return hipSuccess;
    CTX_OR_RETURN();
    if (!hoc_cu.cuMemAllocAsync)
        return hoc_ret(hipErrorNotSupported);
    CUdeviceptr d = 0;
    int e = HOC_CU(hoc_cu.cuMemAllocAsync(&d, size, stream));
    if (!e)
        *ptr = (void *)(uintptr_t)d;
    return e;
}

HOC_API hipError_t hipFreeAsync(void *ptr, hipStream_t stream)
{
    if (!ptr)
        return hipSuccess;
    CTX_OR_RETURN();
    if (!hoc_cu.cuMemFreeAsync)
        return hoc_ret(hipErrorNotSupported);
    return HOC_CU(hoc_cu.cuMemFreeAsync(DPTR(ptr), stream));
}

HOC_API hipError_t hipMemGetInfo(size_t *free_bytes, size_t *total)
{
    if (!free_bytes || !total)
        return hoc_ret(hipErrorInvalidValue);
    CTX_OR_RETURN();
    return HOC_CU(hoc_cu.cuMemGetInfo(free_bytes, total));
}

/* ---- copies ---------------------------------------------------------- */

static CUresult copy_async(void *dst, const void *src, size_t n, int kind, CUstream s)
{
    switch (kind) {
    case hipMemcpyHostToDevice:
        return hoc_cu.cuMemcpyHtoDAsync(DPTR(dst), src, n, s);
    case hipMemcpyDeviceToHost:
        return hoc_cu.cuMemcpyDtoHAsync(dst, DPTR(src), n, s);
    case hipMemcpyDeviceToDevice:
    case hipMemcpyDeviceToDeviceNoCU:
        return hoc_cu.cuMemcpyDtoDAsync(DPTR(dst), DPTR(src), n, s);
    default: /* HostToHost and Default: unified addressing decides */
        return hoc_cu.cuMemcpyAsync(DPTR(dst), DPTR(src), n, s);
    }
}

static int valid_kind(int kind)
{
    return (kind >= hipMemcpyHostToHost && kind <= hipMemcpyDefault) ||
           kind == hipMemcpyDeviceToDeviceNoCU;
}

HOC_API hipError_t hipMemcpy(void *dst, const void *src, size_t n, hipMemcpyKind kind)
{
    if (!valid_kind(kind))
        return hoc_ret(hipErrorInvalidMemcpyDirection);
    if (n == 0)
        return hipSuccess;
    if (!dst || !src)
        return hoc_ret(hipErrorInvalidValue);
    CTX_OR_RETURN();
    int e = HOC_CU(copy_async(dst, src, n, kind, NULL));
    return e ? e : HOC_CU(hoc_cu.cuStreamSynchronize(NULL));
}

HOC_API hipError_t hipMemcpyAsync(void *dst, const void *src, size_t n, hipMemcpyKind kind,
                                  hipStream_t stream)
{
    if (!valid_kind(kind))
        return hoc_ret(hipErrorInvalidMemcpyDirection);
    if (n == 0)
        return hipSuccess;
    if (!dst || !src)
        return hoc_ret(hipErrorInvalidValue);
    CTX_OR_RETURN();
    return HOC_CU(copy_async(dst, src, n, kind, stream));
}

HOC_API hipError_t hipMemcpyWithStream(void *dst, const void *src, size_t n, hipMemcpyKind kind,
                                       hipStream_t stream)
{
    int e = hipMemcpyAsync(dst, src, n, kind, stream);
    return e ? e : HOC_CU(hoc_cu.cuStreamSynchronize(stream));
}

#define TYPED_COPY(name, kind)                                                  \
    HOC_API hipError_t name(void *dst, const void *src, size_t n)               \
    {                                                                           \
        return hipMemcpy(dst, src, n, kind);                                    \
    }                                                                           \
    HOC_API hipError_t name##Async(void *dst, const void *src, size_t n, hipStream_t s) \
    {                                                                           \
        return hipMemcpyAsync(dst, src, n, kind, s);                            \
    }
TYPED_COPY(hipMemcpyHtoD, hipMemcpyHostToDevice)
TYPED_COPY(hipMemcpyDtoH, hipMemcpyDeviceToHost)
TYPED_COPY(hipMemcpyDtoD, hipMemcpyDeviceToDevice)

HOC_API hipError_t hipMemcpyPeerAsync(void *dst, int dst_dev, const void *src, int src_dev,
                                      size_t n, hipStream_t stream)
{
    CUcontext dctx, sctx;
    int e = hoc_primary_ctx(dst_dev, &dctx);
    if (!e)
        e = hoc_primary_ctx(src_dev, &sctx);
    if (!e)
        e = hoc_ctx();
    if (e)
        return hoc_ret(e);
    return HOC_CU(hoc_cu.cuMemcpyPeerAsync(DPTR(dst), dctx, DPTR(src), sctx, n, stream));
}

HOC_API hipError_t hipMemcpyPeer(void *dst, int dst_dev, const void *src, int src_dev, size_t n)
{
    int e = hipMemcpyPeerAsync(dst, dst_dev, src, src_dev, n, NULL);
    return e ? e : HOC_CU(hoc_cu.cuStreamSynchronize(NULL));
}

/* ---- memset ---------------------------------------------------------- */

HOC_API hipError_t hipMemsetAsync(void *dst, int value, size_t n, hipStream_t stream)
{
    if (n == 0)
        return hipSuccess;
    CTX_OR_RETURN();
    return HOC_CU(hoc_cu.cuMemsetD8Async(DPTR(dst), (unsigned char)value, n, stream));
}

HOC_API hipError_t hipMemset(void *dst, int value, size_t n)
{
    int e = hipMemsetAsync(dst, value, n, NULL);
    return e ? e : (n ? HOC_CU(hoc_cu.cuStreamSynchronize(NULL)) : hipSuccess);
}

#define TYPED_SET(name, cufn, T)                                                        \
    HOC_API hipError_t name##Async(void *dst, T value, size_t count, hipStream_t stream) \
    {                                                                                   \
        if (count == 0)                                                                 \
            return hipSuccess;                                                          \
        CTX_OR_RETURN();                                                                \
        return HOC_CU(hoc_cu.cufn##Async(DPTR(dst), value, count, stream));             \
    }                                                                                   \
    HOC_API hipError_t name(void *dst, T value, size_t count)                           \
    {                                                                                   \
        int e = name##Async(dst, value, count, NULL);                                   \
        return e ? e : (count ? HOC_CU(hoc_cu.cuStreamSynchronize(NULL)) : hipSuccess); \
    }
TYPED_SET(hipMemsetD8, cuMemsetD8, unsigned char)
TYPED_SET(hipMemsetD16, cuMemsetD16, unsigned short)
TYPED_SET(hipMemsetD32, cuMemsetD32, int)

/* ---- host memory ----------------------------------------------------- */

HOC_API hipError_t hipHostMalloc(void **ptr, size_t size, unsigned int flags)
{
    if (!ptr)
        return hoc_ret(hipErrorInvalidValue);
    *ptr = NULL;
    if (size == 0)
        return hipSuccess;
    CTX_OR_RETURN();
    /* Portable(1) / Mapped(2) / WriteCombined(4) mean the same to CUDA;
     * ROCm's coherence and NUMA bits have no CUDA counterpart. */
    return HOC_CU(hoc_cu.cuMemHostAlloc(ptr, size, flags & 0x7u));
}

HOC_API hipError_t hipHostAlloc(void **ptr, size_t size, unsigned int flags)
{
    return hipHostMalloc(ptr, size, flags);
}

HOC_API hipError_t hipMallocHost(void **ptr, size_t size)
{
    return hipHostMalloc(ptr, size, 0);
}

HOC_API hipError_t hipHostFree(void *ptr)
{
    if (!ptr)
        return hipSuccess;
    CTX_OR_RETURN();
    return HOC_CU(hoc_cu.cuMemFreeHost(ptr));
}

HOC_API hipError_t hipFreeHost(void *ptr)
{
    return hipHostFree(ptr);
}

HOC_API hipError_t hipHostRegister(void *ptr, size_t size, unsigned int flags)
{
    CTX_OR_RETURN();
    return HOC_CU(hoc_cu.cuMemHostRegister(ptr, size, flags & 0xfu));
}

HOC_API hipError_t hipHostUnregister(void *ptr)
{
    CTX_OR_RETURN();
    return HOC_CU(hoc_cu.cuMemHostUnregister(ptr));
}

HOC_API hipError_t hipHostGetDevicePointer(void **dev, void *host, unsigned int flags)
{
    if (!dev)
        return hoc_ret(hipErrorInvalidValue);
    CTX_OR_RETURN();
    CUdeviceptr d = 0;
    int e = HOC_CU(hoc_cu.cuMemHostGetDevicePointer(&d, host, flags));
    *dev = (void *)(uintptr_t)d;
    return e;
}

/* ---- pointer attributes ---------------------------------------------- */

enum { CU_PTR_MEMORY_TYPE = 2, CU_PTR_DEVICE_POINTER = 3, CU_PTR_HOST_POINTER = 4,
       CU_PTR_IS_MANAGED = 8, CU_PTR_DEVICE_ORDINAL = 9 };

static int hip_memory_type(unsigned int cu_type, int managed)
{
    if (managed)
        return hipMemoryTypeManaged;
    switch (cu_type) {
    case 1: return hipMemoryTypeHost;
    case 2: return hipMemoryTypeDevice;
    case 3: return hipMemoryTypeArray;
    case 4: return hipMemoryTypeUnified;
    default: return hipMemoryTypeUnregistered;
    }
}

HOC_API hipError_t hipPointerGetAttributes(hipPointerAttribute_t *attr, const void *ptr)
{
    if (!attr || !ptr)
        return hoc_ret(hipErrorInvalidValue);
    CTX_OR_RETURN();
    unsigned int type = 0;
    int ordinal = -1, managed = 0;
    CUdeviceptr dptr = 0;
    void *hptr = NULL;
    int which[5] = {CU_PTR_MEMORY_TYPE, CU_PTR_DEVICE_POINTER, CU_PTR_HOST_POINTER,
                    CU_PTR_IS_MANAGED, CU_PTR_DEVICE_ORDINAL};
    void *data[5] = {&type, &dptr, &hptr, &managed, &ordinal};
    int e = HOC_CU(hoc_cu.cuPointerGetAttributes(5, which, data, DPTR(ptr)));
    if (e)
        return e;
    memset(attr, 0, sizeof *attr);
    attr->type = hip_memory_type(type, managed);
    attr->device = ordinal;
    attr->devicePointer = (void *)(uintptr_t)dptr;
    attr->hostPointer = hptr;
    attr->isManaged = managed;
    return hipSuccess;
}

HOC_API hipError_t hipPointerGetAttribute(void *data, int attribute, void *ptr)
{
    if (!data)
        return hoc_ret(hipErrorInvalidValue);
    CTX_OR_RETURN();
    if (attribute == CU_PTR_MEMORY_TYPE) {
        unsigned int type = 0;
        int e = HOC_CU(hoc_cu.cuPointerGetAttribute(&type, CU_PTR_MEMORY_TYPE, DPTR(ptr)));
        *(unsigned int *)data = (unsigned int)hip_memory_type(type, 0);
        return e;
    }
    /* The other HIP_POINTER_ATTRIBUTE_* numbers equal CUDA's. */
    return HOC_CU(hoc_cu.cuPointerGetAttribute(data, attribute, DPTR(ptr)));
}

/* ---- stream-ordered memory pool --------------------------------------- */

HOC_API hipError_t hipDeviceGetDefaultMemPool(hipMemPool_t *pool, int dev)
{
    if (!pool)
        return hoc_ret(hipErrorInvalidValue);
    CTX_OR_RETURN();
    if (!hoc_cu.cuDeviceGetDefaultMemPool)
        return hoc_ret(hipErrorNotSupported);
    return HOC_CU(hoc_cu.cuDeviceGetDefaultMemPool(pool, dev));
}

/* hipMemPoolAttr values 1..8 equal CUmemPool_attribute's. */
HOC_API hipError_t hipMemPoolSetAttribute(hipMemPool_t pool, int attr, void *value)
{
    CTX_OR_RETURN();
    if (!hoc_cu.cuMemPoolSetAttribute)
        return hoc_ret(hipErrorNotSupported);
    return HOC_CU(hoc_cu.cuMemPoolSetAttribute(pool, attr, value));
}

HOC_API hipError_t hipMemPoolGetAttribute(hipMemPool_t pool, int attr, void *value)
{
    CTX_OR_RETURN();
    if (!hoc_cu.cuMemPoolGetAttribute)
        return hoc_ret(hipErrorNotSupported);
    return HOC_CU(hoc_cu.cuMemPoolGetAttribute(pool, attr, value));
}

HOC_API hipError_t hipMemPoolTrimTo(hipMemPool_t pool, size_t keep)
{
    CTX_OR_RETURN();
    if (!hoc_cu.cuMemPoolTrimTo)
        return hoc_ret(hipErrorNotSupported);
    return HOC_CU(hoc_cu.cuMemPoolTrimTo(pool, keep));
}
