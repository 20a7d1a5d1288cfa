// wrong/drop_ties — a radix select that forgets the ties at the k-th value.
// CAUGHT-BY: checker
//
// After the last digit the k-th key is known: every element above it is in the answer, and of the
// elements EQUAL to it exactly k_rem = k - (number above) are needed. This version writes only
// the elements above the k-th key (a natural slip: "output key > kth"), so the last k_rem slots of
// the output are never written. On inputs with distinct values k_rem is 1 and a single slot stays
// poisoned; on all-equal input nothing is written at all. The checker reports the poisoned slot
// (an index out of range). Everything else is the best build (topk_06_sampled_one_launch, through radix_topk.cuh, Policy<false>).
#include "../radix_topk.cuh"

int main(int argc, char** argv) {
    using namespace topk::radix;
    return topk::run_lesson(argc, argv, "wrong_drop_ties", radix_topk<float, FindBucket, Policy<false>>,
                            radix_topk<int32_t, FindBucket, Policy<false>>,
                            radix_topk<uint32_t, FindBucket, Policy<false>>, limits());
}
