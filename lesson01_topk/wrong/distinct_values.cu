// wrong/distinct_values — the seed's semantics: the k largest DISTINCT values.
// CAUGHT-BY: checker
//
// The source post's insertion routine returns early when the value is already in the list, so
// {9, 9, 9, 1} gives a top 3 of {9, 1, ...} instead of {9, 9, 9}. That is a legitimate function
// (the k largest distinct values), but not top-k as torch.topk, NumPy's partition or CUB define it:
// duplicates count. The checker sees it on any input with repeated values in the top k ("equal",
// "dupes", "few"): too few values above the k-th, or a value below the true k-th returned.
// Everything else is topk_01_seed_insertion.
#include "../insertion.cuh"

struct DistinctInsert {
    __device__ static void apply(uint64_t* list, int stride, int k, uint64_t x) {
        for (int j = 0; j < k; ++j)   // the seed: skip a value already present
            if ((list[j * stride] >> 32) == (x >> 32) && list[j * stride] != topk::kEmpty) return;
        topk::insertion::Insert::apply(list, stride, k, x);
    }
};

template <class T> void distinct_topk(const T* d_in, size_t n, size_t k, bool smallest, T* d_vals, uint32_t* d_idx) {
    int block = topk::insertion::block_for_k(k);
    unsigned grid = std::min<unsigned>(course::blocks_for(n, block), unsigned(4 * course::device().sm_count));
    topk::insertion::two_pass<T, DistinctInsert>(d_in, n, k, smallest, d_vals, d_idx, grid);
}

int main(int argc, char** argv) {
    return topk::run_lesson(argc, argv, "wrong_distinct_values", distinct_topk<float>, distinct_topk<int32_t>,
                            distinct_topk<uint32_t>, topk::insertion::limits());
}
