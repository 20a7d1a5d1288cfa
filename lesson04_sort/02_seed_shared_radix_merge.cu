// 02_seed_shared_radix_merge — the source post 002's design, written fresh: one block of 32
// threads sorts up to 4096 keys in shared memory.
//
// Build alone:  nvcc -O3 -arch=native -std=c++17 -o seed 02_seed_shared_radix_merge.cu
// Run:          ./seed --n 4096     ./seed --test
//
// The idea (Shane Cook, "CUDA Programming", as summarised in seeds/README.md, post 002):
//   1. Thread t owns the interleaved list s[t], s[t+32], s[t+64], ... (stride 32: at every step
//      the 32 threads touch 32 different banks, so shared memory never conflicts).
//   2. Each thread LSD-radix-sorts its own list one bit at a time: keys with the bit clear are
//      compacted to the front of the list in place (stable: the write index never passes the read
//      index), keys with the bit set go to a scratch list and are appended after them. 32 passes.
//   3. The 32 sorted lists are merged one output at a time: every thread offers its list head,
//      atomicMin on one shared word picks the smallest, the owner advances. The offer packs
//      (key code << 32 | thread) into 64 bits, so equal keys go to the lowest thread and an
//      exhausted list (offer ~0) can never win against a real key, even the largest one.
// Cost model for n keys:
//   radix:  32 passes x n/32 keys per thread x ~3 shared accesses: ~3n shared accesses PER THREAD,
//           done by only 32 threads (one warp on one SM of 132)
//   merge:  n rounds, each a reset, an atomicMin from all 32 threads and 3 __syncthreads(): the
//           output is produced one key at a time, ~n x (3 barriers + 1 atomic) of latency
//   memory: n keys read once, written once (4096 keys: 32 KB; irrelevant)
// Why it loses to the CPU: it uses one warp of one SM (32 of the H100's ~17,000 lanes, ~1/500),
// and both phases are serial chains of latency-bound shared-memory steps (~100s of ns per output
// key). A CPU core sorts 4096 keys out of its L1 cache in tens of microseconds. The post measured 1.00 ms on the GPU
// vs 0.66 ms for its CPU radix sort (README.md, 02, shows how each phase adds up).
// Limit: n <= 4096 (two 16 KB lists of codes in shared memory; the post's size). Keys: uint32,
// int32 and float32, sorted as their 32-bit ordered codes (lesson.cuh) and mapped back exactly.
//
#include "comparison.cuh"

constexpr int kLists = 32;          // one warp; one list per thread
constexpr int kMaxN = 4096;         // the post's size: 128 keys per list

template <class K>
__global__ void __launch_bounds__(kLists) seed_sort(const K* in, K* out, int n) {
    __shared__ uint32_t s[kMaxN];       // the codes; list t is s[t + 32 * i]
    __shared__ uint32_t ones[kMaxN];    // scratch: the ones of each list, same interleaving
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
            else s[t + kLists * zeros++] = v;                  // zeros <= i: never overwrites unread keys
        }
        for (int i = 0; i < nones; ++i) s[t + kLists * (zeros + i)] = ones[t + kLists * i];
    }

    // Phase 3: merge the 32 lists, one output key per round.
    int head = 0;
    for (int o = 0; o < n; ++o) {
        if (t == 0) winner = ~0ull;
        __syncthreads();                                       // reset seen by all
        unsigned long long offer = head < len
            ? (static_cast<unsigned long long>(s[t + kLists * head]) << 32) | unsigned(t)
            : ~0ull;
        atomicMin(&winner, offer);
        __syncthreads();                                       // every offer is in
        unsigned long long w = winner;
        if (int(w & 31u) == t) {
            out[o] = sorting::Ordered<K>::from(uint32_t(w >> 32));
            ++head;
        }
        __syncthreads();                                       // all have read it before the reset
    }
}

template <class K>
void seed_sort_keys(const K* d_in, K* d_out, size_t n) {
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
