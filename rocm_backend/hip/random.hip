// Philox-4x32-10 random numbers exactly per candlewick.backend.PHILOX.
// cw_ew_args: op0 = out (contiguous), n = elements; scalar[0] = seed, scalar[1] = counter,
// scalar[2], scalar[3] = (low, high) or (mean, std) as float64 bits.
// One thread per Philox block: 4 words give 4 single-precision or 2 double elements.

__device__ inline void cw_philox_block(cw_u64 seed, cw_u64 ctr, cw_u32 out[4]) {
    cw_u32 k0 = (cw_u32)seed, k1 = (cw_u32)(seed >> 32);
    cw_u32 c0 = (cw_u32)ctr, c1 = (cw_u32)(ctr >> 32), c2 = 0u, c3 = 0u;
    for (int r = 0; r < 10; ++r) {
        cw_u64 p0 = (cw_u64)0xD2511F53u * c0, p1 = (cw_u64)0xCD9E8D57u * c2;
        cw_u32 hi0 = (cw_u32)(p0 >> 32), lo0 = (cw_u32)p0, hi1 = (cw_u32)(p1 >> 32), lo1 = (cw_u32)p1;
        c0 = hi1 ^ c1 ^ k0;
        c1 = lo1;
        c2 = hi0 ^ c3 ^ k1;
        c3 = lo0;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    out[0] = c0; out[1] = c1; out[2] = c2; out[3] = c3;
}

__device__ inline float cw_u01_f32(cw_u32 w) { return (float)(w >> 8) * 5.9604644775390625e-8f; }
__device__ inline double cw_u01_f64(cw_u32 w0, cw_u32 w1) {
    return (double)(((cw_u64)w0 << 21) ^ (cw_u64)(w1 >> 11)) * 1.1102230246251565404e-16;
}

// low + (high - low) * u with every operation rounded on its own, as NumPy (the cpu
// backend) computes it: never contracted into an FMA, so uniform streams of any range are
// bit-identical across backends (NVIDIA: the _rn intrinsics are never fused; clang/AMD:
// contraction off for this scope).
#if defined(__HIP_PLATFORM_NVIDIA__) || defined(__CUDACC_RTC__)
__device__ inline float cw_lerp_rn(float lo, float hi, float u) { return __fadd_rn(lo, __fmul_rn(__fsub_rn(hi, lo), u)); }
__device__ inline double cw_lerp_rn(double lo, double hi, double u) { return __dadd_rn(lo, __dmul_rn(__dsub_rn(hi, lo), u)); }
#else
__device__ inline float cw_lerp_rn(float lo, float hi, float u) {
#pragma clang fp contract(off)
    return lo + (hi - lo) * u;
}
__device__ inline double cw_lerp_rn(double lo, double hi, double u) {
#pragma clang fp contract(off)
    return lo + (hi - lo) * u;
}
#endif

// DOUBLE: float64 path (two words per uniform); NORMAL: Box-Muller on element pairs
template <class S, bool DOUBLE, bool NORMAL> __device__ inline void cw_random(const cw_ew_args& a) {
    const cw_u64 seed = (cw_u64)a.scalar[0], counter = (cw_u64)a.scalar[1];
    const double p = cw_bits_f64((cw_u64)a.scalar[2]), q = cw_bits_f64((cw_u64)a.scalar[3]);
    const cw_i64 per_block = DOUBLE ? 2 : 4;
    const cw_i64 blocks = (a.n + per_block - 1) / per_block;
    CW_GRID_STRIDE(b, blocks) {
        cw_u32 w[4];
        cw_philox_block(seed, counter + (cw_u64)b, w);
        const cw_i64 e = b * per_block;
        if (DOUBLE) {
            double u0 = cw_u01_f64(w[0], w[1]), u1 = cw_u01_f64(w[2], w[3]);
            if (NORMAL) {
                double r = sqrt(-2.0 * log(1.0 - u0)), t = 6.283185307179586477 * u1;
                if (e < a.n) cw_store<S>(a.op[0].ptr, e, p + q * r * cos(t));
                if (e + 1 < a.n) cw_store<S>(a.op[0].ptr, e + 1, p + q * r * sin(t));
            } else {
                if (e < a.n) cw_store<S>(a.op[0].ptr, e, cw_lerp_rn(p, q, u0));
                if (e + 1 < a.n) cw_store<S>(a.op[0].ptr, e + 1, cw_lerp_rn(p, q, u1));
            }
        } else {
            const float pf = (float)p, qf = (float)q;
            float u[4];
            for (int k = 0; k < 4; ++k) u[k] = cw_u01_f32(w[k]);
            if (NORMAL) {
                for (int k = 0; k < 4; k += 2) {
                    float r = sqrtf(-2.0f * logf(1.0f - u[k])), t = 6.2831853071795864f * u[k + 1];
                    if (e + k < a.n) cw_store<S>(a.op[0].ptr, e + k, pf + qf * r * cosf(t));
                    if (e + k + 1 < a.n) cw_store<S>(a.op[0].ptr, e + k + 1, pf + qf * r * sinf(t));
                }
            } else {
                for (int k = 0; k < 4; ++k)
                    if (e + k < a.n) cw_store<S>(a.op[0].ptr, e + k, cw_lerp_rn(pf, qf, u[k]));
            }
        }
    }
}
