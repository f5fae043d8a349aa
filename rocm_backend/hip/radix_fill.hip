// A sort of the values alone of 1-byte keys (bool, int8, uint8) by counting: each row's
// digit totals (radix_digits, one pass) say where every digit's run starts in the sorted
// row, and equal 1-byte values are one value, so the runs are the sorted row (families/
// sort.py's _counted). Block g takes range g of the rows' ranges (a.chunk places each) and
// writes the part of each run inside it, the value decoded from the digit (a.mask flips a
// descending sort's and a signed type's bits, as cw_radix_value's integer decoding does).
template <class B> __device__ inline void cw_radix_fill(const cw_radix_args& a) {
    __shared__ cw_i64 first[2][CW_RADIX_DIGITS + 1];
    const int t = threadIdx.x, digits = 1 << (a.bits < 8 ? a.bits : 8);
    for (cw_i64 g = blockIdx.x; g < a.rows * a.blocks; g += gridDim.x) {
        const cw_i64 r = g / a.blocks, lo = (g % a.blocks) * a.chunk;
        const cw_i64 hi = lo + a.chunk < a.L ? lo + a.chunk : a.L;
        __syncthreads();  // every read of the last range's runs is done
        // inclusive scan of the row's totals (Hillis-Steele between two halves of `first`)
        int in = 0;
        first[0][t + 1] = t < digits ? (cw_i64)cw_radix_totals(a, r)[t] : 0;
        if (t == 0) first[0][0] = first[1][0] = 0;
        for (int step = 1; step < CW_RADIX_DIGITS; step *= 2) {
            __syncthreads();
            first[1 - in][t + 1] = first[in][t + 1] + (t >= step ? first[in][t + 1 - step] : 0);
            in = 1 - in;
        }
        __syncthreads();
        // the last digit whose run starts at or before lo (a binary search: every thread
        // looping over all 256 digits cost more than the writes), then each run up to hi
        int d = 0;
        for (int half = CW_RADIX_DIGITS / 2; half > 0; half /= 2)
            if (d + half < digits && first[in][d + half] <= lo) d += half;
        B* out = (B*)a.vals_out + r * a.L;
        for (; d < digits && first[in][d] < hi; ++d) {
            const cw_i64 s = first[in][d] > lo ? first[in][d] : lo;
            const cw_i64 e = first[in][d + 1] < hi ? first[in][d + 1] : hi;
            const B v = (B)((cw_u32)d ^ (cw_u32)a.mask);
            for (cw_i64 p = s + t; p < e; p += CW_RADIX_BLOCK) out[p] = v;
        }
    }
}
