// wrong/block_sums_half_shared — the source post's long-array scan, with its shared-memory bug.
// CAUGHT-BY: memcheck --n 1000000 --reps 1
//
// The post scans tiles of 2048 elements with a kernel in which each thread handles TWO elements
// and the shared array is dynamic (extern __shared__), sized at launch. For the tiles it passes
// the right size. For the second level (one block scanning the tile sums) it launches
// P = next power of two >= #tiles threads with P words of shared memory: but P threads with two
// elements each index 2P words. The upper half of the threads reads and writes past the end of
// the block's shared memory. (For n = 1,000,000: 489 tiles, P = 512 threads, 2 KB allocated,
// 4 KB indexed.) On some GPUs that happens to land on unused shared memory and the answer even
// comes out right; on others it faults. compute-sanitizer memcheck checks every shared access
// against the block's allocation and reports "Invalid __shared__ write ... out of bounds":
//   compute-sanitizer --tool memcheck ./half_shared --n 1000000 --reps 1
// The fix (04_scan_then_propagate): size the shared memory for 2 words per thread, or better, let
// the kernel own a static array for its fixed tile.
// Limit (the post's two levels): n <= 2048 * 2048.
#include "../blelloch.cuh"
#include "../lesson.cuh"

constexpr int kMaxThreads = 1024;
constexpr int kTile = 2 * kMaxThreads;

// Scans 2 * blockDim.x elements per block (blockDim.x a power of two), exclusive inside the tile;
// writes the tile total to sums[blockIdx.x] when sums is given. Shared memory: dynamic, and it
// MUST hold 2 * blockDim.x words.
__global__ void tile_scan_dynamic(const uint32_t* in, uint32_t* out, uint32_t* sums, size_t n, bool exclusive) {
    extern __shared__ uint32_t s[];
    const int t = threadIdx.x, width = 2 * blockDim.x;
    const size_t base = size_t(blockIdx.x) * width;
    const size_t g0 = base + t, g1 = base + t + blockDim.x;
    const uint32_t x0 = g0 < n ? in[g0] : 0u, x1 = g1 < n ? in[g1] : 0u;
    s[t] = x0;
    s[t + blockDim.x] = x1;   // past the allocation for t >= P/2 when launched with P words
    const uint32_t total = blelloch::exclusive_scan_tree<blelloch::NoPadding>(s, width);
    if (g0 < n) out[g0] = exclusive ? s[t] : s[t] + x0;
    if (g1 < n) out[g1] = exclusive ? s[t + blockDim.x] : s[t + blockDim.x] + x1;
    if (sums && t == 0) sums[blockIdx.x] = total;
}

// Adds tile b's exclusive-scanned sum to the tile's elements (this part is right).
__global__ void add_offsets(uint32_t* out, const uint32_t* sums, size_t n) {
    const size_t i = size_t(blockIdx.x) * kTile + threadIdx.x;
    const uint32_t offset = sums[blockIdx.x];
    if (i < n) out[i] += offset;
    if (i + kMaxThreads < n) out[i + kMaxThreads] += offset;
}

static unsigned next_pow2(unsigned v) {
    unsigned p = 1;
    while (p < v) p *= 2;
    return p;
}

void scan_two_levels(const int32_t* d_in, int32_t* d_out, size_t n, scan::Kind kind) {
    if (n == 0) return;
    auto in = reinterpret_cast<const uint32_t*>(d_in);
    auto out = reinterpret_cast<uint32_t*>(d_out);
    unsigned tiles = course::blocks_for(n, kTile);
    uint32_t* sums = course::scratch_as<uint32_t>(0, tiles);
    tile_scan_dynamic<<<tiles, kMaxThreads, kTile * sizeof(uint32_t)>>>(in, out, sums, n,
                                                                        kind == scan::Kind::exclusive);
    CUDA_CHECK_LAST();
    if (tiles == 1) return;
    // THE BUG: P threads scan 2P words, but only P words of shared memory are given.
    unsigned p = next_pow2(tiles);
    tile_scan_dynamic<<<1, p, p * sizeof(uint32_t)>>>(sums, sums, nullptr, tiles, true);
    CUDA_CHECK_LAST();
    add_offsets<<<tiles, kMaxThreads>>>(out, sums, n);
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) {
    scan::Limits limits;
    limits.max_n = uint64_t(kTile) * kTile;
    limits.why = "two levels of 2048-element tiles";
    limits.tile = kTile;
    return scan::run_lesson(argc, argv, "block_sums_half_shared", scan_two_levels, nullptr, limits);
}
