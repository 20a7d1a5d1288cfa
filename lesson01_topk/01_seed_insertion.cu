// 01_seed_insertion — the naive end: the seed's design (source post 000), written fresh.
//
// Each thread walks a grid-stride slice of the input and keeps its own top-k list by insertion;
// each block merges its threads' lists pairwise in a tree in shared memory (log2(block) rounds);
// a second launch of ONE block reduces the blocks' lists to the final k (insertion.cuh).
//
// What changed from the post: the standard semantics (duplicates count; the post skipped equal
// values and so returned the k largest DISTINCT values: wrong/distinct_values.cu), any k up to 128
// at run time instead of a compile-time 20, the lists in shared memory (column per thread) instead
// of run-time-indexed local arrays (wrong/local_list.cu), floats/ints/uint32 with NaN and -0.0
// handled by the keys, indices returned, and a grid that fills the GPU rather than one element
// per thread (the post launched n/256 blocks: a k-element list for a single element).
//
// Cost model: the input is read once (4n bytes): memory-bound in principle. But every element
// costs a compare against the thread's k-th best in a register, and each insertion shifts up to
// k 8-byte words in shared memory. The merge tree does O(k^2) work per merge on a shrinking set
// of threads (the last round: one thread). The second pass is one block: grid1 * k candidates
// pass through 32..128 threads on one SM while the other 131 SMs idle.
// Limits: k <= 128 (shared memory grows as block * k); n < 2^32.
//
// Build alone:  nvcc -O3 -arch=native -o topk01 01_seed_insertion.cu
// Run:          ./topk01 --n 1000000 --k 20 --type int32        ./topk01 --test
#include "insertion.cuh"

template <class T>
void seed_topk(const T* d_in, size_t n, size_t k, bool smallest, T* d_vals, uint32_t* d_idx) {
    int block = topk::insertion::block_for_k(k);
    // As many blocks as can be resident at once (about 4 per SM at 32 KB of shared memory each),
    // never more than there are elements for.
    unsigned grid = std::min<unsigned>(course::blocks_for(n, block), unsigned(4 * course::device().sm_count));
    topk::insertion::two_pass(d_in, n, k, smallest, d_vals, d_idx, grid);
}

int main(int argc, char** argv) {
    topk::Limits lim = topk::insertion::limits();
    lim.sweep_max_n = uint64_t(1) << 26;
    return topk::run_lesson(argc, argv, "01_seed_insertion", seed_topk<float>, seed_topk<int32_t>,
                            seed_topk<uint32_t>, lim);
}
