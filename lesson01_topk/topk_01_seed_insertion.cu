// topk_01_seed_insertion — the naive end: the seed's design (the course's first source post), fresh.
//
// Each thread walks a grid-stride slice of the input and keeps its own top-k list by insertion;
// each block merges its threads' lists pairwise in a tree in shared memory (log2(block) rounds);
// a second launch of ONE block reduces the blocks' lists to the final k (insertion.cuh).
// What changed from the post: duplicates count (the post skipped equal values: the k largest
// DISTINCT values, wrong/distinct_values.cu), any k <= 128 at run time, the lists in shared memory
// (not run-time-indexed local arrays: wrong/local_list.cu), floats and ints with NaN and -0.0
// handled by the keys, indices returned, and a grid that fills the GPU.
// Cost model: the input is read once (4n bytes), but every element costs a compare against the
// thread's k-th best and each insertion shifts up to k 8-byte words in shared memory; the merge
// tree does O(k^2) work a merge on a shrinking set of threads, and the second pass is one block
// on one SM while the others idle. Measured: README.md's progression table.
// Limits: k <= 128 (shared memory grows as block * k); n < 2^32.
//
// Build alone:  nvcc -O3 -arch=native -o topk01 topk_01_seed_insertion.cu
// Run:          ./topk01 --n 1000000 --k 20 --type int32        ./topk01 --test
#include "insertion.cuh"

template <class T> void seed_topk(const T* d_in, size_t n, size_t k, bool smallest, T* d_vals, uint32_t* d_idx) {
    int block = topk::insertion::block_for_k(k);
    // As many blocks as can be resident at once (about 4 per SM at 32 KB of shared memory each),
    // never more than there are elements for.
    unsigned grid = std::min<unsigned>(course::blocks_for(n, block), unsigned(4 * course::device().sm_count));
    topk::insertion::two_pass(d_in, n, k, smallest, d_vals, d_idx, grid);
}

int main(int argc, char** argv) {
    topk::Limits lim = topk::insertion::limits();
    lim.sweep_max_n = uint64_t(1) << 26;
    return topk::run_lesson(argc, argv, "topk_01_seed_insertion", seed_topk<float>, seed_topk<int32_t>,
                            seed_topk<uint32_t>, lim);
}
