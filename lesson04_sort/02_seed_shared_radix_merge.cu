// 02_seed_shared_radix_merge — the shared-memory sort post's design (after Shane Cook's "CUDA
// Programming"), written fresh: one block of 32 threads sorts up to 4096 keys in shared memory.
//
//   1. Thread t owns the interleaved list s[t], s[t+32], ... (stride 32: the 32 threads always
//      touch 32 different banks) and LSD-radix-sorts it one bit at a time, 32 passes: keys with
//      the bit clear are compacted in place, the others go to a scratch list and follow (stable).
//   2. The 32 sorted lists are merged one output per round: every thread offers its head packed as
//      (key code << 32 | thread), atomicMin on one shared word picks the winner (ties to the
//      lowest thread; an exhausted list offers ~0 and never wins), and its owner advances.
// Cost: one warp on one SM does ~3n shared accesses per thread, then n rounds of an atomic and
// three barriers each: a serial chain of latency, which is why it loses to one CPU core.
// It is slower than one CPU core, as the post found on its GPU. What limits it: one warp does
// all the work; from 03 on, every SM gets work.
// Limit: n <= 4096 (two 16 KB lists). Keys: uint32, int32, float32, sorted as their ordered codes.
//
// Build alone:  nvcc -O3 -arch=native -std=c++17 -o seed 02_seed_shared_radix_merge.cu
// Run:          ./seed --n 4096     ./seed --test
#include "comparison.cuh"

constexpr int kLists = 32;    // one warp; one list per thread
constexpr int kMaxN = 4096;   // the post's size: 128 keys per list

// The whole sort in one warp: 32 per-thread radix sorts in shared memory, then the atomicMin merge.
template <class K> __global__ void __launch_bounds__(kLists) seed_sort(const K* in, K* out, int n) {
    __shared__ uint32_t s[kMaxN];      // the codes; list t is s[t + 32 * i]
    __shared__ uint32_t ones[kMaxN];   // scratch: the ones of each list, same interleaving
    __shared__ unsigned long long winner;
    const int t = threadIdx.x;
    const int len = t < n ? (n - 1 - t) / kLists + 1 : 0;   // keys in list t

    // Thread t loads exactly its own list, so phase 2 needs no barrier between threads.
    for (int i = 0; i < len; ++i) s[t + kLists * i] = sorting::Ordered<K>::to(in[t + kLists * i]);

    // Phase 2: LSD radix sort of list t, one bit per pass.
    for (int bit = 0; bit < 32; ++bit) {
        int zeros = 0, nones = 0;
        for (int i = 0; i < len; ++i) {
            uint32_t v = s[t + kLists * i];
            if ((v >> bit) & 1u) ones[t + kLists * nones++] = v;
            else s[t + kLists * zeros++] = v;   // zeros <= i: never overwrites unread keys
        }
        for (int i = 0; i < nones; ++i) s[t + kLists * (zeros + i)] = ones[t + kLists * i];
    }

    // Phase 3: merge the 32 lists, one output key per round.
    int head = 0;
    for (int o = 0; o < n; ++o) {
        if (t == 0) winner = ~0ull;
        __syncthreads();   // reset seen by all
        unsigned long long offer =
            head < len ? (static_cast<unsigned long long>(s[t + kLists * head]) << 32) | unsigned(t) : ~0ull;
        atomicMin(&winner, offer);
        __syncthreads();   // every offer is in
        unsigned long long w = winner;
        if (int(w & 31u) == t) {
            out[o] = sorting::Ordered<K>::from(uint32_t(w >> 32));
            ++head;
        }
        __syncthreads();   // all have read it before the reset
    }
}

template <class K> void seed_sort_keys(const K* d_in, K* d_out, size_t n) {
    if (n == 0) return;
    seed_sort<K><<<1, kLists>>>(d_in, d_out, int(n));
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) {
    sorting::Sorter s;
    s.u32 = seed_sort_keys<uint32_t>;
    s.i32 = seed_sort_keys<int32_t>;
    s.f32 = seed_sort_keys<float>;
    s.max_n = kMaxN;
    s.limit_why = "one block of 32 threads, two 16 KB lists of keys in shared memory (the post's design)";
    return sorting::run_lesson(argc, argv, "02_seed_shared_radix_merge", s);
}
