// 05_reduce_then_scan — three passes with a fixed grid: reduce, scan the partials, scan again.
//
// What changed since 04_scan_then_propagate:
//  * The tree in shared memory is gone. A tile of 4096 elements sits in registers (16 per thread,
//    four 16-byte vectors; layout in tile.cuh) and is scanned with warp shuffles, then warp 0 scans
//    the 8 warp totals: two barriers per tile instead of 25.
//  * Fewer bytes. A grid of G blocks (G <= 1024, a few per SM) cuts the input into G segments:
//      1. reduce   each block sums its segment: partial[b]            (reads n words)
//      2. scan     one block scans the G partials (exclusive)         (tiny)
//      3. scan     each block rescans its segment tile by tile, from partial[b], carrying the
//                  running total from tile to tile                    (reads n, writes n words)
//    3n words instead of 04's 4n, and 3 launches for any n.
// Cost model: 3n words against a copy's 2n: at best 2/3 of copy speed, less the launch gaps at
// small n.
// What limits it next: the input is read twice. 06_decoupled_lookback reads it once.
// float32: the segment sums and the carry add in another order than a sequential loop (README).
//
// Build alone:  nvcc -O3 -arch=native -o rts 05_reduce_then_scan.cu
// Run:          ./rts --n 2^28          ./rts --test          ./rts --type float32 --n 2^24
#include "lesson.cuh"
#include "tile.cuh"

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kVecs = 4;                      // 16-byte vectors per thread
constexpr int kTile = kThreads * 4 * kVecs;   // 4096 elements
constexpr int kMaxBlocks = 1024;              // pass 2 is one block of 1024 threads

// Pass 1, new in this version: 04 scanned every tile at once; here a block first only SUMS its segment.
// Segment b = tiles [b * tiles_per_block, (b+1) * tiles_per_block) of the input.
template <class T, bool kAligned>
__global__ void __launch_bounds__(kThreads)
    reduce_pass(const T* __restrict__ in, size_t n, size_t tiles_per_block, T* __restrict__ partial) {
    __shared__ T s_warp[kWarps];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const size_t first = size_t(blockIdx.x) * tiles_per_block;
    T sum = T(0);
    for (size_t t = first; t < first + tiles_per_block && t * kTile < n; ++t) {
        T x[kVecs][4];
        scan::tile::load<T, kVecs, kAligned>(in, n, t * kTile + size_t(warp) * scan::tile::warp_items<kVecs>(), x);
        sum = sum + scan::tile::thread_sum(x);
    }
    sum = scan::warp_reduce(sum);
    if (lane == 0) s_warp[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        T w = lane < kWarps ? s_warp[lane] : T(0);
        w = scan::warp_reduce(w);
        if (lane == 0) partial[blockIdx.x] = w;
    }
}

// Pass 2: 04's recursion on the tile sums, now one block, since there are at most 1024 partials.
// One block: partial[0, count) -> its exclusive scan, in place (count <= 1024).
template <class T> __global__ void __launch_bounds__(kMaxBlocks) scan_partials(T* partial, int count) {
    __shared__ T s_warp[kMaxBlocks / 32];
    const int i = threadIdx.x;
    T x = i < count ? partial[i] : T(0);
    T total;
    T excl = scan::block_exclusive_scan<kMaxBlocks>(x, T(0), total, s_warp);
    if (i < count) partial[i] = excl;
}

// Pass 3: 04's tile_scan + add_offsets in one kernel, the tile in registers (tile.cuh) instead of a
// shared-memory tree, carrying the running total from tile to tile of the segment.
template <class T, bool kAligned>
__global__ void __launch_bounds__(kThreads)
    scan_pass(const T* __restrict__ in, T* __restrict__ out, size_t n, size_t tiles_per_block,
              const T* __restrict__ partial, bool exclusive) {
    // Double-buffered by tile parity: tile t+1 writes the other buffer while slow warps may still
    // read tile t's; by tile t+2 every warp has passed tile t+1's first barrier, after its reads.
    __shared__ T s_warp[2][kWarps + 1];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const size_t first = size_t(blockIdx.x) * tiles_per_block;
    T carry = partial[blockIdx.x];   // the sum of every segment before ours
    int parity = 0;
    for (size_t t = first; t < first + tiles_per_block && t * kTile < n; ++t, parity ^= 1) {
        const size_t warp_base = t * kTile + size_t(warp) * scan::tile::warp_items<kVecs>();
        T x[kVecs][4];
        scan::tile::load<T, kVecs, kAligned>(in, n, warp_base, x);
        T vec_prefix[kVecs];
        const T warp_total = scan::tile::warp_scan(x, vec_prefix);
        T* s = s_warp[parity];
        if (lane == 0) s[warp] = warp_total;
        __syncthreads();
        if (warp == 0) {   // exclusive scan of the warp totals; s[kWarps] = the tile's total
            T w = lane < kWarps ? s[lane] : T(0);
            T w_incl = scan::warp_inclusive_scan(w);
            T below = __shfl_up_sync(scan::kFullMask, w_incl, 1);
            if (lane < kWarps) s[lane] = lane == 0 ? T(0) : below;
            if (lane == kWarps - 1) s[kWarps] = w_incl;
        }
        __syncthreads();
        scan::tile::store<T, kVecs, kAligned>(out, n, warp_base, x, vec_prefix, carry + s[warp], exclusive);
        carry = carry + s[kWarps];
    }
}

template <class T> void reduce_then_scan(const T* in, T* out, size_t n, scan::Kind kind) {
    if (n == 0) return;
    const size_t tiles = (n + kTile - 1) / kTile;
    // A few blocks per SM keep enough loads in flight; more would only add partials.
    const size_t target = std::min<size_t>(kMaxBlocks, size_t(course::device().sm_count) * 4);
    const size_t tiles_per_block = (tiles + target - 1) / target;
    const unsigned grid = unsigned((tiles + tiles_per_block - 1) / tiles_per_block);   // <= target
    T* partial = course::scratch_as<T>(0, grid);
    const bool excl = kind == scan::Kind::exclusive;
    if (scan::tile::aligned16(in, out)) {
        reduce_pass<T, true><<<grid, kThreads>>>(in, n, tiles_per_block, partial);
        CUDA_CHECK_LAST();
        scan_partials<T><<<1, kMaxBlocks>>>(partial, int(grid));
        CUDA_CHECK_LAST();
        scan_pass<T, true><<<grid, kThreads>>>(in, out, n, tiles_per_block, partial, excl);
        CUDA_CHECK_LAST();
    } else {
        reduce_pass<T, false><<<grid, kThreads>>>(in, n, tiles_per_block, partial);
        CUDA_CHECK_LAST();
        scan_partials<T><<<1, kMaxBlocks>>>(partial, int(grid));
        CUDA_CHECK_LAST();
        scan_pass<T, false><<<grid, kThreads>>>(in, out, n, tiles_per_block, partial, excl);
        CUDA_CHECK_LAST();
    }
}

// int32 runs as uint32: the same bits, with wrap-around defined.
void scan_int(const int32_t* in, int32_t* out, size_t n, scan::Kind kind) {
    reduce_then_scan(reinterpret_cast<const uint32_t*>(in), reinterpret_cast<uint32_t*>(out), n, kind);
}
void scan_float(const float* in, float* out, size_t n, scan::Kind kind) { reduce_then_scan(in, out, n, kind); }

int main(int argc, char** argv) {
    scan::Limits limits;
    limits.tile = kTile;   // the battery tests n = tile - 1, tile, tile + 1
    return scan::run_lesson(argc, argv, "05_reduce_then_scan", scan_int, scan_float, limits);
}
