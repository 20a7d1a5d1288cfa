// exercises/warp_merge — write the warp-wide bitonic merge of topk_03_warp_select.
//
// TODO: complete MyMerge::apply below. A warp holds two lists of 32*Q packed values, each sorted
// largest first across its registers: element e = r*32 + lane is register r of that lane.
// `list` is the warp's best so far, `q` the sorted queues. Make `list` the top 32*Q of both,
// sorted largest first.
// Hints: (1) the top 32*Q of two sorted lists of 32*Q is, element by element, the larger of
// list[e] and q[32Q-1-e] (reversed): that sequence is bitonic. q[32Q-1-e] is register Q-1-r of
// lane 31-lane: one __shfl_sync per register. (2) A bitonic sequence of length 32Q is sorted by
// compare-exchanges at strides 16Q, 8Q, ..., 1, always keeping the larger at the lower position:
// ws::step<Q>(list, 64 * Q, stride) (topk_03_warp_select.cu, included) does one such step (strides
// >= 32 swap registers within a lane, smaller ones use __shfl_xor_sync), as the notes describe.
// Until it is done the warps' lists stay empty and the checker fails (exit 1).
// Check:  make grade EX=warp_merge   (exit 0 once done):
//         by hand: make build/lesson01_topk/exercises/warp_merge, then run it with --test --quick
// Solution: topk_03_warp_select.cu, MergeTop.
#define COURSE_NO_MAIN
#include "../topk_03_warp_select.cu"   // its kernels, without its main

struct MyMerge {
    template <int Q> __device__ static void apply(uint64_t (&list)[Q], const uint64_t (&q)[Q]) {
        // TODO: list := the top 32*Q of list and q, sorted largest first.
        (void)list;
        (void)q;
    }
};

int main(int argc, char** argv) {
    return topk::run_lesson(argc, argv, "exercise_warp_merge", ws::warp_select_topk<float, MyMerge>,
                            ws::warp_select_topk<int32_t, MyMerge>, ws::warp_select_topk<uint32_t, MyMerge>,
                            ws::limits());
}
