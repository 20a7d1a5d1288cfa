// wrong/bitonic_power_of_two — the textbook bitonic sort, which assumes n is a power of two.
// CAUGHT-BY: checker
//
// The classic network: stage k, step j, element i is compared with partner i ^ j; blocks of size k
// alternate direction (ascending where i & k == 0, descending elsewhere), so every stage merges
// an ascending and a descending run (a bitonic sequence). For n a power of two it is correct.
// For any other n the tempting fix is "skip partners >= n", as if the missing keys were +inf.
// That is wrong here: in a DESCENDING block the +inf padding must move to the LOW index, i.e.
// into the real range, and a real key must leave for the padding. Skipping the step leaves the
// keys where they are, and the next merge receives a sequence that is not bitonic. Sizes like
// 31, 33, 1000003 come out unsorted (a few keys out of place), and the checker says where.
// The fix (03_bitonic.cu, comparison.cuh): the always-ascending form, whose first step of each
// stage compares mirror images (i with block_end - 1 - i); every exchange then puts the smaller key
// at the lower index, so the padding never has to move and skipping is exact.
// tests/lesson04_merge_host.cu runs both networks on the CPU for every n up to 300.
//
// Run:  build/lesson04_sort/wrong/bitonic_power_of_two --test --quick     (expect exit 1)
#include "../comparison.cuh"

// The bug: the alternating network's step, skipping partners >= n (right only for powers of two).
template <class K> __global__ void classic_step(K* data, size_t n, size_t P, size_t k, size_t j) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i >= P) return;
    size_t p = i ^ j;
    if (p <= i || p >= n) return;   // the bug: "p >= n is padding, nothing to do"
    bool ascending = (i & k) == 0;
    K a = data[i], b = data[p];
    if (ascending ? sorting::key_less(b, a) : sorting::key_less(a, b)) {
        data[i] = b;
        data[p] = a;
    }
}

template <class K> void bitonic_pow2(const K* d_in, K* d_out, size_t n) {
    if (n == 0) return;
    CUDA_CHECK(cudaMemcpyAsync(d_out, d_in, n * sizeof(K), cudaMemcpyDeviceToDevice));
    const size_t P = sorting::cmp::next_pow2(n);
    for (size_t k = 2; k <= P; k *= 2)
        for (size_t j = k / 2; j >= 1; j /= 2) {
            classic_step<K><<<course::blocks_for(P, 256), 256>>>(d_out, n, P, k, j);
            CUDA_CHECK_LAST();
        }
}

int main(int argc, char** argv) {
    sorting::Sorter s;
    s.u32 = bitonic_pow2<uint32_t>;
    s.i32 = bitonic_pow2<int32_t>;
    s.f32 = bitonic_pow2<float>;
    return sorting::run_lesson(argc, argv, "bitonic_power_of_two", s);
}
