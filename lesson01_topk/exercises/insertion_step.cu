// exercises/insertion_step — write the insertion step of the seed's design (topk_01_seed_insertion).
//
// TODO: complete MyInsert::apply below. list[0], list[stride], ..., list[(k-1)*stride] is a
// thread's top-k list, largest first, of packed (key, index) values (lesson.cuh: pack(); larger
// packed value = earlier in the output; the empty slot kEmpty = 0 is below everything). Insert x if
// it is larger than the list's last element: move the smaller elements down one place, the last
// one falls off. Keep it O(k) and touch only list[j * stride] (the lists are interleaved in shared
// memory so that a warp's accesses do not conflict).
// Hints: look at the last element first (most elements stop there); shift from the end towards the
// front while the element before is smaller than x. Given: topk::insertion::two_pass (insertion.cuh)
// calls your apply for every element and in every merge of two lists (README, topk_01).
// Until it is done, the lists stay empty and the checker reports indices out of range (exit 1).
// Check:  make grade EX=insertion_step   (exit 0 once done):
//         by hand: make build/lesson01_topk/exercises/insertion_step, then run it with --test --quick
// Solution: insertion.cuh, Insert::apply.
#include "../insertion.cuh"

struct MyInsert {
    __device__ static void apply(uint64_t* list, int stride, int k, uint64_t x) {
        // TODO: insert x into list (see above).
        (void)list;
        (void)stride;
        (void)k;
        (void)x;
    }
};

template <class T> void exercise_topk(const T* d_in, size_t n, size_t k, bool smallest, T* d_vals, uint32_t* d_idx) {
    int block = topk::insertion::block_for_k(k);
    unsigned grid = std::min<unsigned>(course::blocks_for(n, block), unsigned(4 * course::device().sm_count));
    topk::insertion::two_pass<T, MyInsert>(d_in, n, k, smallest, d_vals, d_idx, grid);
}

int main(int argc, char** argv) {
    return topk::run_lesson(argc, argv, "exercise_insertion_step", exercise_topk<float>, exercise_topk<int32_t>,
                            exercise_topk<uint32_t>, topk::insertion::limits());
}
