// Indexing: take (index_select, gather, sort's value gather; row_copy, elementwise.hip,
// selects contiguous rows), put (scatter), put_add (scatter_add, index_add) and compact
// (the kept positions of long masks; mask_select.hip the rest). All over cw_ew_args:
//   take:    op0 out, op1 source (axis stride 0), op2 int64 indices
//   put:     op0 destination (axis stride 0), op1 int64 indices, op2 source
//   put_add: as put, accumulated atomically
// scalar[0] = axis stride of the indexed array, scalar[1] = axis length n;
// op3.ptr = device error flag: an index outside [-n, n) sets it and is skipped.
// put and put_add run twice (rocm_backend/families/indexing.py): first with CW_FLAG_A, which only
// checks every index and sets the flag, then for the writes, which are all skipped when
// the flag is set: a scatter with a bad index writes nothing, as NumPy's does.

template <class B> __device__ inline void cw_take(const cw_ew_args& a) {
    const cw_i64 stride = a.scalar[0], n = a.scalar[1];
    CW_GRID_STRIDE(i, a.n) {
        cw_offsets<3> o = cw_decode<3>(a, i);
        cw_i64 j = ((const cw_i64*)a.op[2].ptr)[o.o[2]];
        if (j < -n || j >= n) {
            cw_flag_error(a.op[3].ptr);
            B zero = B();
            ((B*)a.op[0].ptr)[o.o[0]] = zero;
            continue;
        }
        if (j < 0) j += n;
        ((B*)a.op[0].ptr)[o.o[0]] = ((const B*)a.op[1].ptr)[o.o[1] + j * stride];
    }
}

// the check pass of put/put_add (true: this launch is done), or the write pass finding
// the check's flag set (true: write nothing); the flag is read once per thread, after
// the check pass's kernel completed (stream order)
__device__ inline bool cw_put_skips(const cw_ew_args& a) {
    const cw_i64 n = a.scalar[1];
    if (!(a.flags & CW_FLAG_A)) return a.op[3].ptr && *(const volatile unsigned int*)a.op[3].ptr != 0u;
    CW_GRID_STRIDE(i, a.n) {
        cw_offsets<2> o = cw_decode<2>(a, i);
        cw_i64 j = ((const cw_i64*)a.op[1].ptr)[o.o[1]];
        if (j < -n || j >= n) cw_flag_error(a.op[3].ptr);
    }
    return true;
}

template <class B> __device__ inline void cw_put(const cw_ew_args& a) {
    const cw_i64 stride = a.scalar[0], n = a.scalar[1];
    if (cw_put_skips(a)) return;
    CW_GRID_STRIDE(i, a.n) {
        cw_offsets<3> o = cw_decode<3>(a, i);
        cw_i64 j = ((const cw_i64*)a.op[1].ptr)[o.o[1]];
        if (j < -n || j >= n) { cw_flag_error(a.op[3].ptr); continue; }
        if (j < 0) j += n;
        ((B*)a.op[0].ptr)[o.o[0] + j * stride] = ((const B*)a.op[2].ptr)[o.o[2]];
    }
}

// compact (kept_positions' past MASK_TILES_MAX tiles, families/joins.py): the positions a
// bool mask keeps, packed in order. Element i whose mask (op2) is set writes i (int64) to
// out[ranks[i] - 1], ranks (op1, int64) the mask's inclusive scan; a dropped element writes
// nothing (a scatter by rank sent each to one spare slot, whose stores to the one address queued).
//   op0 out (packed from its offset: its stride is not read), op1 ranks, op2 mask
__device__ inline void cw_compact(const cw_ew_args& a) {
    CW_GRID_STRIDE(i, a.n) {
        cw_offsets<3> o = cw_decode<3>(a, i);
        if (!((const unsigned char*)a.op[2].ptr)[o.o[2]]) continue;
        ((cw_i64*)a.op[0].ptr)[a.op[0].offset + ((const cw_i64*)a.op[1].ptr)[o.o[1]] - 1] = i;
    }
}

template <class S> __device__ inline void cw_put_add(const cw_ew_args& a) {
    const cw_i64 stride = a.scalar[0], n = a.scalar[1];
    if (cw_put_skips(a)) return;
    CW_GRID_STRIDE(i, a.n) {
        cw_offsets<3> o = cw_decode<3>(a, i);
        cw_i64 j = ((const cw_i64*)a.op[1].ptr)[o.o[1]];
        if (j < -n || j >= n) { cw_flag_error(a.op[3].ptr); continue; }
        if (j < 0) j += n;
        cw_atomic_add((S*)a.op[0].ptr + o.o[0] + j * stride, cw_load<S>(a.op[2].ptr, o.o[2]));
    }
}
