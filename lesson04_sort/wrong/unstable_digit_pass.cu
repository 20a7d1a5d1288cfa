// wrong/unstable_digit_pass — a multi-bit LSD radix pass whose ranking is NOT stable.
// CAUGHT-BY: checker
//
// The bug: inside a tile, each key takes its place among keys of the same digit with
//     rank = atomicAdd(&s_count[digit], 1);
// Every key gets a distinct slot and the tile's digit counts are right, so each pass still
// partitions correctly by its digit. But the order of the atomics is not the order of the keys:
// here each thread holds 8 consecutive keys (a blocked layout) and all threads do their first key
// before anyone does their second, so key 8 (thread 1, item 0) is ranked before key 1 (thread 0,
// item 1). Equal digits lose their input order.
// Why it matters: LSD radix sort is correct only because every pass is stable: after the pass on
// digit k, keys with equal digit k must keep the order the passes on digits 0..k-1 gave them.
// With this pass, uint32 keys come out unsorted (the low digits' work is scrambled), and pairs
// are unstable even where the keys happen to be right. The lesson's checker catches both: for
// pairs it names it ("not stable: equal keys with values not increasing").
// The fix: rank by position, not by arrival: 07_radix_multibit.cu and radix.cuh (warp match +
// per-warp counters + a scan over warps), or exercises/radix_stable_scatter.cu.
//
// Run:  ./unstable_digit_pass --type pairs --dist few --n 100000     (FAIL: not stable)
#include "../../lesson02_scan/scan.cuh"
#include "../radix.cuh"

namespace {

constexpr int kBlock = 256, kItems = 8, kTile = kBlock * kItems;

// Per-tile digit counts, as in 07 (this part is right).
__global__ void count_digits(const uint32_t* keys, size_t n, int shift, uint32_t* counts, size_t tiles) {
    __shared__ uint32_t hist[radix::kDigits];
    hist[threadIdx.x] = 0;
    __syncthreads();
    size_t base = size_t(blockIdx.x) * kTile + size_t(threadIdx.x) * kItems;
    for (int j = 0; j < kItems; ++j)
        if (base + j < n) atomicAdd(&hist[radix::digit_of(keys[base + j], shift)], 1u);
    __syncthreads();
    counts[size_t(threadIdx.x) * tiles + blockIdx.x] = hist[threadIdx.x];
}

// The bug: ranks by atomicAdd arrival order, not by position, so equal digits lose their order.
template <bool kPairs>
__global__ void unstable_scatter(const uint32_t* keys, uint32_t* keys_out, const uint32_t* vals, uint32_t* vals_out,
                                 size_t n, int shift, const uint32_t* offsets, size_t tiles) {
    __shared__ uint32_t s_count[radix::kDigits];
    s_count[threadIdx.x] = 0;
    __syncthreads();
    size_t base = size_t(blockIdx.x) * kTile + size_t(threadIdx.x) * kItems;
    for (int j = 0; j < kItems; ++j) {
        if (base + j >= n) break;
        uint32_t k = keys[base + j];
        uint32_t d = radix::digit_of(k, shift);
        uint32_t rank = atomicAdd(&s_count[d], 1u);   // BUG: arrival order, not key order
        size_t dest = size_t(offsets[size_t(d) * tiles + blockIdx.x]) + rank;
        keys_out[dest] = k;
        if constexpr (kPairs) vals_out[dest] = vals[base + j];
    }
}

template <bool kPairs> void sort(const uint32_t* in, uint32_t* out, const uint32_t* vin, uint32_t* vout, size_t n) {
    if (n == 0) return;
    const size_t tiles = (n + kTile - 1) / kTile;
    const unsigned grid = course::blocks_for(n, kTile);
    uint32_t* tmp = course::scratch_as<uint32_t>(1, n);
    uint32_t* vtmp = course::scratch_as<uint32_t>(2, n);
    uint32_t* counts = course::scratch_as<uint32_t>(3, tiles * radix::kDigits);
    uint32_t* offsets = course::scratch_as<uint32_t>(4, tiles * radix::kDigits);
    const uint32_t* src = in;
    const uint32_t* vsrc = vin;
    for (int p = 0; p < 4; ++p) {   // in -> tmp -> out -> tmp -> out
        uint32_t* dst = p % 2 == 0 ? tmp : out;
        uint32_t* vdst = p % 2 == 0 ? vtmp : vout;
        count_digits<<<grid, kBlock>>>(src, n, 8 * p, counts, tiles);
        CUDA_CHECK_LAST();
        scan::device_scan(counts, offsets, tiles * radix::kDigits, scan::Kind::exclusive);
        unstable_scatter<kPairs><<<grid, kBlock>>>(src, dst, vsrc, vdst, n, 8 * p, offsets, tiles);
        CUDA_CHECK_LAST();
        src = dst;
        vsrc = vdst;
    }
}

void keys_fn(const uint32_t* in, uint32_t* out, size_t n) { sort<false>(in, out, nullptr, nullptr, n); }
void pairs_fn(const uint32_t* ki, const uint32_t* vi, uint32_t* ko, uint32_t* vo, size_t n) {
    sort<true>(ki, ko, vi, vo, n);
}

}   // namespace

int main(int argc, char** argv) {
    sorting::Sorter s;
    s.u32 = keys_fn;
    s.pairs = pairs_fn;
    return sorting::run_lesson(argc, argv, "unstable_digit_pass", s);
}
