// lesson03_compact_spmv/expand_path.cuh — the merge path of allocate/expand, as the versions
// share it: how to search and walk the path (expand_02's kernels, the exercise and the host tests
// use these; host and device), and the passes before the expand kernel that expand_03 and
// expand_04 share (one offset per 32 items, each block's starting point on the path).
// The kernels that walk the path are in expand_02_merge_path.cu, expand_03_group_offsets.cu and
// expand_04_head_scatter.cu.
#pragma once
#include <cstdint>

#include "../common/harness.cuh"
#include "../lesson02_scan/scan.cuh"

namespace expand {

// ---- the merge path (expand_02; the wrong/ twin and the exercise reuse it) ----------------------
//
// Merge two sorted lists: A = the output positions 0, 1, ..., total-1 (implicit) and B = the end
// of each item's run, B[i] = off[i] + counts[i] (= off[i+1]; total for the last item). Walking the
// merged order, an output a is taken before item end B[b] when a < B[b]: it then belongs to item b.
// An item end is taken otherwise (item b is finished, move to b + 1). The merged list has
// n + total entries; cutting it into equal pieces gives every block the same work whatever the
// counts look like (zeros cost one step each, a huge item is spread over many blocks).
//
// kTieToOutput = false is the right rule (B[b] <= a: the item is done). true is the pitfall in
// wrong/expand_merge_path_ties.cu: output a == B[b] is wrongly handed to item b.
// expand_02's block: 256 threads x 16 merge steps (expand_03 uses the same shape).
constexpr int kMpThreads = 256;
constexpr int kMpItems = 16;                     // merge steps per thread
constexpr int kMpTile = kMpThreads * kMpItems;   // merge steps per block

template <bool kTieToOutput> __host__ __device__ inline bool output_first(uint64_t a, uint32_t b_end) {
    return kTieToOutput ? a <= b_end : a < b_end;
}

// The item ends, as the partition sees them (global memory) and as a block sees them (shared).
struct GlobalEnds {
    const uint32_t* off;   // exclusive offsets
    size_t n, total;
    __host__ __device__ uint32_t operator()(uint64_t i) const { return i + 1 < n ? off[i + 1] : uint32_t(total); }
};
struct LocalEnds {
    const uint32_t* ends;   // ends[b] = end of item b0 + b
    __host__ __device__ uint32_t operator()(uint64_t b) const { return ends[b]; }
};

// Merge-path search on diagonal d of the merge of outputs a_base, a_base + 1, ... (na of them)
// and item ends ends(0 .. nb-1): returns how many outputs are among the first d merged entries.
// Binary search on a in [max(0, d - nb), min(d, na)]: output `mid` comes before item end
// d - 1 - mid exactly when at least mid + 1 outputs are in the first d entries.
template <bool kTieToOutput, class Ends>
__host__ __device__ inline uint64_t merge_path_search(uint64_t a_base, Ends ends, uint64_t na, uint64_t nb,
                                                      uint64_t d) {
    uint64_t lo = d > nb ? d - nb : 0, hi = d < na ? d : na;
    while (lo < hi) {
        uint64_t mid = (lo + hi) / 2;
        if (output_first<kTieToOutput>(a_base + mid, ends(d - 1 - mid))) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// The search as a functor, so the kernels can be given another one (exercises/expand_merge_path_search.cu).
template <bool kTieToOutput> struct MergePathSearch {
    template <class Ends>
    __host__ __device__ uint64_t operator()(uint64_t a_base, Ends ends, uint64_t na, uint64_t nb, uint64_t d) const {
        return merge_path_search<kTieToOutput>(a_base, ends, na, nb, d);
    }
};

// `steps` steps along the path from (a, b): an output taken while at item b belongs to item b
// (stage[a] = item_base + b); an item end taken moves on to the next item. The caller guarantees
// a + b + steps <= na + nb, so exactly one of the two is always available.
template <bool kTieToOutput, class Ends>
__host__ __device__ inline void merge_path_walk(uint64_t a_base, Ends ends, int na, int nb, int a, int b, int steps,
                                                int32_t* stage, uint64_t item_base) {
    for (int s = 0; s < steps; ++s) {
        // Take the output when one is left and (no item end is left, or it comes first).
        bool take_output = a < na && (b >= nb || output_first<kTieToOutput>(a_base + a, ends(b)));
        if (take_output) {
            stage[a] = int32_t(item_base + b);
            ++a;
        } else ++b;
    }
}

// ---- expand_03: the same path from per-group offsets --------------------------------------------
// Where the path crosses item boundaries: right after item b-1's end is taken, exactly off[b]
// outputs are taken (every output below off[b] comes before that end), so the path passes through
// P_b = (off[b], b), on diagonal off[b] + b; from there it takes counts[b] outputs, then item b's
// end. So the point on diagonal d is (d - b, b) for the largest b with off[b] + b <= d. To find b
// it is enough to know off[] at every 32nd item (group_off[g] = off[32 g]): a binary search over
// the groups, then at most 32 counts added one by one. That is what lets expand_03 keep only
// n / 32 offsets instead of n.
constexpr int kGroup = 32;

struct PathPoint {
    uint64_t a, b, off_b;
};   // outputs taken, items taken, off[b]

__host__ __device__ inline PathPoint group_partition(const uint32_t* group_off, const int32_t* counts, size_t n,
                                                     size_t total, uint64_t d) {
    size_t groups = (n + kGroup - 1) / kGroup;
    size_t lo = 0, hi = groups;   // largest g in [0, groups) with group_off[g] + 32 g <= d (g = 0 always is)
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (uint64_t(group_off[mid]) + uint64_t(mid) * kGroup <= d) lo = mid;
        else hi = mid;
    }
    uint64_t b = uint64_t(lo) * kGroup, o = groups ? group_off[lo] : 0;
    while (b < n && o + uint64_t(counts[b]) + b + 1 <= d) {
        o += uint64_t(counts[b]);
        ++b;
    }
    (void)total;
    return {d - b, b, o};
}

// Passes 1-3 of expand_03 and expand_04 (before their expand kernels): one offset per 32 items,
// then each block's starting point on the path.
constexpr int kSumThreads = 256;

// Thread t adds counts 4t .. 4t+3; 8 neighbouring lanes make one group of 32. (A template, like the
// partition kernel below, so that only the programs that launch them compile them.)
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    group_sums(const int32_t* __restrict__ counts, size_t n, uint32_t* __restrict__ sums, bool aligned) {
    size_t t = size_t(blockIdx.x) * BLOCK + threadIdx.x;
    size_t e = 4 * t;
    uint32_t s = 0;
    if (aligned && e + 4 <= n) {
        int4 v = reinterpret_cast<const int4*>(counts)[t];
        s = uint32_t(v.x) + uint32_t(v.y) + uint32_t(v.z) + uint32_t(v.w);
    } else {
        for (int k = 0; k < 4; ++k)
            if (e + k < n) s += uint32_t(counts[e + k]);
    }
    s += __shfl_xor_sync(scan::kFullMask, s, 1);   // every lane of the warp takes part
    s += __shfl_xor_sync(scan::kFullMask, s, 2);
    s += __shfl_xor_sync(scan::kFullMask, s, 4);
    size_t g = e / kGroup;
    if ((threadIdx.x & 7) == 0 && e < n) sums[g] = s;
}

// One thread per block boundary: (outputs taken, items taken, the offset of that item), for blocks
// of TILE path steps.
template <int TILE>
__global__ void group_partition_kernel(const uint32_t* __restrict__ group_off, const int32_t* __restrict__ counts,
                                       size_t n, size_t total, size_t parts, uint4* __restrict__ starts) {
    size_t p = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (p > parts) return;
    uint64_t end = uint64_t(n) + total, d = uint64_t(p) * TILE;
    if (d > end) d = end;
    PathPoint q = group_partition(group_off, counts, n, total, d);
    starts[p] = make_uint4(uint32_t(q.a), uint32_t(q.b), uint32_t(q.off_b), 0);
}

// Group sums, their exclusive scan, the partition: three launches. Returns the starts of `blocks`
// blocks of TILE path steps (blocks + 1 entries). Scratch slots 0-2; the scan uses slot 7.
template <int TILE = kMpTile> uint4* group_starts(const int32_t* d_counts, size_t n, size_t total, unsigned& blocks) {
    size_t groups = (n + kGroup - 1) / kGroup;
    uint32_t* sums = course::scratch_as<uint32_t>(0, groups);
    uint32_t* group_off = course::scratch_as<uint32_t>(1, groups);
    bool aligned = reinterpret_cast<uintptr_t>(d_counts) % 16 == 0;
    group_sums<kSumThreads><<<course::blocks_for((n + 3) / 4, kSumThreads), kSumThreads>>>(d_counts, n, sums, aligned);
    CUDA_CHECK_LAST();
    scan::device_scan(sums, group_off, groups, scan::Kind::exclusive);
    blocks = course::blocks_for(n + total, TILE);
    uint4* starts = course::scratch_as<uint4>(2, size_t(blocks) + 1);
    group_partition_kernel<TILE>
        <<<course::blocks_for(size_t(blocks) + 1, 256), 256>>>(group_off, d_counts, n, total, blocks, starts);
    CUDA_CHECK_LAST();
    return starts;
}

// Shared-memory index with one padding word after every 32: a thread that works on 16 consecutive
// entries (16t .. 16t + 15) would otherwise share 2 banks with its whole warp (a 16-way conflict).
__host__ __device__ inline int padded(int b) { return b + b / 32; }

}   // namespace expand
