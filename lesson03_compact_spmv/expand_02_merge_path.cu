// expand_02_merge_path — load-balanced expansion: every block gets the same number of merge steps.
//
// What changed since expand_01_thread_per_item: work is split by OUTPUT, not by item. Think of two
// sorted lists, the output positions 0..total-1 and the item ends off[i] + counts[i]; merging them
// walks every output once and every item once (n + total steps). Cutting that merged path into
// equal pieces of 4096 steps gives each block the same work whatever the counts: a zero costs one
// step, an item with 2^30 outputs is spread over 2^18 blocks. A block finds where its piece starts
// by a binary search on its diagonal (Merrill & Garland's merge path; one thread per block, in a
// small partition kernel so all the searches' dependent loads overlap), loads its piece's item
// ends into shared memory, each thread searches its own 16-step piece there and walks it, and
// the outputs are staged in shared memory so the block writes them in order, coalesced.
//
// Cost model: the scan reads counts (4n) and writes offsets (4n); the partition reads ~log2(n)
// words per block; the expand reads the offsets again (4n) and writes the outputs (4 total). So
// 12n + 4 total bytes move against the 4n + 4 total the problem needs: the bound is closest to the
// copy roofline when outputs dominate (uniform 0..8: at best 20/28 = 71%), further when most items
// ask for nothing (zeros: counts are 60% of the bytes). Measured on the H100: 39% of copy at 2^26
// uniform, well under that bound (see the README table).
// Limits: n <= 2^31 - 1, total <= 2^32 - 1 (32-bit offsets, the lesson02 scan).
//
// Build alone:  nvcc -O3 -arch=native -o expand02 expand_02_merge_path.cu
// Run:          ./expand02 --n 2^24 --dist powerlaw        ./expand02 --test
#include "compact.cuh"

void expand_merge_path(const int32_t* d_counts, size_t n, int32_t* d_out, size_t total) {
    expand::launch_merge_path<false>(d_counts, n, d_out, total);
}

int main(int argc, char** argv) {
    expand::Limits lim;
    lim.huge_test = true;
    return expand::run_lesson(argc, argv, "expand_02_merge_path", expand_merge_path, lim);
}
