// 07_radix_multibit — LSD radix sort, 8 bits per pass: per-tile digit histograms, one global scan,
// stable tile-local ranking and a coalesced scatter (the classic "reduce-then-scan" radix sort of
// Merrill & Grimshaw, and of CUB before one-sweep).
//
// What changes since 06: 8 bits per pass, so 32-bit keys need 4 passes, not 32. A pass:
//   1. count    each tile of 3840 keys counts its 256 digits into counts[digit][tile]
//   2. scan     one exclusive scan of the digit-major counts: offsets[d][t] = the keys of smaller
//               digits + digit d's keys in earlier tiles
//   3. scatter  each tile ranks its keys stably by digit (radix.cuh), stages them in shared memory
//               in that order and writes every digit's run coalesced
// Cost (uint32): ~12.5 B per key per pass, 50 B in all (06: ~900), in 4 x 3 launches.
// What limits it: every key is read twice per pass (to count, to move), with the scan's round trip
// between; 08 counts all passes' digits in one read and replaces the scan by a look-back.
// Stable: the ranking keeps tile order, the scan keeps tiles in order (wrong/unstable_digit_pass.cu
// breaks the first). Limit: 256 x tiles < 2^32.
//
// Build alone:  nvcc -O3 -arch=native -std=c++17 -o radix8 07_radix_multibit.cu
// Run:          ./radix8 --n 2^28     ./radix8 --type pairs --n 2^28     ./radix8 --test
#include "../lesson02_scan/scan.cuh"
#include "radix.cuh"

namespace {

constexpr int kBlock = 256, kItems = 15;
using Rank = radix::TileRank<kBlock, kItems>;
constexpr int kTile = Rank::kTile;   // 3840 keys per tile

// Step 1 is radix::count_digits (radix.cuh): the tile's digit counts, digit-major.

// Step 3: rank, stage in shared memory in digit order, write out.
template <class K, class U, bool kFirst, bool kLast, bool kPairs>
__global__ void __launch_bounds__(kBlock) scatter_pass(const void* src, void* dst, const uint32_t* vsrc, uint32_t* vdst,
                                                       size_t n, int shift, const uint32_t* offsets, size_t tiles) {
    __shared__ typename Rank::Storage rank_storage;
    __shared__ U s_codes[kTile];
    __shared__ uint32_t s_vals[kPairs ? kTile : 1];
    __shared__ long long s_offset[radix::kDigits];

    const size_t tile_base = size_t(blockIdx.x) * kTile;
    const uint32_t valid = n - tile_base < size_t(kTile) ? uint32_t(n - tile_base) : uint32_t(kTile);
    U code[kItems];
    uint32_t digit[kItems], rank[kItems];
    radix::load_codes<K, U, kBlock, kItems, kFirst>(src, n, tile_base, code);
#pragma unroll
    for (int j = 0; j < kItems; ++j) digit[j] = radix::digit_of(code[j], shift);

    uint32_t total = Rank::warp_ranks(digit, rank, rank_storage);
    uint32_t start = Rank::finish(total, digit, rank, rank_storage);
    // Where this tile's run of digit d begins in the output, minus where it begins in the tile.
    s_offset[threadIdx.x] = (long long)offsets[size_t(threadIdx.x) * tiles + blockIdx.x] - (long long)start;

    radix::stage_tile<U, kItems, kPairs>(code, rank, vsrc, n, tile_base, s_codes, s_vals);
    __syncthreads();
    radix::scatter_codes<K, U, kBlock, kLast>(s_codes, s_offset, valid, shift, dst, n);
    if constexpr (kPairs) radix::scatter_values<U, kBlock>(s_codes, s_vals, s_offset, valid, shift, vdst, n);
}

template <class K, class U, bool kFirst, bool kLast, bool kPairs>
void one_pass(const void* src, void* dst, const uint32_t* vsrc, uint32_t* vdst, size_t n, int shift) {
    const size_t tiles = (n + kTile - 1) / kTile;
    const unsigned grid = course::blocks_for(n, kTile);
    uint32_t* counts = course::scratch_as<uint32_t>(3, tiles * radix::kDigits);
    uint32_t* offsets = course::scratch_as<uint32_t>(4, tiles * radix::kDigits);
    radix::count_digits<K, U, kBlock, kItems, kFirst><<<grid, kBlock>>>(src, n, shift, counts, tiles);
    CUDA_CHECK_LAST();
    scan::device_scan(counts, offsets, tiles * radix::kDigits, scan::Kind::exclusive);
    scatter_pass<K, U, kFirst, kLast, kPairs><<<grid, kBlock>>>(src, dst, vsrc, vdst, n, shift, offsets, tiles);
    CUDA_CHECK_LAST();
}

// Passes over digits 0, 8, 16, ...: in -> tmp -> out -> tmp -> ... -> out (the count is even).
struct Radix8 {
    template <class K, bool kPairs>
    static void sort(const K* in, K* out, const uint32_t* vin, uint32_t* vout, size_t n) {
        using U = typename sorting::Ordered<K>::U;
        if (n == 0) return;
        constexpr int kPasses = int(8 * sizeof(U)) / radix::kDigitBits;
        static_assert(kPasses % 2 == 0, "the last pass must land in the output");
        U* tmp = course::scratch_as<U>(1, n);
        uint32_t* vtmp = kPairs ? course::scratch_as<uint32_t>(2, n) : nullptr;
        for (int p = 0; p < kPasses; ++p) {
            const int shift = p * radix::kDigitBits;
            void* dst = p % 2 == 0 ? static_cast<void*>(tmp) : static_cast<void*>(out);
            uint32_t* vdst = p % 2 == 0 ? vtmp : vout;
            if (p == 0) {
                one_pass<K, U, true, false, kPairs>(in, dst, vin, vdst, n, shift);
            } else {
                const void* src = p % 2 == 1 ? static_cast<const void*>(tmp) : static_cast<const void*>(out);
                const uint32_t* vsrc = p % 2 == 1 ? vtmp : vout;
                if (p == kPasses - 1) one_pass<K, U, false, true, kPairs>(src, dst, vsrc, vdst, n, shift);
                else one_pass<K, U, false, false, kPairs>(src, dst, vsrc, vdst, n, shift);
            }
        }
    }
};

}   // namespace

int main(int argc, char** argv) {
    sorting::Sorter s = radix::sorter_for<Radix8>();   // every key type, and pairs
    return sorting::run_lesson(argc, argv, "07_radix_multibit", s);
}
