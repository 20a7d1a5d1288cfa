// topk_04_bitonic — bitonic top-k (Shanbhag, Pirk & Madden, SIGMOD 2018): sort chunks, merge, keep
// the top half.
//
// What changed since 03: the unit of work is a block and a chunk of K2 elements (K2 = k rounded up
// to a power of two, at most 2048) in shared memory. Each block keeps its best K2 sorted; for each
// chunk of its range it asks (one __syncthreads_or) whether any element beats the current K2-th
// best; if so, it sorts the chunk with a bitonic network and merges: best[e] = max(best[e],
// chunk[K2-1-e]) is the top K2 of both as a bitonic sequence, and log2(K2) steps sort it (the
// paper's "merge and keep the top half"). Passes then reduce the blocks' lists until one is left.
//
// Cost model: the input is read once; a chunk that cannot contribute costs one compare per element
// and a barrier. A chunk that can costs a sort, O(K2 log^2 K2) compare-exchanges spread over 256
// threads with a barrier per step (66 steps for K2 = 2048): shared-memory and barrier bound. Inputs
// that improve steadily (increasing values) sort every chunk: the worst case.
// Limits: k <= 2048 (two K2-element packed arrays: 32 KB of shared memory); n < 2^32.
//
// Build alone:  nvcc -O3 -arch=native -o topk04 topk_04_bitonic.cu
// Run:          ./topk04 --n 2^24 --k 2048       ./topk04 --test
#include "bitonic.cuh"

namespace bt {

using namespace topk;
constexpr int kBlock = 256;
constexpr int kMaxList = 2048;

// Delta from 03: a block keeps its best K2 in shared memory; a chunk with a key above the K2-th is sorted and merged in.
template <class T, bool kFromInput>
__global__ void __launch_bounds__(kBlock)
    bitonic_topk(const T* __restrict__ in, const uint64_t* __restrict__ cand, size_t m, size_t per_block, int k2,
                 bool smallest, uint64_t* __restrict__ out) {
    __shared__ uint64_t best[kMaxList], chunk[kMaxList];
    const int t = threadIdx.x;
    const size_t begin = blockIdx.x * per_block, end = min(m, begin + per_block);
    for (int e = t; e < k2; e += kBlock) best[e] = kEmpty;
    __syncthreads();
    for (size_t base = begin; base < end; base += k2) {
        uint64_t floor = best[k2 - 1];
        bool useful = false;
        for (int e = t; e < k2; e += kBlock) {
            size_t i = base + e;
            uint64_t x = kEmpty;
            if (i < end) x = kFromInput ? pack(to_key(in[i], smallest), uint32_t(i)) : cand[i];
            chunk[e] = x;
            useful |= x > floor;
        }
        if (!__syncthreads_or(useful)) continue;   // nothing here beats the K2-th best
        bitonic::block_sort_desc(chunk, k2);
        for (int e = t; e < k2; e += kBlock) {
            uint64_t y = chunk[k2 - 1 - e];
            if (y > best[e]) best[e] = y;
        }
        __syncthreads();
        bitonic::block_merge_desc(best, k2);
    }
    if (begin < m)
        for (int e = t; e < k2; e += kBlock) out[blockIdx.x * size_t(k2) + e] = best[e];
}

}   // namespace bt

template <class T> void bitonic_topk(const T* d_in, size_t n, size_t k, bool smallest, T* d_vals, uint32_t* d_idx) {
    int k2 = 32;
    while (size_t(k2) < k) k2 *= 2;
    const size_t per_block = std::max<size_t>(65536, 32 * size_t(k2));   // each pass shrinks >= 32x
    size_t blocks = (n + per_block - 1) / per_block;
    uint64_t* buf[2] = {course::scratch_as<uint64_t>(0, blocks * k2), course::scratch_as<uint64_t>(1, blocks * k2)};
    bt::bitonic_topk<T, true>
        <<<course::blocks_for(blocks, 1), bt::kBlock>>>(d_in, nullptr, n, per_block, k2, smallest, buf[0]);
    CUDA_CHECK_LAST();
    size_t m = blocks * k2;
    int cur = 0;
    while (blocks > 1) {
        blocks = (m + per_block - 1) / per_block;
        bt::bitonic_topk<T, false>
            <<<course::blocks_for(blocks, 1), bt::kBlock>>>(d_in, buf[cur], m, per_block, k2, smallest, buf[1 - cur]);
        CUDA_CHECK_LAST();
        m = blocks * k2;
        cur = 1 - cur;
    }
    topk::write_packed<<<course::blocks_for(k, 256), 256>>>(d_in, n, buf[cur], k, d_vals, d_idx);
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) {
    topk::Limits lim;
    lim.max_k = bt::kMaxList;
    lim.why = "two 2048-element packed arrays in shared memory";
    return topk::run_lesson(argc, argv, "topk_04_bitonic", bitonic_topk<float>, bitonic_topk<int32_t>,
                            bitonic_topk<uint32_t>, lim);
}
