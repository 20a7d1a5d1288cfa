// rows_05_serving — the serving build: composes a warp, a block or many blocks per row and the sampled
// threshold, for 16-bit logits, ragged batches and rows past 2^20.
//
// What changed since rows_04 (the sampled threshold, float32): every shape a server meets gets a path.
//   sampled pass (rows_sampled_pass.cuh): k <= 2048 and rows of 257 to 2^20 keys (to 2^25 where few rows
//     give each several blocks: rows_long_rows.cuh); each row read once, a build per grid and k range.
//   W / B / M (rows_digit_select.cuh): rows of at most 256 (a warp a row); k > 2048, rows past 2^25, or
//     long rows too many to get several blocks each (a block or many blocks a row, digit passes); and the
//     row the sample missed (its block's digit passes; a long row: M's steps by all its blocks).
//   float16/bfloat16: 16-byte loads of 8 values, 16-bit keys whole after two digits, counted by whole
//     key where that saves a step. Ragged batches (--lengths, --dist ragged|serving): the sampled pass,
//     chunks cut from the longest row.
// Cost model: a row's bytes read once from DRAM plus the sample (from L2) and a select over about 4k
// candidates in shared memory; the grid at most one block an SM for short rows (every chunk adds a
// sample select, a hand-in and list entries), every slot for long rows.
// Limit: k <= 2048 for ragged batches; cols < 2^32. The plan of a shape, no GPU needed:
//   COURSE_GPU_PROFILE=h100 build/lesson01_topk/rows_05_serving --plan --rows 4 --n 2^24 --k 1024
// Build: make build/lesson01_topk/rows_05_serving (alone: nvcc -O3 -arch=native -std=c++17 rows_05_serving.cu)
// Run:   build/lesson01_topk/rows_05_serving --rows 64 --n 131072 --k 256 [--type bfloat16]   --test   --sweep
#include "rows_serving.cuh"

namespace rowwise {

// W, B or M's launches, as --plan prints them.
inline std::vector<course::KernelPlan> kernel_plans(const course::Options& o, const course::Case& c) {
    const topk::rows::Shape s = topk::rows::plan_shape(o, c);
    const size_t k = c.param, rows = s.rows, cols = s.cols;
    const RowPlan p = plan_rows(rows, cols, k);   // (a ragged batch always takes the sampled pass)
    switch (p.path) {
        case Path::warp:
            return {{"warp_rows", kWarpBlock, 0, 0, 1,
                     "W: a warp per row, " + std::to_string(p.per_lane) + " keys a lane, " + std::to_string(p.grid) +
                         " blocks"}};
        case Path::block:
            return {{"block_rows", kBlock, p.smem, 1, 1,
                     "B: a block per row, " + std::to_string(p.grid) + " blocks, " + std::to_string(p.cand) +
                         " candidates in shared memory"}};
        case Path::multi: break;
    }
    return multi_plans(p, k, c.dtype);
}

}   // namespace rowwise

namespace sampled {

// The sampled pass's one launch where it takes the shape (rows_plan.cuh: takes), else W, B or M's.
inline std::vector<course::KernelPlan> kernel_plans(const course::Options& o, const course::Case& c) {
    const topk::rows::Shape s = topk::rows::plan_shape(o, c);
    const bool ragged = topk::rows::is_ragged(c.dist) || o.has("lengths");
    Plan p;   // the case's type's plan (16-bit long rows read past L1)
    auto plan_as = [&](auto t) {
        using T = decltype(t);
        if (ragged) p = plan_sampled<T>(s.rows, s.cols, c.param);
        return ragged || takes<T>(s.rows, s.cols, c.param, &p);
    };
    if (!(c.dtype == "float32" ? plan_as(float{}) : plan_as(__half{}))) return rowwise::kernel_plans(o, c);
    // A long row's build: the blocks an SM that its chunks count on (the list builds, kList = true).
    const bool list = p.lcap > p.cap;
    std::vector<course::KernelPlan> v{
        {list ? "sampled_rows<*, true, *" : "sampled_rows", kBlock, p.smem, list ? p.per_sm : 1, 1,
         std::to_string(p.chunks) + (p.chunks == 1 ? " block a row of " : " blocks a row of ") +
             std::to_string(p.chunk) + " keys, " + std::to_string(p.grid) + " blocks, " +
             std::to_string(p.lcap > p.cap ? p.lcap : p.cap) +
             (p.lcap > p.cap ? " candidates a row (a list in global memory)" : " candidates a row") +
             (!ragged && p.lcap > p.cap ? ", all resident (a missed row: M by its blocks)" : "") +
             (p.one_an_sm ? ", 4 vectors in flight a thread" : "") + (p.stream ? ", read past L1" : "")}};
    return v;
}

}   // namespace sampled

// --plan: the plan of the case's shape and type (W, B, M, or the sampled pass's build and chunks).
static course::PlanHook plan_hook(sampled::kernel_plans);

int main(int argc, char** argv) {
    using sampled::serving_topk;
    using sampled::serving_ragged;
    return topk::rows::run_rows(
        argc, argv, "rows_05_serving", serving_topk<float>, serving_topk<__half>, serving_topk<__nv_bfloat16>, {},
        {serving_ragged<float>, serving_ragged<__half>, serving_ragged<__nv_bfloat16>, uint64_t(rowwise::kBlockMaxK)});
}
