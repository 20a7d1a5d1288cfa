// lesson01_topk/rows_steps.cuh — the `main` of the row-wise teaching steps (rows_01 .. rows_04): the
// rows lesson's command line, battery and checker (rows.cuh: rows_lesson, RowsTrial), float32 only,
// and the step's stated limit. A case beyond the limit is refused the harness's way: a single run
// says why in one line and exits 2 before the GPU is touched; --test and --sweep leave such cases
// out and say how many.
#pragma once
#include <string>

#include "rows.cuh"

namespace rows_steps {

// A step handles rows of at most max_cols columns and k <= max_k; `why` names what sets the limit.
struct Limit {
    uint64_t max_cols = ~uint64_t(0);
    uint64_t max_k = ~uint64_t(0);
    const char* why = "";
};

// The row length of a case: "shape:ROWSxCOLS" in the battery, the sweep and a file's label; else --n.
inline uint64_t cols_of(const course::Case& c) {
    const size_t x = c.dist.rfind('x'), colon = c.dist.find(':');
    uint64_t cols = c.n;
    if (colon != std::string::npos && x != std::string::npos && x > colon)
        course::parse_count(c.dist.substr(x + 1), cols);
    return cols;
}

inline int run_step(int argc, char** argv, const char* version, topk::rows::Launcher<float> fn, Limit lim = {}) {
    course::LessonDef def = topk::rows::rows_lesson(version, false, false);
    if (def.cli.n_default > lim.max_cols) def.cli.n_default = lim.max_cols;   // the default run is one it takes
    def.beyond_limit = [lim](const course::Case& c) -> std::string {
        const uint64_t cols = cols_of(c);
        if (cols > lim.max_cols)
            return "cols=" + std::to_string(cols) + " is beyond this step's limit of " + std::to_string(lim.max_cols) +
                   " (" + lim.why + ")";
        if (c.param > lim.max_k)
            return "k=" + std::to_string(c.param) + " is beyond this step's limit of " + std::to_string(lim.max_k) +
                   " (" + lim.why + ")";
        return "";
    };
    def.make_trial = [fn](const course::Options& o, const course::Case& c) -> std::unique_ptr<course::Trial> {
        return std::make_unique<topk::rows::RowsTrial<float>>(o, c, fn);
    };
    return course::drive(argc, argv, def);
}

}   // namespace rows_steps
