// The LSD radix sort's common parts and its rows of one tile: the key classes, the block scan,
// the write-back of sorted keys (cw_radix_value, cw_radix_put) and the rows that share a tile,
// sorted by 4-bit digits (cw_radix_rows). The 8-bit ranking and the rows of a block each are
// radix_block.hip's, the onesweep passes radix_sweep.hip's. families/sort.py drives them; the
// key traits cw_radix<S> are in sort.hip. Appended to the sort module alone
// (codegen/sources.py's MODULE_FILES).
#define CW_RADIX_TILE (CW_RADIX_BLOCK * CW_RADIX_ITEMS)
#define CW_RADIX_DIGITS 256  // an 8-bit digit per pass: the scans and look-backs give one digit to each thread
static_assert(CW_RADIX_BLOCK == CW_RADIX_DIGITS, "one thread per digit");

// the lanes of a warp wait for each other (after a branch some of them took, before a
// shuffle among all): CUDA's lanes may run apart; an AMD wavefront's run in lockstep
#if defined(__AMDGCN__)
#define cw_warp_sync() __builtin_amdgcn_wave_barrier()
#else
#define cw_warp_sync() __syncwarp()
#endif
#define CW_RADIX_WARPS (CW_RADIX_BLOCK / 32)  // a block's warps at most (warps of 32 lanes)
// a set of a warp's lanes (bit l: lane l), as wide as the warp: on NVIDIA 32 bits, shuffles
// with the full mask (HIP's forms read the active lanes first)
#if defined(__HIP_PLATFORM_NVIDIA__)
typedef unsigned int cw_lanes;
#define cw_lanes_first(m) (__ffs((int)(m)) - 1)
#define cw_lanes_count(m) __popc(m)
#define cw_lane_value(v, l) __shfl_sync(0xffffffffu, (v), (l))
#else
typedef cw_u64 cw_lanes;
#define cw_lanes_first(m) (__ffsll((long long)(m)) - 1)
#define cw_lanes_count(m) __popcll(m)
#define cw_lane_value(v, l) __shfl((v), (l))
#endif
// exclusive prefix sum of each thread's v over the block, in one barrier: an inclusive scan
// in each warp by shuffles, each warp's total to group[w], then every thread adds the totals
// of the warps before its own (broadcast reads), where 16 threads summed 16 slots each and
// every thread read up to 30 more, behind two barriers. Reads group after the barrier: a
// caller passes a barrier before it writes group again (every one does).
__device__ inline cw_u32 cw_radix_block_scan(cw_u32* group, cw_u32 v) {
    const int t = threadIdx.x, ws = warpSize, lane = t % ws, w = t / ws;
    cw_u32 run = v;
    for (int o = 1; o < ws; o *= 2) {
        const cw_u32 u = (cw_u32)cw_lane_value((int)run, lane >= o ? lane - o : lane);
        if (lane >= o) run += u;
    }
    if (lane == ws - 1) group[w] = run;
    __syncthreads();
    for (int h = 0; h < w; ++h) run += group[h];
    return run - v;
}

// cnt's slot of entry e: one pad word per 16, so that a thread's 16 consecutive entries
// and 16 threads' same entry fall in different banks
#define CW_RADIX_SLOT(e) ((e) + ((e) >> 4))

// thread t's CW_RADIX_ITEMS consecutive keys of a tile of m (padding ~0 past them, which
// sorts last) into registers: every load issued before any is used (a store to shared
// memory between two of them would make each wait for the one before)
template <class K> __device__ inline void cw_radix_load(const K* src, int m, K (&k)[CW_RADIX_ITEMS]) {
#pragma unroll
    for (int i = 0; i < CW_RADIX_ITEMS; ++i) {
        const int p = threadIdx.x * CW_RADIX_ITEMS + i;
        k[i] = p < m ? src[p] : ~(K)0;
    }
}

// the key of k's class (the keys the sort takes as equal): k but for a float's zeros (both
// signs: +0.0's key) and NaNs (every payload and sign: all ones, above +inf's), which
// cw_radix<S>::key keeps apart so that the values decode exactly. Every digit a pass sorts
// by is its class key's; a descending sort's keys carry its flip (a.mask). A caller that knows
// `on` at compile time sets it after the construction (a constant the compiler folds).
template <class K> struct cw_radix_class {
    K flip, zero, nan, lo, hi;  // hi, lo: +inf's and -inf's keys (a NaN's lies outside)
    bool on;
    __device__ explicit cw_radix_class(const cw_radix_args& a) {
        const K sign = (K)1 << (a.bits - 1), all = sign | (sign - 1);
        on = a.decode == CW_RADIX_DECODE_FLOAT;
        flip = (K)a.mask;
        zero = sign;
        nan = all;
        hi = sign | (K)a.inf;
        lo = ~hi & all;
    }
    __device__ inline K operator()(K k) const {
        if (!on) return k;
        const K e = k ^ flip;
        if (e == zero - 1) return zero ^ flip;  // -0.0's key
        return e > hi || e < lo ? nan ^ flip : k;
    }
};

// the key of a raw source element (B: its bytes), as cw_radix<S>::key makes it, with a
// descending sort's flip: a float's (a.decode CW_RADIX_DECODE_FLOAT) and an integer's
// (_INT: a.mask also flips a signed type's sign bit) flip a.mask; bool's (CW_RADIX_GATHER,
// whose values are gathered and whose a.mask is 0) flips a.inf. The kernels that read the
// keys first (radix_digits_enc, a pass with keys_in null: the first onesweep pass and
// radix_block) make them from the source (a.src + a.src_offset + r * a.src_row + j *
// a.src_stride: row r, place j) where radix_keys would write them and the kernel read them.
// cw_radix_encode_as: MODE (a.decode) known at compile time (radix_digits' keys: their classes,
// cw_radix_class, are the digits the passes sort by)
template <class K, class B, int MODE> __device__ inline K cw_radix_encode_as(const cw_radix_args& a, B raw) {
    if (MODE == CW_RADIX_DECODE_FLOAT) {
        const K sign = (K)1 << (a.bits - 1);
        return cw_radix_float<K>((K)raw, sign, sign | (sign - 1)) ^ (K)a.mask;
    }
    if (MODE == CW_RADIX_DECODE_INT) return (K)raw ^ (K)a.mask;
    return (K)(raw != (B)0) ^ (K)a.inf;
}
template <class K, class B> __device__ inline K cw_radix_encode(const cw_radix_args& a, B raw) {
    if (a.decode == CW_RADIX_DECODE_FLOAT) return cw_radix_encode_as<K, B, CW_RADIX_DECODE_FLOAT>(a, raw);
    if (a.decode == CW_RADIX_DECODE_INT) return cw_radix_encode_as<K, B, CW_RADIX_DECODE_INT>(a, raw);
    return cw_radix_encode_as<K, B, CW_RADIX_GATHER>(a, raw);
}
template <class B> __device__ inline const B* cw_radix_source_row(const cw_radix_args& a, cw_i64 r) {
    return (const B*)a.src + a.src_offset + r * a.src_row;
}
// N keys of a row, at places p0 + i * step below n (0 past them: padding), into k: read from
// kin, or (kin null) made from the row's source elements src (cw_radix_source_row). Every
// load is issued before the first key is made: a key made from its load at once kept each
// load behind the one before (on the H200 at c5f68d8, session 13 probe 1: a float32 argsort's
// first pass of 2^24 254 us against 197 for keys read; radix_digits 98 against 56)
template <class K, class B, int N>
__device__ inline void cw_radix_load_keys(const cw_radix_args& a, const K* kin, const B* src, cw_i64 p0, int step,
                                          cw_i64 n, K (&k)[N]) {
    if (kin) {
#pragma unroll
        for (int i = 0; i < N; ++i) {
            const cw_i64 p = p0 + (cw_i64)i * step;
            k[i] = p < n ? kin[p] : (K)0;
        }
        return;
    }
#pragma unroll
    for (int i = 0; i < N; ++i) {  // the raw elements in k first (B is no wider than K)
        const cw_i64 p = p0 + (cw_i64)i * step;
        k[i] = p < n ? (K)src[p * a.src_stride] : (K)0;
    }
#pragma unroll
    for (int i = 0; i < N; ++i) k[i] = cw_radix_encode<K, B>(a, (B)k[i]);
}

static_assert(CW_RADIX_ITEMS < 16, "a thread's count of one digit fits 4 bits (cw_radix_rank)");
// One stable counting pass over a tile of m keys by the 4 bits at `shift` of each key's class
// (row_len 0) or of its row in the tile (its idx / row_len: rows of several keys share a
// tile); the padding past m (at the tile's end before the pass and after it) takes the
// last digit. Thread t holds keys t*ITEMS.. (consecutive, in k and their positions in x;
// idx null: the positions are not carried), counts them per digit
// (in registers) into its own column of cnt (digit-major), whose exclusive scan gives each
// (digit, thread) its first place; each key then goes to that place plus its rank among
// the thread's keys of its digit, in key/idx.
template <class K>
__device__ inline cw_u32 cw_radix_digit(const cw_radix_class<K>& c, K k, cw_u32 x, int shift, cw_u32 row_len) {
    return (row_len ? (x / row_len) >> shift : (cw_u32)(c(k) >> shift)) & 15u;
}
template <class K>
__device__ inline void cw_radix_rank(const cw_radix_class<K>& c, int m, const K (&k)[CW_RADIX_ITEMS],
                                     const cw_u32 (&x)[CW_RADIX_ITEMS], K* key, cw_u32* idx, cw_u32* cnt,
                                     cw_u32* group, int shift, cw_u32 row_len = 0u) {
    const int t = threadIdx.x;
    cw_u32 d[CW_RADIX_ITEMS], r[CW_RADIX_ITEMS];  // each key's digit and its rank among t's keys of that digit
    cw_u64 seen = 0ull;  // t's keys of each digit so far, 4 bits a digit: counted in registers
#pragma unroll
    for (int i = 0; i < CW_RADIX_ITEMS; ++i) {
        d[i] = t * CW_RADIX_ITEMS + i < m ? cw_radix_digit(c, k[i], x[i], shift, row_len) : 15u;
        r[i] = (cw_u32)(seen >> (4 * d[i])) & 15u;
        seen += 1ull << (4 * d[i]);
    }
#pragma unroll
    for (int j = 0; j < 16; ++j) cnt[CW_RADIX_SLOT(j * CW_RADIX_BLOCK + t)] = (cw_u32)(seen >> (4 * j)) & 15u;
    __syncthreads();
    cw_u32 sum = 0u;
    for (int j = 0; j < 16; ++j) sum += cnt[CW_RADIX_SLOT(t * 16 + j)];
    cw_u32 run = cw_radix_block_scan(group, sum);
    for (int j = 0; j < 16; ++j) {
        cw_u32 c = cnt[CW_RADIX_SLOT(t * 16 + j)];
        cnt[CW_RADIX_SLOT(t * 16 + j)] = run;
        run += c;
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < CW_RADIX_ITEMS; ++i) {
        const cw_u32 p = cnt[CW_RADIX_SLOT(d[i] * CW_RADIX_BLOCK + t)] + r[i];
        key[p] = k[i];
        if (idx) idx[p] = x[i];
    }
    __syncthreads();
}
// the same pass over the tile in key/idx
template <class K>
__device__ inline void cw_radix_tile_pass(const cw_radix_class<K>& c, int m, K* key, cw_u32* idx, cw_u32* cnt,
                                          cw_u32* group, int shift, cw_u32 row_len = 0u) {
    const int t = threadIdx.x;
    K k[CW_RADIX_ITEMS];
    cw_u32 x[CW_RADIX_ITEMS];
#pragma unroll
    for (int i = 0; i < CW_RADIX_ITEMS; ++i) {
        k[i] = key[t * CW_RADIX_ITEMS + i];
        x[i] = idx ? idx[t * CW_RADIX_ITEMS + i] : 0u;
    }
    cw_radix_rank(c, m, k, x, key, idx, cnt, group, shift, row_len);
}

// the sorted value of row r's key k (at position j in the row) to vals_out[o]: decoded from
// k (a.decode: an integer's or a float's keys stand for one value each), or gathered from
// src (a bool's: any nonzero byte is True).
template <class B, class K>
__device__ inline void cw_radix_value(const cw_radix_args& a, K k, cw_i64 r, cw_i64 j, cw_i64 o) {
    const K v = k ^ (K)a.mask;
    if (a.decode == CW_RADIX_DECODE_INT) {
        ((B*)a.vals_out)[o] = (B)v;
        return;
    }
    if (a.decode == CW_RADIX_DECODE_FLOAT) {
        const K sign = (K)1 << (a.bits - 1);
        ((B*)a.vals_out)[o] = (B)cw_radix_unfloat<K>(v, sign, sign | (sign - 1));
        return;
    }
    ((B*)a.vals_out)[o] = ((const B*)a.src)[a.src_offset + r * a.src_row + j * a.src_stride];
}

// the sorted key k of row r, at position j in the row, to place o of every output the pass
// writes: keys_out (the keys for the next pass), vals_out (the value: cw_radix_value) and
// idx_out (the position: int64 with wide, else u32); each null where not written
template <class B, class K>
__device__ inline void cw_radix_put(const cw_radix_args& a, K k, cw_i64 r, cw_u32 j, cw_i64 o) {
    if (a.keys_out) ((K*)a.keys_out)[o] = k;
    if (a.vals_out) cw_radix_value<B>(a, k, r, j, o);
    if (!a.idx_out) return;  // (a pass that writes items: CW_RADIX_ITEMS_OUT)
    if (a.wide) ((cw_i64*)a.idx_out)[o] = j;
    else ((cw_u32*)a.idx_out)[o] = j;
}
// the bits that a position in a row of L < 2^32 keys (0 .. L - 1) takes, set: an 8-byte key's
// argsort item holds its position in them, its class key's bits above (radix_sweep.hip's PACK)
__device__ inline cw_u32 cw_radix_position_mask(cw_i64 L) {
    return L > 1 ? (cw_u32)(~0ull >> __clzll((long long)(L - 1))) : 0u;
}

// Rows of L <= CW_RADIX_TILE keys, every pass in shared memory: a block sorts a tile of
// R = TILE / L rows at a time (positions idx in the tile; padding after the last row), by
// the keys' digits, then by their rows' (idx / L: stable, so each row's keys stay in order).
// Writes the positions in the row and the values (cw_radix_put; keys_out null).
template <class K, class B> __device__ inline void cw_radix_rows(const cw_radix_args& a) {
    __shared__ K key[CW_RADIX_TILE];
    __shared__ cw_u32 idx[CW_RADIX_TILE], cnt[17 * CW_RADIX_BLOCK], group[16];
    const K* kin = (const K*)a.keys_in;
    const cw_u32 L = (cw_u32)a.L, per_tile = CW_RADIX_TILE / L;
    const cw_radix_class<K> c(a);
    int row_bits = 0;  // bits of the largest row number in a tile, padding's included
    while (((CW_RADIX_TILE - 1u) / L) >> row_bits) ++row_bits;
    for (cw_i64 r0 = (cw_i64)blockIdx.x * per_tile; r0 < a.rows; r0 += (cw_i64)gridDim.x * per_tile) {
        const cw_i64 nr = a.rows - r0 < per_tile ? a.rows - r0 : per_tile;
        const int m = (int)(nr * L);
        K k[CW_RADIX_ITEMS];
        cw_u32 x[CW_RADIX_ITEMS];
        cw_radix_load(kin + r0 * L, m, k);
#pragma unroll
        for (int i = 0; i < CW_RADIX_ITEMS; ++i) x[i] = threadIdx.x * CW_RADIX_ITEMS + i;
        cw_radix_rank(c, m, k, x, key, idx, cnt, group, 0);
        for (int s = 4; s < a.bits; s += 4) cw_radix_tile_pass(c, m, key, idx, cnt, group, s);
        if (nr > 1)
            for (int s = 0; s < row_bits; s += 4) cw_radix_tile_pass(c, m, key, idx, cnt, group, s, L);
        for (int p = threadIdx.x; p < m; p += CW_RADIX_BLOCK)
            cw_radix_put<B>(a, key[p], r0 + idx[p] / L, idx[p] % L, r0 * L + p);
        __syncthreads();
    }
}
