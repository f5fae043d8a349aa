// Neural-network kernels of the fallback path (rocm_backend/families/nn_fallback.py) and the
// primitives MIOpen does not cover: im2col (convolution = im2col + GEMM), col2im
// (transposed convolution = GEMM + col2im), max/avg pooling, nearest upsampling, and the
// padding NaN fix-up of MIOpen convolutions (rocm_backend/families/nn.py).
//
// Everything is 2-D over (N, C, H, W); 1-D problems arrive with H = 1. One argument
// struct for all of them (rocm_backend/abi/structs.py declares it, families/nn_launch.py sizes the grids):
//   out                 destination (always C-contiguous, offset 0)
//   in, in_offset       source and its element offset; in_s* its strides in elements
//   n                   number of destination elements
//   N C H W             source dims;  OH OW  destination spatial dims
//   KH KW SH SW PH PW DH DW   window, stride, padding, dilation
//   G                   groups;  x0..x3  op-specific (see each kernel)
//   index32             1 when every element count and offset fits 31 bits
//   rows, P, TPL        "row" kernels: rows of P positions each (see CW_NN_ROWS)
// No warp-size assumptions: lane groups are a launch parameter, never the hardware width.

// struct cw_nn_args: abi.h (generated from rocm_backend/abi/structs.py)

// Row kernels: the destination is `rows` rows of P = OH*OW positions (a row is one
// (n, c) plane, or one (n, c, kh, kw) row of cols for im2col). A block holds
// 256 / 2^TPL lane groups of 2^TPL threads, one group per row at a time; gridDim.y
// groups share a row, so a row's L = 2^TPL * gridDim.y threads step through its
// positions L at a time. The row decode is paid once per thread and row, and (oh, ow)
// advances by a constant step: no division per element. The host picks TPL and
// gridDim.y so that L wastes few lanes and the device is full (nn_launch.row_config).
#define CW_NN_ROWS(a, I, w, row)                                                                \
    const int cw_tp = 1 << (int)(a).TPL;                                                       \
    const int cw_slots = (int)blockDim.x >> (int)(a).TPL;                                      \
    const cw_nn_walk<I> w(a, (int)threadIdx.x & (cw_tp - 1), cw_tp);                           \
    for (cw_i64 row = (cw_i64)blockIdx.x * cw_slots + ((int)threadIdx.x >> (int)(a).TPL);      \
         row < (a).rows; row += (cw_i64)gridDim.x * cw_slots)

// (oh, ow) of this thread's first position, and the step of L positions
template <class I> struct cw_nn_walk {
    I p0, oh0, ow0, L, dq, dr;
    __device__ inline cw_nn_walk(const cw_nn_args& a, int lane, int tp) {
        const I OW = (I)a.OW;
        p0 = (I)blockIdx.y * tp + lane;
        oh0 = p0 / OW;
        ow0 = p0 - oh0 * OW;
        L = (I)gridDim.y * tp;
        dq = L / OW;
        dr = L - dq * OW;
    }
};

// im2col: cols[n][g][k][p] (k = (ci, kh, kw) over Cin/G * KH * KW; p = (oh, ow)) holds
// the input sample under tap k of output position p (zero in the padding). The row
// index (n*G + g)*K + k equals (n*C + c)*KH*KW + kh*KW + kw, so groups need no decode.
// B is a raw element type of the dtype's size: this is pure data movement.
template <class B, class I> __device__ inline void cw_im2col_body(const cw_nn_args& a) {
    const I H = (I)a.H, W = (I)a.W, OW = (I)a.OW, P = (I)a.P, KW = (I)a.KW, C = (I)a.C;
    const I SH = (I)a.SH, SW = (I)a.SW, taps = (I)(a.KH * a.KW);
    const I sH = (I)a.in_sH, sW = (I)a.in_sW;
    CW_NN_ROWS(a, I, w, row) {
        const I r = (I)row;
        const I plane = r / taps, t = r - plane * taps;
        const I kh = t / KW, kw = t - kh * KW;
        const I n = plane / C, c = plane - n * C;
        const B* src = (const B*)a.in + (a.in_offset + (cw_i64)n * a.in_sN + (cw_i64)c * a.in_sC);
        B* dst = (B*)a.out + row * a.P;
        I ow = w.ow0;
        I ih = w.oh0 * SH - (I)a.PH + kh * (I)a.DH, iw = ow * SW - (I)a.PW + kw * (I)a.DW;
        const I ih_step = w.dq * SH, iw_step = w.dr * SW, iw_wrap = OW * SW;
        for (I p = w.p0; p < P; p += w.L) {
            B v = B();
            if (ih >= 0 && ih < H && iw >= 0 && iw < W) v = src[ih * sH + iw * sW];
            dst[p] = v;
            ow += w.dr;
            ih += ih_step;
            iw += iw_step;
            if (ow >= OW) { ow -= OW; ih += SH; iw -= iw_wrap; }
        }
    }
}
template <class B> __device__ inline void cw_im2col(const cw_nn_args& a) {
    if (a.index32) cw_im2col_body<B, int>(a);
    else cw_im2col_body<B, cw_i64>(a);
}

// col2im for the transposed convolution: out[n][co][oh][ow] (co over all G groups,
// x0 = output channels per group) sums cols[n][g][(co_g, kh, kw)][(ih, iw)] over the
// taps whose input position (oh + PH - kh*DH) / SH, (ow + PW - kw*DW) / SW is a whole
// in-range index. cols (type T: the GEMM's float/double output) is contiguous with
// input spatial dims H x W; the sum runs in T and is stored once as S. One thread per
// output element: the taps of one output are a gather, so the sum is deterministic.
template <class S, class T, class I> __device__ inline void cw_col2im_body(const cw_nn_args& a) {
    const I OH = (I)a.OH, OW = (I)a.OW, C = (I)a.C, H = (I)a.H, W = (I)a.W;
    const I KH = (I)a.KH, KW = (I)a.KW, SH = (I)a.SH, SW = (I)a.SW, DH = (I)a.DH, DW = (I)a.DW;
    const I cog = (I)a.x0, P = H * W;
    const cw_i64 Kc = a.x0 * a.KH * a.KW;
    const T* cols = (const T*)a.in;
    CW_GRID_STRIDE(i, a.n) {
        I rest = (I)i;
        I q = rest / OW;
        const I ow = rest - q * OW;
        rest = q; q = rest / OH;
        const I oh = rest - q * OH;
        rest = q; q = rest / C;
        const I co = rest - q * C, n = q;
        const I g = co / cog, cl = co - g * cog;
        const T* base = cols + (((cw_i64)n * a.G + g) * Kc + (cw_i64)cl * a.KH * a.KW) * P;
        T acc = (T)0;
        for (I kh = 0; kh < KH; ++kh) {
            const I hn = oh + (I)a.PH - kh * DH;
            if (hn < 0) break;  // hn falls as kh grows
            const I ih = hn / SH;
            if (ih * SH != hn || ih >= H) continue;
            for (I kw = 0; kw < KW; ++kw) {
                const I wn = ow + (I)a.PW - kw * DW;
                if (wn < 0) break;
                const I iw = wn / SW;
                if (iw * SW != wn || iw >= W) continue;
                acc += base[(kh * KW + kw) * P + ih * W + iw];
            }
        }
        cw_store<S>(a.out, (cw_i64)i, acc);
    }
}
template <class S, class T> __device__ inline void cw_col2im(const cw_nn_args& a) {
    if (a.index32) cw_col2im_body<S, T, int>(a);
    else cw_col2im_body<S, T, cw_i64>(a);
}

// the (n, c) plane of a row of a pooling-like kernel, as a pointer
template <class I> __device__ inline const char* cw_nn_plane(const cw_nn_args& a, cw_i64 row, int item) {
    const I r = (I)row, C = (I)a.C;
    const I n = r / C, c = r - n * C;
    return a.in + (a.in_offset + (cw_i64)n * a.in_sN + (cw_i64)c * a.in_sC) * item;
}

// Max pooling orders values by a key. float/double: the values themselves. The 16-bit
// floats: their bits mapped to an unsigned key with the same order (no conversion per
// tap, so float16/bfloat16 cost what float32 does); the one difference is that +0
// beats -0 where the float order keeps the first of the two.
template <class S> struct cw_maxkey {
    typedef typename cw_traits<S>::compute K;
    static __device__ inline K lowest() { return -cw_inf<K>(); }
    static __device__ inline K key(S s, bool& nan) { K v = cw_traits<S>::load(s); nan = !(v == v); return v; }
    static __device__ inline S value(K k) { return cw_traits<S>::store(k); }
};
template <class S, cw_u32 INF> struct cw_maxkey16 {
    typedef cw_u32 K;
    static __device__ inline K lowest() { return (0x8000u | INF) ^ 0xffffu; }  // key of -inf
    static __device__ inline K key(S s, bool& nan) {
        const cw_u32 b = s.bits;
        nan = (b & 0x7fffu) > INF;
        return b ^ ((b & 0x8000u) ? 0xffffu : 0x8000u);
    }
    static __device__ inline S value(K k) { S s; s.bits = (unsigned short)((k & 0x8000u) ? k ^ 0x8000u : k ^ 0xffffu); return s; }
};
template <> struct cw_maxkey<cw_f16> : cw_maxkey16<cw_f16, 0x7c00u> {};
template <> struct cw_maxkey<cw_bf16> : cw_maxkey16<cw_bf16, 0x7f80u> {};

// max pooling: padding counts as -inf; a NaN anywhere in the window gives that NaN
template <class S, class I> __device__ inline void cw_max_pool_body(const cw_nn_args& a) {
    typedef cw_maxkey<S> M;
    typedef typename M::K K;
    const I H = (I)a.H, W = (I)a.W, OW = (I)a.OW, P = (I)a.P, KH = (I)a.KH, KW = (I)a.KW;
    const I SH = (I)a.SH, SW = (I)a.SW, DH = (I)a.DH, DW = (I)a.DW;
    const I sH = (I)a.in_sH, sW = (I)a.in_sW;
    CW_NN_ROWS(a, I, w, row) {
        const S* src = (const S*)cw_nn_plane<I>(a, row, (int)sizeof(S));
        S* dst = (S*)a.out + row * a.P;
        I ow = w.ow0, ih0 = w.oh0 * SH - (I)a.PH, iw0 = ow * SW - (I)a.PW;
        for (I p = w.p0; p < P; p += w.L) {
            K best = M::lowest();
            bool nan = false;
            for (I kh = 0; kh < KH && !nan; ++kh) {
                const I ih = ih0 + kh * DH;
                if (ih < 0 || ih >= H) continue;
                const S* line = src + ih * sH;
                for (I kw = 0; kw < KW; ++kw) {
                    const I iw = iw0 + kw * DW;
                    if (iw < 0 || iw >= W) continue;
                    const K k = M::key(line[iw * sW], nan);
                    if (nan) { best = k; break; }
                    if (k > best) best = k;
                }
            }
            dst[p] = M::value(best);
            ow += w.dr;
            ih0 += w.dq * SH;
            iw0 += w.dr * SW;
            if (ow >= OW) { ow -= OW; ih0 += SH; iw0 -= OW * SW; }
        }
    }
}
template <class S> __device__ inline void cw_max_pool(const cw_nn_args& a) {
    if (a.index32) cw_max_pool_body<S, int>(a);
    else cw_max_pool_body<S, cw_i64>(a);
}

// average pooling (no dilation): x0 = 1 counts padded cells in the divisor
template <class S, class I> __device__ inline void cw_avg_pool_body(const cw_nn_args& a) {
    typedef typename cw_traits<S>::compute C;
    const I H = (I)a.H, W = (I)a.W, OW = (I)a.OW, P = (I)a.P, KH = (I)a.KH, KW = (I)a.KW;
    const I SH = (I)a.SH, SW = (I)a.SW, sH = (I)a.in_sH, sW = (I)a.in_sW;
    const C full = (C)(a.KH * a.KW);
    CW_NN_ROWS(a, I, w, row) {
        const S* src = (const S*)cw_nn_plane<I>(a, row, (int)sizeof(S));
        I ow = w.ow0, ih0 = w.oh0 * SH - (I)a.PH, iw0 = ow * SW - (I)a.PW;
        for (I p = w.p0; p < P; p += w.L) {
            // the window clipped to the input: no per-tap bounds checks
            const I h0 = ih0 < 0 ? 0 : ih0, h1 = ih0 + KH > H ? H : ih0 + KH;
            const I w0 = iw0 < 0 ? 0 : iw0, w1 = iw0 + KW > W ? W : iw0 + KW;
            C sum = (C)0;
            for (I ih = h0; ih < h1; ++ih) {
                const S* line = src + ih * sH;
                for (I iw = w0; iw < w1; ++iw) sum += cw_traits<S>::load(line[iw * sW]);
            }
            const I count = (h1 > h0 && w1 > w0) ? (h1 - h0) * (w1 - w0) : 0;
            const C divisor = a.x0 ? full : (C)count;
            cw_store<S>(a.out, row * a.P + p, divisor > (C)0 ? sum / divisor : sum);
            ow += w.dr;
            ih0 += w.dq * SH;
            iw0 += w.dr * SW;
            if (ow >= OW) { ow -= OW; ih0 += SH; iw0 -= OW * SW; }
        }
    }
}
template <class S> __device__ inline void cw_avg_pool(const cw_nn_args& a) {
    if (a.index32) cw_avg_pool_body<S, int>(a);
    else cw_avg_pool_body<S, cw_i64>(a);
}

// nearest upsampling: source index floor(dst * in / out), exact in integers; raw copy.
// index32 also promises OH*H and OW*W fit 31 bits.
template <class B, class I> __device__ inline void cw_upsample_body(const cw_nn_args& a) {
    const I H = (I)a.H, W = (I)a.W, OH = (I)a.OH, OW = (I)a.OW, P = (I)a.P;
    const I sH = (I)a.in_sH, sW = (I)a.in_sW;
    CW_NN_ROWS(a, I, w, row) {
        const B* src = (const B*)cw_nn_plane<I>(a, row, (int)sizeof(B));
        B* dst = (B*)a.out + row * a.P;
        I oh = w.oh0, ow = w.ow0;
        for (I p = w.p0; p < P; p += w.L) {
            dst[p] = src[(oh * H / OH) * sH + (ow * W / OW) * sW];
            ow += w.dr;
            oh += w.dq;
            if (ow >= OW) { ow -= OW; ++oh; }
        }
    }
}
template <class B> __device__ inline void cw_upsample(const cw_nn_args& a) {
    if (a.index32) cw_upsample_body<B, int>(a);
    else cw_upsample_body<B, cw_i64>(a);
}

// ---------------------------------------------------------------------------------
// Padding NaN fix-up of MIOpen convolutions. MIOpen/cuDNN skip the taps that fall on
// the zero padding; IEEE arithmetic on the padded zeros (the contract) adds w * 0,
// which is NaN when w is inf or NaN and +-0 otherwise (and a sum from +0 never ends at
// -0, so skipping +-0 terms changes nothing). So an output is NaN exactly when a tap
// with a non-finite weight in any of its input channels lands on the padding there.

// pad_nan: out = a MIOpen convolution's output (N, C = Cout, OH, OW), in = its contiguous
// weight (Cout, Cin/G, KH, KW), in_sN = Cin/G * KH * KW (one output channel's weights).
// NaN goes wherever a tap whose weight is non-finite for some input channel of the group
// lands on the padding (MIOpen skips those taps; IEEE arithmetic on explicit zeros gives
// NaN). Only the border band can have padded taps: rows outside [x0, x1) and, inside
// them, columns outside [x2, x3); P = band positions per plane, rows = N * P. gridDim.y
// walks the channels; a block first flags its channel's non-finite taps in shared memory
// (racing writes of the same value, no atomics) and leaves when there are none, the
// common case. Kernels of more than CW_PAD_TAPS taps test the weights per tap instead.
#define CW_PAD_TAPS 2048
template <class S, class I> __device__ inline void cw_pad_nan_body(const cw_nn_args& a) {
    typedef typename cw_traits<S>::compute C;
    __shared__ unsigned char hit[CW_PAD_TAPS];
    __shared__ int any;
    const S* wt = (const S*)a.in;
    const I KH = (I)a.KH, KW = (I)a.KW, OW = (I)a.OW, H = (I)a.H, W = (I)a.W;
    const I top = (I)a.x0, bot = (I)a.x1, left = (I)a.x2, right = (I)a.x3, B = (I)a.P;
    const I band_rows = (I)a.OH - (bot - top), band_cols = OW - (right - left);
    const cw_i64 taps = a.KH * a.KW, per_oc = a.in_sN;
    const bool flags_fit = taps <= CW_PAD_TAPS;
    for (cw_i64 oc = blockIdx.y; oc < a.C; oc += gridDim.y) {
        const S* w = wt + oc * per_oc;
        if (threadIdx.x == 0) any = 0;
        if (flags_fit)
            for (cw_i64 t = threadIdx.x; t < taps; t += blockDim.x) hit[t] = 0;
        __syncthreads();
        for (cw_i64 e = threadIdx.x; e < per_oc; e += blockDim.x) {
            const C v = cw_traits<S>::load(w[e]);
            if (!(v - v == (C)0)) {
                any = 1;
                if (flags_fit) hit[e % taps] = 1;
            }
        }
        __syncthreads();
        if (any) {  // block-uniform
            CW_GRID_STRIDE(i, a.rows) {
                const I n = (I)i / B, j = (I)i - n * B;
                I oh, ow;
                if (j < band_rows * OW) {
                    const I k = j / OW;
                    ow = j - k * OW;
                    oh = k < top ? k : bot + (k - top);
                } else {
                    const I j2 = j - band_rows * OW, k = j2 / band_cols, kc = j2 - k * band_cols;
                    oh = top + k;
                    ow = kc < left ? kc : right + (kc - left);
                }
                const I ih0 = oh * (I)a.SH - (I)a.PH, iw0 = ow * (I)a.SW - (I)a.PW;
                bool nan = false;
                for (I kh = 0, t = 0; kh < KH && !nan; ++kh) {
                    const I ih = ih0 + kh * (I)a.DH;
                    const bool row_out = ih < 0 || ih >= H;
                    for (I kw = 0; kw < KW; ++kw, ++t) {
                        const I iw = iw0 + kw * (I)a.DW;
                        if (!(row_out || iw < 0 || iw >= W)) continue;
                        bool flagged = false;
                        if (flags_fit) {
                            flagged = hit[t] != 0;
                        } else {
                            for (cw_i64 e = t; e < per_oc && !flagged; e += taps) {
                                const C v = cw_traits<S>::load(w[e]);
                                flagged = !(v - v == (C)0);
                            }
                        }
                        if (flagged) { nan = true; break; }
                    }
                }
                if (nan) cw_store<S>(a.out, (((cw_i64)n * a.C + oc) * a.OH + oh) * a.OW + ow, cw_nan<C>());
            }
        }
        __syncthreads();  // hit and any are reused by the next channel
    }
}
template <class S> __device__ inline void cw_pad_nan(const cw_nn_args& a) {
    if (a.index32) cw_pad_nan_body<S, int>(a);
    else cw_pad_nan_body<S, cw_i64>(a);
}

// finite_flag: out = gridDim.x int32 flags in host-visible memory (rocm_backend/
// finite_weights.py), in = n elements of a weight buffer, x0 = the check's tag. Block b
// writes out[b] = 2 * x0 + 1 when its grid-stride share holds an inf or NaN, else
// 2 * x0; the host reads the flags once the kernel has run, with no synchronization (a
// flag without this tag means not yet).
template <class S> __device__ inline void cw_finite_flag(const cw_nn_args& a) {
    typedef typename cw_traits<S>::compute C;
    __shared__ int any;
    const S* w = (const S*)a.in;
    if (threadIdx.x == 0) any = 0;
    __syncthreads();
    CW_GRID_STRIDE(i, a.n) {
        const C v = cw_traits<S>::load(w[i]);
        if (!(v - v == (C)0)) any = 1;  // racing writes of the same value
    }
    __syncthreads();
    if (threadIdx.x == 0) ((volatile int*)a.out)[blockIdx.x] = (int)(2 * a.x0 + any);
}
