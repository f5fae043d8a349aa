// A small HIP kernel set used to prove the compile paths (the AMD compile
// gate's fallback, and the shim's own checks): warp-size-generic reduction,
// 64-bit indexing, a by-value struct argument.
struct Affine { int n; float scale; double offset; };

extern "C" __global__ void sample_affine(Affine p, const float* x, double* y) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) y[i] = (double)p.scale * x[i] + p.offset;
}

extern "C" __global__ void sample_warp_sum(const float* x, float* out, long long n) {
    float v = 0.f;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        v += x[i];
    for (int offset = warpSize / 2; offset > 0; offset >>= 1) v += __shfl_down(v, offset);
    if ((threadIdx.x % warpSize) == 0) atomicAdd(out, v);
}
