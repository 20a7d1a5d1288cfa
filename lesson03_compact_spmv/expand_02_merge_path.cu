// expand_02_merge_path — load-balanced expansion: every block gets the same number of merge steps.
//
// What changed since expand_01_thread_per_item: work is split by OUTPUT, not by item. Merging the
// output positions 0..total-1 with the item ends off[i] + counts[i] walks every output once and
// every item once (n + total steps); cutting that path into equal pieces of 4096 steps gives each
// block the same work whatever the counts (a zero costs one step, a count of 2^30 is spread over
// 2^18 blocks). A small partition kernel binary-searches each block's start on its diagonal
// (Merrill & Garland's merge path); a block loads its item ends into shared memory, each thread
// searches and walks its own 16 steps there, and the outputs are staged so they go out coalesced.
// Cost model: the scan reads counts and writes offsets (8n), the partition ~log2(n) words a block,
// the expand reads the offsets again (4n) and writes the outputs: 12n + 4 total bytes against the
// problem's 4n + 4 total (uniform 0..8: at best 20/28 of a copy's speed). What it reaches is well under that bound
// (the README table).
// What limits it next: the offsets' extra 8n bytes; expand_03 keeps one offset per 32 items.
// Limits: n <= 2^31 - 1, total <= 2^32 - 1 (32-bit offsets, the lesson02 scan).
//
// Build alone:  nvcc -O3 -arch=native -o expand02 expand_02_merge_path.cu
// Run:          ./expand02 --n 2^24 --dist powerlaw        ./expand02 --test
#include "compact.cuh"
#include "expand_path.cuh"
#include "../lesson02_scan/scan.cuh"

namespace expand {

// Pass 1 (new in this version): one thread per block boundary finds where the block's piece of the
// path starts; in its own kernel, so the ~log2(n) dependent loads of all the searches overlap.
template <bool kTieToOutput, class Search>
__global__ void merge_path_partition(const uint32_t* off, size_t n, size_t total, size_t parts, uint2* starts) {
    size_t p = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (p > parts) return;
    uint64_t end = uint64_t(n) + total, d = uint64_t(p) * kMpTile;
    if (d > end) d = end;
    uint64_t a = Search{}(0, GlobalEnds{off, n, total}, total, n, d);
    starts[p] = make_uint2(uint32_t(a), uint32_t(d - a));
}

// Pass 2: expand_01's kernel gave each item one thread; here block p walks its piece
// [starts[p], starts[p+1]) of the path. Its item ends go to shared memory (at most kMpTile of them),
// each thread finds its own start by a merge-path search there, walks kMpItems steps writing item
// numbers into a shared staging buffer, and the block then writes the staged outputs in order:
// consecutive threads, consecutive addresses.
template <bool kTieToOutput, class Search>
__global__ void __launch_bounds__(kMpThreads)
    merge_path_expand(const uint32_t* __restrict__ off, size_t n, size_t total, const uint2* __restrict__ starts,
                      int32_t* __restrict__ out) {
    __shared__ uint32_t s_end[kMpTile];   // item ends B[b0 .. b1)
    __shared__ int32_t s_out[kMpTile];    // outputs a0 .. a1 - 1 (item numbers)
    const uint2 s0 = starts[blockIdx.x], s1 = starts[blockIdx.x + 1];
    const uint64_t a0 = s0.x, b0 = s0.y;
    const int na = int(uint64_t(s1.x) - a0), nb = int(uint64_t(s1.y) - b0);   // na + nb <= kMpTile
    const GlobalEnds global{off, n, total};
    for (int k = threadIdx.x; k < nb; k += kMpThreads) s_end[k] = global(b0 + k);
    __syncthreads();

    // This thread's piece: diagonals [dt, dt + steps) of the block's piece.
    const int len = na + nb;
    const int dt = min(int(threadIdx.x) * kMpItems, len);
    const int steps = min(kMpItems, len - dt);
    const LocalEnds local{s_end};
    int a = int(Search{}(a0, local, uint64_t(na), uint64_t(nb), uint64_t(dt)));
    merge_path_walk<kTieToOutput>(a0, local, na, nb, a, dt - a, steps, s_out, b0);
    __syncthreads();
    for (int k = threadIdx.x; k < na; k += kMpThreads) out[a0 + k] = s_out[k];
}

// Exclusive scan of the counts (lesson02's single-pass scan), partition, expand: three launches.
// Scratch: slot 0 the offsets (4n bytes), slot 1 the block starts; the scan uses its own slot 7.
template <bool kTieToOutput, class Search = MergePathSearch<kTieToOutput>>
void launch_merge_path(const int32_t* d_counts, size_t n, int32_t* d_out, size_t total) {
    if (n == 0 || total == 0) return;
    uint32_t* off = course::scratch_as<uint32_t>(0, n);
    scan::device_scan(reinterpret_cast<const uint32_t*>(d_counts), off, n, scan::Kind::exclusive);
    size_t steps = n + total;
    unsigned blocks = course::blocks_for(steps, kMpTile);
    uint2* starts = course::scratch_as<uint2>(1, size_t(blocks) + 1);
    merge_path_partition<kTieToOutput, Search>
        <<<course::blocks_for(size_t(blocks) + 1, 256), 256>>>(off, n, total, blocks, starts);
    CUDA_CHECK_LAST();
    merge_path_expand<kTieToOutput, Search><<<blocks, kMpThreads>>>(off, n, total, starts, d_out);
    CUDA_CHECK_LAST();
}

}   // namespace expand

#ifndef COURSE_NO_MAIN   // wrong/expand_merge_path_ties.cu and exercises/expand_merge_path_search.cu include this file
void expand_merge_path(const int32_t* d_counts, size_t n, int32_t* d_out, size_t total) {
    expand::launch_merge_path<false>(d_counts, n, d_out, total);
}

int main(int argc, char** argv) {
    expand::Limits lim;
    lim.huge_test = true;
    return expand::run_lesson(argc, argv, "expand_02_merge_path", expand_merge_path, lim);
}
#endif
