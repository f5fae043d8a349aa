// The radix sort's ranking of a tile by an 8-bit digit (cw_radix_count8, cw_radix_place8,
// cw_radix_rank8), the tile's shared memory and its read back into registers, and the rows
// sorted by it one block a row (cw_radix_block); the onesweep passes (radix_sweep.hip) rank
// their ranges with it. Over radix.hip's key classes, scan and write-back; appended to the
// sort module alone (codegen/sources.py's MODULE_FILES).

// A tile of m keys ranked by the 8-bit digit at s of their classes (cw_radix_class), and put
// in that order (stable) in key and idx (null: the positions not carried), from registers:
// warp w holds the w-th segment of the tile, lane l its keys l, l + warpSize, ...
// (coalesced loads, and the keys in the tile's order taken lane by lane, item by item).
// cw_radix_count8 counts: each lane sets its bit in its warp's word of its key's digit (an
// atomicOr in shared memory) and reads the word back: the key's peers, the lanes of the same
// digit; the lowest of them adds their number to the warp's count of the digit (cnt[w *
// CW_RADIX_DIGITS + d]: a warp's counts are consecutive words, so the leaders of different
// digits mostly hit different banks) and clears the word. The old counts go to the peers by
// shuffles after every item's add was issued (a warp's adds to one word take effect in the
// order it issued them): the adds' round trips overlap the next items. The words come in two
// sets, items alternating: an item's words are cleared while the next item's are set, and
// the item after that waits for both at its first sync. Against the peers found by 9 votes
// (__ballot_sync a bit), on the H200 at 7f3240d (session 12, probe 1; both with the counts
// posted early, radix_sweep.hip): a float32 sort of 2^24 0.769 ms against 0.992 (a onesweep
// pass 150-171 us against 211-220), 2^26 2.905 against 3.834, rows of 4096x4096 0.389 against
// 0.530, int64 2^24 1.636 against 1.934; with the votes, the adds pipelined changed little
// (within 2 %). Returns digit t's keys in the tile
// to thread t, after a barrier. cw_radix_place8: the exclusive scan of the counts in
// digit-major order gives each (digit, warp) its first place in the tile; each key goes to
// its place (rank: count8's). Returns digit t's first place in the tile to thread t; the
// caller passes a barrier before it reads key or idx. cw_radix_rank8: both at once. The match
// words lie in the key tile (cw_radix_smem): a caller passes a barrier between its last read
// of the tile and count8.
template <class K, int ITEMS>
__device__ inline cw_u32 cw_radix_count8(const cw_radix_class<K>& c, int m, int s, const K (&k)[ITEMS],
                                         cw_lanes* match, cw_u32* cnt, cw_u32 (&rank)[ITEMS]) {
    const int t = threadIdx.x, ws = warpSize, w = t / ws, lane = t % ws, nw = CW_RADIX_BLOCK / ws;
    const int seg = w * ws * ITEMS + lane;  // the tile place of this lane's first key
    const cw_lanes below = ((cw_lanes)1 << lane) - (cw_lanes)1;
    for (int j = t; j < CW_RADIX_DIGITS * CW_RADIX_WARPS; j += CW_RADIX_BLOCK) cnt[j] = 0u;
    for (int j = t; j < 2 * nw * CW_RADIX_DIGITS; j += CW_RADIX_BLOCK) match[j] = (cw_lanes)0;
    __syncthreads();
    cw_u32 lead[ITEMS];  // each key's leader's lane | its rank among its peers << 8
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const bool valid = seg + i * ws < m;  // padding: no place, not counted
        const cw_u32 d = (cw_u32)(c(k[i]) >> s) & 255u;  // (made again from the key where needed: fewer registers)
        cw_lanes* word = match + ((i & 1) * nw + w) * CW_RADIX_DIGITS + d;
        if (valid) atomicOr(word, (cw_lanes)1 << lane);
        cw_warp_sync();
        const cw_lanes peers = valid ? *(volatile cw_lanes*)word : (cw_lanes)0;
        cw_warp_sync();
        const int leader = valid ? cw_lanes_first(peers) : 0;
        rank[i] = 0u;
        if (valid && lane == leader) {
            rank[i] = atomicAdd(&cnt[w * CW_RADIX_DIGITS + d], (cw_u32)cw_lanes_count(peers));
            *word = (cw_lanes)0;
        }
        lead[i] = (cw_u32)leader | (cw_u32)cw_lanes_count(peers & below) << 8;
    }
    cw_warp_sync();
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) rank[i] = (cw_u32)cw_lane_value((int)rank[i], (int)(lead[i] & 255u)) + (lead[i] >> 8);
    __syncthreads();
    cw_u32 total = 0u;  // thread t: digit t's keys, warp by warp (consecutive threads, consecutive words)
    for (int v = 0; v < nw; ++v) total += cnt[v * CW_RADIX_DIGITS + t];
    return total;
}
template <class K, int ITEMS>
__device__ inline cw_u32 cw_radix_place8(const cw_radix_class<K>& c, int m, int s, const K (&k)[ITEMS],
                                         const cw_u32 (&x)[ITEMS], K* key, cw_u32* idx, cw_u32* cnt,
                                         cw_u32* group, cw_u32 total, const cw_u32 (&rank)[ITEMS]) {
    const int t = threadIdx.x, ws = warpSize, w = t / ws, lane = t % ws, nw = CW_RADIX_BLOCK / ws;
    const int seg = w * ws * ITEMS + lane;
    const cw_u32 first = cw_radix_block_scan(group, total);
    cw_u32 run = first;
    for (int v = 0; v < nw; ++v) {
        const cw_u32 n = cnt[v * CW_RADIX_DIGITS + t];
        cnt[v * CW_RADIX_DIGITS + t] = run;
        run += n;
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        if (seg + i * ws >= m) continue;
        const cw_u32 q = cnt[w * CW_RADIX_DIGITS + ((cw_u32)(c(k[i]) >> s) & 255u)] + rank[i];
        key[q] = k[i];
        if (idx) idx[q] = x[i];
    }
    return first;
}
template <class K, int ITEMS>
__device__ inline cw_u32 cw_radix_rank8(const cw_radix_class<K>& c, int m, int s, const K (&k)[ITEMS],
                                        const cw_u32 (&x)[ITEMS], K* key, cw_u32* idx, cw_u32* cnt,
                                        cw_u32* group, cw_u32& total) {
    cw_u32 rank[ITEMS];  // each key's rank among the warp's keys of its digit
    total = cw_radix_count8(c, m, s, k, (cw_lanes*)key, cnt, rank);
    return cw_radix_place8(c, m, s, k, x, key, idx, cnt, group, total, rank);
}

// the shared memory of a tile of ITEMS keys a thread: a row in one tile (cw_radix_block:
// cw_radix_range_items<K>) or a range of a onesweep pass (radix_sweep.hip's items); CARRY:
// with the keys' positions (the kernels' template parameter: a sort of values alone, but
// bool's, carries none, and its kernels hold no position registers)
template <class K> struct cw_radix_range_items {
    static const int value = sizeof(K) == 4 ? CW_RADIX_RANGE_ITEMS_K4 : CW_RADIX_RANGE_ITEMS_K8;
};
template <class K, int ITEMS, bool CARRY> struct cw_radix_smem {
    static const int tile = CW_RADIX_BLOCK * ITEMS;
    union {  // the keys, or cw_radix_count8's match words before they are placed (warps of 32: 16 KiB)
        K key[tile];
        cw_lanes match[2 * CW_RADIX_DIGITS * CW_RADIX_WARPS];
    };
    cw_u32 idx[CARRY ? tile : 1];
    cw_u32 cnt[CW_RADIX_DIGITS * CW_RADIX_WARPS], group[16], off[CW_RADIX_DIGITS];
};

// thread t's column of a ranked tile of m keys (places t + i * BLOCK, i < ITEMS; key, and
// idx where not null) into registers, every read issued before the caller's first global
// store: a store through a generic pointer may alias shared memory, so the compiler keeps
// a shared read behind it (read item by item, each store waited for its own reads). With
// the shuffle scan (cw_radix_block_scan), on the H200 at b24414d: a float32 sort of 2^24
// 1.044 ms against 1.063 (its four radix_sweep passes 915 us against 933), 2^26 4.041
// against 4.101, rows of 4096x4096 0.569 against 0.580, int64 2^24 2.157 against 2.203
template <class K, int ITEMS>
__device__ inline void cw_radix_column(const K* key, const cw_u32* idx, int m, K (&k)[ITEMS], cw_u32 (&x)[ITEMS]) {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const int p = (int)threadIdx.x + i * CW_RADIX_BLOCK;
        k[i] = p < m ? key[p] : (K)0;
        x[i] = p < m && idx ? idx[p] : 0u;
    }
}

// Rows of TILE < L <= the range tile, one a block at a time, sorted in one launch: every
// 8-bit digit ranked in shared memory (cw_radix_rank8), the keys taken back into
// registers between digits; then written as cw_radix_rows does (cw_radix_put).
template <class K, class B, bool CARRY = true> __device__ inline void cw_radix_block(const cw_radix_args& a) {
    const int ITEMS = cw_radix_range_items<K>::value;
    __shared__ cw_radix_smem<K, ITEMS, CARRY> m_;
    K* key = m_.key;
    const int t = threadIdx.x, ws = warpSize, m = (int)a.L;
    const int seg = (t / ws) * ws * ITEMS + t % ws;
    const cw_radix_class<K> c(a);
    cw_u32* idx = CARRY ? m_.idx : nullptr;
    for (cw_i64 r = blockIdx.x; r < a.rows; r += gridDim.x) {
        const K* kin = a.keys_in ? (const K*)a.keys_in + r * a.L : nullptr;  // null: made from the source
        K k[ITEMS];
        cw_u32 x[ITEMS];
        cw_radix_load_keys(a, kin, kin ? nullptr : cw_radix_source_row<B>(a, r), seg, ws, m, k);
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) x[i] = (cw_u32)(seg + i * ws);
        for (int s = 0; s < a.bits; s += 8) {
            cw_u32 total;
            cw_radix_rank8(c, m, s, k, x, key, idx, m_.cnt, m_.group, total);
            __syncthreads();
            if (s + 8 >= a.bits) break;
#pragma unroll
            for (int i = 0; i < ITEMS; ++i) {  // rank8's next barrier orders these reads before its writes
                const int p = seg + i * ws;
                if (p < m) {
                    k[i] = key[p];
                    if (CARRY) x[i] = idx[p];
                }
            }
            __syncthreads();  // the key tile read before count8 clears its match words there
        }
        cw_radix_column(key, idx, m, k, x);
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            const int p = t + i * CW_RADIX_BLOCK;
            if (p < m) cw_radix_put<B>(a, k[i], r, x[i], r * a.L + p);
        }
        __syncthreads();
    }
}


// A sort's rows of 8-byte keys (B 8 bytes) of TILE < L <= the 4-byte keys' range tile,
// one a block, one launch: the class keys' low halves ranked with their positions (4
// passes), then their high halves, made again from the row's source by position (4 passes;
// the row is read twice, from L2); the int64 indices (idx_out) and the values gathered by
// position (vals_out), each where asked, written in place. 4-byte keys and
// positions of 4096 keys fit the 48 KiB of static shared memory, where 8-byte keys and
// positions do not (cw_radix_block<cw_u64>: 2048 keys): rows of 4096 took a onesweep of 8
// passes of 8-byte items over the whole array (radix_sweep.hip PACK) instead.
template <class B> __device__ inline void cw_radix_block_halves(const cw_radix_args& a) {
    const int ITEMS = cw_radix_range_items<cw_u32>::value;
    __shared__ cw_radix_smem<cw_u32, ITEMS, true> m_;
    cw_u32* key = m_.key;
    const int t = threadIdx.x, ws = warpSize, m = (int)a.L;
    const int seg = (t / ws) * ws * ITEMS + t % ws;
    cw_radix_args h = a;  // the halves' passes take them as they are (the class applied to the 8-byte key)
    h.decode = CW_RADIX_DECODE_INT;
    h.bits = 32;
    const cw_radix_class<cw_u32> c(h);
    const cw_radix_class<cw_u64> c64(a);
    for (cw_i64 r = blockIdx.x; r < a.rows; r += gridDim.x) {
        const B* src = cw_radix_source_row<B>(a, r);
        cw_u32 k[ITEMS], x[ITEMS];
        {
            cw_u64 k64[ITEMS];
            cw_radix_load_keys(a, (const cw_u64*)nullptr, src, seg, ws, m, k64);
#pragma unroll
            for (int i = 0; i < ITEMS; ++i) {
                k[i] = (cw_u32)c64(k64[i]);
                x[i] = (cw_u32)(seg + i * ws);
            }
        }
        for (int s = 0; s < 64; s += 8) {
            cw_u32 total;
            cw_radix_rank8(c, m, s & 31, k, x, key, m_.idx, m_.cnt, m_.group, total);
            __syncthreads();
            if (s + 8 >= 64) break;
#pragma unroll
            for (int i = 0; i < ITEMS; ++i) {  // rank8's next barrier orders these reads before its writes
                const int p = seg + i * ws;
                if (p < m) {
                    k[i] = key[p];
                    x[i] = m_.idx[p];
                }
            }
            __syncthreads();  // the key tile read before count8 clears its match words there
            if (s == 24) {  // sorted by the low halves: the high halves, by position
                B v[ITEMS];
#pragma unroll
                for (int i = 0; i < ITEMS; ++i) v[i] = seg + i * ws < m ? src[(cw_i64)x[i] * a.src_stride] : (B)0;
#pragma unroll
                for (int i = 0; i < ITEMS; ++i) k[i] = (cw_u32)(c64(cw_radix_encode<cw_u64, B>(a, v[i])) >> 32);
            }
        }
        cw_radix_column(key, m_.idx, m, k, x);
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            const int p = t + i * CW_RADIX_BLOCK;
            if (p < m) {
                if (a.idx_out) ((cw_i64*)a.idx_out)[r * a.L + p] = (cw_i64)x[i];
                // the values gathered from the row by position: a stable sort's, bit for bit
                if (a.vals_out) ((B*)a.vals_out)[r * a.L + p] = src[(cw_i64)x[i] * a.src_stride];
            }
        }
        __syncthreads();
    }
}
