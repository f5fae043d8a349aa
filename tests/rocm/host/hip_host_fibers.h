// A host emulation of the HIP execution model, enough to run rocm_backend/hip's
// reduction kernels on a CPU for tests/rocm/host/test_reduce_host.py: every thread of a block
// is a fiber (ucontext) of one OS thread, switched at __syncthreads and at warp
// shuffles, so block barriers, warp shuffles (of any warp width) and shared memory
// (``__shared__`` is ``static``: blocks run one after another) behave as on a device.
// Between two barriers the threads run in a new random order each time, and whole warps
// stand still for a while as others run on, so that a missing barrier (a shared-memory
// race) changes results.
// Blocks run in a chosen order (the last-block combines must not depend on it). A
// barrier that not every thread of the block (or warp) reaches is reported, not hung.
// Atomics and fences are plain operations: one fiber runs at a time.
#include <math.h>
#include <setjmp.h>
#include <string.h>
#include <ucontext.h>

#include <functional>
#include <vector>

#include "hip_host_common.h"

struct cwh_dim3 { unsigned x, y, z; };
static cwh_dim3 threadIdx, blockIdx, blockDim, gridDim;
static int warpSize = 32;

namespace cwh {

struct Barrier { int count = 0, arrived = 0; unsigned generation = 0; };
// A fiber is entered once through its ucontext, then switched by _setjmp/_longjmp, which
// leave the signal mask alone: swapcontext's two sigprocmask calls a switch were most of
// the tests' time.
struct Fiber {
    ucontext_t ctx;
    jmp_buf resume;
    std::vector<char> stack;
    cwh_dim3 tid;
    bool started = false, done = false;
};

static jmp_buf scheduler;
static std::vector<Fiber> fibers;
static int current = 0;
static long events = 0;  // arrivals and completions: a round without any is a deadlock
static const char* error = nullptr;
static std::function<void()> body;
static Barrier block_barrier;
static std::vector<Barrier> warp_barriers;
static std::vector<int> shuffle_slots;
static unsigned long long rng = 1;  // the thread order of each round (seeded per launch)
inline unsigned long long next_random() {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return rng >> 33;
}

inline int linear_id() { return (int)(threadIdx.x + threadIdx.y * blockDim.x); }
inline int block_threads() { return (int)(blockDim.x * blockDim.y); }

inline void yield() {
    if (!_setjmp(fibers[current].resume)) _longjmp(scheduler, 1);
}

inline void arrive(Barrier& b) {
    ++events;
    if (++b.arrived == b.count) {
        b.arrived = 0;
        ++b.generation;
        return;
    }
    const unsigned g = b.generation;
    while (b.generation == g) {
        yield();
        if (error) return;
    }
}

static void fiber_main() {
    body();
    fibers[current].done = true;
    ++events;
    _longjmp(scheduler, 1);  // never back: the next run_block makes its context anew
}

// run thread t until it yields or returns
inline void resume(int t) {
    Fiber& f = fibers[t];
    if (_setjmp(scheduler)) return;
    if (!f.started) {
        f.started = true;
        setcontext(&f.ctx);
    }
    _longjmp(f.resume, 1);
}

// Run one block: every thread a fiber, round-robin until all returned.
inline const char* run_block() {
    const int n = block_threads();
    block_barrier = Barrier();
    block_barrier.count = n;
    const int nwarps = (n + warpSize - 1) / warpSize;
    warp_barriers.assign(nwarps, Barrier());
    for (int w = 0; w < nwarps; ++w) warp_barriers[w].count = (w + 1) * warpSize <= n ? warpSize : n - w * warpSize;
    shuffle_slots.assign((size_t)nwarps * warpSize, 0);
    if ((int)fibers.size() < n) fibers.resize(n);
    for (int t = 0; t < n; ++t) {
        Fiber& f = fibers[t];
        if (f.stack.empty()) f.stack.resize(1 << 17);
        getcontext(&f.ctx);
        f.ctx.uc_stack.ss_sp = f.stack.data();
        f.ctx.uc_stack.ss_size = f.stack.size();
        f.ctx.uc_link = nullptr;
        makecontext(&f.ctx, fiber_main, 0);
        f.tid.x = t % blockDim.x;
        f.tid.y = t / blockDim.x;
        f.tid.z = 0;
        f.started = f.done = false;
    }
    std::vector<int> perm(n);
    std::vector<char> runs(nwarps);
    std::vector<int> sleep(nwarps, 0);
    for (int t = 0; t < n; ++t) perm[t] = t;
    for (;;) {
        const long before = events;
        int alive = 0;
        for (int k = n - 1; k > 0; --k) {  // a new thread order every round: races show
            const int j = (int)(next_random() % (unsigned long long)(k + 1));
            const int tmp = perm[k];
            perm[k] = perm[j];
            perm[j] = tmp;
        }
        // now and then a warp stands still for some rounds while the others run on
        bool all = true;
        for (int w = 0; w < nwarps; ++w) {
            if (sleep[w] == 0 && next_random() % 8 == 0) sleep[w] = 1 + (int)(next_random() % 24);
            runs[w] = sleep[w] == 0;
            if (sleep[w]) --sleep[w], all = false;
        }
        for (int k = 0; k < n; ++k) {
            const int t = perm[k];
            if (fibers[t].done) continue;
            ++alive;
            if (!runs[t / warpSize]) continue;
            current = t;
            threadIdx = fibers[t].tid;
            resume(t);
            if (error) return error;
        }
        if (!alive) return nullptr;
        if (all && events == before) return error = "deadlock: a barrier or shuffle that not every thread reaches";
    }
}

}  // namespace cwh

inline void __syncthreads() { cwh::arrive(cwh::block_barrier); }

inline int __shfl_down(int v, int delta) {
    const int id = cwh::linear_id(), w = id / warpSize, lane = id % warpSize;
    cwh::shuffle_slots[(size_t)w * warpSize + lane] = v;
    cwh::arrive(cwh::warp_barriers[w]);
    int r = v;
    if (lane + delta < warpSize) {
        if (w * warpSize + lane + delta >= cwh::block_threads()) {
            cwh::error = "shuffle from a lane the block lacks";
            cwh::yield();  // never resumed: the launch reports the error
        }
        r = cwh::shuffle_slots[(size_t)w * warpSize + lane + delta];
    }
    cwh::arrive(cwh::warp_barriers[w]);
    return r;
}

// the value of v at lane src of the warp (HIP's __shfl, width warpSize)
inline int __shfl(int v, int src) {
    const int id = cwh::linear_id(), w = id / warpSize, lane = id % warpSize;
    cwh::shuffle_slots[(size_t)w * warpSize + lane] = v;
    cwh::arrive(cwh::warp_barriers[w]);
    src = ((src % warpSize) + warpSize) % warpSize;
    if (src >= cwh::warp_barriers[w].count) {
        cwh::error = "shuffle from a lane the block lacks";
        cwh::yield();
    }
    const int r = cwh::shuffle_slots[(size_t)w * warpSize + src];
    cwh::arrive(cwh::warp_barriers[w]);
    return r;
}

// a warp's vote (HIP's __ballot): bit l set where lane l's p is nonzero
inline unsigned long long __ballot(int p) {
    const int id = cwh::linear_id(), w = id / warpSize, lane = id % warpSize;
    cwh::shuffle_slots[(size_t)w * warpSize + lane] = p != 0;
    cwh::arrive(cwh::warp_barriers[w]);
    unsigned long long r = 0ull;
    for (int l = 0; l < cwh::warp_barriers[w].count; ++l)
        if (cwh::shuffle_slots[(size_t)w * warpSize + l]) r |= 1ull << l;
    cwh::arrive(cwh::warp_barriers[w]);
    return r;
}
// the lanes of the warp wait for each other (CUDA's __syncwarp)
inline void __syncwarp() { cwh::arrive(cwh::warp_barriers[cwh::linear_id() / warpSize]); }
inline int __popcll(unsigned long long v) { return __builtin_popcountll(v); }
inline int __ffsll(long long v) { return __builtin_ffsll(v); }
inline int __clzll(long long v) { return v ? __builtin_clzll((unsigned long long)v) : 64; }

// Run a kernel body over a grid of gx x gy blocks of bx x by threads, blocks in the
// order given (a permutation of gx * gy block numbers, x fastest); nullptr or an error.
inline const char* cwh_launch(int gx, int gy, int bx, int by, int warp, const int* order,
                              std::function<void()> kernel) {
    warpSize = warp;
    gridDim = {(unsigned)gx, (unsigned)gy, 1u};
    blockDim = {(unsigned)bx, (unsigned)by, 1u};
    cwh::body = kernel;
    cwh::error = nullptr;
    cwh::rng = 0x9E3779B97F4A7C15ull ^ (unsigned long long)(gx * 131 + gy);
    for (long k = 0; k < (long)gx * gy; ++k) {
        const int b = order ? order[k] : (int)k;
        blockIdx = {(unsigned)(b % gx), (unsigned)(b / gx), 0u};
        const char* err = cwh::run_block();
        if (err) return err;
    }
    return nullptr;
}
