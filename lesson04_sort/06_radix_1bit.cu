// 06_radix_1bit — LSD radix sort, 1 bit per pass, each pass a split by scan (the textbook version,
// Blelloch's "split" primitive).
//
// What changes: no comparisons at all. A pass on bit b is a stable partition: keys with b = 0 keep
// their order and go first, the others follow. One exclusive scan of the flags "bit is 0" places
// every key:   dest(i) = bit ? total_zeros + (i - zeros_before[i]) : zeros_before[i]
// Stability is what makes LSD work: after the pass on bit b the keys are sorted by bits 0..b.
// Cost (uint32): 32 passes of three kernels (flags, lesson 02's scan, scatter), ~28 B per key per
// pass: ~900 B per key against the 8 B a sort must move, and 96 launches.
// What limits it: the number of passes; 07 takes 8 bits per pass (4 passes for 32-bit keys).
// Keys are sorted as ordered codes (lesson.cuh), one extra pass in and out. Limit: n < 2^32.
//
// Build alone:  nvcc -O3 -arch=native -std=c++17 -o radix1 06_radix_1bit.cu
// Run:          ./radix1 --n 2^24     ./radix1 --type pairs     ./radix1 --test
#include "../lesson02_scan/scan.cuh"
#include "lesson.cuh"

namespace {

constexpr int kBlock = 256;

unsigned grid_for(size_t n) { return std::min(course::blocks_for(n, kBlock), 4u * 65535u); }

// Keys to ordered codes (and back, below): an unsigned integer order the bit passes can sort.
template <class K, class U> __global__ void to_codes(const K* in, U* codes, size_t n) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        codes[i] = sorting::Ordered<K>::to(in[i]);
}
// The way back: codes to keys, after the last pass.
template <class K, class U> __global__ void from_codes(const U* codes, K* out, size_t n) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        out[i] = sorting::Ordered<K>::from(codes[i]);
}

// flag[i] = 1 where bit `bit` of the key is 0: the scan of these counts the zeros before each key.
template <class U> __global__ void zero_flags(const U* codes, uint32_t* flags, size_t n, int bit) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        flags[i] = uint32_t(~(codes[i] >> bit)) & 1u;
}

// The split: every key moves to its stable place for this bit (values, when given, travel along).
template <class U, bool kPairs>
__global__ void split_scatter(const U* codes, U* codes_out, const uint32_t* vals, uint32_t* vals_out,
                              const uint32_t* zeros_before, size_t n, int bit) {
    // total zeros = zeros before the last key + (the last key is a zero)
    const size_t total_zeros = size_t(zeros_before[n - 1]) + (uint32_t(~(codes[n - 1] >> bit)) & 1u);
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
        U c = codes[i];
        size_t z = zeros_before[i];
        size_t dest = ((c >> bit) & 1u) ? total_zeros + (i - z) : z;
        codes_out[dest] = c;
        if constexpr (kPairs) vals_out[dest] = vals[i];
    }
}

// All passes. codes/vals start in buffer a; each pass moves them to the other buffer. The number
// of passes (32 or 64) is even, so the result ends in buffer a again.
template <class U, bool kPairs> void split_passes(U* a, U* b, uint32_t* va, uint32_t* vb, size_t n) {
    uint32_t* flags = course::scratch_as<uint32_t>(3, n);
    uint32_t* zeros_before = course::scratch_as<uint32_t>(4, n);
    const unsigned grid = grid_for(n);
    for (int bit = 0; bit < int(8 * sizeof(U)); ++bit) {
        zero_flags<<<grid, kBlock>>>(a, flags, n, bit);
        CUDA_CHECK_LAST();
        scan::device_scan(flags, zeros_before, n, scan::Kind::exclusive);
        split_scatter<U, kPairs><<<grid, kBlock>>>(a, b, va, vb, zeros_before, n, bit);
        CUDA_CHECK_LAST();
        std::swap(a, b);
        std::swap(va, vb);
    }
}

// The entry points: every key type through one template, and pairs (sorting::every_type).
struct Radix1 {
    template <class K> static void keys(const K* d_in, K* d_out, size_t n) {
        using U = typename sorting::Ordered<K>::U;
        if (n == 0) return;
        U* a = course::scratch_as<U>(1, n);
        U* b = course::scratch_as<U>(2, n);
        to_codes<<<grid_for(n), kBlock>>>(d_in, a, n);
        CUDA_CHECK_LAST();
        split_passes<U, false>(a, b, nullptr, nullptr, n);
        from_codes<<<grid_for(n), kBlock>>>(a, d_out, n);
        CUDA_CHECK_LAST();
    }

    static void pairs(const uint32_t* d_keys_in, const uint32_t* d_vals_in, uint32_t* d_keys_out, uint32_t* d_vals_out,
                      size_t n) {
        if (n == 0) return;
        // 32 passes (even): with a = the output buffers, the result lands in them.
        uint32_t* b = course::scratch_as<uint32_t>(2, n);
        uint32_t* vb = course::scratch_as<uint32_t>(5, n);
        CUDA_CHECK(cudaMemcpyAsync(d_keys_out, d_keys_in, n * sizeof(uint32_t), cudaMemcpyDeviceToDevice));
        CUDA_CHECK(cudaMemcpyAsync(d_vals_out, d_vals_in, n * sizeof(uint32_t), cudaMemcpyDeviceToDevice));
        split_passes<uint32_t, true>(d_keys_out, b, d_vals_out, vb, n);
    }
};

}   // namespace

int main(int argc, char** argv) {
    sorting::Sorter s = sorting::every_type<Radix1>();   // every key type, and pairs
    s.max_n = 0xFFFFFFFFull;
    s.limit_why = "the split's scan counts are uint32";
    return sorting::run_lesson(argc, argv, "06_radix_1bit", s);
}
