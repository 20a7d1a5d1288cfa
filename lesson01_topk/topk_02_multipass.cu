// topk_02_multipass — the seed author's question: "more passes, so that the last one has enough threads?"
//
// 01 ends with ONE block reducing grid1 * k candidates: one SM works while the others idle, and
// the first pass is limited to a grid small enough for that block to finish. Here the same
// insertion kernel (insertion.cuh) runs as a reduction: each pass gives every thread about
// max(32, 4k) elements, so pass 1 has n / (block * 4k) blocks (the whole GPU busy), pass 2 reduces
// their lists by the same factor, and so on until one block is left; the last pass then has at
// most block * 4k candidates (4096..16384), not thousands of lists.
//
// Cost model: the input is still read once; each later pass reads 8 bytes per candidate, and the
// candidates shrink by a factor block * 4 (512 for k <= 32) per pass: 2^28 inputs -> 3 passes.
// What it cannot fix: the per-element work (compare, and an O(k) shift per insertion) and the
// O(k^2) merges, which now run in every one of many more blocks: measured, see the README for
// where the time goes. Limits as 01: k <= 128, n < 2^32.
//
// Build alone:  nvcc -O3 -arch=native -o topk02 topk_02_multipass.cu
// Run:          ./topk02 --n 2^24 --k 32       ./topk02 --test
#include "insertion.cuh"

template <class T> void multipass_topk(const T* d_in, size_t n, size_t k, bool smallest, T* d_vals, uint32_t* d_idx) {
    using namespace topk::insertion;
    const size_t block = size_t(block_for_k(k));
    const size_t per_block = block * std::max<size_t>(32, 4 * k);   // elements each block reduces
    unsigned grid = course::blocks_for(n, per_block);
    uint64_t* buf[2] = {course::scratch_as<uint64_t>(0, size_t(grid) * k),
                        course::scratch_as<uint64_t>(1, size_t(grid) * k)};
    size_t m = run_pass<T, true>(d_in, nullptr, n, k, smallest, buf[0], grid);
    int cur = 0;
    while (grid > 1) {   // shrink the candidates until one block's list is left
        grid = course::blocks_for(m, per_block);
        m = run_pass<T, false>(d_in, buf[cur], m, k, smallest, buf[1 - cur], grid);
        cur = 1 - cur;
    }
    topk::write_packed<<<course::blocks_for(k, 256), 256>>>(d_in, n, buf[cur], k, d_vals, d_idx);
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) {
    return topk::run_lesson(argc, argv, "topk_02_multipass", multipass_topk<float>, multipass_topk<int32_t>,
                            multipass_topk<uint32_t>, topk::insertion::limits());
}
