// 07_radix_multibit — LSD radix sort, 8 bits per pass: per-tile digit histograms, one global scan,
// stable tile-local ranking and a coalesced scatter (the classic "reduce-then-scan" radix sort of
// Merrill & Grimshaw, and of CUB before one-sweep).
//
// Build alone:  nvcc -O3 -arch=native -std=c++17 -o radix8 07_radix_multibit.cu
// Run:          ./radix8 --n 2^28     ./radix8 --type pairs --n 2^28     ./radix8 --test
//
// What changes since 06: a pass sorts by 8 bits at once, so 32-bit keys need 4 passes, not 32.
// A pass has three steps:
//   1. count   each tile of 3840 keys counts its 256 digits: counts[digit][tile]
//   2. scan    one exclusive scan of the whole counts array (digit-major, so the scan visits
//              digit 0 of every tile, then digit 1, ...): offsets[d][t] is where tile t's first
//              key of digit d goes = all keys of smaller digits + digit d's keys in earlier tiles
//   3. scatter each tile ranks its keys stably by digit (radix.cuh: warp match + block scan),
//              puts them in shared memory in that order, and writes them out in order, so
//              neighbouring threads write neighbouring addresses of a digit's run
//
// Cost model (uint32, per pass): count reads 4 B per key; the scan moves 8 B per (digit, tile),
// ~0.5 B per key; scatter reads 4 B and writes 4 B per key. About 12.5 B per key per pass, 50 B
// per key in all (06: ~900), in 4 x 3 launches. Keys are read twice per pass: once to count, once
// to move. What limits it next: that second read, and the scan's round trip through memory
// between them; 08 counts every pass's digits in one upfront read and replaces the scan by a
// decoupled look-back inside the scatter kernel. Measured: see the table.
//
// The scatter is as stable as the ranking: keys of one digit keep tile order (the ranking) and
// tiles keep their order (the scan over tiles). wrong/unstable_digit_pass.cu breaks the first.
// Keys are ordered codes (lesson.cuh); pass 0 makes them on the fly, the last pass maps back.
// Limits: 256 x number of tiles < 2^32 (n up to ~2^42, far beyond GPU memory).
//
#include "../lesson02_scan/scan.cuh"
#include "radix.cuh"

namespace {

constexpr int kBlock = 256, kItems = 15;
using Rank = radix::TileRank<kBlock, kItems>;
constexpr int kTile = Rank::kTile;   // 3840 keys per tile

// Step 1 is radix::count_digits (radix.cuh): the tile's digit counts, digit-major.

// Step 3: rank, stage in shared memory in digit order, write out.
template <class K, class U, bool kFirst, bool kLast, bool kPairs>
__global__ void __launch_bounds__(kBlock)
scatter_pass(const void* src, void* dst, const uint32_t* vsrc, uint32_t* vdst, size_t n, int shift,
             const uint32_t* offsets, size_t tiles) {
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

}  // namespace

int main(int argc, char** argv) {
    sorting::Sorter s = radix::sorter_for<Radix8>();   // every key type, and pairs
    return sorting::run_lesson(argc, argv, "07_radix_multibit", s);
}
