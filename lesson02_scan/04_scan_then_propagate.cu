// 04_scan_then_propagate — any n: many blocks, each scanning its own tile, then fixed up.
//
// What changed since 03_blelloch_padded: one block holds at most 2048 elements, and blocks cannot
// wait for each other inside a kernel (a block may not even have started). So the scan is split
// into kernels, each a grid-wide barrier:
//   1. tile_scan    every block scans its 2048-element tile with 03's padded tree and writes its
//                   tile total to sums[b]
//   2. recursion    sums[] is scanned (exclusive) by the same kernels one level up, until it fits
//                   in one tile (n = 2^31: 2^20 tile sums, then 512, then 1)
//   3. add_offsets  every element of tile b gets sums[b], the total of all earlier tiles
// The source post's fourth version, made recursive and without its bug (wrong/block_sums_half_shared.cu).
// Cost model: the input read once, the output written twice and read once: 4n words against a
// copy's 2n, so at best half of copy speed; 25 barriers per tile of 2048, 1024-thread blocks idle
// at each.
// What limits it next: the traffic and the barriers; 05_reduce_then_scan moves 3n words with a
// handful of barriers per tile.
//
// Build alone:  nvcc -O3 -arch=native -o propagate 04_scan_then_propagate.cu
// Run:          ./propagate --n 2^28          ./propagate --test
#include "blelloch.cuh"
#include "lesson.cuh"

constexpr int kThreads = 1024;
constexpr int kTile = 2 * kThreads;   // 2048 elements per block
using Pad = blelloch::RightPadding;

// Scans tile b of in[0, n) into out (in-tile prefixes only) and writes the tile's total to
// sums[b] (when sums is not null). `in` may equal `out`: each block reads its whole tile into
// shared memory before the tree's first barrier and writes only after the last one.
__global__ void __launch_bounds__(kThreads)
    tile_scan(const uint32_t* in, uint32_t* out, uint32_t* sums, size_t n, bool exclusive) {
    __shared__ uint32_t s[blelloch::padded_words<Pad>(kTile)];
    const int t = threadIdx.x;
    const size_t base = size_t(blockIdx.x) * kTile;   // 64-bit: base reaches 2^31 and beyond
    const size_t g0 = base + t, g1 = base + t + kThreads;
    const uint32_t x0 = g0 < n ? in[g0] : 0u, x1 = g1 < n ? in[g1] : 0u;
    s[blelloch::at<Pad>(t)] = x0;
    s[blelloch::at<Pad>(t + kThreads)] = x1;
    const uint32_t total = blelloch::exclusive_scan_tree<Pad>(s, kTile);
    const uint32_t e0 = s[blelloch::at<Pad>(t)], e1 = s[blelloch::at<Pad>(t + kThreads)];
    if (g0 < n) out[g0] = exclusive ? e0 : e0 + x0;
    if (g1 < n) out[g1] = exclusive ? e1 : e1 + x1;
    if (sums && t == 0) sums[blockIdx.x] = total;
}

// Adds the exclusive-scanned tile sums: tile b gets the total of tiles 0..b-1.
__global__ void __launch_bounds__(kThreads) add_offsets(uint32_t* out, const uint32_t* sums, size_t n) {
    if (blockIdx.x == 0) return;   // sums[0] is 0
    const uint32_t offset = sums[blockIdx.x];
    const size_t base = size_t(blockIdx.x) * kTile;
    for (size_t i = base + threadIdx.x; i < n && i < base + kTile; i += kThreads) out[i] += offset;
}

// Words of scratch for all levels of tile sums below a scan of n elements.
static size_t sums_words(size_t n) {
    size_t words = 0;
    for (size_t m = (n + kTile - 1) / kTile; m > 1; m = (m + kTile - 1) / kTile) words += m;
    return words;
}

// One level: scan the tiles, scan their sums (recursively, in place, exclusive), add back.
static void scan_level(const uint32_t* in, uint32_t* out, size_t n, bool exclusive, uint32_t* scratch) {
    size_t tiles = (n + kTile - 1) / kTile;
    unsigned grid = course::blocks_for(n, kTile);
    if (tiles == 1) {   // fits in one tile: no sums, no fix-up
        tile_scan<<<1, kThreads>>>(in, out, nullptr, n, exclusive);
        CUDA_CHECK_LAST();
        return;
    }
    uint32_t* sums = scratch;   // this level's tiles sums; the levels above use what follows
    tile_scan<<<grid, kThreads>>>(in, out, sums, n, exclusive);
    CUDA_CHECK_LAST();
    scan_level(sums, sums, tiles, /*exclusive=*/true, scratch + tiles);
    add_offsets<<<grid, kThreads>>>(out, sums, n);
    CUDA_CHECK_LAST();
}

void scan_then_propagate(const int32_t* d_in, int32_t* d_out, size_t n, scan::Kind kind) {
    if (n == 0) return;
    uint32_t* scratch = course::scratch_as<uint32_t>(0, sums_words(n));
    scan_level(reinterpret_cast<const uint32_t*>(d_in), reinterpret_cast<uint32_t*>(d_out), n,
               kind == scan::Kind::exclusive, scratch);
}

int main(int argc, char** argv) {
    scan::Limits limits;
    limits.tile = kTile;   // the battery tests n = tile - 1, tile, tile + 1
    return scan::run_lesson(argc, argv, "04_scan_then_propagate", scan_then_propagate, nullptr, limits);
}
