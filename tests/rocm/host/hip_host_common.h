// What both host emulations of HIP share (hip_host_prelude.h: single-threaded stand-ins
// for compiling the math; hip_host_fibers.h: blocks of fibers that run the kernels): the
// HIP qualifiers as nothing, and atomics and fences as plain operations (one thread of
// the host runs at a time).
#ifndef CW_HIP_HOST_COMMON_H
#define CW_HIP_HOST_COMMON_H
#include <math.h>

#define __device__
#define __host__
#define __global__
#define __forceinline__ inline
#define __shared__ static
#define __launch_bounds__(...)

template <class T> inline T atomicAdd(T* p, T v) { T old = *p; *p = old + v; return old; }
template <class T> inline T atomicExch(T* p, T v) { T old = *p; *p = v; return old; }
inline unsigned atomicCAS(unsigned* p, unsigned expected, unsigned v) {
    unsigned old = *p;
    if (old == expected) *p = v;
    return old;
}
inline unsigned atomicOr(unsigned* p, unsigned v) { unsigned old = *p; *p = old | v; return old; }
inline unsigned long long atomicOr(unsigned long long* p, unsigned long long v) {
    unsigned long long old = *p;
    *p = old | v;
    return old;
}
inline unsigned atomicInc(unsigned* p, unsigned limit) {
    unsigned old = *p;
    *p = old >= limit ? 0u : old + 1u;
    return old;
}
inline void __threadfence() { __sync_synchronize(); }
// the hardware exp as GPUs compute it: 2^(x log2 e), the product rounded to float first
// (so its error grows with |x| as the devices' does; their exp2 adds about 2 ulps more)
inline float __expf(float x) { return exp2f(x * 1.44269504088896341f); }
#endif
