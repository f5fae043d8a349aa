/*
 * hip_on_cuda: the HIP device-side vocabulary on top of CUDA, prepended to
 * every program the shim's hipRTC compiles with NVRTC (a "#line 1" after it
 * keeps the caller's line numbers in diagnostics).  Only what HIP kernels
 * commonly use; anything AMD-specific (__builtin_amdgcn_*, wave64
 * assumptions) is left undefined on purpose so it fails loudly.
 */
#ifndef HOC_HIPRTC_PRELUDE_H
#define HOC_HIPRTC_PRELUDE_H

static const char k_hoc_prelude[] =
    "#line 1 \"hip_on_cuda_prelude.h\"\n"
    "#define __HIP_PLATFORM_NVIDIA__ 1\n"
    "#define __HIP_PLATFORM_NVCC__ 1\n"
    "#define __HIPCC_RTC__ 1\n"
    "#define __HIP_DEVICE_COMPILE__ 1\n"
    "#define HIP_ON_CUDA 1\n"
    "#if defined(__has_include)\n"
    "#if __has_include(<cuda_fp16.h>)\n"
    "#include <cuda_fp16.h>\n"
    "#define HIP_ON_CUDA_HAS_FP16 1\n"
    "#endif\n"
    "#if __has_include(<cuda_bf16.h>)\n"
    "#include <cuda_bf16.h>\n"
    "#define HIP_ON_CUDA_HAS_BF16 1\n"
    "typedef __nv_bfloat16 __hip_bfloat16;\n"
    "typedef __nv_bfloat162 __hip_bfloat162;\n"
    "typedef __nv_bfloat16 hip_bfloat16;\n"
    "#endif\n"
    "#endif\n"
    "typedef signed char int8_t; typedef unsigned char uint8_t;\n"
    "typedef short int16_t; typedef unsigned short uint16_t;\n"
    "typedef int int32_t; typedef unsigned int uint32_t;\n"
    "typedef long int64_t; typedef unsigned long uint64_t;\n"
    "typedef long intptr_t; typedef unsigned long uintptr_t;\n"
    "#define hipThreadIdx_x threadIdx.x\n#define hipThreadIdx_y threadIdx.y\n#define hipThreadIdx_z threadIdx.z\n"
    "#define hipBlockIdx_x blockIdx.x\n#define hipBlockIdx_y blockIdx.y\n#define hipBlockIdx_z blockIdx.z\n"
    "#define hipBlockDim_x blockDim.x\n#define hipBlockDim_y blockDim.y\n#define hipBlockDim_z blockDim.z\n"
    "#define hipGridDim_x gridDim.x\n#define hipGridDim_y gridDim.y\n#define hipGridDim_z gridDim.z\n"
    "#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];\n"
    "#define HIP_DYNAMIC_SHARED_ATTRIBUTE\n"
    "#define HIP_KERNEL_NAME(...) __VA_ARGS__\n"
    /* HIP's warp intrinsics take no mask: every active lane takes part. */
    "#define __shfl(...) __shfl_sync(__activemask(), __VA_ARGS__)\n"
    "#define __shfl_up(...) __shfl_up_sync(__activemask(), __VA_ARGS__)\n"
    "#define __shfl_down(...) __shfl_down_sync(__activemask(), __VA_ARGS__)\n"
    "#define __shfl_xor(...) __shfl_xor_sync(__activemask(), __VA_ARGS__)\n"
    "#define __ballot(p) ((unsigned long long)__ballot_sync(__activemask(), (p)))\n"
    "#define __any(p) __any_sync(__activemask(), (p))\n"
    "#define __all(p) __all_sync(__activemask(), (p))\n"
    "__device__ __forceinline__ unsigned int __lane_id(void)\n"
    "{ unsigned int r; asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(r)); return r; }\n"
    "#define unsafeAtomicAdd atomicAdd\n"
    "typedef float2 hipFloatComplex; typedef float2 hipComplex; typedef double2 hipDoubleComplex;\n"
    "__device__ __forceinline__ float2 make_hipFloatComplex(float r, float i) { return make_float2(r, i); }\n"
    "__device__ __forceinline__ double2 make_hipDoubleComplex(double r, double i) { return make_double2(r, i); }\n"
    "__device__ __forceinline__ float hipCrealf(float2 z) { return z.x; }\n"
    "__device__ __forceinline__ float hipCimagf(float2 z) { return z.y; }\n"
    "__device__ __forceinline__ double hipCreal(double2 z) { return z.x; }\n"
    "__device__ __forceinline__ double hipCimag(double2 z) { return z.y; }\n"
    "__device__ __forceinline__ float2 hipConjf(float2 z) { return make_float2(z.x, -z.y); }\n"
    "__device__ __forceinline__ double2 hipConj(double2 z) { return make_double2(z.x, -z.y); }\n"
    "__device__ __forceinline__ float2 hipCaddf(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }\n"
    "__device__ __forceinline__ double2 hipCadd(double2 a, double2 b) { return make_double2(a.x + b.x, a.y + b.y); }\n"
    "__device__ __forceinline__ float2 hipCsubf(float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); }\n"
    "__device__ __forceinline__ double2 hipCsub(double2 a, double2 b) { return make_double2(a.x - b.x, a.y - b.y); }\n"
    "__device__ __forceinline__ float2 hipCmulf(float2 a, float2 b)\n"
    "{ return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }\n"
    "__device__ __forceinline__ double2 hipCmul(double2 a, double2 b)\n"
    "{ return make_double2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }\n"
    "__device__ __forceinline__ float2 hipCdivf(float2 a, float2 b)\n"
    "{ float d = b.x * b.x + b.y * b.y; return make_float2((a.x * b.x + a.y * b.y) / d, (a.y * b.x - a.x * b.y) / d); }\n"
    "__device__ __forceinline__ double2 hipCdiv(double2 a, double2 b)\n"
    "{ double d = b.x * b.x + b.y * b.y; return make_double2((a.x * b.x + a.y * b.y) / d, (a.y * b.x - a.x * b.y) / d); }\n"
    "__device__ __forceinline__ float hipCabsf(float2 z) { return hypotf(z.x, z.y); }\n"
    "__device__ __forceinline__ double hipCabs(double2 z) { return hypot(z.x, z.y); }\n";

/* Headers a HIP source may include; the prelude already supplies them. */
static const char *const k_hoc_builtin_headers[] = {
    "hip/hip_runtime.h", "hip/hip_runtime_api.h", "hip/hip_fp16.h", "hip/hip_bf16.h",
    "hip/hip_bfloat16.h", "hip/hip_complex.h", "hip/hip_vector_types.h",
    "hip/math_functions.h", "hip/device_functions.h", "stdint.h", "cstdint",
};

#endif
