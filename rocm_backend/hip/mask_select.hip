// mask_count, mask_select (compress's, for masks of at most MASK_TILES_MAX tiles): the
// positions a 1-D bool mask keeps, in order, read from the bool itself in two launches, no
// scan of a widened copy (an astype, a three-launch tiled scan and a compact before).
// Tile t is the ITEMS * CW_BLOCK mask elements from t * ITEMS * CW_BLOCK; one block a tile.
// mask_count: tile t's kept count to counts[t]. mask_select: the tile's kept positions
// (int64) to positions[c ...], c the sum of counts[0 .. t) that the block adds up itself
// (few tiles: no second scan), each thread taking ITEMS consecutive elements in order;
// the last tile's block writes the total to counts[tiles], the one value the host reads.
// With op3 (unique's inverse), mask_select also writes each element's kept count up to and
// including it, less one: the run it is in when the mask marks where runs start.
//   op0 mask (bool, any stride), op1 counts (int64, tiles + 1), op2 positions (int64, n),
//   op3 null or the runs (int64, n);
//   scalar[0] = tiles, scalar[1] = 1: the run starts' mask (cw_mask_kept); grid x: tiles
//   (loops), block = CW_BLOCK threads
// element i of the mask; with scalar[1] (unique's run starts) the mask is one element longer
// at each end, both True, between them op0's elements (op0 may be null: no element there)
__device__ inline bool cw_mask_kept(const cw_ew_args& a, cw_i64 i) {
    if (a.scalar[1]) {
        if (i == 0 || i == a.n - 1) return true;
        --i;
    }
    return ((const unsigned char*)a.op[0].ptr)[cw_decode<1>(a, i).o[0]] != 0;
}

__device__ inline int cw_mask_block_sum(int own, int* sums) {
    const int tid = threadIdx.x;
    sums[tid] = own;
    __syncthreads();
    for (int d = CW_BLOCK / 2; d > 0; d >>= 1) {
        if (tid < d) sums[tid] += sums[tid + d];
        __syncthreads();
    }
    const int total = sums[0];
    __syncthreads();  // sums may be reused
    return total;
}

template <int ITEMS> __device__ inline void cw_mask_count(const cw_ew_args& a) {
    __shared__ int sums[CW_BLOCK];
    cw_i64* counts = (cw_i64*)a.op[1].ptr;
    const cw_i64 tiles = a.scalar[0];
    for (cw_i64 t = blockIdx.x; t < tiles; t += gridDim.x) {
        int own = 0;
        for (int k = 0; k < ITEMS; ++k) {  // coalesced: neighbouring threads, neighbouring elements
            const cw_i64 i = t * (ITEMS * CW_BLOCK) + (cw_i64)k * CW_BLOCK + threadIdx.x;
            if (i < a.n) own += cw_mask_kept(a, i);
        }
        const int total = cw_mask_block_sum(own, sums);
        if (threadIdx.x == 0) counts[t] = total;
    }
}

template <int ITEMS> __device__ inline void cw_mask_select(const cw_ew_args& a) {
    __shared__ int sums[CW_BLOCK];
    __shared__ cw_i64 before_sums[CW_BLOCK];
    cw_i64* counts = (cw_i64*)a.op[1].ptr;
    cw_i64* positions = (cw_i64*)a.op[2].ptr;
    const int tid = threadIdx.x;
    const cw_i64 tiles = a.scalar[0];
    for (cw_i64 t = blockIdx.x; t < tiles; t += gridDim.x) {
        // the kept elements of the tiles before this one
        cw_i64 before = 0;
        for (cw_i64 j = tid; j < t; j += CW_BLOCK) before += counts[j];
        before_sums[tid] = before;
        __syncthreads();
        for (int d = CW_BLOCK / 2; d > 0; d >>= 1) {
            if (tid < d) before_sums[tid] += before_sums[tid + d];
            __syncthreads();
        }
        before = before_sums[0];
        // this thread's ITEMS consecutive elements, as bits
        const cw_i64 first = t * (ITEMS * CW_BLOCK) + (cw_i64)tid * ITEMS;
        unsigned int bits = 0;
        int own = 0;
        for (int k = 0; k < ITEMS; ++k) {
            const cw_i64 i = first + k;
            if (i < a.n && cw_mask_kept(a, i)) {
                bits |= 1u << k;
                ++own;
            }
        }
        // inclusive scan of the threads' counts (Hillis-Steele)
        sums[tid] = own;
        __syncthreads();
        for (int d = 1; d < CW_BLOCK; d <<= 1) {
            const int prev = tid >= d ? sums[tid - d] : 0;
            __syncthreads();
            sums[tid] += prev;
            __syncthreads();
        }
        cw_i64 at = before + sums[tid] - own;
        if (a.op[3].ptr) {
            cw_i64* runs = (cw_i64*)a.op[3].ptr;
            for (int k = 0; k < ITEMS && first + k < a.n; ++k) {
                if (bits >> k & 1u) positions[at++] = first + k;
                runs[first + k] = at - 1;
            }
        } else {
            for (int k = 0; k < ITEMS; ++k)
                if (bits >> k & 1u) positions[at++] = first + k;
        }
        if (t == tiles - 1 && tid == CW_BLOCK - 1) counts[tiles] = before + sums[tid];
        __syncthreads();  // sums and before_sums are reused by the next tile
    }
}
