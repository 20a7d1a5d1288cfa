// lesson01_topk/rows.cuh — row-wise (batched) top-k in one place: the k largest of EVERY row of a
// row-major rows x cols float32 matrix. The shape top-k has in practice: sampling from a language
// model's logits (a few rows of 32k-256k), mixture-of-experts routing (many short rows, k = 1..8),
// nearest-neighbour search (a few rows of millions, k = 100..1024).
// Used by 00_cub_segmented_rows.cu (the library bar), 06_rowwise.cu, wrong/row_float4.cu and
// exercises/row_argmax.cu.
//
// Semantics: lesson.cuh's card, per row. out_vals and out_idx are rows x k, row-major; row r holds
// the k largest values of row r in descending order and their COLUMN indices (0 <= idx < cols).
// Duplicates count, ties at the k-th value may be any of the tied columns, NaN is largest, -0.0
// equals +0.0, --smallest gives the k smallest ascending. 1 <= k <= cols; cols < 2^32.
//
// Command line: --rows R and --n C (the length of each row), or --input logits.npy with shape
// (rows, cols) (a 1-D file is one row); --output v.npy writes values (rows, k) and v_idx.npy.
// In the battery and the CSV a case's input is named "shape:ROWSxCOLS", e.g. "uniform:64x128256".
#pragma once
#include <algorithm>
#include <atomic>
#include <string>
#include <vector>

#include "lesson.cuh"

namespace topk {
namespace rows {

// Every row-wise version provides a launcher of this shape (device pointers; scratch from
// course::scratch, so the timed runs never allocate).
using Launcher = void (*)(const float* d_in, size_t rows, size_t cols, size_t k, bool smallest,
                          float* d_vals, uint32_t* d_idx);

// ---- inputs ---------------------------------------------------------------------------------------
// Each shape is defined per row, so that a row never depends on its neighbours; "mixed" gives row r
// the shape r mod 8 (all of them in one matrix: rows must not leak into each other).
inline std::vector<std::string> shapes() {
    return {"uniform", "equal", "nan", "sorted", "reversed", "ties", "specials", "negatives", "mixed"};
}

inline float row_value(int shape, uint64_t seed, uint64_t r, uint64_t c, uint64_t cols) {
    uint64_t h = course::hash64(seed, r * cols + c);
    double u = course::unit_double(h);
    switch (shape) {
        case 0: return float(u * 2.0 - 1.0);                                    // uniform [-1, 1)
        case 1: return float(int(r % 7) - 3) * 0.5f;                            // equal: one value per row
        case 2: {                                                               // nan: three NaN patterns
            uint32_t b = (h & 1) ? 0x7FC00000u : (h & 2) ? 0xFFC00000u : 0x7F800001u;
            float f;
            std::memcpy(&f, &b, 4);
            return f;
        }
        case 3: return float(-1.0 + 2.0 * double(c) / double(cols));             // sorted (ascending)
        case 4: return float(1.0 - 2.0 * double(c) / double(cols));              // reversed
        case 5: return float(0.25 * double(h >> 58) - 8.0);                     // ties: 64 levels
        case 6: {                                                               // specials
            uint32_t b;
            switch (h & 15) {
                case 0: b = 0x7F800000u; break;                                 // +inf
                case 1: b = 0xFF800000u; break;                                 // -inf
                case 2: b = 0x7FC00000u; break;                                 // NaN
                case 3: b = 0x80000000u; break;                                 // -0.0
                case 4: b = 0x00000000u; break;                                 // +0.0
                default: { float f = float(u * 2.0 - 1.0); std::memcpy(&b, &f, 4); }
            }
            float f;
            std::memcpy(&f, &b, 4);
            return f;
        }
        default: return float(-1e-3 - 1000.0 * u);                              // negatives
    }
}

inline std::vector<float> make_matrix(uint64_t rows, uint64_t cols, const std::string& shape, uint64_t seed) {
    auto list = shapes();
    int id = int(std::find(list.begin(), list.end(), shape) - list.begin());
    if (id >= int(list.size())) throw course::UsageError("unknown input '" + shape + "'");
    std::vector<float> m(rows * cols);
    float* p = m.data();
    course::parallel_for(rows * cols, [&](size_t i) {
        uint64_t r = i / cols, c = i % cols;
        int s = id == 8 ? int(r % 8) : id;
        p[i] = row_value(s, seed, r, c, cols);
    });
    return m;
}

// ---- the CPU reference and the checker ------------------------------------------------------------
// Per row: the k-th largest key and how many keys lie above it (lesson.cuh's Reference), found by
// std::nth_element; rows in parallel. The checker is lesson.cuh's check_topk, row by row.
inline std::vector<Reference> reference(const std::vector<uint32_t>& keys, uint64_t rows, uint64_t cols, uint64_t k) {
    std::vector<Reference> ref(rows);
    course::parallel_chunks(rows, [&](size_t b, size_t e, unsigned) {
        std::vector<uint32_t> row;
        for (size_t r = b; r < e; ++r) {
            const uint32_t* kr = keys.data() + r * cols;
            row.assign(kr, kr + cols);
            std::nth_element(row.begin(), row.begin() + (k - 1), row.end(), std::greater<uint32_t>());
            ref[r].kth = row[k - 1];
            size_t g = 0;
            for (size_t c = 0; c < cols; ++c) g += kr[c] > ref[r].kth;
            ref[r].greater = g;
        }
    }, std::max<size_t>(1, (size_t(1) << 16) / cols));
    return ref;
}

inline course::CheckResult check_rows(const std::vector<float>& in, const std::vector<uint32_t>& keys,
                                      const std::vector<Reference>& ref, uint64_t rows, uint64_t cols,
                                      uint64_t k, bool smallest, const float* vals, const uint32_t* idx) {
    std::atomic<uint64_t> first_bad{rows};
    std::vector<course::CheckResult> res(course::cpu_threads());
    course::parallel_chunks(rows, [&](size_t b, size_t e, unsigned t) {
        for (size_t r = b; r < e && r < first_bad.load(); ++r) {
            course::CheckResult c = check_topk(in.data() + r * cols, keys.data() + r * cols, cols, ref[r], k,
                                               smallest, vals + r * k, idx + r * k);
            if (!c.ok) {
                uint64_t cur = first_bad.load();
                while (r < cur && !first_bad.compare_exchange_weak(cur, r)) {}
                res[t] = course::CheckResult::fail("row " + std::to_string(r) + ": " + c.message);
                break;
            }
        }
    }, std::max<size_t>(1, (size_t(1) << 16) / cols));
    if (first_bad.load() == rows) return course::CheckResult::pass();
    for (auto& c : res)   // the message of the first bad row
        if (!c.ok && c.message.rfind("row " + std::to_string(first_bad.load()) + ":", 0) == 0) return c;
    for (auto& c : res) if (!c.ok) return c;
    return course::CheckResult::fail("a row failed");
}

// ---- one case --------------------------------------------------------------------------------------
// A case's input name is "shape[/smallest]:ROWSxCOLS"; from the command line it is just the shape.
struct Shape { std::string input; uint64_t rows = 0, cols = 0; bool smallest = false; };

inline Shape parse_case(const course::Options& o, const course::Case& c) {
    Shape s;
    s.input = c.dist;
    size_t colon = s.input.find(':');
    if (colon != std::string::npos) {
        std::string dims = s.input.substr(colon + 1);
        s.input.resize(colon);
        size_t x = dims.find('x');
        if (x == std::string::npos || !course::parse_count(dims.substr(0, x), s.rows) ||
            !course::parse_count(dims.substr(x + 1), s.cols))
            throw course::UsageError("bad case shape '" + dims + "'");
    } else {
        s.cols = c.n;
        if (!course::parse_count(o.get("rows", "64"), s.rows))
            throw course::UsageError("--rows '" + o.get("rows") + "' is not a count");
    }
    s.smallest = split_smallest(s.input) || o.has("smallest");
    return s;
}

inline std::string name_of(const std::string& input, bool smallest, uint64_t rows, uint64_t cols) {
    return input + (smallest ? "/smallest" : "") + ":" + std::to_string(rows) + "x" + std::to_string(cols);
}

class RowsTrial : public course::Trial {
public:
    RowsTrial(const course::Options& o, const course::Case& c, Launcher fn) : fn_(fn), k_(c.param) {
        Shape s = parse_case(o, c);
        smallest_ = s.smallest;
        if (!o.input.empty()) {
            input_ = load_matrix(o.input, rows_, cols_);
            s.input = "file";
        } else {
            rows_ = s.rows;
            cols_ = s.cols;
            if (rows_ == 0 || cols_ == 0) throw course::UsageError("the matrix needs at least one row and one column");
            course::require_host_memory(14.0 * rows_ * cols_);
            input_ = make_matrix(rows_, cols_, s.input, o.seed);
        }
        if (rows_ == 0 || cols_ == 0)
            throw course::UsageError("the matrix is " + std::to_string(rows_) + " x " + std::to_string(cols_) +
                                     ": it needs at least one row and one column");
        if (k_ < 1 || k_ > cols_)
            throw course::UsageError("--k " + std::to_string(k_) + " must be between 1 and cols=" + std::to_string(cols_));
        if (cols_ >= (uint64_t(1) << 32)) throw course::UsageError("cols must be < 2^32 (uint32 column indices)");
        n = rows_ * cols_;
        label = name_of(s.input, smallest_, rows_, cols_);
        bytes = 4.0 * n + 8.0 * rows_ * k_;       // read the matrix once, write rows x k values and indices
        // input, outputs, and the widest scratch (the segmented-sort bar: 16 bytes per element)
        course::require_device_memory(4.0 * n + 8.0 * rows_ * k_ + 16.0 * n + 64.0 * rows_);
        d_in_ = course::DeviceArray<float>(n);
        d_vals_ = course::DeviceArray<float>(rows_ * k_);
        d_idx_ = course::DeviceArray<uint32_t>(rows_ * k_);
        d_in_.upload(input_);
    }
    // A (rows, cols) file, or a 1-D file read as one row.
    static std::vector<float> load_matrix(const std::string& path, uint64_t& r, uint64_t& c) {
        return course::load_npy_matrix<float>(path, r, c);
    }
    void run() override { fn_(d_in_.data(), rows_, cols_, k_, smallest_, d_vals_.data(), d_idx_.data()); }
    void poison() override { d_vals_.poison(); d_idx_.poison(); }
    course::CheckResult check() override {
        std::vector<float> vals = d_vals_.download();
        std::vector<uint32_t> idx = d_idx_.download();
        if (keys_.empty()) {
            keys_ = keys_of(input_, smallest_);
            ref_ = reference(keys_, rows_, cols_, k_);
        }
        return check_rows(input_, keys_, ref_, rows_, cols_, k_, smallest_, vals.data(), idx.data());
    }
    void save(const std::string& path) override {
        std::vector<float> vals = d_vals_.download();
        std::vector<uint32_t> idx = d_idx_.download();
        course::save_npy_2d(path, vals.data(), rows_, k_);
        std::string ipath = course::npy_sibling(path, "_idx");
        course::save_npy_2d(ipath, idx.data(), rows_, k_);
        std::printf("wrote %s (values, %llu x %llu) and %s (column indices)\n", path.c_str(),
                    (unsigned long long)rows_, (unsigned long long)k_, ipath.c_str());
    }
private:
    Launcher fn_;
    uint64_t k_, rows_ = 0, cols_ = 0;
    bool smallest_ = false;
    std::vector<float> input_;
    std::vector<uint32_t> keys_;
    std::vector<Reference> ref_;
    course::DeviceArray<float> d_in_, d_vals_;
    course::DeviceArray<uint32_t> d_idx_;
};

// ---- the battery and the benchmark -----------------------------------------------------------------
// Every rows value meets every cols value (up to 2^27 elements; --quick: 2^20) with k in
// {1, 2, 8, 50, 1024, cols} on "mixed" (eight shapes in one matrix); each shape on its own for
// 1 and 7 rows; --smallest; and the benchmark's six shapes.
struct Bench { uint64_t rows, cols, k; };
inline std::vector<Bench> bench_shapes() {
    return {{1, 128256, 50}, {64, 128256, 50}, {256, 256000, 1024},
            {16384, 128, 8}, {65536, 64, 2}, {4, uint64_t(1) << 24, 1024}};
}

inline std::vector<course::Case> battery(const course::Options& o) {
    std::vector<course::Case> cases;
    auto add = [&](uint64_t r, uint64_t c, uint64_t k, const std::string& input) {
        if (k < 1 || k > c) return;
        std::string name = input + ":" + std::to_string(r) + "x" + std::to_string(c);
        for (auto& x : cases) if (x.dist == name && x.param == k) return;
        cases.push_back({r * c, name, k, "float32"});
    };
    const uint64_t limit = o.quick ? uint64_t(1) << 20 : uint64_t(1) << 27;
    const std::vector<uint64_t> rows = {1, 2, 7, 1000, 65536};
    const std::vector<uint64_t> cols = {1, 2, 31, 32, 33, 1000, 4097, 128256, uint64_t(1) << 20};
    for (uint64_t r : rows)
        for (uint64_t c : cols) {
            if (r * c > limit) continue;
            for (uint64_t k : {uint64_t(1), uint64_t(2), uint64_t(8), uint64_t(50), uint64_t(1024), c})
                add(r, c, k, "mixed");
            if (r == 1 || r == 7)
                for (auto& s : shapes())
                    for (uint64_t k : {uint64_t(1), uint64_t(50), c}) add(r, c, k, s);
            if (r == 7 || r == 1000)
                for (uint64_t k : {uint64_t(1), uint64_t(33), c}) add(r, c, k, "mixed/smallest");
        }
    if (!o.quick)
        for (auto& b : bench_shapes()) add(b.rows, b.cols, b.k, "uniform");
    return cases;
}

inline std::vector<course::Case> sweep(const course::Options& o) {
    std::vector<course::Case> cases;
    std::string input = o.dist == "mixed" ? "uniform" : o.dist;
    for (auto& b : bench_shapes())
        cases.push_back({b.rows * b.cols, input + ":" + std::to_string(b.rows) + "x" + std::to_string(b.cols), b.k,
                         "float32"});
    return cases;
}

inline int run_rows(int argc, char** argv, const char* version, Launcher fn) {
    course::LessonDef def;
    def.lesson = "01_topk_rows";
    def.version = version;
    def.cli.program = version;
    def.cli.summary = "row-wise top-k: the k largest (or --smallest) of every row of a rows x cols matrix";
    def.cli.dists = shapes();
    def.cli.dtypes = {"float32"};
    def.cli.param_name = "k";
    def.cli.param_default = 50;
    def.cli.param_min = 1;
    def.cli.n_default = 128256;
    def.cli.extras = {{"rows", true, "rows of the matrix (default 64); --n is the length of each row"},
                      {"smallest", false, "the k smallest values of each row (ascending) instead of the largest"}};
    def.validate = [](const course::Options& o) {
        if (o.test || o.sweep) return;
        uint64_t r = 0, c = o.n;
        if (!o.input.empty()) {
            if (o.has("rows")) course::usage_error("--input sets the rows from the file: drop --rows");
            RowsTrial::load_matrix(o.input, r, c);
        } else if (!course::parse_count(o.get("rows", "64"), r) || r == 0) {
            course::usage_error("--rows '" + o.get("rows") + "' is not a count of at least 1");
        }
        if (c == 0) course::usage_error("row-wise top-k needs at least one column (cols=0)");
        if (o.param > c)
            course::usage_error("--k " + std::to_string(o.param) + " is larger than the row length " +
                                std::to_string(c) + " (k must be between 1 and cols)");
    };
    def.battery = battery;
    def.sweep = sweep;
    def.make_trial = [=](const course::Options& o, const course::Case& c) -> std::unique_ptr<course::Trial> {
        return std::make_unique<RowsTrial>(o, c, fn);
    };
    return course::drive(argc, argv, def);
}

}  // namespace rows
}  // namespace topk
