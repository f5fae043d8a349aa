// The LSD radix sort's tile and pass kernels (families/sort.py drives them; the key
// traits cw_radix<S> are in sort.hip): appended to the sort module alone
// (codegen/sources.py's MODULE_FILES).
#define CW_RADIX_TILE (CW_RADIX_BLOCK * CW_RADIX_ITEMS)
#define CW_RADIX_DIGITS 256  // an 8-bit digit per pass: the scan and scatter give one digit to each thread
static_assert(CW_RADIX_BLOCK == CW_RADIX_DIGITS, "one thread per digit");

// exclusive prefix sum of each thread's v over the block, in two barriers (part: one slot
// per thread, group: 16): 16 threads sum 16 slots each, then every thread adds the group
// sums before its group and the slots before it in its group (reads that threads of a
// group share: broadcast). Reads other threads' slots after the last barrier: a caller
// passes a barrier before it writes part or group again (every one does).
__device__ inline cw_u32 cw_radix_block_scan(cw_u32* part, cw_u32* group, cw_u32 v) {
    const int t = threadIdx.x, g = t / 16;
    part[t] = v;
    __syncthreads();
    if (t < CW_RADIX_BLOCK / 16) {
        cw_u32 sum = 0u;
        for (int j = t * 16; j < t * 16 + 16; ++j) sum += part[j];
        group[t] = sum;
    }
    __syncthreads();
    cw_u32 run = 0u;
    for (int h = 0; h < g; ++h) run += group[h];
    for (int j = g * 16; j < t; ++j) run += part[j];
    return run;
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
// by is its class key's; a descending sort's keys carry its flip (a.mask).
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
                                     const cw_u32 (&x)[CW_RADIX_ITEMS], K* key, cw_u32* idx, cw_u32* cnt, cw_u32* part,
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
    cw_u32 run = cw_radix_block_scan(part, group, sum);
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
                                          cw_u32* part, cw_u32* group, int shift, cw_u32 row_len = 0u) {
    const int t = threadIdx.x;
    K k[CW_RADIX_ITEMS];
    cw_u32 x[CW_RADIX_ITEMS];
#pragma unroll
    for (int i = 0; i < CW_RADIX_ITEMS; ++i) {
        k[i] = key[t * CW_RADIX_ITEMS + i];
        x[i] = idx ? idx[t * CW_RADIX_ITEMS + i] : 0u;
    }
    cw_radix_rank(c, m, k, x, key, idx, cnt, part, group, shift, row_len);
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

// Rows of L <= CW_RADIX_TILE keys, every pass in shared memory: a block sorts a tile of
// R = TILE / L rows at a time (positions idx in the tile; padding after the last row), by
// the keys' digits, then by their rows' (idx / L: stable, so each row's keys stay in order).
// Writes the positions in the row (idx_out: u32, or int64 with wide; null: none) and, with
// vals_out, the values gathered by them.
template <class K, class B> __device__ inline void cw_radix_rows(const cw_radix_args& a) {
    __shared__ K key[CW_RADIX_TILE];
    __shared__ cw_u32 idx[CW_RADIX_TILE], cnt[17 * CW_RADIX_BLOCK], part[CW_RADIX_BLOCK], group[16];
    const K* kin = (const K*)a.keys_in;
    cw_u32* out = (cw_u32*)a.idx_out;
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
        cw_radix_rank(c, m, k, x, key, idx, cnt, part, group, 0);
        for (int s = 4; s < a.bits; s += 4) cw_radix_tile_pass(c, m, key, idx, cnt, part, group, s);
        if (nr > 1)
            for (int s = 0; s < row_bits; s += 4) cw_radix_tile_pass(c, m, key, idx, cnt, part, group, s, L);
        for (int p = threadIdx.x; p < m; p += CW_RADIX_BLOCK) {
            const cw_u32 j = idx[p] % L;
            if (a.vals_out) cw_radix_value<B>(a, key[p], r0 + idx[p] / L, j, r0 * L + p);
            if (a.wide) ((cw_i64*)out)[r0 * L + p] = j;
            else if (out) out[r0 * L + p] = j;
        }
        __syncthreads();
    }
}

// The digits of row[lo, hi) counted by the block: 16 sub-counts per digit (thread t adds
// to sub-count t % 16, in cnt at d * 17 + t % 16: same-digit lanes of a warp contend at
// most warp/16-way, on different banks), then thread d returns digit d's total.
template <class K>
__device__ inline cw_u32 cw_radix_count(const cw_radix_class<K>& c, const K* row, cw_i64 lo, cw_i64 hi, int s,
                                        cw_u32* cnt) {
    const int t = threadIdx.x;
    for (int j = t; j < 17 * CW_RADIX_BLOCK; j += CW_RADIX_BLOCK) cnt[j] = 0u;
    __syncthreads();
    for (cw_i64 p0 = lo + t; p0 < hi; p0 += CW_RADIX_TILE) {  // a tile's loads in flight at once
        K k[CW_RADIX_ITEMS];
#pragma unroll
        for (int i = 0; i < CW_RADIX_ITEMS; ++i) k[i] = p0 + i * CW_RADIX_BLOCK < hi ? row[p0 + i * CW_RADIX_BLOCK] : 0;
#pragma unroll
        for (int i = 0; i < CW_RADIX_ITEMS; ++i)
            if (p0 + i * CW_RADIX_BLOCK < hi) atomicAdd(&cnt[((cw_u32)(c(k[i]) >> s) & 255u) * 17u + (t & 15)], 1u);
    }
    __syncthreads();
    cw_u32 total = 0u;
    for (int j = 0; j < 16; ++j) total += cnt[t * 17 + j];
    __syncthreads();
    return total;
}

// Longer rows, one pass per 8-bit digit in three launches: hist, scan, scatter. Row r is cut
// into `blocks` ranges of `chunk` keys; the counts are digit-major, one column of blocks + 1
// words per (row, digit) (cw_radix_column): block g = r * blocks + b counts the digits of
// its range into entry b of each column (cw_radix_count: sub-counts, so that a digit most
// keys share, as a float's top byte, does not serialize the block's atomics).
__device__ inline cw_u32* cw_radix_column(const cw_radix_args& a, cw_i64 r, int d) {
    return a.counts + (r * CW_RADIX_DIGITS + d) * (a.blocks + 1);
}
template <class K> __device__ inline void cw_radix_hist(const cw_radix_args& a) {
    __shared__ cw_u32 cnt[17 * CW_RADIX_BLOCK];
    const K* kin = (const K*)a.keys_in;
    const cw_radix_class<K> c(a);
    for (cw_i64 g = blockIdx.x; g < a.rows * a.blocks; g += gridDim.x) {
        const cw_i64 r = g / a.blocks, b = g % a.blocks, lo = b * a.chunk;
        const cw_i64 hi = lo + a.chunk < a.L ? lo + a.chunk : a.L;
        cw_radix_column(a, r, threadIdx.x)[b] = cw_radix_count(c, kin + r * a.L, lo, hi, a.shift, cnt);
    }
}

// Each column in place -> its exclusive prefix sum over the ranges, the digit's total in its
// last entry: a block scans 16 columns at once, 16 threads each, every thread a slice of
// consecutive entries (a block per row walking the ranges digit by digit took 30-60 us a
// pass on the H200; a block per column costs the host tests' fibers 16 times as much). The
// scatter adds each digit's first place in the row (the scan of the totals: cw_radix_bases).
// A slice is read CW_RADIX_SCAN_BATCH entries at a time, their loads in flight together
// (one at a time, 65 entries a slice at 2^24 keys took 28 us a pass on the H200).
#define CW_RADIX_SCAN_BATCH 16
__device__ inline void cw_radix_scan(const cw_radix_args& a) {
    __shared__ cw_u32 part[CW_RADIX_BLOCK];
    const int t = threadIdx.x;
    const cw_i64 n = a.blocks + 1, per = (n + 15) / 16;
    const cw_i64 lo = (t % 16) * per, hi = lo + per < n ? lo + per : n;
    for (cw_i64 c = blockIdx.x; c < a.rows * (CW_RADIX_DIGITS / 16); c += gridDim.x) {
        cw_u32* col = a.counts + (c * 16 + t / 16) * n;
        cw_u32 sum = 0u;
        for (cw_i64 b0 = lo; b0 < hi; b0 += CW_RADIX_SCAN_BATCH) {
            cw_u32 v[CW_RADIX_SCAN_BATCH];
#pragma unroll
            for (int i = 0; i < CW_RADIX_SCAN_BATCH; ++i) v[i] = b0 + i < hi && b0 + i < a.blocks ? col[b0 + i] : 0u;
#pragma unroll
            for (int i = 0; i < CW_RADIX_SCAN_BATCH; ++i) sum += v[i];
        }
        part[t] = sum;
        __syncthreads();
        if (t < 16) {  // thread j: column j's 16 slices
            cw_u32 run = 0u;
            for (int i = t * 16; i < t * 16 + 16; ++i) {
                const cw_u32 v = part[i];
                part[i] = run;
                run += v;
            }
        }
        __syncthreads();
        cw_u32 run = part[t];
        for (cw_i64 b0 = lo; b0 < hi; b0 += CW_RADIX_SCAN_BATCH) {
            cw_u32 v[CW_RADIX_SCAN_BATCH];
#pragma unroll
            for (int i = 0; i < CW_RADIX_SCAN_BATCH; ++i) v[i] = b0 + i < hi && b0 + i < a.blocks ? col[b0 + i] : 0u;
#pragma unroll
            for (int i = 0; i < CW_RADIX_SCAN_BATCH; ++i) {
                if (b0 + i < hi) col[b0 + i] = run;
                run += v[i];
            }
        }
    }
}

// the first place in row r of range b's keys of each digit (thread d: digit d's), from the
// scanned columns: the digits before d in the row, then d's keys in the ranges before b
__device__ inline cw_u32 cw_radix_bases(const cw_radix_args& a, cw_i64 r, cw_i64 b, cw_u32* part, cw_u32* group) {
    const cw_u32* col = cw_radix_column(a, r, threadIdx.x);
    return cw_radix_block_scan(part, group, col[a.blocks]) + col[b];
}

// A tile of m keys ranked by the 8-bit digit at s of their classes (cw_radix_class), and put
// in that order (stable) in key and idx (null: the positions not carried), from registers:
// warp w holds the w-th segment of the tile, lane l its keys l, l + warpSize, ...
// (coalesced loads, and the keys in the tile's order taken lane by lane, item by item).
// Each key's lanes of the same digit are found with 8 votes (a match of the digit's bits);
// the lowest of them adds their number to the warp's count of the digit (cnt[d *
// CW_RADIX_WARPS + w]) and hands the old count to the others. The exclusive scan of the
// counts, digit-major, gives each (digit, warp) its first place in the tile. Warps of 64
// lanes (AMD) or 32 (CUDA): the votes' masks are 64 bits. Returns digit t's first place
// in the tile to thread t (total: its keys there); the caller passes a barrier before it
// reads key or idx.
// the lanes of a warp wait for each other (after a branch some of them took, before a
// shuffle among all): CUDA's lanes may run apart; an AMD wavefront's run in lockstep
#if defined(__AMDGCN__)
#define cw_warp_sync() __builtin_amdgcn_wave_barrier()
#else
#define cw_warp_sync() __syncwarp()
#endif
#define CW_RADIX_WARPS (CW_RADIX_BLOCK / 32)  // a block's warps at most (warps of 32 lanes)
// a warp's vote over all its lanes (bit l: lane l's p), as wide as the warp: on NVIDIA 32
// bits with the full mask (HIP's __ballot reads the active lanes first, a 64-bit result:
// three more instructions a vote, 8 votes a key). CW_RADIX_VOTE 0: HIP's __ballot everywhere.
#ifndef CW_RADIX_VOTE
#define CW_RADIX_VOTE 1
#endif
#if defined(__HIP_PLATFORM_NVIDIA__) && CW_RADIX_VOTE
typedef unsigned int cw_lanes;
#define cw_vote(p) __ballot_sync(0xffffffffu, (p))
#define cw_lanes_first(m) (__ffs((int)(m)) - 1)
#define cw_lanes_count(m) __popc(m)
#define cw_lane_value(v, l) __shfl_sync(0xffffffffu, (v), (l))
#else
typedef cw_u64 cw_lanes;
#define cw_vote(p) ((cw_u64)__ballot(p))
#define cw_lanes_first(m) (__ffsll((long long)(m)) - 1)
#define cw_lanes_count(m) __popcll(m)
#define cw_lane_value(v, l) __shfl((v), (l))
#endif
// the lanes of the warp whose digit (9 bits: 256 for padding) is d's
__device__ inline cw_lanes cw_radix_peers(cw_u32 d) {
#if defined(__HIP_PLATFORM_NVIDIA__) && CW_RADIX_VOTE == 2
    return __match_any_sync(0xffffffffu, d);
#else
    const cw_lanes all = (cw_lanes)0 - (cw_lanes)1;
    cw_lanes peers = warpSize >= 8 * (int)sizeof(cw_lanes) ? all : ((cw_lanes)1 << warpSize) - (cw_lanes)1;
#pragma unroll
    for (int b = 0; b < 9; ++b) {
        const cw_lanes vote = cw_vote((d >> b) & 1u);
        peers &= ((d >> b) & 1u) ? vote : ~vote;
    }
    return peers;
#endif
}
template <class K, int ITEMS>
__device__ inline cw_u32 cw_radix_rank8(const cw_radix_class<K>& c, int m, int s, const K (&k)[ITEMS],
                                        const cw_u32 (&x)[ITEMS], K* key, cw_u32* idx, cw_u32* cnt, cw_u32* part,
                                        cw_u32* group, cw_u32& total) {
    const int t = threadIdx.x, ws = warpSize, w = t / ws, lane = t % ws, nw = CW_RADIX_BLOCK / ws;
    const int seg = w * ws * ITEMS + lane;  // the tile place of this lane's first key
    const cw_lanes below = ((cw_lanes)1 << lane) - (cw_lanes)1;
    cw_u32 d[ITEMS], rank[ITEMS];
    for (int j = t; j < CW_RADIX_DIGITS * CW_RADIX_WARPS; j += CW_RADIX_BLOCK) cnt[j] = 0u;
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const bool valid = seg + i * ws < m;  // padding: no place, not counted
        d[i] = (cw_u32)(c(k[i]) >> s) & 255u;
        const cw_lanes peers = cw_radix_peers(valid ? d[i] : 256u);
        const int leader = cw_lanes_first(peers);
        cw_u32 old = 0u;
        if (valid && lane == leader) old = atomicAdd(&cnt[d[i] * CW_RADIX_WARPS + w], (cw_u32)cw_lanes_count(peers));
        cw_warp_sync();
        old = (cw_u32)cw_lane_value((int)old, leader);
        rank[i] = old + (cw_u32)cw_lanes_count(peers & below);
    }
    __syncthreads();
    total = 0u;
    for (int v = 0; v < nw; ++v) total += cnt[t * CW_RADIX_WARPS + v];
    const cw_u32 first = cw_radix_block_scan(part, group, total);
    cw_u32 run = first;
    for (int v = 0; v < nw; ++v) {
        const cw_u32 n = cnt[t * CW_RADIX_WARPS + v];
        cnt[t * CW_RADIX_WARPS + v] = run;
        run += n;
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        if (seg + i * ws >= m) continue;
        const cw_u32 q = cnt[d[i] * CW_RADIX_WARPS + w] + rank[i];
        key[q] = k[i];
        if (idx) idx[q] = x[i];
    }
    return first;
}

// the shared memory of a long row's pass (cw_radix_range) and of a row in one tile
// (cw_radix_block): a tile of cw_radix_range_items<K> keys a thread
template <class K> struct cw_radix_range_items {
    static const int value = sizeof(K) == 4 ? CW_RADIX_RANGE_ITEMS_K4 : CW_RADIX_RANGE_ITEMS_K8;
};
template <class K> struct cw_radix_smem {
    static const int tile = CW_RADIX_BLOCK * cw_radix_range_items<K>::value;
    union {
        struct {
            K key[tile];
            cw_u32 idx[tile];
        } t;
        cw_u32 sub[17 * CW_RADIX_BLOCK];  // cw_radix_count's sub-counts (radix_pass's, before any tile)
    } u;
    cw_u32 cnt[CW_RADIX_DIGITS * CW_RADIX_WARPS], part[CW_RADIX_BLOCK], group[16], off[CW_RADIX_DIGITS];
};

// One launch a pass with no count launches (radix_sweep, after radix_digits): a.counts as
// u64 words, zeroed before the first pass: [0, 8) a ticket counter per pass; then per row
// and pass the whole row's count of each digit (radix_digits); then per row, range and
// digit the range's state for the pass being run: (pass + 1) << 40 | flag << 32 | count,
// flag 1: the range's own count, 2: with every range before it (a stale pass's word reads
// as not yet written). Ranges are a range tile each (a.chunk).
#define CW_RADIX_OWN 1ull
// a range's posted state read while it may change: a plain 64-bit load that no cache keeps
// (the word is written whole by atomicExch, so a load sees the old word or the new one);
// CW_RADIX_LOOK 0: an atomic add of 0 (a read-modify-write in L2 per look)
#ifndef CW_RADIX_LOOK
#define CW_RADIX_LOOK 1
#endif
__device__ inline cw_u64 cw_radix_look(cw_u64* p) {
#if CW_RADIX_LOOK
    return *(volatile cw_u64*)p;
#else
    return atomicAdd(p, 0ull);
#endif
}
#define CW_RADIX_SUM 2ull
__device__ inline cw_u64* cw_radix_totals(const cw_radix_args& a, cw_i64 r) {
    return (cw_u64*)a.counts + 8 + r * ((a.bits + 7) / 8) * CW_RADIX_DIGITS;
}
__device__ inline cw_u64* cw_radix_states(const cw_radix_args& a, cw_i64 r, cw_i64 b) {
    return (cw_u64*)a.counts + 8 + a.rows * ((a.bits + 7) / 8) * CW_RADIX_DIGITS + (r * a.blocks + b) * CW_RADIX_DIGITS;
}
// Each range, tile by tile: the tile ranked by the digit into shared memory
// (cw_radix_rank8), then each digit's run written to the digit's next places in the row
// (base: thread d's, digit d's next place). idx_in null: the positions are the keys' own
// (first pass); idx_out null: no positions carried (a sort of values only, but bool's,
// whose values are gathered by them); keys_out null: keys not written (last pass: only the
// positions are read after it); wide: the positions written as int64 (the indices, in
// place: the last pass); vals_out: the values decoded from the keys (or gathered from src
// by the positions), in place (the last pass; B: their bytes).
template <class K, class B>
__device__ inline void cw_radix_range(const cw_radix_args& a, cw_radix_smem<K>& m_, cw_i64 g, cw_u32 base,
                                      cw_i64 look = -1, cw_u64 epoch = 0ull) {
    const int ITEMS = cw_radix_range_items<K>::value, TILE = cw_radix_smem<K>::tile;
    const K* kin = (const K*)a.keys_in;
    const cw_u32* xin = (const cw_u32*)a.idx_in;
    K* kout = (K*)a.keys_out;
    cw_u32* xout = (cw_u32*)a.idx_out;
    K* key = m_.u.t.key;
    const int t = threadIdx.x, s = a.shift, ws = warpSize;
    const int seg = (t / ws) * ws * ITEMS + t % ws;  // cw_radix_rank8's places of this lane's keys
    const cw_i64 r = g / a.blocks, lo = (g % a.blocks) * a.chunk;
    const cw_i64 hi = lo + a.chunk < a.L ? lo + a.chunk : a.L, row = r * a.L;
    const cw_radix_class<K> c(a);
    const bool carry = xout || (a.vals_out && a.decode == CW_RADIX_GATHER);  // the positions wanted
    cw_u32* idx = carry ? m_.u.t.idx : nullptr;
    for (cw_i64 t0 = lo; t0 < hi; t0 += TILE) {
        const int m = (int)(hi - t0 < TILE ? hi - t0 : TILE);
        K k[ITEMS];
        cw_u32 x[ITEMS];
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            const int p = seg + i * ws;
            k[i] = p < m ? kin[row + t0 + p] : (K)0;
        }
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            const int p = seg + i * ws;
            x[i] = p < m && carry ? (xin ? xin[row + t0 + p] : (cw_u32)(t0 + p)) : 0u;
        }
        cw_u32 total;
        const cw_u32 first = cw_radix_rank8(c, m, s, k, x, key, idx, m_.cnt, m_.part, m_.group, total);
        if (look >= 0) {  // radix_sweep's range look (one tile): post, look back, post the sum
            cw_u64* own = cw_radix_states(a, r, look) + t;
            atomicExch(own, epoch | (look ? CW_RADIX_OWN : CW_RADIX_SUM) << 32 | total);
            cw_u32 sum = 0u;
            for (cw_i64 j = look - 1; j >= 0;) {
                const cw_u64 v = cw_radix_look(cw_radix_states(a, r, j) + t);
                if ((v >> 40) != (epoch >> 40)) continue;  // not posted yet: its block runs
                sum += (cw_u32)v;
                if (((v >> 32) & 3ull) == CW_RADIX_SUM) break;
                --j;
            }
            if (look) atomicExch(own, epoch | CW_RADIX_SUM << 32 | (cw_u64)(sum + total));
            base += sum;
        }
        m_.off[t] = base - first;  // digit t's key at tile place p goes to row place off[t] + p (u32: a row's places fit)
        base += total;
        __syncthreads();
        for (int p = t; p < m; p += CW_RADIX_BLOCK) {
            const K kv = key[p];
            const cw_i64 o = row + (cw_u32)(m_.off[(cw_u32)(c(kv) >> s) & 255u] + (cw_u32)p);
            const cw_u32 xv = carry ? idx[p] : 0u;
            if (kout) kout[o] = kv;
            if (a.vals_out) cw_radix_value<B>(a, kv, r, xv, o);
            if (a.wide) ((cw_i64*)xout)[o] = xv;
            else if (xout) xout[o] = xv;
        }
        __syncthreads();
    }
}

// Rows of TILE < L <= the range tile, one a block at a time, sorted in one launch: every
// 8-bit digit ranked in shared memory (cw_radix_rank8), the keys taken back into
// registers between digits; then written as cw_radix_rows does (idx_out: the positions in
// the row, u32 or int64 with wide; vals_out: the values).
template <class K, class B> __device__ inline void cw_radix_block(const cw_radix_args& a) {
    const int ITEMS = cw_radix_range_items<K>::value;
    __shared__ cw_radix_smem<K> m_;
    K* key = m_.u.t.key;
    cw_u32* out = (cw_u32*)a.idx_out;
    const int t = threadIdx.x, ws = warpSize, m = (int)a.L;
    const int seg = (t / ws) * ws * ITEMS + t % ws;
    const cw_radix_class<K> c(a);
    const bool carry = out || (a.vals_out && a.decode == CW_RADIX_GATHER);
    cw_u32* idx = carry ? m_.u.t.idx : nullptr;
    for (cw_i64 r = blockIdx.x; r < a.rows; r += gridDim.x) {
        const K* kin = (const K*)a.keys_in + r * a.L;
        K k[ITEMS];
        cw_u32 x[ITEMS];
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            const int p = seg + i * ws;
            k[i] = p < m ? kin[p] : (K)0;
            x[i] = (cw_u32)p;
        }
        for (int s = 0; s < a.bits; s += 8) {
            cw_u32 total;
            cw_radix_rank8(c, m, s, k, x, key, idx, m_.cnt, m_.part, m_.group, total);
            __syncthreads();
            if (s + 8 >= a.bits) break;
#pragma unroll
            for (int i = 0; i < ITEMS; ++i) {  // rank8's next barrier orders these reads before its writes
                const int p = seg + i * ws;
                if (p < m) {
                    k[i] = key[p];
                    if (carry) x[i] = idx[p];
                }
            }
        }
        for (int p = t; p < m; p += CW_RADIX_BLOCK) {
            const cw_u32 j = carry ? idx[p] : 0u;
            if (a.vals_out) cw_radix_value<B>(a, key[p], r, j, r * a.L + p);
            if (a.wide) ((cw_i64*)out)[r * a.L + p] = j;
            else if (out) out[r * a.L + p] = j;
        }
        __syncthreads();
    }
}

// every pass's digit counts of each row: block b counts the ranges [b * per, (b + 1) * per)
// of the rows' ranges in turn (a.chunk keys each), and adds its counts of a row to the
// row's totals when it leaves the row (once a block for a one-row sort). Each count has
// CW_RADIX_DIGIT_COPIES copies (a key adds to copy t % copies): the lanes of a warp that
// share a digit (a float's top byte is most keys') contend copies-fold less.
#ifndef CW_RADIX_DIGIT_COPIES
#define CW_RADIX_DIGIT_COPIES 4
#endif
#define CW_RADIX_DIGIT_LOADS 4  // keys a thread loads before it counts them (loads in flight together)
template <class K> __device__ inline void cw_radix_digits(const cw_radix_args& a) {
    const int COPIES = CW_RADIX_DIGIT_COPIES;
    __shared__ cw_u32 cnt[sizeof(K) * CW_RADIX_DIGITS * CW_RADIX_DIGIT_COPIES];
    const K* kin = (const K*)a.keys_in;
    const cw_radix_class<K> c(a);
    const int t = threadIdx.x, passes = (a.bits + 7) / 8, copy = t % COPIES;
    const cw_i64 n = a.rows * a.blocks, per = (n + gridDim.x - 1) / gridDim.x;
    const cw_i64 g0 = (cw_i64)blockIdx.x * per, g1 = g0 + per < n ? g0 + per : n;
    for (int j = t; j < passes * CW_RADIX_DIGITS * COPIES; j += CW_RADIX_BLOCK) cnt[j] = 0u;
    __syncthreads();
    for (cw_i64 g = g0; g < g1; ++g) {
        const cw_i64 r = g / a.blocks, lo = (g % a.blocks) * a.chunk;
        const cw_i64 hi = lo + a.chunk < a.L ? lo + a.chunk : a.L;
        const K* row = kin + r * a.L;
        for (cw_i64 p0 = lo + t; p0 < hi; p0 += CW_RADIX_BLOCK * CW_RADIX_DIGIT_LOADS) {
            K k[CW_RADIX_DIGIT_LOADS];
#pragma unroll
            for (int i = 0; i < CW_RADIX_DIGIT_LOADS; ++i) {
                const cw_i64 p = p0 + i * CW_RADIX_BLOCK;
                k[i] = p < hi ? row[p] : (K)0;
            }
#pragma unroll
            for (int i = 0; i < CW_RADIX_DIGIT_LOADS; ++i) {
                if (p0 + i * CW_RADIX_BLOCK >= hi) break;
                const K e = c(k[i]);
                for (int q = 0; q < passes; ++q)
                    atomicAdd(&cnt[((cw_u32)q * CW_RADIX_DIGITS + ((cw_u32)(e >> (8 * q)) & 255u)) * COPIES + copy], 1u);
            }
        }
        if (g + 1 < g1 && (g + 1) / a.blocks == r) continue;
        __syncthreads();  // the block's counts of row r, to its totals
        cw_u64* tot = cw_radix_totals(a, r);
        for (int j = t; j < passes * CW_RADIX_DIGITS; j += CW_RADIX_BLOCK) {
            cw_u32 v = 0u;
            for (int h = 0; h < COPIES; ++h) {
                v += cnt[j * COPIES + h];
                cnt[j * COPIES + h] = 0u;
            }
            if (v) atomicAdd(&tot[j], (cw_u64)v);
        }
        __syncthreads();
    }
}
// the pass: each block takes the next range (a ticket, so that every range before it
// belongs to a block already running), ranks its tile, posts its digits' counts, adds up
// those of the ranges before it (looking back until a range that posted its sum), posts
// the sum, and writes the tile as cw_radix_range does
template <class K, class B> __device__ inline void cw_radix_sweep(const cw_radix_args& a) {
    __shared__ cw_radix_smem<K> m_;
    __shared__ cw_i64 ticket;
    const int t = threadIdx.x, pass = a.shift / 8;
    const cw_u64 epoch = (cw_u64)(pass + 1) << 40;
    for (;;) {
        if (t == 0) ticket = (cw_i64)atomicAdd((cw_u64*)a.counts + pass, 1ull);
        __syncthreads();
        const cw_i64 g = ticket;
        __syncthreads();  // ticket read by every thread before thread 0 takes the next
        if (g >= a.rows * a.blocks) return;
        const cw_i64 r = g / a.blocks, b = g % a.blocks;
        // digit t's first place in the row: the digits before it, then its keys in the ranges before b
        const cw_u32 before = cw_radix_block_scan(m_.part, m_.group, (cw_u32)cw_radix_totals(a, r)[pass * CW_RADIX_DIGITS + t]);
        __syncthreads();
        cw_radix_range<K, B>(a, m_, g, before, b, epoch);
    }
}

// the pass's scatter after hist and scan: each range's first places from the counts
template <class K, class B> __device__ inline void cw_radix_scatter(const cw_radix_args& a) {
    __shared__ cw_radix_smem<K> m_;
    for (cw_i64 g = blockIdx.x; g < a.rows * a.blocks; g += gridDim.x) {
        const cw_u32 base = cw_radix_bases(a, g / a.blocks, g % a.blocks, m_.part, m_.group);
        __syncthreads();  // the scan's part and group read before the range's scans write them
        cw_radix_range<K, B>(a, m_, g, base);
    }
}

// A whole pass in one launch, for rows cut into few ranges (families/sort.py's FUSED_*):
// each block counts the digits of its entire row itself, those before its range apart
// from the others, and scans them into its range's first places: no counts in global
// memory, no hist or scan launch, at the cost of reading the row once per range.
template <class K, class B> __device__ inline void cw_radix_pass(const cw_radix_args& a) {
    __shared__ cw_radix_smem<K> m_;
    const int t = threadIdx.x, s = a.shift;
    const cw_radix_class<K> c(a);
    for (cw_i64 g = blockIdx.x; g < a.rows * a.blocks; g += gridDim.x) {
        const cw_i64 lo = (g % a.blocks) * a.chunk;
        const K* row = (const K*)a.keys_in + (g / a.blocks) * a.L;
        const cw_u32 before = lo ? cw_radix_count(c, row, 0, lo, s, m_.u.sub) : 0u;  // lo: the same for the block
        const cw_u32 rest = cw_radix_count(c, row, lo, a.L, s, m_.u.sub);
        const cw_u32 base = cw_radix_block_scan(m_.part, m_.group, before + rest) + before;
        __syncthreads();  // the scan's part and group read before the range's scans write them
        cw_radix_range<K, B>(a, m_, g, base);
    }
}
