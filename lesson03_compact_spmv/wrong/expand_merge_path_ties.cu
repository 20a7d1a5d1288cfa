// wrong/expand_merge_path_ties — the merge-path expansion with the tie broken the wrong way.
// CAUGHT-BY: checker
//
// Merge path decides, at each step, whether output a or the end of item b comes next. Item b owns
// outputs [off[b], off[b+1]), so output a belongs to item b only while a < off[b+1] (the end is
// EXCLUSIVE). Writing `a <= end` instead hands output off[b+1] to item b: every item that follows
// another non-empty one loses its first output to its predecessor, e.g. counts {2, 0, 3} give
// {0, 0, 0, 2, 2} instead of {0, 0, 2, 2, 2}. Nothing crashes and the output has the right size:
// the path is still a valid path, only through the wrong place. The checker sees the first
// output of each such item holding the previous item's index.
// The same choice decides stability in a merge (lesson04): which list wins a tie.
//
// Run:  ./expand_merge_path_ties --test --quick      (fails)
#define COURSE_NO_MAIN   // expand_02's kernels and launcher, without its main
#include "../expand_02_merge_path.cu"

void expand_merge_path_ties(const int32_t* d_counts, size_t n, int32_t* d_out, size_t total) {
    expand::launch_merge_path<true>(d_counts, n, d_out, total);   // BUG: a <= end instead of a < end
}

int main(int argc, char** argv) {
    return expand::run_lesson(argc, argv, "expand_merge_path_ties", expand_merge_path_ties);
}
