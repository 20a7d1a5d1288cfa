// exercises/expand_merge_path_search — write the merge-path search of the load-balanced expand.
//
// expand_02_merge_path merges two sorted lists: the outputs a_base, a_base + 1, ... (na of them)
// and the item ends ends(0), ends(1), ... (nb of them; ends(b) = where item b's run stops). In the
// merged order output a comes before item end e exactly when a < e. The merged list is cut into
// equal pieces; a piece starts at a diagonal d (its first d entries are before it). Your function
// returns how many of those first d entries are OUTPUTS (then d - that many are item ends).
// It is used twice, through expand::launch_merge_path (expand_02_merge_path.cu): by the partition
// kernel on the whole input (a_base = 0) and by every thread inside its block's piece (a_base =
// the block's first output, ends in shared memory). `ends(b)` is the only way to read an end.
// Hints: the answer a lies in [max(0, d - nb), min(d, na)]; binary-search it: for a candidate
// mid, compare output a_base + mid with item end ends(d - 1 - mid). If the output comes first,
// at least mid + 1 outputs are among the first d. Watch the tie: an output equal to an end
// belongs to the NEXT item. Test on paper with counts {2, 0, 3}: ends {2, 2, 5}; d = 3 -> 2.
// Until written, the stub returns the smallest possible answer and the battery fails (exit 1).
// Check:  make grade EX=expand_merge_path_search   (exit 0 once done):
//         by hand: make build/lesson03_compact_spmv/exercises/expand_merge_path_search, then run it with --test --quick
// Solution:  merge_path_search in ../expand_path.cuh
#define COURSE_NO_MAIN   // expand_02's kernels and launcher, without its main
#include "../expand_02_merge_path.cu"

struct StudentSearch {
    template <class Ends>
    __host__ __device__ uint64_t operator()(uint64_t a_base, Ends ends, uint64_t na, uint64_t nb, uint64_t d) const {
        uint64_t lo = d > nb ? d - nb : 0;
        // TODO: binary search between lo and min(d, na) as described above.
        (void)a_base;
        (void)ends;
        (void)na;
        return lo;
    }
};

void expand_student(const int32_t* d_counts, size_t n, int32_t* d_out, size_t total) {
    expand::launch_merge_path<false, StudentSearch>(d_counts, n, d_out, total);
}

int main(int argc, char** argv) { return expand::run_lesson(argc, argv, "expand_merge_path_search", expand_student); }
