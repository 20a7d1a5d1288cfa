// wrong/sortedness_only_checker — a "sort" that returns sorted garbage: all zeros.
// CAUGHT-BY: checker
//
// The bug is in the checking, not (only) in the kernel. A tempting test of a sort is
//     for (i = 1; i < n; ++i) if (out[i] < out[i - 1]) fail;
// and this program's output passes it for every input: it writes n zeros (as a sort whose last
// pass wrote to the wrong buffer, or whose scatter lost the keys, might leave a zeroed buffer).
// Sorted, yes; a sort, no. A sort's result must be ordered AND a permutation of its input.
// The lesson's checker (lesson.cuh, check_keys) compares the output with a CPU sort of the input
// element by element (up to 2^24 keys; above, a multiset fingerprint), so this program FAILS with
// "sorted, but not a permutation of the input". For pairs, check_pairs sees values that do not
// carry their keys. tests/lesson04_radix_host.cu shows the same thing on the host: an all-zeros
// output passes std::is_sorted and fails check_keys.
//
// Run:  ./sortedness_only_checker --n 1000      (FAIL: sorted, but not a permutation of the input)
#include "../lesson.cuh"

namespace {

// The bug: a "sort" that writes zeros, sorted but not a permutation of the input.
template <class K> __global__ void write_zeros(K* out, size_t n) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        out[i] = K(0);
}

template <class K> void zeros_sort(const K* in, K* out, size_t n) {
    (void)in;
    if (n == 0) return;
    write_zeros<<<std::min(course::blocks_for(n, 256), 4096u), 256>>>(out, n);
    CUDA_CHECK_LAST();
}

void zeros_pairs(const uint32_t* ki, const uint32_t* vi, uint32_t* ko, uint32_t* vo, size_t n) {
    (void)vi;
    zeros_sort(ki, ko, n);
    zeros_sort(ki, vo, n);
}

}   // namespace

int main(int argc, char** argv) {
    sorting::Sorter s;
    s.u32 = zeros_sort<uint32_t>;
    s.f32 = zeros_sort<float>;
    s.pairs = zeros_pairs;
    return sorting::run_lesson(argc, argv, "sortedness_only_checker", s);
}
