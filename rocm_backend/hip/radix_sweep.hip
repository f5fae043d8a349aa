// The onesweep passes of the LSD radix sort (Adinets & Merrill's scheme, written for these
// kernels): rows longer than one tile. radix_digits (radix_digits.hip) counts every pass's
// digits of each row in one launch (an argsort's, up to its first pass of items: that pass
// counts the later ones'); then one radix_sweep a pass cuts each row into ranges of a tile each and
// finds each range's first places by looking back over the ranges before it.
// families/sort.py drives them; the tile ranking (cw_radix_count8 / cw_radix_place8) is
// radix_block.hip's.
//
// a.counts as u64 words, zeroed before the first pass: [0, 8) a ticket counter per pass;
// then per row and pass the whole row's count of each digit (radix_digits); then per row,
// range and digit the range's state for the pass being run:
// (pass + 1) << 40 | flag << 32 | count, flag 1: the range's own count, 2: with every range
// before it (a stale pass's word reads as not yet written).
// CARRY: the ranges of a sort that carries the keys' positions (their own sizes: the positions
// take registers and shared memory)
// (PACK: an argsort's items, their own size)
template <class K, class B, bool CARRY, bool PACK> struct cw_radix_sweep_items {
    static const int value = PACK ? CW_RADIX_PACK_ITEMS
                             : CARRY ? (sizeof(K) == 4 ? CW_RADIX_SWEEP_CARRY_ITEMS_K4 : CW_RADIX_SWEEP_CARRY_ITEMS_K8)
                                     : (sizeof(K) == 4 ? CW_RADIX_SWEEP_ITEMS_K4 : CW_RADIX_SWEEP_ITEMS_K8);
};
#define CW_RADIX_OWN 1ull
#define CW_RADIX_SUM 2ull
// a range's posted state read while it may change: a plain 64-bit load that no cache keeps
// (the word is written whole by atomicExch, so a load sees the old word or the new one)
__device__ inline cw_u64 cw_radix_look(cw_u64* p) { return *(volatile cw_u64*)p; }
// ranges a look-back step reads together (their loads in flight at once): on the H200 at
// d21b3af a float32 sort of 2^24 took 1.109 ms with 4, 1.187 with 1. An argsort's passes of the
// items of keys of at most 4 bytes (PACK, B the source's bytes) read 8: on the H200 (probe
// s19argsort 1, against 8181eea, one process, interleaved) float32 argsort 2^26 1.013 -> 1.002x
// torch, 2^24 0.957 -> 0.948x; probe 2 (against 4 in the same process): float32 2^26 1.014 ->
// 1.013x, int16 1.027 -> 1.021x, int32 0.993 -> 0.989x, bool 1.001 -> 0.998x, int8 0.904 -> 0.910x
// (within its spread). 8-byte keys' passes (carried or items) lost with 8: float64 2^26 1.048 ->
// 1.065x, int64 0.981 -> 0.998x; with 2 their carry passes took 30-60 us less and their items'
// passes 30 us more (float64 1.055 -> 1.053x, int64 0.986 -> 0.980x). An argsort's carry passes
// (ARG: radix_sweep_carry, a kernel of their own) read 2: on the H200 (probe s20argsort 1, one
// process, interleaved, against 4) float64 2^26 1.055 -> 1.033x torch (carry passes 1006, 980,
// 970, 878 us -> 946, 938, 920, 875), int64 2^26 0.987 -> 0.964x, float64 2^24 0.985 -> 0.973x
#define CW_RADIX_WINDOW 4
#define CW_RADIX_CARRY_WINDOW 2
template <class B, bool PACK, bool ARG = false> struct cw_radix_window {
    static const int value = ARG ? CW_RADIX_CARRY_WINDOW : PACK && sizeof(B) < 8 ? 8 : CW_RADIX_WINDOW;
};
__device__ inline cw_u64* cw_radix_totals(const cw_radix_args& a, cw_i64 r) {
    return (cw_u64*)a.counts + 8 + r * ((a.bits + 7) / 8) * CW_RADIX_DIGITS;
}
__device__ inline cw_u64* cw_radix_states(const cw_radix_args& a, cw_i64 r, cw_i64 b) {
    return (cw_u64*)a.counts + 8 + a.rows * ((a.bits + 7) / 8) * CW_RADIX_DIGITS + (r * a.blocks + b) * CW_RADIX_DIGITS;
}

// One pass: each block takes the next range (a ticket, so that every range before it
// belongs to a block already running): range b of row r, a tile of a.chunk keys. The block
// counts the tile's digits (cw_radix_count8), posts its counts, adds up those of the ranges
// before it (looking back until a range that posted its sum: thread d for digit d) and posts
// the sum, all before it puts the tile in order in shared memory (cw_radix_place8): the
// ranges after it wait on its posts, not on its placing (on the H200 at 7f3240d, session 12,
// probe 1: a float32 sort of 2^24 0.992 ms against 1.038 posting after the placing, int64
// 1.934 against 1.954). Then it writes each digit's run to its places in the row: base
// (digit t's: the digits before it in the row, the totals' scan), its keys in the ranges
// before b, its rank in the tile.
// idx_in null: the positions are the keys' own (first pass); CARRY false: no positions
// carried (a sort of values only, but bool's, whose values are gathered by them); keys_out
// null: keys not written (last pass: only the positions are read after it); wide: the
// positions written as int64 (the indices, in place: the last pass); vals_out: the values
// decoded from the keys (or gathered from src by the positions), in place (the last pass;
// B: their bytes).
// PACK (K cw_u64, CARRY false): an argsort's keys with their positions as one 8-byte item, moved by
// a sort of keys alone; the last pass writes each item's position as the index. A 4-byte key's
// item is its class key << 32 | position (cw_radix_class<cw_u32>: the passes take the items as
// they are), made by the first pass. An 8-byte key's (B 8 bytes) in a row of at most
// CW_RADIX_GATHER_MAX: two such sorts in turn, a.shift 0..24 then 32..56 (each pass ranks the
// item's bits 32 + a.shift % 32): items of the class key's low half and position, then (the
// pass of a.shift 32 gathers each item's source element by its position: L2 keeps such a
// source) of its high half and position. In a longer row: the class key with its bits below
// the next pass's shift replaced by the position (the passes rank bits a.shift), written by
// the carry sweep's passes before (12 bytes a key; families/sort.py's _item_shift: 3 passes up
// to 2^24 keys, else 4), the last of them (a.wide CW_RADIX_ITEMS_OUT) writing the items: at
// 2^24 keys and more the gather's random 8-byte loads missed L2 (H200, probe s16argsort 1:
// float64 2^24 the gather pass 449 us against 176 for a pass; the carry's 245, 241 and 223)
// ARG (K and B 8 bytes, CARRY; radix_sweep_carry): an argsort's carry pass, the sweep above
// before its items: its own kernel for its own look-back window (cw_radix_window). Its keys are
// class keys: the first pass writes the classes of the keys it makes, and every pass takes them
// as they are (no class applied to the digit of each ranking, placing and write: the values are
// never decoded from them). On the H200 (probes s22argsort 1 and 2, against 6544404, one process,
// interleaved, bit-exact against torch both directions and against 6544404 on NaNs of both signs
// and any payload, infinities and zeros): float64 argsort 2^26 carry passes 935, 925, 913, 870 us
// -> 903, 857, 853, 780, 0.997 -> 0.960x torch.argsort(stable=True) (probe 1: 0.997 -> 0.961x);
// 2^24 0.942 -> 0.918x, 2^23 0.922 -> 0.902x; int64 2^26 0.933 -> 0.926x (its classes are its
// keys: a check less). Tried with it (probe 1): a look-back window of 1 or 3 (0.997x, 0.971x at
// float64 2^26), 11 keys a thread (0.976x), 9-12 at four blocks a multiprocessor (64 registers:
// 0.983-1.006x), 12 at two (1.056x). Probe 2: the positions' bits below a pass's shift in the
// keys' (sorted) bits and the rest beside them in 4, 2 or 1 bytes (10 bytes a key less over the 4
// passes) lost: carry passes 864, 1007, 1004, 923 us, 1.023x.
template <class K, class B, bool CARRY, bool PACK = false, bool ARG = false>
__device__ inline void cw_radix_sweep_range(const cw_radix_args& a,
                                            cw_radix_smem<K, cw_radix_sweep_items<K, B, CARRY, PACK>::value, CARRY>& m_,
                                            cw_i64 r,
                                            cw_i64 b, cw_u32 base, cw_u64 epoch, cw_u32* later) {
    const int ITEMS = cw_radix_sweep_items<K, B, CARRY, PACK>::value;
    const K* kin = (const K*)a.keys_in;
    const cw_u32* xin = (const cw_u32*)a.idx_in;
    K* key = m_.key;
    // (an 8-byte key's items: of each half in turn, the high half's gathered)
    const bool halves = PACK && sizeof(B) == 8 && a.L <= CW_RADIX_GATHER_MAX;
    const int t = threadIdx.x, ws = warpSize;
    const int s = PACK && (sizeof(B) < 8 || (halves && a.shift < 32)) ? 32 + (a.shift & 31) : a.shift;
    const int seg = (t / ws) * ws * ITEMS + t % ws;  // cw_radix_count8's places of this lane's keys
    const cw_i64 lo = b * a.chunk, row = r * a.L;
    const int m = (int)(a.L - lo < a.chunk ? a.L - lo : a.chunk);
    cw_radix_class<K> c(a);
    if (PACK || ARG) c.on = false;  // (an argsort's items, its carry passes' keys: class keys already)
    cw_u32* idx = CARRY ? m_.idx : nullptr;
    K k[ITEMS];
    cw_u32 x[ITEMS];
    // the first pass (keys_in null) makes the keys from the source
    const B* src = kin ? nullptr : cw_radix_source_row<B>(a, r) + lo * a.src_stride;
    if (PACK && sizeof(B) == 8 && !kin) {  // the items made: the 8-byte keys' low halves, then their positions
        cw_radix_load_keys(a, (const K*)nullptr, src, seg, ws, m, k);
        const cw_radix_class<K> c64(a);
        const cw_u32 at0 = (cw_u32)lo + (cw_u32)seg;
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) k[i] = c64(k[i]) << 32 | (K)(at0 + (cw_u32)(i * ws));
    } else if (PACK && !kin) {  // the items made: the 4-byte keys, then their positions
        cw_u32 raw[ITEMS];
        cw_radix_load_keys(a, (const cw_u32*)nullptr, src, seg, ws, m, raw);
        const cw_radix_class<cw_u32> c32(a);
        const cw_u32 at0 = (cw_u32)lo + (cw_u32)seg;
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) k[i] = (K)c32(raw[i]) << 32 | (K)(at0 + (cw_u32)(i * ws));
    } else if (PACK) {  // the items read
        cw_radix_load_keys(a, kin + row + lo, (const K*)nullptr, seg, ws, m, k);
    } else {
        cw_radix_load_keys(a, kin ? kin + row + lo : nullptr, src, seg, ws, m, k);
        if (ARG && !kin) {  // the keys made: their classes', which the later carry passes read
            const cw_radix_class<K> cf(a);
#pragma unroll
            for (int i = 0; i < ITEMS; ++i) k[i] = cf(k[i]);
        }
    }
    if (halves && a.shift == 32) {  // the items remade: the high halves, by position
        const B* row_src = cw_radix_source_row<B>(a, r);
        B v[ITEMS];
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) v[i] = seg + i * ws < m ? row_src[(cw_i64)(cw_u32)k[i] * a.src_stride] : (B)0;
        const cw_radix_class<K> c64(a);
#pragma unroll
        for (int i = 0; i < ITEMS; ++i)
            k[i] = (c64(cw_radix_encode<K, B>(a, v[i])) >> 32) << 32 | (k[i] & 0xffffffffull);
    }
    cw_u32 rank[ITEMS];
    const cw_u32 total = cw_radix_count8(c, m, s, k, m_.match, m_.cnt, rank);
    // the positions loaded after count8 (its barriers keep them there): not held through the
    // ranking, whose registers bound the blocks a multiprocessor runs; their loads overlap
    // the look-back
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const int p = seg + i * ws;
        x[i] = p < m && CARRY ? (xin ? xin[row + lo + p] : (cw_u32)(lo + p)) : 0u;
    }
    cw_u64* own = cw_radix_states(a, r, b) + t;
    atomicExch(own, epoch | (b ? CW_RADIX_OWN : CW_RADIX_SUM) << 32 | total);
    // an argsort's first pass of items (later: cw_radix_sweep's) counts the later passes' digits of
    // its items (a 4-byte key's from bit 32), before its look-back waits on the ranges before it
    if (PACK && later) {
        const int q0 = a.shift / 8 + 1, passes = (a.bits + 7) / 8;
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            if (seg + i * ws >= m) continue;
            for (int q = q0; q < passes; ++q) {
                const cw_u32 d = (cw_u32)(k[i] >> ((sizeof(B) < 8 ? 32 : 0) + 8 * q)) & 255u;
                atomicAdd(&later[(q - q0) * CW_RADIX_DIGITS + d], 1u);
            }
        }
    }
    const int WIN = cw_radix_window<B, PACK, ARG>::value;
    cw_u32 sum = 0u;
    for (cw_i64 j = b - 1; j >= 0;) {  // WIN ranges read at once, nearest first
        cw_u64 v[WIN];
#pragma unroll
        for (int i = 0; i < WIN; ++i) v[i] = j >= i ? cw_radix_look(cw_radix_states(a, r, j - i) + t) : 0ull;
        int i = 0;
        bool found = false;
        for (; i < WIN && j >= i; ++i) {
            if ((v[i] >> 40) != (epoch >> 40)) break;  // not posted yet (its block runs): read again from it
            sum += (cw_u32)v[i];
            if (((v[i] >> 32) & 3ull) == CW_RADIX_SUM) {
                found = true;
                break;
            }
        }
        if (found) break;
        j -= i;
    }
    if (b) atomicExch(own, epoch | CW_RADIX_SUM << 32 | (cw_u64)(sum + total));
    base += sum;
    const cw_u32 first = cw_radix_place8(c, m, s, k, x, key, idx, m_.cnt, m_.group, total, rank);
    m_.off[t] = base - first;  // digit t's key at tile place p goes to row place off[t] + p (u32: a row's places fit)
    __syncthreads();
    cw_radix_column(key, idx, m, k, x);
    cw_u32 at[ITEMS];  // each key's place in the row
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) at[i] = m_.off[(cw_u32)(c(k[i]) >> s) & 255u] + (cw_u32)(t + i * CW_RADIX_BLOCK);
    if (CARRY && sizeof(K) == 8 && a.wide == CW_RADIX_ITEMS_OUT) {  // (PACK's items of 8-byte keys)
        const int next = a.shift + 8;
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) k[i] = (K)((cw_u64)c(k[i]) >> next << next | (cw_u64)x[i]);
    }
    const cw_u32 pm = PACK && sizeof(B) == 8 && !halves ? cw_radix_position_mask(a.L) : 0xffffffffu;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
        if (t + i * CW_RADIX_BLOCK < m)
            cw_radix_put<B>(a, k[i], r, PACK ? (cw_u32)k[i] & pm : x[i], row + at[i]);
    __syncthreads();
}
template <class K, class B, bool CARRY = true, bool PACK = false, bool ARG = false>
__device__ inline void cw_radix_sweep(const cw_radix_args& a) {
    __shared__ cw_radix_smem<K, cw_radix_sweep_items<K, B, CARRY, PACK>::value, CARRY> m_;
    // an argsort's first pass of items (a.wide CW_RADIX_COUNT_LATER): the digits of the passes
    // after it, counted in its ranges, added to the row's totals when the block leaves the row;
    // radix_digits counted only the passes up to it (fewer shared atomics a key). On the H200
    // (probe s18argsort 2, against cf51d6e, interleaved): radix_digits of 2^26 float32 keys 226 ->
    // 172 us, float64 373 -> 326, int64 327 -> 277, the first pass of items 27-32 us longer;
    // argsort float32 2^26 1.035 -> 1.023x torch, float64 1.052 -> 1.047x, int64 0.984 -> 0.978x;
    // 2^24 float64 0.987 -> 0.976x, float32 0.979 -> 0.967x; 2^20 float32 0.807 -> 0.772x
    __shared__ cw_u32 later[PACK ? CW_RADIX_LATER_PASSES * CW_RADIX_DIGITS : 1];
    __shared__ cw_i64 ticket;
    const int t = threadIdx.x, pass = a.shift / 8;
    const int nlater = PACK && a.wide == CW_RADIX_COUNT_LATER ? (a.bits + 7) / 8 - pass - 1 : 0;
    for (int j = t; j < nlater * CW_RADIX_DIGITS; j += CW_RADIX_BLOCK) later[j] = 0u;
    const cw_u64 epoch = (cw_u64)(pass + 1) << 40;
    cw_i64 row = -1;
    cw_u32 before = 0u;  // digit t's first place in the row: the digits before it (scanned once a row)
    for (;;) {
        if (t == 0) ticket = (cw_i64)atomicAdd((cw_u64*)a.counts + pass, 1ull);
        __syncthreads();
        const cw_i64 g = ticket;
        __syncthreads();  // ticket read by every thread before thread 0 takes the next
        const bool done = g >= a.rows * a.blocks;
        if (nlater && row >= 0 && (done || g / a.blocks != row)) {  // (counted before the last range's barrier)
            cw_u64* tot = cw_radix_totals(a, row) + (pass + 1) * CW_RADIX_DIGITS;
            for (int j = t; j < nlater * CW_RADIX_DIGITS; j += CW_RADIX_BLOCK) {
                if (later[j]) atomicAdd(&tot[j], (cw_u64)later[j]);
                later[j] = 0u;
            }
        }
        if (done) return;
        if (g / a.blocks != row) {  // the same for the block
            row = g / a.blocks;
            before = cw_radix_block_scan(m_.group, (cw_u32)cw_radix_totals(a, row)[pass * CW_RADIX_DIGITS + t]);
            __syncthreads();  // the scan's group read before the ranking's scan writes it
        }
        cw_radix_sweep_range<K, B, CARRY, PACK, ARG>(a, m_, row, g % a.blocks, before, epoch, nlater ? later : nullptr);
    }
}
