// Batched transpose copy: out[b][r][c] = in[in_offset + b*sB + r + c*sC] (the source's
// unit stride runs along r, the destination's along c). A strided copy of this shape
// (x.T, permute_dims NCHW -> NHWC and back) through the generic element-wise path reads
// or writes with a stride on one side; here a TILE x TILE tile goes through shared
// memory so both sides move in unit-stride runs. Block: TILE x CW_TR_ROWS threads.
// Tiles loop over y and z, so any R and B fit the grid limits. No warp-size assumption.
// CW_TR_TILE, CW_TR_ROWS: abi.h (generated from rocm_backend/abi/structs.py)

// struct cw_transpose_args: abi.h (generated from rocm_backend/abi/structs.py)

template <class T> __device__ inline void cw_transpose(const cw_transpose_args& a) {
    __shared__ T tile[CW_TR_TILE][CW_TR_TILE + 1];  // +1: no bank conflicts on the transposed read
    const T* in = (const T*)a.in + a.in_offset;
    T* out = (T*)a.out + a.out_offset;
    const cw_i64 c0 = (cw_i64)blockIdx.x * CW_TR_TILE;
    const int tx = threadIdx.x, ty = threadIdx.y;
    for (cw_i64 b = blockIdx.z; b < a.B; b += gridDim.z) {
        for (cw_i64 r0 = (cw_i64)blockIdx.y * CW_TR_TILE; r0 < a.R; r0 += (cw_i64)gridDim.y * CW_TR_TILE) {
            // load: threads along r (the source's unit stride)
            for (int k = ty; k < CW_TR_TILE; k += CW_TR_ROWS) {
                const cw_i64 r = r0 + tx, c = c0 + k;
                if (r < a.R && c < a.C) tile[k][tx] = in[b * a.sB + r + c * a.sC];
            }
            __syncthreads();
            // store: threads along c (the destination's unit stride)
            for (int k = ty; k < CW_TR_TILE; k += CW_TR_ROWS) {
                const cw_i64 r = r0 + k, c = c0 + tx;
                if (r < a.R && c < a.C) out[(b * a.R + r) * a.C + c] = tile[tx][k];
            }
            __syncthreads();  // the tile is reused by the next (b, r0)
        }
    }
}
