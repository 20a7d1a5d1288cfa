// lesson01_topk/rows_plan.cuh — the launch plans of the row-wise paths, from the shape and the GPU
// (course::device(), or the COURSE_GPU_PROFILE it plays): which path takes a shape (W, B, M of
// rows_digit_select.cuh, or the sampled pass of rows_sampled_pass.cuh), B's candidates in shared memory,
// M's chunks, and the sampled pass's chunks, build and buffers. --plan prints them; rows_serving.cuh runs them.
// Entry points: rowwise::plan_rows (W/B/M), rowwise::block_candidates, rowwise::multi_plans,
// sampled::plan_sampled and sampled::takes (the sampled pass), with RowPlan and Plan.
#pragma once
#include "rows_sampled_pass.cuh"

namespace rowwise {

// ---- the launcher: pick W, B or M from the shape ----------------------------------------------------
enum class Path { warp, block, multi };

inline Path choose_path(size_t rows, size_t cols, size_t k) {
    if (cols <= size_t(kWarpCols)) return Path::warp;
    if (k > size_t(kBlockMaxK)) return Path::multi;   // B keeps its winners in shared memory
    // One block reads its row slowly (three passes, bound by instructions per key, not DRAM: ncu),
    // M's split of a row over many blocks at the whole GPU's rate after a fixed cost of launches.
    // Measured crossover (k = 50): B wins up to 65536 columns at any row count, and beyond that once
    // rows * 8192 >= cols (16 rows of 131072, 32 of 262144: the two tie there); see TUNING.md.
    if (cols <= 65536 || rows * 8192 >= cols) return Path::block;
    return Path::multi;
}

// The plan for one call, from the shape and the GPU (course::device()); --plan prints it and the
// launcher runs it. M cuts each row into chunks of at least 4096 keys, one wave of blocks in all (as
// many as the SMs hold: 2 an SM on an H100, 1 on a T4); 4 an SM (two waves) was slower (TUNING.md).
struct RowPlan {
    Path path;
    uint32_t cand = 0;    // B: candidates kept in dynamic shared memory
    size_t smem = 0;      // B: their bytes
    int per_lane = 8;     // W: keys per lane (1, 2, 4, 8)
    size_t chunks = 1;    // M: blocks per row
    uint32_t chunk = 0;   // M: keys per block, whole 16-byte vectors
    unsigned grid = 0;
};

// B's candidate buffer from the GPU's shared memory: two blocks an SM where the SM holds 2048
// threads (one where it holds fewer), 1 KB a block for the runtime, at most kCandMax, in steps of
// 1024 (H100 10240, A100 6144, RTX 4090 9216, T4 4096: --plan prints it). Fewer than 2048: refused.
inline void block_candidates(RowPlan& p) {
    const course::DeviceInfo& d = course::device();
    const int blocks = std::max(1, std::min(2, d.threads_per_sm / kBlock));
    const size_t per_block = std::min(d.max_smem_optin, d.smem_per_sm / blocks - 1024);
    const size_t fit = per_block > kBlockStaticSmem ? (per_block - kBlockStaticSmem) / sizeof(uint64_t) : 0;
    p.cand = uint32_t(std::min<size_t>(kCandMax, fit / 1024 * 1024));
    if (p.cand < 2048)
        throw course::UsageError("the block path B needs " + std::to_string(kBlockStaticSmem + 2048 * 8) +
                                 " bytes of shared memory a block; " + d.name + " allows " + std::to_string(per_block));
    p.smem = size_t(p.cand) * sizeof(uint64_t);
}

// M's plan: each row cut into chunks of at least 4096 keys, about 4 blocks an SM in all.
inline RowPlan plan_multi(size_t rows, size_t cols) {
    RowPlan p{Path::multi};
    const size_t want_blocks = size_t(course::blocks_that_fit(2, kBlock)) * course::device().sm_count;
    p.chunks = std::min((cols + 4095) / 4096, std::max<size_t>(1, (want_blocks + rows - 1) / rows));
    p.chunk = uint32_t(((cols + p.chunks - 1) / p.chunks + 7) / 8 * 8);   // whole 16-byte vectors of any type
    p.chunks = (cols + p.chunk - 1) / p.chunk;
    if (rows * p.chunks > 0x7FFFFFFFu) throw course::UsageError("more than 2^31 - 1 blocks (rows x chunks)");
    p.grid = unsigned(rows * p.chunks);
    return p;
}

inline RowPlan plan_rows(size_t rows, size_t cols, size_t k) {
    RowPlan p{choose_path(rows, cols, k)};
    switch (p.path) {
        case Path::warp:
            p.per_lane = cols <= 32 ? 1 : cols <= 64 ? 2 : cols <= 128 ? 4 : 8;
            p.grid = course::blocks_for(rows, kWarpBlock / 32);
            return p;
        case Path::block:
            if (rows > 0x7FFFFFFFu) throw course::UsageError("more than 2^31 - 1 rows: one block per row");
            p.grid = unsigned(rows);
            block_candidates(p);
            return p;
        case Path::multi: break;
    }
    return plan_multi(rows, cols);
}

// M's launches, as --plan prints them.
inline std::vector<course::KernelPlan> multi_plans(const RowPlan& p, size_t k, const std::string& dtype) {
    const std::string m = "M: " + std::to_string(p.chunks) + " blocks a row of " + std::to_string(p.chunk) + " keys";
    std::vector<course::KernelPlan> v;
    const int digits = dtype == "float16" || dtype == "bfloat16" ? 2 : 3;   // as the launcher: whole_key
    for (int d = 0; d < digits; ++d)
        v.push_back({"multi_digit_pass", kBlock, 0, 1, 1, m + ", digit " + std::to_string(d)});
    v.push_back({"multi_collect", kBlock, 0, 1, 1, m});
    if (k <= size_t(kBlockMaxK)) v.push_back({"sort_winners", kBlock, 0, 1, 1, "a block per row"});
    else v.push_back({"gather_sorted_rows", 256, 0, 0, 1, "after CUB's segmented sort of the winners"});
    return v;
}

}   // namespace rowwise

namespace sampled {

// ---- the sampled pass's plan ----------------------------------------------------------------------
// The candidate buffer is B's (rowwise::block_candidates: 10240 on an H100, 4096 on a T4). Rows up to
// kShortLen are cut into at most one block an SM in all (rows x chunks <= SMs), each chunk at least
// kMinChunk keys: 64 rows of 131072 on 132 SMs take 2 chunks of 65536 (1 for k <= 256); 128 or 256 rows take 1 (the
// block keeps its candidates in shared memory, no hand-in). The read needs no more: 32 blocks, one an
// SM, read a matrix as fast as 132 or 256 do, and every extra chunk adds a sample select, a hand-in and
// list entries. One block for every resident slot (2 an SM) was slower, and so were chunks rounded to
// nearest (8 rows in 17 chunks: 136 blocks on 132 SMs, a second wave; TUNING.md). Such a grid (at most one
// block an SM) runs the build with 4 vectors in flight a thread, bound to one block an SM (kAheadOneAnSm).
// Longer rows fill every slot of that build, one block an SM: 4 x 2^24 k 1024 in 33 chunks a row on an H100
// (66, two an SM with no loads ahead, was slower). Those cut in several chunks get a list
// of kListCap candidates each (lcap), and never more blocks than the slots (rounded down), since a missed
// row's blocks wait for each other (launch_together).
struct Plan {
    uint32_t cap = 0, lcap = 0;
    size_t smem = 0;
    uint32_t chunks = 1, chunk = 0;
    unsigned grid = 0;
    bool one_an_sm = false;   // grid <= SMs (always so for long rows): the kAheadOneAnSm build
    // The pass reads past L1 (load_once, the kStream builds): two-an-SM grids whose rows hold kStreamKeys keys a wanted
    // candidate, and every 16-bit long row (faster there; a ragged batch with such rows lost a little). float32 long
    // rows lost and keep the plain load (TUNING.md).
    bool stream = false;
    int per_sm = 1;   // blocks of the build an SM holds, that the chunks of long rows fill
};

// The sampled kernel's static shared memory (RowSmem and its few flags), rounded up: ptxas gives each build
// at most this (tests/test_plans.py checks it against ptxas's report).
constexpr size_t kSampledStaticSmem = 26 * 1024;

// Blocks of a long-row build (bound to one block an SM: kAheadOneAnSm) that an SM holds: the runtime's
// answer on a GPU. Without one (--plan under COURSE_GPU_PROFILE) the runtime cannot be asked, so the plan
// weighs what it would: the build's static shared memory beside the dynamic, and its registers, which the
// launch bound lets ptxas grow to a whole SM's for one block (it does: 64 a thread on sm_90; test_plans.py
// compares the plan with ptxas's report for every profile).
template <class Kernel> int long_row_blocks(Kernel* kernel, size_t smem) {
    if (!course::planning_without_gpu()) return course::resident_blocks(kernel, kBlock, smem);
    return std::min(course::resident_blocks(kernel, kBlock, smem + kSampledStaticSmem), 1);
}

template <class T> Plan plan_sampled(size_t rows, size_t len, size_t k) {
    rowwise::RowPlan b{rowwise::Path::block};
    rowwise::block_candidates(b);
    Plan p;
    p.cap = b.cand;
    p.smem = b.smem;
    const auto small_k = sampled_rows<rowwise::AlignedRows, T, true, kSmallK, kAheadOneAnSm, sizeof(T) == 2>;
    const auto large_k =
        sampled_rows<rowwise::AlignedRows, T, true, rowwise::kBlockMaxK, kAheadOneAnSm, sizeof(T) == 2>;
    const size_t per_sm =
        len > kShortLen ? size_t(std::min(long_row_blocks(small_k, p.smem), long_row_blocks(large_k, p.smem))) : 1;
    p.per_sm = int(per_sm);
    const size_t slots = size_t(course::device().sm_count) * per_sm;
    size_t chunks = std::max<size_t>(1, slots / rows);
    // A row cut in two pays a hand-in to halve a pass that a block reads about as fast alone. For k <= kSmallK
    // (1280 candidates a row on an H100) one block a row is faster; for k 2048 (8192 candidates, a shared atomic
    // each, in one block) two are (TUNING.md).
    if (len <= kShortLen && k <= kSmallK && chunks == 2) chunks = 1;
    chunks = std::min(chunks, std::max<size_t>(1, len / kMinChunk));
    p.chunk = uint32_t(((std::max<size_t>(len, 1) + chunks - 1) / chunks + 7) / 8 * 8);   // whole 16-byte vectors
    p.chunks = uint32_t((std::max<size_t>(len, 1) + p.chunk - 1) / p.chunk);
    if (rows * p.chunks > 0x7FFFFFFFu) throw course::UsageError("more than 2^31 - 1 blocks (rows x chunks)");
    p.grid = unsigned(rows * p.chunks);
    p.lcap = len > kShortLen && p.chunks > 1 ? kListCap : p.cap;
    p.one_an_sm = p.grid <= unsigned(course::device().sm_count);
    p.stream = p.lcap > p.cap ? sizeof(T) == 2
                              : !p.one_an_sm && len / kStreamKeys >= wanted(uint32_t(std::min(k, len)), p.cap, false);
    return p;
}

// Which rows the sampled pass takes: longer than the warp path W's, k <= 2048, and at most kShortLen long,
// or at most kMaxLen when few enough rows give each several blocks (else rowwise::plan_rows).
// Its plan for them goes to *plan (planned once a call).
template <class T> bool takes(size_t rows, size_t cols, size_t k, Plan* plan = nullptr) {
    if (cols <= size_t(rowwise::kWarpCols) || k > size_t(rowwise::kBlockMaxK) || cols > kMaxLen) return false;
    const Plan p = plan_sampled<T>(rows, cols, k);
    if (cols > kShortLen && p.chunks <= 1) return false;
    if (plan) *plan = p;
    return true;
}

}   // namespace sampled
