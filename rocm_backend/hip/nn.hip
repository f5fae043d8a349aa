// Neural-network kernels of the fallback path (rocm_backend/nn_fallback.py) and the
// primitives MIOpen does not cover: im2col (convolution = im2col + GEMM), col2im
// (transposed convolution = GEMM + col2im), max/avg pooling, nearest upsampling.
//
// Everything is 2-D over (N, C, H, W); 1-D problems arrive with H = 1. One argument
// struct for all of them (rocm_backend/nn_kernels.py lays it out for the host):
//   out                 destination (always C-contiguous, offset 0)
//   in, in_offset       source and its element offset; in_s* its strides in elements
//   n                   number of work items (one per destination element)
//   N C H W             source dims;  OH OW  destination spatial dims
//   KH KW SH SW PH PW DH DW   window, stride, padding, dilation
//   G                   groups;  x0 x1  op-specific (see each kernel)
//   index32             1 when every index fits 32 bits (cheaper division)
// No headers, no warp-size assumptions: one thread per output element, grid-stride.

struct cw_nn_args {
    char* out;
    const char* in;
    cw_i64 in_offset;
    cw_i64 n;
    cw_i64 N, C, H, W;
    cw_i64 in_sN, in_sC, in_sH, in_sW;
    cw_i64 OH, OW;
    cw_i64 KH, KW, SH, SW, PH, PW, DH, DW;
    cw_i64 G;
    cw_i64 x0, x1;
    cw_i64 index32;
};

// split a flat index into (rest, i % m) in index type I
template <class I> __device__ inline I cw_nn_divmod(I& rest, I m) {
    I q = rest / m;
    I r = rest - q * m;
    rest = q;
    return r;
}

// im2col: cols[n][g][k][p] (k = (ci, kh, kw) over Cin/G * KH * KW; p = (oh, ow)) holds
// the input sample under tap k of output position p (zero in the padding). B is a raw
// element type of the dtype's size: this is pure data movement.
template <class B, class I> __device__ inline void cw_im2col_body(const cw_nn_args& a) {
    const I OH = (I)a.OH, OW = (I)a.OW, KH = (I)a.KH, KW = (I)a.KW, G = (I)a.G;
    const I cg = (I)(a.C / a.G);
    const I P = OH * OW, K = cg * KH * KW;
    const B* in = (const B*)a.in;
    B* out = (B*)a.out;
    CW_GRID_STRIDE(i, a.n) {
        I rest = (I)i;
        I p = cw_nn_divmod<I>(rest, P);
        I k = cw_nn_divmod<I>(rest, K);
        I g = cw_nn_divmod<I>(rest, G);
        I n = rest;
        I kk = k;
        I kw = cw_nn_divmod<I>(kk, KW);
        I kh = cw_nn_divmod<I>(kk, KH);
        I ci = kk;
        I pp = p;
        I ow = cw_nn_divmod<I>(pp, OW);
        I oh = pp;
        cw_i64 ih = (cw_i64)oh * a.SH - a.PH + (cw_i64)kh * a.DH;
        cw_i64 iw = (cw_i64)ow * a.SW - a.PW + (cw_i64)kw * a.DW;
        B v = B();
        if (ih >= 0 && ih < a.H && iw >= 0 && iw < a.W) {
            cw_i64 c = (cw_i64)g * cg + ci;
            v = in[a.in_offset + (cw_i64)n * a.in_sN + c * a.in_sC + ih * a.in_sH + iw * a.in_sW];
        }
        out[i] = v;
    }
}
template <class B> __device__ inline void cw_im2col(const cw_nn_args& a) {
    if (a.index32) cw_im2col_body<B, cw_u32>(a);
    else cw_im2col_body<B, cw_i64>(a);
}

// col2im for the transposed convolution: out[n][co][oh][ow] (co over all G groups,
// x0 = output channels per group) sums cols[n][g][(co_g, kh, kw)][(ih, iw)] over the
// taps whose input position (oh + PH - kh*DH) / SH, (ow + PW - kw*DW) / SW is a whole
// in-range index. cols (type T: the GEMM's float/double output) is contiguous with
// input spatial dims H x W; the sum runs in T and is stored once as S.
template <class S, class T, class I> __device__ inline void cw_col2im_body(const cw_nn_args& a) {
    const I OH = (I)a.OH, OW = (I)a.OW, C = (I)a.C;
    const cw_i64 cog = a.x0, KH = a.KH, KW = a.KW;
    const cw_i64 P = a.H * a.W, Kc = cog * KH * KW;
    const T* cols = (const T*)a.in;
    CW_GRID_STRIDE(i, a.n) {
        I rest = (I)i;
        I ow = cw_nn_divmod<I>(rest, OW);
        I oh = cw_nn_divmod<I>(rest, OH);
        I co = cw_nn_divmod<I>(rest, C);
        I n = rest;
        cw_i64 g = (cw_i64)co / cog, cl = (cw_i64)co - g * cog;
        const T* base = cols + (((cw_i64)n * a.G + g) * Kc + cl * KH * KW) * P;
        T acc = (T)0;
        for (cw_i64 kh = 0; kh < KH; ++kh) {
            cw_i64 hn = (cw_i64)oh + a.PH - kh * a.DH;
            if (hn < 0 || hn % a.SH) continue;
            cw_i64 ih = hn / a.SH;
            if (ih >= a.H) continue;
            for (cw_i64 kw = 0; kw < KW; ++kw) {
                cw_i64 wn = (cw_i64)ow + a.PW - kw * a.DW;
                if (wn < 0 || wn % a.SW) continue;
                cw_i64 iw = wn / a.SW;
                if (iw >= a.W) continue;
                acc += base[(kh * KW + kw) * P + ih * a.W + iw];
            }
        }
        cw_store<S>(a.out, (cw_i64)i, acc);
    }
}
template <class S, class T> __device__ inline void cw_col2im(const cw_nn_args& a) {
    if (a.index32) cw_col2im_body<S, T, cw_u32>(a);
    else cw_col2im_body<S, T, cw_i64>(a);
}

// (n, c, oh, ow) of a flat output index, and the input base offset of (n, c)
template <class I> __device__ inline cw_i64 cw_pool_decode(const cw_nn_args& a, cw_i64 i, I& oh, I& ow) {
    I rest = (I)i;
    ow = cw_nn_divmod<I>(rest, (I)a.OW);
    oh = cw_nn_divmod<I>(rest, (I)a.OH);
    I c = cw_nn_divmod<I>(rest, (I)a.C);
    I n = rest;
    return a.in_offset + (cw_i64)n * a.in_sN + (cw_i64)c * a.in_sC;
}

// max pooling: padding counts as -inf; a NaN anywhere in the window gives NaN
template <class S, class I> __device__ inline void cw_max_pool_body(const cw_nn_args& a) {
    typedef typename cw_traits<S>::compute C;
    CW_GRID_STRIDE(i, a.n) {
        I oh, ow;
        cw_i64 base = cw_pool_decode<I>(a, i, oh, ow);
        C best = -cw_inf<C>();
        bool nan = false;
        for (cw_i64 kh = 0; kh < a.KH && !nan; ++kh) {
            cw_i64 ih = (cw_i64)oh * a.SH - a.PH + kh * a.DH;
            if (ih < 0 || ih >= a.H) continue;
            for (cw_i64 kw = 0; kw < a.KW; ++kw) {
                cw_i64 iw = (cw_i64)ow * a.SW - a.PW + kw * a.DW;
                if (iw < 0 || iw >= a.W) continue;
                C v = cw_load<S>(a.in, base + ih * a.in_sH + iw * a.in_sW);
                if (!(v == v)) { best = v; nan = true; break; }
                if (v > best) best = v;
            }
        }
        cw_store<S>(a.out, (cw_i64)i, best);
    }
}
template <class S> __device__ inline void cw_max_pool(const cw_nn_args& a) {
    if (a.index32) cw_max_pool_body<S, cw_u32>(a);
    else cw_max_pool_body<S, cw_i64>(a);
}

// average pooling (no dilation): x0 = 1 counts padded cells in the divisor
template <class S, class I> __device__ inline void cw_avg_pool_body(const cw_nn_args& a) {
    typedef typename cw_traits<S>::compute C;
    CW_GRID_STRIDE(i, a.n) {
        I oh, ow;
        cw_i64 base = cw_pool_decode<I>(a, i, oh, ow);
        C sum = (C)0;
        cw_i64 count = 0;
        for (cw_i64 kh = 0; kh < a.KH; ++kh) {
            cw_i64 ih = (cw_i64)oh * a.SH - a.PH + kh;
            if (ih < 0 || ih >= a.H) continue;
            for (cw_i64 kw = 0; kw < a.KW; ++kw) {
                cw_i64 iw = (cw_i64)ow * a.SW - a.PW + kw;
                if (iw < 0 || iw >= a.W) continue;
                sum += cw_load<S>(a.in, base + ih * a.in_sH + iw * a.in_sW);
                ++count;
            }
        }
        cw_i64 divisor = a.x0 ? a.KH * a.KW : count;
        cw_store<S>(a.out, (cw_i64)i, divisor > 0 ? sum / (C)divisor : sum);
    }
}
template <class S> __device__ inline void cw_avg_pool(const cw_nn_args& a) {
    if (a.index32) cw_avg_pool_body<S, cw_u32>(a);
    else cw_avg_pool_body<S, cw_i64>(a);
}

// nearest upsampling: source index floor(dst * in / out), exact in integers; raw copy
template <class B, class I> __device__ inline void cw_upsample_body(const cw_nn_args& a) {
    const B* in = (const B*)a.in;
    B* out = (B*)a.out;
    CW_GRID_STRIDE(i, a.n) {
        I oh, ow;
        cw_i64 base = cw_pool_decode<I>(a, i, oh, ow);
        cw_i64 ih = (cw_i64)oh * a.H / a.OH, iw = (cw_i64)ow * a.W / a.OW;
        out[i] = in[base + ih * a.in_sH + iw * a.in_sW];
    }
}
template <class B> __device__ inline void cw_upsample(const cw_nn_args& a) {
    if (a.index32) cw_upsample_body<B, cw_u32>(a);
    else cw_upsample_body<B, cw_i64>(a);
}
