// Inclusive scans along one axis. Rows are scanned in chunks held in shared memory:
// each thread folds CW_SCAN_ITEMS consecutive elements of its row, a group of threads
// scans its folds (Hillis-Steele), then each thread rewrites its items from the carry
// of everything before them. Loads and stores go through the shared tile, so they are
// coalesced whichever way the row lies in memory.

// CW_SCAN_ITEMS: abi.h (generated from rocm_backend/abi/structs.py); tests/rocm/host/test_scan_host.py builds 1 and 4 (smaller tiles reach the recursion)
#define CW_SCAN_TILE (CW_BLOCK * CW_SCAN_ITEMS)
// one padding slot per 32: a thread's CW_SCAN_ITEMS consecutive elements then sit in
// other banks than its neighbours' (no bank conflicts on the per-thread walks)
#define CW_SCAN_PAD(k) ((k) + ((k) >> 5))

template <class S> struct scan_sum {
    typedef typename cw_traits<S>::compute C;
    __device__ C identity() const { return cw_cast<C>(0); }
    __device__ C operator()(C a, C b) const { return cw_wrap_add(a, b); }
};
template <class S> struct scan_prod {
    typedef typename cw_traits<S>::compute C;
    __device__ C identity() const { return cw_cast<C>(1); }
    __device__ C operator()(C a, C b) const { return cw_wrap_mul(a, b); }
};

// The threads of a block in groups of g (a power of two dividing CW_BLOCK); group q
// holds a chunk of g * CW_SCAN_ITEMS elements at tile[q * chunk ...], thread `lane` of
// it the items from lane * CW_SCAN_ITEMS. Scans every group's chunk in place, starting
// from `carry` (the group's own), and returns the chunk's total folded into `carry`.
// Every thread of the block must call it (it holds block barriers).
template <class Op> __device__ inline typename Op::C cw_scan_chunk(
        typename Op::C* tile, typename Op::C* sums, int g, typename Op::C carry) {
    typedef typename Op::C C;
    Op op;
    const int tid = threadIdx.x, lane = tid & (g - 1), first = tid - lane;
    const int base = tid * CW_SCAN_ITEMS;  // == group * chunk + lane * CW_SCAN_ITEMS
    C own = op.identity();
    for (int k = 0; k < CW_SCAN_ITEMS; ++k) own = op(own, tile[CW_SCAN_PAD(base + k)]);
    sums[tid] = own;
    __syncthreads();
    for (int d = 1; d < g; d <<= 1) {  // inclusive scan of the group's folds
        C prev = lane >= d ? sums[tid - d] : op.identity();
        __syncthreads();
        if (lane >= d) sums[tid] = op(prev, sums[tid]);
        __syncthreads();
    }
    C running = lane > 0 ? op(carry, sums[tid - 1]) : carry;
    for (int k = 0; k < CW_SCAN_ITEMS; ++k) {
        const int slot = CW_SCAN_PAD(base + k);
        running = op(running, tile[slot]);
        tile[slot] = running;
    }
    carry = op(carry, sums[first + g - 1]);
    __syncthreads();  // the tile is complete; sums may be reused
    return carry;
}

// Tile slot k -> (row r of the block, position p in the chunk). With unit stride the
// threads run along a row; otherwise across rows, which are then usually adjacent in
// memory (a scan along a slow axis).
__device__ inline void cw_scan_slot(int k, bool along, int rows, int chunk, int& r, int& p) {
    if (along) { r = k / chunk; p = k - r * chunk; }
    else { p = k / rows; r = k - p * rows; }
}

// Any number of rows of any length: CW_BLOCK / g rows per block, each row walked in
// chunks of g * CW_SCAN_ITEMS with a running carry.
// ABI: cw_ew_args over the kept axes (n = rows, op0 = out, op1 = in; no CONTIGUOUS
// flag), scalar[0] = row length, scalar[1] = input axis stride, scalar[2] = output axis
// stride, scalar[3] = g, the threads per row; block = CW_BLOCK threads, grid x loops.
template <class S, class Op> __device__ inline void cw_scan(const cw_ew_args& a) {
    typedef typename Op::C C;
    __shared__ C tile[CW_SCAN_PAD(CW_SCAN_TILE)];
    __shared__ C sums[CW_BLOCK];
    __shared__ cw_i64 in_at[CW_BLOCK], out_at[CW_BLOCK];
    Op op;
    const int tid = threadIdx.x, g = (int)a.scalar[3];
    const int rows = CW_BLOCK / g, chunk = g * CW_SCAN_ITEMS;
    const cw_i64 len = a.scalar[0], s_in = a.scalar[1], s_out = a.scalar[2];
    const bool load_along = s_in == 1 || s_in == -1, store_along = s_out == 1;
    for (cw_i64 row0 = (cw_i64)blockIdx.x * rows; row0 < a.n; row0 += (cw_i64)gridDim.x * rows) {
        const int here = a.n - row0 < rows ? (int)(a.n - row0) : rows;
        if (tid < here) {
            cw_offsets<2> o = cw_decode<2>(a, row0 + tid);
            out_at[tid] = o.o[0];
            in_at[tid] = o.o[1];
        }
        __syncthreads();
        C carry = op.identity();
        for (cw_i64 start = 0; start < len; start += chunk) {
            for (int k = tid; k < CW_SCAN_TILE; k += CW_BLOCK) {
                int r, p;
                cw_scan_slot(k, load_along, rows, chunk, r, p);
                const cw_i64 i = start + p;
                tile[CW_SCAN_PAD(r * chunk + p)] =
                    r < here && i < len ? cw_load<S>(a.op[1].ptr, in_at[r] + i * s_in) : op.identity();
            }
            __syncthreads();
            carry = cw_scan_chunk<Op>(tile, sums, g, carry);
            for (int k = tid; k < CW_SCAN_TILE; k += CW_BLOCK) {
                int r, p;
                cw_scan_slot(k, store_along, rows, chunk, r, p);
                const cw_i64 i = start + p;
                if (r < here && i < len) cw_store<S>(a.op[0].ptr, out_at[r] + i * s_out, tile[CW_SCAN_PAD(r * chunk + p)]);
            }
            __syncthreads();  // the tile is reused by the next chunk
        }
    }
}

// One thread per row, strictly left to right: the same association as NumPy's
// cumprod. Used for complex products, whose infinities and NaNs depend on the order
// of the multiplications (a parallel scan regroups them).
template <class S, class Op> __device__ inline void cw_scan_seq(const cw_ew_args& a) {
    typedef typename Op::C C;
    Op op;
    const cw_i64 len = a.scalar[0], s_in = a.scalar[1], s_out = a.scalar[2];
    CW_GRID_STRIDE(row, a.n) {
        cw_offsets<2> o = cw_decode<2>(a, row);
        C carry = op.identity();
        for (cw_i64 i = 0; i < len; ++i) {
            carry = i ? op(carry, cw_load<S>(a.op[1].ptr, o.o[1] + i * s_in)) : cw_load<S>(a.op[1].ptr, o.o[1]);
            cw_store<S>(a.op[0].ptr, o.o[0] + i * s_out, carry);
        }
    }
}

// Long rows, few of them: one block per row would leave the GPU idle and walk the row
// alone, so each row is cut into tiles of CW_SCAN_TILE elements, one block per tile.
// Pass 1 (flags without CW_FLAG_A): the total of tile t of a row goes to its totals[t].
// The host scans the totals (this same scan, on the compute type), then pass 2
// (CW_FLAG_A) scans each tile starting from the inclusive total of the tiles before it.
// ABI: as cw_scan, plus op2 = the totals (compute type; row r's T totals start at
// op2's offset for r) and scalar[3] = T; grid x over rows, y over tiles (both loop),
// block = CW_BLOCK threads.
template <class S, class Op> __device__ inline void cw_scan_tiles(const cw_ew_args& a) {
    typedef typename Op::C C;
    __shared__ C tile[CW_SCAN_PAD(CW_SCAN_TILE)];
    __shared__ C sums[CW_BLOCK];
    Op op;
    const int tid = threadIdx.x;
    const cw_i64 len = a.scalar[0], s_in = a.scalar[1], s_out = a.scalar[2], tiles = a.scalar[3];
    const bool apply = (a.flags & CW_FLAG_A) != 0;
    C* totals = (C*)a.op[2].ptr;
    for (cw_i64 row = blockIdx.x; row < a.n; row += gridDim.x) {
        cw_offsets<3> o = cw_decode<3>(a, row);
        for (cw_i64 t = blockIdx.y; t < tiles; t += gridDim.y) {
            const cw_i64 start = t * CW_SCAN_TILE;
            // coalesced loads into shared memory, then each thread owns CW_SCAN_ITEMS in a row
            for (int k = tid; k < CW_SCAN_TILE; k += CW_BLOCK) {
                cw_i64 i = start + k;
                tile[CW_SCAN_PAD(k)] = i < len ? cw_load<S>(a.op[1].ptr, o.o[1] + i * s_in) : op.identity();
            }
            __syncthreads();
            if (!apply) {  // the tile's total: each thread's fold, then a tree over the folds
                C own = op.identity();
                for (int k = 0; k < CW_SCAN_ITEMS; ++k) own = op(own, tile[CW_SCAN_PAD(tid * CW_SCAN_ITEMS + k)]);
                sums[tid] = own;
                __syncthreads();
                for (int d = CW_BLOCK / 2; d > 0; d >>= 1) {
                    if (tid < d) sums[tid] = op(sums[tid], sums[tid + d]);
                    __syncthreads();
                }
                if (tid == 0) totals[o.o[2] + t] = sums[0];
            } else {
                cw_scan_chunk<Op>(tile, sums, CW_BLOCK, t > 0 ? totals[o.o[2] + t - 1] : op.identity());
                for (int k = tid; k < CW_SCAN_TILE; k += CW_BLOCK) {
                    cw_i64 i = start + k;
                    if (i < len) cw_store<S>(a.op[0].ptr, o.o[0] + i * s_out, tile[CW_SCAN_PAD(k)]);
                }
            }
            __syncthreads();  // the shared tile is reused by the next (row, t)
        }
    }
}
