// Inclusive scans along one axis: one block per row, the row walked in blocks of
// CW_BLOCK elements with a shared-memory (Hillis-Steele) scan and a running carry.
// ABI: cw_ew_args over the kept axes (n = rows, op0 = out, op1 = in; no CONTIGUOUS
// flag), scalar[0] = row length, scalar[1] = input axis stride, scalar[2] = output axis stride.

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

template <class S, class Op> __device__ inline void cw_scan(const cw_ew_args& a) {
    typedef typename Op::C C;
    __shared__ C buf[CW_BLOCK];
    Op op;
    const int tid = threadIdx.x, bd = blockDim.x;
    const cw_i64 len = a.scalar[0], s_in = a.scalar[1], s_out = a.scalar[2];
    for (cw_i64 row = blockIdx.x; row < a.n; row += gridDim.x) {
        cw_offsets<2> o = cw_decode<2>(a, row);
        C carry = op.identity();
        for (cw_i64 start = 0; start < len; start += bd) {
            cw_i64 i = start + tid;
            buf[tid] = i < len ? cw_load<S>(a.op[1].ptr, o.o[1] + i * s_in) : op.identity();
            __syncthreads();
            for (int d = 1; d < bd; d <<= 1) {
                C t = tid >= d ? buf[tid - d] : op.identity();
                __syncthreads();
                if (tid >= d) buf[tid] = op(t, buf[tid]);
                __syncthreads();
            }
            if (i < len) cw_store<S>(a.op[0].ptr, o.o[0] + i * s_out, op(carry, buf[tid]));
            carry = op(carry, buf[bd - 1]);
            __syncthreads();
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
#ifndef CW_SCAN_ITEMS  // tests/rocm/test_scan_host.py builds smaller tiles to reach the recursion
#define CW_SCAN_ITEMS 8
#endif
#define CW_SCAN_TILE (CW_BLOCK * CW_SCAN_ITEMS)
// one padding slot per 32: a thread's CW_SCAN_ITEMS consecutive elements then sit in
// other banks than its neighbours' (no bank conflicts on the per-thread walks)
#define CW_SCAN_PAD(k) ((k) + ((k) >> 5))

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
            C own = op.identity();
            for (int k = 0; k < CW_SCAN_ITEMS; ++k) own = op(own, tile[CW_SCAN_PAD(tid * CW_SCAN_ITEMS + k)]);
            sums[tid] = own;
            __syncthreads();
            if (!apply) {  // the tile's total: a tree over the thread totals
                for (int d = CW_BLOCK / 2; d > 0; d >>= 1) {
                    if (tid < d) sums[tid] = op(sums[tid], sums[tid + d]);
                    __syncthreads();
                }
                if (tid == 0) totals[o.o[2] + t] = sums[0];
            } else {
                for (int d = 1; d < CW_BLOCK; d <<= 1) {  // inclusive scan of the thread totals
                    C prev = tid >= d ? sums[tid - d] : op.identity();
                    __syncthreads();
                    if (tid >= d) sums[tid] = op(prev, sums[tid]);
                    __syncthreads();
                }
                C carry = t > 0 ? totals[o.o[2] + t - 1] : op.identity();
                if (tid > 0) carry = op(carry, sums[tid - 1]);
                for (int k = 0; k < CW_SCAN_ITEMS; ++k) {
                    const int slot = CW_SCAN_PAD(tid * CW_SCAN_ITEMS + k);
                    carry = op(carry, tile[slot]);
                    tile[slot] = carry;
                }
                __syncthreads();
                for (int k = tid; k < CW_SCAN_TILE; k += CW_BLOCK) {
                    cw_i64 i = start + k;
                    if (i < len) cw_store<S>(a.op[0].ptr, o.o[0] + i * s_out, tile[CW_SCAN_PAD(k)]);
                }
            }
            __syncthreads();  // the shared tile is reused by the next (row, t)
        }
    }
}
