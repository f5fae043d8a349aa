// Binary element-wise kernel bodies (binary ops and comparisons) over cw_ew_args: operands 1
// and 2 the inputs, either of them a scalar slot (binary_scalar), operand 0 the output. The
// entries that instantiate them (rocm_backend/ops.py): the full one (cw_binary: the
// contiguous path, else common.h's general decode), the flat one (contiguous or one
// strided axis) and the column one (two strided axes), each its own kernel so that one
// layout's registers never set another's occupancy. Included after elementwise.hip, whose
// vectors and macros these use.

// elements per thread per step of a binary kernel's one-strided-axis and two-axes paths
#ifndef CW_STRIDED_ITEMS
#define CW_STRIDED_ITEMS 4
#endif
// a launch an entry point is never given (its host-side contract broken): stop the kernel,
// so the stream reports an error, rather than write through a layout it does not read
#if defined(__HIP_PLATFORM_NVIDIA__) || defined(__CUDACC_RTC__)
#define CW_UNREACHABLE() __trap()
#else
#define CW_UNREACHABLE() __builtin_trap()
#endif

// P vectors a thread a step (for types whose vector holds 4 or more elements): 1 for the
// arithmetic ops, 2 for the comparisons (ops.py's BINARY_ITEMS and EW_ITEMS, which size the
// contiguous launch's grid). One: x += y at 2^26 float32 on the H200 0.996x torch's add_,
// x + y 0.998x, against 1.001-1.005x and 0.999-1.003x with two (one process, torch in the
// same rotated rounds, 2026-11-30): a thread's two reads of 16 bytes are in flight enough;
// unary ops and where keep two (exp 1.08x, x[mask] = v 1.09x with one)
template <class S, class SO, class Op, int P> __device__ inline void cw_binary_contig(const cw_ew_args& a) {
    typedef typename cw_traits<S>::compute C;
    const int V = cw_vec_width<S, SO>::value;
    Op op;
    const S* x = a.op[1].ptr ? (const S*)a.op[1].ptr + a.op[1].offset : (const S*)0;
    const S* y = a.op[2].ptr ? (const S*)a.op[2].ptr + a.op[2].offset : (const S*)0;
    const S xs = cw_scalar_raw<S>(a, 0), ys = cw_scalar_raw<S>(a, 1);
    SO* __restrict__ out = (SO*)a.op[0].ptr + a.op[0].offset;
    const cw_i64 n = a.n, t0 = CW_TID, nt = CW_NTHREADS;
    cw_i64 done = 0;
    if (V > 1 && cw_vec_ok<S>(x, V) && cw_vec_ok<S>(y, V) && cw_vec_ok<SO>(out, V)) {
        const cw_i64 nv = n / V, bd = blockDim.x;
        const bool two = V >= 4 && P == 2;
        cw_i64 j = two ? (cw_i64)blockIdx.x * 2 * bd + threadIdx.x : t0;  // as cw_map_contig
        const cw_i64 step = two ? 2 * nt : nt;
        for (; two && j + bd < nv; j += step) {
            cw_pack<S, V> a0 = cw_vload_or_scalar<S, V>(x, j, xs), b0 = cw_vload_or_scalar<S, V>(y, j, ys);
            cw_pack<S, V> a1 = cw_vload_or_scalar<S, V>(x, j + bd, xs), b1 = cw_vload_or_scalar<S, V>(y, j + bd, ys);
            cw_pack<SO, V> r0, r1;
#pragma unroll
            for (int k = 0; k < V; ++k) {
                r0.v[k] = cw_to_storage<SO>(op(cw_traits<S>::load(a0.v[k]), cw_traits<S>::load(b0.v[k])));
                r1.v[k] = cw_to_storage<SO>(op(cw_traits<S>::load(a1.v[k]), cw_traits<S>::load(b1.v[k])));
            }
            cw_vstore<SO, V>(out, j, r0);
            cw_vstore<SO, V>(out, j + bd, r1);
        }
        for (; j < nv; j += step) {
            cw_pack<S, V> a0 = cw_vload_or_scalar<S, V>(x, j, xs), b0 = cw_vload_or_scalar<S, V>(y, j, ys);
            cw_pack<SO, V> r0;
#pragma unroll
            for (int k = 0; k < V; ++k)
                r0.v[k] = cw_to_storage<SO>(op(cw_traits<S>::load(a0.v[k]), cw_traits<S>::load(b0.v[k])));
            cw_vstore<SO, V>(out, j, r0);
        }
        done = nv * V;
    }
    for (cw_i64 i = done + t0; i < n; i += nt) {
        C u = cw_traits<S>::load(x ? x[i] : xs), v = cw_traits<S>::load(y ? y[i] : ys);
        out[i] = cw_to_storage<SO>(op(u, v));
    }
}

// A binary kernel's strided launch over one or two axes (x[::2] += 1; X - mean, a row
// broadcast down a matrix): CW_STRIDED_ITEMS elements per thread per step, all loads issued
// before the first store, so that a pass keeps as many bytes in flight as the contiguous
// path's vectors (one element per step left the loads' latency exposed: 0.165 ms vs
// torch's 0.143 at 2^26 f32 for x[::2] += 1; X - mean of 200000 x 256 f32 took 0.375 ms vs
// torch's 0.163 on the H200 through the general decode). Types up to 8 bytes: complex64
// (scipy.fft's spectrum times a response broadcast down the rows, 781 x 2049, took 13 us
// through the decode against torch's 6) and double; complex128 stays on the decode, where
// 16-byte loads already keep bytes in flight. Element j of the step is i + j * nt, so each
// load and store stays coalesced; the elements are distinct, so reading all before writing
// any changes no result (an operand that overlaps the destination otherwise was copied
// first on the host). Two axes (cw_binary_column): the grid's threads are a multiple of
// the row length (ew_launch.column_grid), so each thread keeps one column for good and
// steps its row by a constant: no division per element (a division per element made
// KMeans's x2 - d, d + c2 and the one-hot compare of (200000, 8) take 15-16 us on the H200
// against torch's 6, which divides by a multiply). A thread's column, first row and row
// step are found by 32-bit divisions (the grid's threads fit 32 bits): three 64-bit ones
// cost a short-lived thread more than its elements (scipy.fft's spectrum times a response,
// 781 x 2049 complex64 on 2049 blocks of 256 threads, 3 elements a thread: 9.28 us against
// 8.53 with 32-bit ones, torch 5.56 in the same process; probes s15fft 1 and 2 on the
// H200). Moving complex64 as one 8-byte access instead of two floats made it slower there
// (9.21 us), so elements move as stored. Tiles of a 2-D launch with no division at all (a
// thread's column from blockIdx.x, 4 rows from blockIdx.y) were slower still: 8.74 us, and
// 60.4 against 42.8 for 4096 x 4096 float32 plus a row (probe s16cmul 1).
template <class S, class SO, class Op> __device__ inline void cw_binary_column(const cw_ew_args& a) {
    Op op;
    typedef typename cw_traits<S>::compute C;
    const int U = CW_STRIDED_ITEMS;
    const cw_u32 cols = (cw_u32)a.shape[1], t = (cw_u32)CW_TID, t_row = t / cols;
    const cw_i64 n = a.n, nt = CW_NTHREADS, rstep = (cw_i64)((cw_u32)nt / cols), col = (cw_i64)(t - t_row * cols);
    const cw_i64 r0 = a.op[0].strides[0], r1 = a.op[1].strides[0], r2 = a.op[2].strides[0];
    const cw_i64 c0 = a.op[0].offset + col * a.op[0].strides[1], c1 = a.op[1].offset + col * a.op[1].strides[1],
                 c2 = a.op[2].offset + col * a.op[2].strides[1];
    cw_i64 row = (cw_i64)t_row;
    for (cw_i64 i = t; i < n; i += U * nt, row += U * rstep) {
        C x[U], y[U];
#pragma unroll
        for (int j = 0; j < U; ++j) {
            if (i + j * nt < n) {
                x[j] = cw_operand_load<S>(a, 1, c1 + (row + j * rstep) * r1);
                y[j] = cw_operand_load<S>(a, 2, c2 + (row + j * rstep) * r2);
            }
        }
#pragma unroll
        for (int j = 0; j < U; ++j) {
            if (i + j * nt < n) cw_store<SO>(a.op[0].ptr, c0 + (row + j * rstep) * r0, op(x[j], y[j]));
        }
    }
}

template <class S, class SO, class Op> __device__ inline void cw_binary_steps(const cw_ew_args& a) {
    Op op;
    typedef typename cw_traits<S>::compute C;
    const int U = CW_STRIDED_ITEMS;
    const cw_i64 n = a.n, nt = CW_NTHREADS;
    const cw_i64 s0 = a.op[0].strides[0], s1 = a.op[1].strides[0], s2 = a.op[2].strides[0];
    const cw_i64 o0 = a.op[0].offset, o1 = a.op[1].offset, o2 = a.op[2].offset;
    for (cw_i64 i = CW_TID; i < n; i += U * nt) {
        C x[U], y[U];
#pragma unroll
        for (int j = 0; j < U; ++j) {
            const cw_i64 e = i + j * nt;
            if (e < n) {
                x[j] = cw_operand_load<S>(a, 1, o1 + e * s1);
                y[j] = cw_operand_load<S>(a, 2, o2 + e * s2);
            }
        }
#pragma unroll
        for (int j = 0; j < U; ++j) {
            const cw_i64 e = i + j * nt;
            if (e < n) cw_store<SO>(a.op[0].ptr, o0 + e * s0, op(x[j], y[j]));
        }
    }
}

// An op's full entry (binary_*, compare_*): any layout, the general decode past the
// contiguous path. Layouts of one or two axes with types up to 8 bytes take the flat and
// column entries below (launch_ew's plans, kernels.ew_kernel), whose steps' registers would
// otherwise set the occupancy of every launch of this one.
template <class S, class SO, class Op, int P> __device__ inline void cw_binary(const cw_ew_args& a) {
    if (a.flags & CW_CONTIGUOUS) {
        cw_binary_contig<S, SO, Op, P>(a);
        return;
    }
    Op op;
    typedef typename cw_traits<S>::compute C;
    CW_GRID_STRIDE(i, a.n) {
        cw_offsets<3> o = cw_decode<3>(a, i);
        C x = cw_operand_load<S>(a, 1, o.o[1]);
        C y = cw_operand_load<S>(a, 2, o.o[2]);
        cw_store<SO>(a.op[0].ptr, o.o[0], op(x, y));
    }
}

// The column steps are their own entry point (binary_column_*, compare_column_*), launched
// only by launch_ew's plans of two axes with types up to 8 bytes on a whole-rows grid
// (ew_launch.column_grid; any other two-axes layout takes the op's full entry): inside
// cw_binary their registers set every binary launch's occupancy (58 registers against 48
// on the H200, 8 blocks of 128 a multiprocessor against 10: x[::2] += 1 at 2^26 went from
// 0.999x to 1.007x torch), and a fallback of the steps with a division per element inside
// this entry set the column steps' own: the 781 x 2049 complex64 spectrum product took 8.56
// us with it against 7.19 without it (6.87 on blocks of 128 threads; torch 5.64), 4096 x 4096
// float32 plus a row 46.5 against 43.1, on the H200 in one process (probe s16cmul 1).
template <class S, class SO, class Op> __device__ inline void cw_binary_rows(const cw_ew_args& a) {
    if (a.ndim != 2 || (a.flags & CW_CONTIGUOUS)) {  // (the grid's threads a multiple of the row: the host's)
        CW_UNREACHABLE();
    } else {
        cw_binary_column<S, SO, Op>(a);
    }
}

// The flat entry (binary_flat_*, compare_flat_*: kernels.ew_kernel's kernel for types up to 8
// bytes), for the two launches given that kernel: every operand contiguous
// (RocmDevice.ew_contiguous) and one strided axis (ew_launch.launch_strided_1d); any other
// layout takes the op's full entry through launch_ew. Without the decode and the two-axes
// steps its registers are fewer (AMD gfx90a: 40 VGPRs against the full entry's 77), so
// more blocks of the bandwidth-bound launches (x += y, x[::2] += 1) are resident.
template <class S, class SO, class Op, int P> __device__ inline void cw_binary_flat(const cw_ew_args& a) {
    if (a.flags & CW_CONTIGUOUS) {
        cw_binary_contig<S, SO, Op, P>(a);
    } else if (a.ndim == 1) {
        cw_binary_steps<S, SO, Op>(a);
    } else {
        CW_UNREACHABLE();
    }
}
