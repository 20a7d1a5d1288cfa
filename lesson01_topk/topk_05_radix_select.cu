// topk_05_radix_select — radix select from the most significant bits (after AIR Top-K, Zhang et
// al., SC'23), all on the device, no host round trips.
//
// What changed vs topk_04_bitonic: no per-element lists or sorting networks. The k-th largest key
// is found digit by digit from histograms (11 + 11 + 10 bits). Pass K0 counts digit 0 of every key;
// the last block to finish picks the bucket that holds the k-th key. K1 writes every key above that
// bucket to the output, copies the keys inside it (the candidates) to a buffer and counts their
// next digit; K2 does the same one digit lower; K3 writes the rest, ties of the k-th key included.
// A last step orders the k results (order_results.cuh).
// Why faster: each key is read once by K0 and once by K1; later passes read only the candidates,
// and no pass sorts anything, so the cost no longer grows with k. Cost model: about 2 reads of
// the input plus the candidates and k writes, in 5 or 6 launches.
// Limits: n < 2^31 (CUB's int count for k > 4096). topk_06 cuts the two reads to one.
// The passes (select_pass, FindBucket) live in radix_select.cuh, shared with topk_06.
//
// Build alone:  nvcc -O3 -arch=native -o topk05 topk_05_radix_select.cu
// Run:          ./topk05 --n 2^28 --k 1024       ./topk05 --test       ./topk05 --sweep --csv r.csv
#include "order_results.cuh"   // radix_select.cuh's passes, then the k results in order

namespace topk {
namespace radix {

inline std::vector<course::KernelPlan> kernel_plans(const course::Options&, const course::Case& c) {
    std::vector<course::KernelPlan> v;
    v.push_back(
        {"select_pass", kBlock, 0, 0, 1, "K0..K3: " + std::to_string(pass_grid(c.n)) + " blocks (4 an SM at most)"});
    if (c.param <= kSmallSortMax) v.push_back({"rank_results", kBlock, 0, 0, 1, "order the k results"});
    else v.push_back({"gather_sorted", 256, 0, 0, 1, "after CUB's radix sort of the k results"});
    return v;
}
static course::PlanHook plan_hook(kernel_plans);

// The four digit passes on a zeroed state, then the k results in order.
template <class T> void passes_topk(const T* d_in, size_t n, size_t k, bool smallest, T* d_vals, uint32_t* d_idx) {
    const PassScratch sc = pass_scratch(n, k);
    CUDA_CHECK(cudaMemsetAsync(sc.st, 0, sizeof(State)));
    run_passes<T, FindBucket, Policy<true>>(d_in, n, k, smallest, sc.st, sc.bufs, sc.out_keys, sc.out_idx,
                                            pass_grid(n));
    order_results(d_in, n, k, sc.out_keys, sc.out_idx, d_vals, d_idx);
}

}   // namespace radix
}   // namespace topk

int main(int argc, char** argv) {
    using namespace topk::radix;
    topk::Limits lim;
    lim.max_n = (uint64_t(1) << 31) - 1;
    lim.why = "CUB sorts the k results with an int count";
    return topk::run_lesson(argc, argv, "topk_05_radix_select", passes_topk<float>, passes_topk<int32_t>,
                            passes_topk<uint32_t>, lim, {passes_topk<__half>, passes_topk<__nv_bfloat16>});
}
