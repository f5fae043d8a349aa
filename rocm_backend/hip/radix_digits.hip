// radix_digits: every pass's digit counts of each row, in one launch before the onesweep
// passes (radix_sweep.hip, whose a.counts layout and cw_radix_totals it shares). families/sort.py
// launches it at DIGITS_BLOCKS_PER_CU blocks a multiprocessor.
//
// Block b counts the ranges [b * per, (b + 1) * per) of the rows' ranges (a.chunk keys each):
// the ranges it has of one row are one run of the row, read as one stream (16 bytes a load where
// it starts 16-byte aligned and its elements are adjacent, the next step's loads in flight
// while a step's keys are counted), and its counts of the row go to the row's totals when it
// leaves the row (once a block for a one-row sort).
//
// The count was bound by instructions: the passes counted and the key's making (a.decode) were
// read for every key, each key's digits a loop of unknown length (8-byte keys, 5 digits: 1.5 TB/s).
// Here both are template arguments (cw_radix_digits dispatches once), so a digit costs a byte
// extract, an address and a shared atomic whose pass offset is an immediate; a key made from the
// source gets its class by the passes' own conversion (cw_radix_encode_as, cw_radix_class), its
// mode fixed (probe s22argsort 2, replayed alone against the twin it replaced, interleaved, the
// same counts: quartiles float64 2^26 157.8-171.6 us against 157.7-174.1, float32 68.8-77.2
// against 68.7-76.8, float16 60.0-69.3 against 60.2-68.3; the keys-read kernels unchanged). One
// copy of the counts: the lanes of a warp that add to one count are one atomic (NVIDIA's
// ATOMS.POPC.INC), which 4 copies (a lane's t % 4) split in four. On the H200 (probe s21argsort 1,
// against 4db6d96's kernel, one process, interleaved, bit-exact both directions; with 4 copies in brackets):
// argsort 2^26 float64 352 -> 208 us [231] (1.026 -> 1.003x torch.argsort(stable=True)), int64
// 295 -> 207 [195], float32 209 -> 107, float16 184 -> 77 [81], int16 190 -> 66 [72]; sort float64
// 2^24 (8 digits) 119 -> 78 [105]. Alone (probe 2: the argsort's launch replayed, interleaved, the
// same counts): float64 2^26 316 -> 160 us, where its read alone (no count) takes 129, 4 copies 188,
// 8 loads a step without the next step's in flight 166; float16 171 -> 62 (read alone 56).
#define CW_RADIX_DIGIT_LOADS 4  // 16-byte loads a thread issues a step (8- and 4-byte elements; 2-byte 2, 1-byte 1)
// 16 bytes a load (no vector type: the host tests' prelude has none)
struct alignas(16) cw_radix_w16 {
    cw_u64 lo, hi;
};
// the elements radix_digits reads: the source's (ENC) or the keys'
template <class K, class B, bool ENC> struct cw_radix_digit_elem { typedef K type; };
template <class K, class B> struct cw_radix_digit_elem<K, B, true> { typedef B type; };

// the class key whose digits are counted, of element e (widened to K): ENC, a raw source
// element's, made by the passes' own conversion (cw_radix_encode, then cw_radix_class), MODE
// (a.decode) fixed at compile time; else a key radix_keys wrote: a float's class, bool's and an
// integer's as they are.
template <class K, class B, bool ENC, int MODE> struct cw_radix_digit_key {
    const cw_radix_args& a;
    cw_radix_class<K> c;
    __device__ explicit cw_radix_digit_key(const cw_radix_args& a_) : a(a_), c(a_) {
        if (ENC) c.on = MODE == CW_RADIX_DECODE_FLOAT;
    }
    __device__ inline K operator()(K e) const {
        if (!ENC) return MODE == CW_RADIX_DECODE_FLOAT ? c(e) : e;
        return c(cw_radix_encode_as<K, B, MODE>(a, (B)e));
    }
};

// key e's digits of the passes below P (EXACT) or below `passes` (<= P), counted
template <class K, int P, bool EXACT> __device__ inline void cw_radix_digits_add(cw_u32* cnt, K e, int passes) {
#pragma unroll
    for (int q = 0; q < P; ++q) {
        if (!EXACT && q >= passes) break;
        atomicAdd(&cnt[q * CW_RADIX_DIGITS + ((cw_u32)(e >> (8 * q)) & 255u)], 1u);
    }
}

// the counting of cw_radix_digits, its MODE and passes (P, EXACT) fixed
template <class K, class B, bool ENC, int MODE, int P, bool EXACT>
__device__ inline void cw_radix_digits_body(const cw_radix_args& a, cw_u32* cnt, int passes) {
    typedef typename cw_radix_digit_elem<K, B, ENC>::type E;
    const int V = 16 / sizeof(E);
    // 16-byte loads a step: 1- and 2-byte elements take fewer, whose keys take more registers
    const int VL = sizeof(E) >= 4 ? CW_RADIX_DIGIT_LOADS : (int)sizeof(E) * CW_RADIX_DIGIT_LOADS / 4;
    const int STEP = CW_RADIX_BLOCK * VL;
    union W {
        cw_radix_w16 v;
        E e[16 / sizeof(E)];
    };
    const cw_radix_digit_key<K, B, ENC, MODE> key(a);
    const int t = threadIdx.x;
    const cw_i64 n = a.rows * a.blocks, per = (n + gridDim.x - 1) / gridDim.x, g0 = (cw_i64)blockIdx.x * per;
    const cw_i64 g1 = g0 + per < n ? g0 + per : n;
    const cw_i64 stride = ENC ? a.src_stride : 1;
    for (cw_i64 g = g0; g < g1;) {
        // this block's ranges of row r: [lo, hi) of the row
        const cw_i64 r = g / a.blocks, ge = (r + 1) * a.blocks < g1 ? (r + 1) * a.blocks : g1;
        const cw_i64 lo = (g - r * a.blocks) * a.chunk, end = (ge - r * a.blocks) * a.chunk;
        const cw_i64 hi = end < a.L ? end : a.L;
        g = ge;
        const E* elems = ENC ? (const E*)cw_radix_source_row<B>(a, r) : (const E*)((const K*)a.keys_in + r * a.L);
        cw_i64 p0 = lo + t;
        if (stride == 1 && ((cw_u64)(elems + lo) & 15ull) == 0ull) {  // the same for the block
            const cw_radix_w16* vin = (const cw_radix_w16*)(elems + lo);
            const cw_i64 nv = (hi - lo) / V;
            W w[VL];
#pragma unroll
            for (int i = 0; i < VL; ++i) {
                const cw_i64 q = t + (cw_i64)i * CW_RADIX_BLOCK;
                w[i].v = q < nv ? vin[q] : cw_radix_w16{0ull, 0ull};
            }
            for (cw_i64 q0 = t; q0 < nv; q0 += STEP) {
                W nx[VL];  // the next step's, loaded while this step's keys are counted
#pragma unroll
                for (int i = 0; i < VL; ++i) {
                    const cw_i64 q = q0 + STEP + (cw_i64)i * CW_RADIX_BLOCK;
                    nx[i].v = q < nv ? vin[q] : cw_radix_w16{0ull, 0ull};
                }
#pragma unroll
                for (int i = 0; i < VL; ++i) {
                    if (q0 + (cw_i64)i * CW_RADIX_BLOCK < nv) {
#pragma unroll
                        for (int j = 0; j < V; ++j) cw_radix_digits_add<K, P, EXACT>(cnt, key((K)w[i].e[j]), passes);
                    }
                }
#pragma unroll
                for (int i = 0; i < VL; ++i) w[i] = nx[i];
            }
            p0 = lo + nv * V + t;  // the tail, one element a load
        }
        for (; p0 < hi; p0 += CW_RADIX_BLOCK * CW_RADIX_DIGIT_LOADS) {
            E e[CW_RADIX_DIGIT_LOADS];
#pragma unroll
            for (int i = 0; i < CW_RADIX_DIGIT_LOADS; ++i) {
                const cw_i64 p = p0 + (cw_i64)i * CW_RADIX_BLOCK;
                e[i] = p < hi ? elems[p * stride] : (E)0;
            }
#pragma unroll
            for (int i = 0; i < CW_RADIX_DIGIT_LOADS; ++i)
                if (p0 + (cw_i64)i * CW_RADIX_BLOCK < hi) cw_radix_digits_add<K, P, EXACT>(cnt, key((K)e[i]), passes);
        }
        __syncthreads();  // the block's counts of row r, to its totals
        cw_u64* tot = cw_radix_totals(a, r);
        for (int j = t; j < passes * CW_RADIX_DIGITS; j += CW_RADIX_BLOCK) {
            if (cnt[j]) atomicAdd(&tot[j], (cw_u64)cnt[j]);
            cnt[j] = 0u;
        }
        __syncthreads();
    }
}
// the passes counted, fixed: the counts families/sort.py asks for (every pass of the key: 8, 4,
// 2 or 1; an argsort's up to its first pass of items: 8-byte keys' 4 or 5, the others' 1), any
// other up to the key's bytes checked a digit
template <class K, class B, bool ENC, int MODE>
__device__ inline void cw_radix_digits_passes(const cw_radix_args& a, cw_u32* cnt, int passes) {
    if (sizeof(K) == 8) {
        if (passes == 8) cw_radix_digits_body<K, B, ENC, MODE, 8, true>(a, cnt, passes);
        else if (passes == 5) cw_radix_digits_body<K, B, ENC, MODE, 5, true>(a, cnt, passes);
        else if (passes == 4) cw_radix_digits_body<K, B, ENC, MODE, 4, true>(a, cnt, passes);
        else cw_radix_digits_body<K, B, ENC, MODE, 8, false>(a, cnt, passes);
    } else {
        if (passes == 1) cw_radix_digits_body<K, B, ENC, MODE, 1, true>(a, cnt, passes);
        else if (passes == 2) cw_radix_digits_body<K, B, ENC, MODE, 2, true>(a, cnt, passes);
        else if (passes == 4) cw_radix_digits_body<K, B, ENC, MODE, 4, true>(a, cnt, passes);
        else cw_radix_digits_body<K, B, ENC, MODE, 4, false>(a, cnt, passes);
    }
}
// ENC (radix_digits_enc_*): the keys made from the source (B: its bytes) as they are counted,
// and not written: the first pass makes them again. a.shift: the passes at shifts below it
// alone (an argsort's first pass of items counts the rest).
template <class K, class B = K, bool ENC = false> __device__ inline void cw_radix_digits(const cw_radix_args& a) {
    __shared__ cw_u32 cnt[sizeof(K) * CW_RADIX_DIGITS];
    const int passes = a.shift ? a.shift / 8 : (a.bits + 7) / 8;
    for (int j = threadIdx.x; j < passes * CW_RADIX_DIGITS; j += CW_RADIX_BLOCK) cnt[j] = 0u;
    __syncthreads();
    if (a.decode == CW_RADIX_DECODE_FLOAT && (!ENC || sizeof(B) > 1))
        cw_radix_digits_passes<K, B, ENC, CW_RADIX_DECODE_FLOAT>(a, cnt, passes);
    else if (ENC && sizeof(B) == 1 && a.decode == CW_RADIX_GATHER)
        cw_radix_digits_passes<K, B, ENC, CW_RADIX_GATHER>(a, cnt, passes);
    else
        cw_radix_digits_passes<K, B, ENC, CW_RADIX_DECODE_INT>(a, cnt, passes);
}
