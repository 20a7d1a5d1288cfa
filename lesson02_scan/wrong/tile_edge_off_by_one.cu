// wrong/tile_edge_off_by_one — a multi-block scan whose tile total misses the tile's last element.
// CAUGHT-BY: checker
//
// 04_scan_then_propagate's structure. Each tile's total (what every later tile adds) is taken
// from the scanned shared array at the tile's last slot... but after the Blelloch tree that slot
// holds the EXCLUSIVE prefix: the sum of the first 2047 elements, not 2048. The classic
// inclusive/exclusive off-by-one at a tile edge. Every tile but the first is then short by the
// last element of each earlier tile. Tests that stay inside one tile (n <= 2048) pass; the
// battery's sizes tile, tile + 1 and up catch it (inputs whose tile-final element is 0 would not:
// the battery's "equal" input never is). Run: ./off_by_one --test --quick   (exit 1)
#include "../blelloch.cuh"
#include "../lesson.cuh"

constexpr int kThreads = 1024;
constexpr int kTile = 2 * kThreads;
using Pad = blelloch::RightPadding;

// The bug: 04's tile_scan, but the tile total is the last slot's exclusive prefix (one element short).
__global__ void __launch_bounds__(kThreads)
    tile_scan(const uint32_t* in, uint32_t* out, uint32_t* sums, size_t n, bool exclusive) {
    __shared__ uint32_t s[blelloch::padded_words<Pad>(kTile)];
    const int t = threadIdx.x;
    const size_t base = size_t(blockIdx.x) * kTile;
    const size_t g0 = base + t, g1 = base + t + kThreads;
    const uint32_t x0 = g0 < n ? in[g0] : 0u, x1 = g1 < n ? in[g1] : 0u;
    s[blelloch::at<Pad>(t)] = x0;
    s[blelloch::at<Pad>(t + kThreads)] = x1;
    blelloch::exclusive_scan_tree<Pad>(s, kTile);
    const uint32_t e0 = s[blelloch::at<Pad>(t)], e1 = s[blelloch::at<Pad>(t + kThreads)];
    if (g0 < n) out[g0] = exclusive ? e0 : e0 + x0;
    if (g1 < n) out[g1] = exclusive ? e1 : e1 + x1;
    // BUG: the exclusive value at the last slot; the tile total is that plus the last element
    // (x1 of thread kThreads - 1), or the tree's return value.
    if (sums && t == kThreads - 1) sums[blockIdx.x] = e1;
}

// 04's add_offsets: tile b adds the scanned totals of tiles 0..b-1 (this part is right).
__global__ void __launch_bounds__(kThreads) add_offsets(uint32_t* out, const uint32_t* sums, size_t n) {
    const uint32_t offset = sums[blockIdx.x];
    const size_t base = size_t(blockIdx.x) * kTile;
    for (size_t i = base + threadIdx.x; i < n && i < base + kTile; i += kThreads) out[i] += offset;
}

static void scan_level(const uint32_t* in, uint32_t* out, size_t n, bool exclusive, uint32_t* scratch) {
    size_t tiles = (n + kTile - 1) / kTile;
    unsigned grid = course::blocks_for(n, kTile);
    if (tiles == 1) {
        tile_scan<<<1, kThreads>>>(in, out, nullptr, n, exclusive);
        CUDA_CHECK_LAST();
        return;
    }
    tile_scan<<<grid, kThreads>>>(in, out, scratch, n, exclusive);
    CUDA_CHECK_LAST();
    scan_level(scratch, scratch, tiles, true, scratch + tiles);
    add_offsets<<<grid, kThreads>>>(out, scratch, n);
    CUDA_CHECK_LAST();
}

void scan_off_by_one(const int32_t* d_in, int32_t* d_out, size_t n, scan::Kind kind) {
    if (n == 0) return;
    size_t words = 0;
    for (size_t m = (n + kTile - 1) / kTile; m > 1; m = (m + kTile - 1) / kTile) words += m;
    scan_level(reinterpret_cast<const uint32_t*>(d_in), reinterpret_cast<uint32_t*>(d_out), n,
               kind == scan::Kind::exclusive, course::scratch_as<uint32_t>(0, words));
}

int main(int argc, char** argv) {
    scan::Limits limits;
    limits.tile = kTile;   // the battery tests n = tile - 1, tile, tile + 1
    return scan::run_lesson(argc, argv, "tile_edge_off_by_one", scan_off_by_one, nullptr, limits);
}
