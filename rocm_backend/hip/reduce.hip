// Strided reductions, one launch each. The host permutes the reduced axes last and picks:
//   rows: when the reduced elements are the closest in memory. A *group* of G threads
//         (a power of two: a part of a warp, a warp, or several warps) reduces one
//         (output, segment) item, blockDim.x / G items per block; a unit-stride
//         segment is read with 16-byte vector loads (after a scalar head up to the first
//         aligned element), two vectors in flight per thread, and the group
//         combines with warp shuffles (warpSize lanes, whatever the vendor's width) plus,
//         when it spans warps, one shared-memory step in warp order.
//   cols: when a kept axis is innermost. 2-D blocks: threadIdx.x walks outputs (``vec``
//         adjacent outputs per thread with one vector load per reduced element when the
//         host found them contiguous and aligned), threadIdx.y interleaves the reduced
//         elements of the block's segment; the y-lanes combine through shared memory in
//         y order.
// With splits > 1 each output's reduced elements are cut into ``splits`` segments, one
// per block (rows: the group is the block; cols: blockIdx.y), and the blocks of one
// output (rows) or one output tile (cols) meet in a last-block combine: each writes its
// accumulator partial, fences, and takes a ticket from a per-device counter; the block
// that takes the last ticket reads every partial of its outputs in segment order (a
// fixed tree whatever the block that finished last: results are deterministic) and
// writes the result. ``atomicInc`` wraps the counter back to 0 on the last ticket, so the
// counters stay zero between launches (all work of a device runs on its one stream).

// struct cw_reduce_args: abi.h (generated from rocm_backend/abi/structs.py); the ops (red_*)
// and cw_group_reduce: reduce_ops.h

__device__ inline cw_i64 cw_dims_offset(cw_i64 i, int ndim, const cw_i64* shape, const cw_i64* strides) {
    cw_i64 off = 0;
#pragma unroll 1
    for (int d = ndim - 1; d >= 0; --d) {
        cw_i64 n = shape[d], q = i / n;
        off += (i - q * n) * strides[d];
        i = q;
    }
    return off;
}

// The last-block handshake of a split reduction. Every thread of the block calls it after
// its partial stores; it returns true, in every thread, in the block that took the last
// of ``count`` tickets of ``counter`` (atomicInc wraps the counter back to 0 there).
__device__ inline bool cw_last_block(unsigned int* counter, unsigned int count) {
    __shared__ int cw_is_last;
    __threadfence();  // this thread's partials are visible device-wide before the ticket
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0) cw_is_last = atomicInc(counter, count - 1) == count - 1;
    __syncthreads();
    const bool last = cw_is_last != 0;
    if (last) __threadfence();  // and the other blocks' partials are read from device scope
    return last;
}

// this thread's share (lane of width) of p[begin, end), unit stride: the scalar head (up
// to the first element aligned for 16-byte vectors) and tail, then the vectors (two loads
// in flight per thread, combined into up to four accumulators: with a single one ptxas
// uses the first load before it issues the second)
template <class S, class Op> __device__ inline typename Op::acc cw_span(const Op& op, typename Op::acc acc, const S* p,
                                                                      cw_i64 begin, cw_i64 end, int lane, int width) {
    const int V = cw_vec_width<S, S>::value;
    const S* q = p + begin;
    const cw_i64 n = end - begin;
    cw_i64 head = (cw_i64)(((cw_u64)q / sizeof(S)) % (cw_u64)V);
    head = head ? V - head : 0;
    if (head > n) head = n;
    const cw_i64 nv = (n - head) / V;
    // the scalar head and tail (fewer than V elements each): one loop, 32-bit counters,
    // before the vectors (fewer registers live across the vector loop)
    const int fringe = (int)(n - nv * V);
    for (int f = lane; f < fringe; f += width) {
        const cw_i64 i = f < (int)head ? f : f + nv * V;
        acc = op.combine(acc, op.from(cw_traits<S>::load(q[i]), begin + i));
    }
    const S* vq = q + head;
    const cw_i64 base = begin + head, w = width;
    cw_i64 j = lane;
    if (j + w < nv) {  // several accumulators (element k into k % NA): the two loads go out together
        const int NA = V < 4 ? V : 4;
        typename Op::acc av[NA];
#pragma unroll
        for (int k = 0; k < NA; ++k) av[k] = op.identity();
        for (; j + w < nv; j += 2 * w) {
            cw_pack<S, V> x[2];
#pragma unroll
            for (int u = 0; u < 2; ++u) x[u] = cw_vload<S, V>(vq, j + u * w);
#pragma unroll
            for (int u = 0; u < 2; ++u)
#pragma unroll
                for (int k = 0; k < V; ++k)
                    av[k % NA] = op.combine(av[k % NA], op.from(cw_traits<S>::load(x[u].v[k]), base + (j + u * w) * V + k));
        }
#pragma unroll
        for (int k = 0; k < NA; ++k) acc = op.combine(acc, av[k]);
    }
    for (; j < nv; j += w) {
        cw_pack<S, V> x0 = cw_vload<S, V>(vq, j);
#pragma unroll
        for (int k = 0; k < V; ++k) acc = op.combine(acc, op.from(cw_traits<S>::load(x0.v[k]), base + j * V + k));
    }
    return acc;
}

// this thread's share of the elements i = begin + lane, + width, ... < end of p[i * s]
// (four loads in flight); of a multi-axis reduced set when ndim > 1 (offsets decoded)
template <class S, class Op> __device__ inline typename Op::acc cw_strided(
        const Op& op, typename Op::acc acc, const S* p, const cw_reduce_args& a, cw_i64 begin, cw_i64 end, int lane,
        int width) {
    if (a.red_ndim != 1) {  // (not unrolled: several decodes at once cost many registers)
#pragma unroll 1
        for (cw_i64 i = begin + lane; i < end; i += width)
            acc = op.combine(acc, op.from(cw_traits<S>::load(p[cw_dims_offset(i, a.red_ndim, a.red_shape, a.red_strides)]), i));
        return acc;
    }
    const cw_i64 s = a.red_strides[0], w = width;
    cw_i64 i = begin + lane;
    for (; i + 3 * w < end; i += 4 * w) {
        S v0 = p[i * s], v1 = p[(i + w) * s], v2 = p[(i + 2 * w) * s], v3 = p[(i + 3 * w) * s];
        acc = op.combine(acc, op.from(cw_traits<S>::load(v0), i));
        acc = op.combine(acc, op.from(cw_traits<S>::load(v1), i + w));
        acc = op.combine(acc, op.from(cw_traits<S>::load(v2), i + 2 * w));
        acc = op.combine(acc, op.from(cw_traits<S>::load(v3), i + 3 * w));
    }
    for (; i < end; i += w) acc = op.combine(acc, op.from(cw_traits<S>::load(p[i * s]), i));
    return acc;
}

// rows: items (output, segment) = (item / splits, item % splits), blockDim.x / group per
// block. FAST: the entry of reduce_rows_vec_* (one unit-stride reduced axis, at most one
// output axis: no index decoding, so few registers and a full device of threads)
template <class S, class Op, bool FAST> __device__ inline void cw_reduce_rows_t(const cw_reduce_args& a) {
    typedef typename Op::acc Acc;
    static_assert(sizeof(Acc) <= 16, "reductions.py allots 16 bytes per partial");
    __shared__ Acc smem[CW_MAX_WARPS];
    Op op;
    const int G = a.group, per_block = blockDim.x / a.group, lane = threadIdx.x % a.group;
    const cw_i64 total = a.n_out * a.splits;
    for (cw_i64 first = (cw_i64)blockIdx.x * per_block; first < total; first += (cw_i64)gridDim.x * per_block) {
        const cw_i64 item = first + threadIdx.x / G;
        const cw_i64 row = item / a.splits, seg = item - row * a.splits;
        Acc acc = op.identity();
        if (item < total) {
            const cw_i64 begin = seg * a.chunk, end = begin + a.chunk < a.n_red ? begin + a.chunk : a.n_red;
            if (FAST) {
                const S* p = (const S*)a.in + a.in_offset + (a.out_ndim ? row * a.out_strides[0] : 0);
                acc = cw_span<S, Op>(op, acc, p, begin, end, lane, G);
            } else {
                const S* p = (const S*)a.in + a.in_offset + cw_dims_offset(row, a.out_ndim, a.out_shape, a.out_strides);
                if (a.red_ndim == 1 && a.red_strides[0] == 1) acc = cw_span<S, Op>(op, acc, p, begin, end, lane, G);
                else acc = cw_strided<S, Op>(op, acc, p, a, begin, end, lane, G);
            }
        }
        acc = cw_group_reduce(op, acc, smem, G);
        if (a.splits == 1) {
            if (lane == 0 && item < total) cw_store<typename Op::out>(a.out, row, op.finalize(acc));
            continue;
        }
        // splits > 1: the group is the block, one item per block
        Acc* partial = (Acc*)a.partial + row * a.splits;
        if (threadIdx.x == 0) partial[seg] = acc;
        if (cw_last_block(a.tickets + row, (unsigned int)a.splits)) {
            acc = op.identity();
            for (cw_i64 s = threadIdx.x; s < a.splits; s += blockDim.x) acc = op.combine(acc, partial[s]);
            acc = cw_group_reduce(op, acc, smem, G);
            if (threadIdx.x == 0) cw_store<typename Op::out>(a.out, row, op.finalize(acc));
        }
    }
}
template <class S, class Op> __device__ inline void cw_reduce_rows(const cw_reduce_args& a) { cw_reduce_rows_t<S, Op, false>(a); }
template <class S, class Op> __device__ inline void cw_reduce_rows_vec(const cw_reduce_args& a) { cw_reduce_rows_t<S, Op, true>(a); }

// cols: combine the VO accumulators of the blockDim.y lanes of each x (a fixed tree over
// y); the result is in the y == 0 lane
template <class Op, int VO> __device__ inline void cw_cols_combine(const Op& op, typename Op::acc (&acc)[VO],
                                                                   typename Op::acc* smem) {
    const int tx = threadIdx.x, ty = threadIdx.y, bx = blockDim.x;
    if (blockDim.y == 1) return;
#pragma unroll
    for (int k = 0; k < VO; ++k) {
        smem[ty * bx + tx] = acc[k];
        __syncthreads();
        for (int h = blockDim.y / 2; h > 0; h >>= 1) {
            if (ty < h) {
                acc[k] = op.combine(acc[k], smem[(ty + h) * bx + tx]);
                smem[ty * bx + tx] = acc[k];
            }
            __syncthreads();
        }
    }
}

// VO adjacent outputs at p (s elements apart along the reduced axis; s a multiple of VO,
// p aligned for VO-element vectors when VO > 1) over the reduced elements i = begin +
// lane, + width, ... < end: two rows per step, the next step's two loading while a step
// combines (unpipelined, ptxas used the first load before it issued the second)
template <class S, class Op, int VO> __device__ inline void cw_cols_run(
        const Op& op, typename Op::acc (&acc)[VO], const S* p, cw_i64 s, cw_i64 begin, cw_i64 end, int lane, int width) {
    const cw_i64 w = width, sv = s / VO;
    cw_i64 i = begin + lane;
    if (i + w < end) {  // software-pipelined: the next two rows load while these combine
        cw_pack<S, VO> x[2], y[2];
#pragma unroll
        for (int u = 0; u < 2; ++u) {
            if (VO > 1) x[u] = cw_vload<S, VO>(p, (i + u * w) * sv);
            else x[u].v[0] = p[(i + u * w) * s];
        }
        for (;; i += 2 * w) {
            const bool more = i + 3 * w < end;
            if (more) {
#pragma unroll
                for (int u = 0; u < 2; ++u) {
                    if (VO > 1) y[u] = cw_vload<S, VO>(p, (i + (u + 2) * w) * sv);
                    else y[u].v[0] = p[(i + (u + 2) * w) * s];
                }
            }
#pragma unroll
            for (int u = 0; u < 2; ++u)
#pragma unroll
                for (int k = 0; k < VO; ++k) acc[k] = op.combine(acc[k], op.from(cw_traits<S>::load(x[u].v[k]), i + u * w));
            if (!more) break;
            x[0] = y[0];
            x[1] = y[1];
        }
        i += 2 * w;
    }
    for (; i < end; i += w) {
        cw_pack<S, VO> x0;
        if (VO > 1) x0 = cw_vload<S, VO>(p, i * sv);
        else x0.v[0] = p[i * s];
#pragma unroll
        for (int k = 0; k < VO; ++k) acc[k] = op.combine(acc[k], op.from(cw_traits<S>::load(x0.v[k]), i));
    }
}

// cols: a tile of blockDim.x threads (VO outputs each) per block, blockIdx.y = segment of
// the reduced elements. FAST: the entry of reduce_cols_vec_* (outputs one unit-stride
// axis, one reduced axis); else any layout, one output per thread.
template <class S, class Op, int VO, bool FAST> __device__ inline void cw_reduce_cols_t(const cw_reduce_args& a,
                                                                                      typename Op::acc* smem) {
    typedef typename Op::acc Acc;
    static_assert(sizeof(Acc) <= 16, "reductions.py allots 16 bytes per partial");
    Op op;
    const int tx = threadIdx.x, ty = threadIdx.y, bx = blockDim.x, by = blockDim.y;
    const cw_i64 seg = blockIdx.y;
    const cw_i64 begin = seg * a.chunk, end = begin + a.chunk < a.n_red ? begin + a.chunk : a.n_red;
    const cw_i64 nthreads = a.n_out / VO;  // VO > 1 only where it divides n_out
    const cw_i64 ntiles = (nthreads + bx - 1) / bx;
    for (cw_i64 tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        const cw_i64 t = tile * bx + tx;
        const bool active = t < nthreads;
        Acc acc[VO];
#pragma unroll
        for (int k = 0; k < VO; ++k) acc[k] = op.identity();
        if (active) {
            if (FAST) {
                const S* p = (const S*)a.in + a.in_offset + t * VO;
                cw_cols_run<S, Op, VO>(op, acc, p, a.red_strides[0], begin, end, ty, by);
            } else {
                const S* p = (const S*)a.in + a.in_offset + cw_dims_offset(t, a.out_ndim, a.out_shape, a.out_strides);
                acc[0] = cw_strided<S, Op>(op, acc[0], p, a, begin, end, ty, by);
            }
        }
        cw_cols_combine<Op, VO>(op, acc, smem);
        if (a.splits == 1) {
            if (ty == 0 && active) {
#pragma unroll
                for (int k = 0; k < VO; ++k) cw_store<typename Op::out>(a.out, t * VO + k, op.finalize(acc[k]));
            }
            continue;
        }
        Acc* partial = (Acc*)a.partial;  // [splits][n_out]
        if (ty == 0 && active) {
#pragma unroll
            for (int k = 0; k < VO; ++k) partial[seg * a.n_out + t * VO + k] = acc[k];
        }
        if (cw_last_block(a.tickets + tile, (unsigned int)a.splits)) {
#pragma unroll
            for (int k = 0; k < VO; ++k) acc[k] = op.identity();
            for (cw_i64 s = ty; active && s < a.splits; s += by) {
#pragma unroll
                for (int k = 0; k < VO; ++k) acc[k] = op.combine(acc[k], partial[s * a.n_out + t * VO + k]);
            }
            cw_cols_combine<Op, VO>(op, acc, smem);
            if (ty == 0 && active) {
#pragma unroll
                for (int k = 0; k < VO; ++k) cw_store<typename Op::out>(a.out, t * VO + k, op.finalize(acc[k]));
            }
        }
    }
}
template <class S, class Op> __device__ inline void cw_reduce_cols(const cw_reduce_args& a) {
    __shared__ typename Op::acc smem[CW_BLOCK];
    cw_reduce_cols_t<S, Op, 1, false>(a, smem);
}
template <class S, class Op> __device__ inline void cw_reduce_cols_vec(const cw_reduce_args& a) {
    __shared__ typename Op::acc smem[CW_BLOCK];
    const int VW = cw_vec_width<S, S>::value;
    if (a.vec == 4 && VW >= 4) cw_reduce_cols_t<S, Op, (VW >= 4 ? 4 : 1), true>(a, smem);
    else if (a.vec == 2 && VW >= 2) cw_reduce_cols_t<S, Op, (VW >= 2 ? 2 : 1), true>(a, smem);
    else cw_reduce_cols_t<S, Op, 1, true>(a, smem);
}
