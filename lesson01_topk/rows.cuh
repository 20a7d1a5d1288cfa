// lesson01_topk/rows.cuh — row-wise (batched) top-k in one place: the k largest of EVERY row of a
// row-major rows x cols matrix of float32, float16 or bfloat16 (--type). The shape top-k has in practice: sampling from a language
// model's logits (a few rows of 32k-256k), mixture-of-experts routing (many short rows, k = 1..8),
// nearest-neighbour search (a few rows of millions, k = 100..1024).
// Used by the row-wise track rows_00..rows_06 (rows_00_cub_* are the library bars; rows_05_serving's
// machinery: rows_serving.cuh and the headers it includes), wrong/row_float4.cu and
// exercises/row_warp_select.cu.
//
// Semantics: lesson.cuh's card, per row. out_vals and out_idx are rows x k, row-major; row r holds
// the k largest values of row r in descending order and their COLUMN indices (0 <= idx < cols).
// Duplicates count, ties at the k-th value may be any of the tied columns, NaN is largest, -0.0
// equals +0.0, --smallest gives the k smallest ascending. 1 <= k <= cols; cols < 2^32. Values come
// back in the input's type (float16/bfloat16 keys: lesson.cuh's to_key).
//
// Command line: --rows R and --n C (the length of each row), or --input logits.npy with shape
// (rows, cols) (a 1-D file is one row; '<f4', '<f2' with --type float16, or bfloat16 bit patterns
// as '<u2' with --type bfloat16); --output v.npy writes values (rows, k) and v_idx.npy.
// In the battery and the CSV a case's input is named "shape:ROWSxCOLS", e.g. "uniform:64x128256".
//
// Ragged batches: each row its own length (a sparse-attention indexer's rows of 8K-128K keys).
// --dist ragged (lengths 0, 1, k-1, k, k+1, the longest --n, and random, row by row), serving
// (every row 1/16 to all of --n long, uniform values) or ragged_equal (row 0 --n long and uniform, every
// other row half as long and one value: 1.0, -inf, NaN in turn), or --input values.npy (1-D, the rows one after another) with
// --lengths lens.npy ('<i4', one length a row). k is one number for the call; a row
// shorter than k returns all its elements, sorted, and its slots from its length on hold index
// kNoIndex (0xFFFFFFFF: -1 as int32) and value pad_value (-inf; +inf under --smallest).
#pragma once
#include <algorithm>
#include <atomic>
#include <utility>
#include <string>
#include <vector>

#include "lesson.cuh"

namespace topk {
namespace rows {

// Every row-wise version provides a launcher of this shape (device pointers; scratch from
// course::scratch, so the timed runs never allocate).
template <class T = float>
using Launcher = void (*)(const T* d_in, size_t rows, size_t cols, size_t k, bool smallest, T* d_vals, uint32_t* d_idx);
// The element types the row-wise track runs, in --help's order (the first is the default --type).
using Types = course::TypeList<float, __half, __nv_bfloat16>;

// The end of a chunk of a row, [begin, begin + chunk) cut at cols (the many-blocks path M, the sampled pass),
// in 64 bits: begin + chunk passes 2^32 when cols is close to it (tests/lesson01_host.cu checks
// cols = 2^32 - 1).
__host__ __device__ __forceinline__ uint32_t chunk_end(uint32_t cols, uint32_t begin, uint32_t chunk) {
    const uint64_t e = uint64_t(begin) + chunk;
    return e < cols ? uint32_t(e) : cols;
}

// Row r's first k sorted columns -> its k output slots: slot r k + i gets column
// sorted_cols[r * stride + i] (stride k: a list of k per row; cols: a whole sorted row) and that
// column's value read from the input, exact bits. A column past the row (a broken version's empty
// slot) is reported, not read. The last step of every program that sorts columns by key (M for
// k > 2048, the CUB bars).
template <class T>
__global__ void gather_sorted_rows(const T* __restrict__ in, size_t rows, size_t cols, size_t k, size_t stride,
                                   const uint32_t* __restrict__ sorted_cols, T* __restrict__ out_vals,
                                   uint32_t* __restrict__ out_idx) {
    const size_t total = rows * k, step = size_t(gridDim.x) * blockDim.x;
    for (size_t j = blockIdx.x * size_t(blockDim.x) + threadIdx.x; j < total; j += step) {
        const size_t r = j / k;
        const uint32_t c = sorted_cols[r * stride + (j - r * k)];
        out_idx[j] = c;
        if (c < cols) out_vals[j] = in[r * cols + c];
    }
}

// offsets[r] = r * k for r = 0..rows: rows of k as the segments of CUB's segmented sort.
__global__ void row_offsets(int64_t* offsets, size_t rows, size_t k) {
    for (size_t r = blockIdx.x * size_t(blockDim.x) + threadIdx.x; r <= rows; r += size_t(gridDim.x) * blockDim.x)
        offsets[r] = int64_t(r * k);
}

// A ragged row's unused slots (see the header): the checker demands exactly these.
constexpr uint32_t kNoIndex = 0xFFFFFFFFu;
template <class T> __host__ __device__ __forceinline__ T pad_value(bool smallest) {
    if constexpr (topk::is_half_float<T>) {
        return topk::half_from_bits<T>(uint16_t(topk::half_inf_bits<T>() | (smallest ? 0u : 0x8000u)));
    } else {
        return topk::float_from_bits(smallest ? 0x7F800000u : 0xFF800000u);
    }
}

// A ragged version's launcher: row r is d_in[offsets[r] .. offsets[r + 1]), max_len its longest,
template <class T>
// total = offsets[rows], the number of elements.
using RaggedLauncher = void (*)(const T* d_in, const int64_t* d_offsets, size_t rows, size_t total, size_t max_len,
                                size_t k, bool smallest, T* d_vals, uint32_t* d_idx);
struct RaggedLaunchers {
    RaggedLauncher<float> f32 = nullptr;
    RaggedLauncher<__half> f16 = nullptr;
    RaggedLauncher<__nv_bfloat16> bf16 = nullptr;
    uint64_t max_k = ~uint64_t(0);   // the largest k these launchers take (refused while parsing beyond)
};

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
        case 0: return float(u * 2.0 - 1.0);           // uniform [-1, 1)
        case 1: return float(int(r % 7) - 3) * 0.5f;   // equal: one value per row
        case 2: {                                      // nan: three NaN patterns
            uint32_t b = (h & 1) ? 0x7FC00000u : (h & 2) ? 0xFFC00000u : 0x7F800001u;
            float f;
            std::memcpy(&f, &b, 4);
            return f;
        }
        case 3: return float(-1.0 + 2.0 * double(c) / double(cols));   // sorted (ascending)
        case 4: return float(1.0 - 2.0 * double(c) / double(cols));    // reversed
        case 5: return float(0.25 * double(h >> 58) - 8.0);            // ties: 64 levels
        case 6: {                                                      // specials
            uint32_t b;
            switch (h & 15) {
                case 0: b = 0x7F800000u; break;   // +inf
                case 1: b = 0xFF800000u; break;   // -inf
                case 2: b = 0x7FC00000u; break;   // NaN
                case 3: b = 0x80000000u; break;   // -0.0
                case 4: b = 0x00000000u; break;   // +0.0
                default: {
                    float f = float(u * 2.0 - 1.0);
                    std::memcpy(&b, &f, 4);
                }
            }
            float f;
            std::memcpy(&f, &b, 4);
            return f;
        }
        default: return float(-1e-3 - 1000.0 * u);   // negatives
    }
}

// float16 and bfloat16 rows are the float32 rows rounded to nearest (more ties: 8 bits of mantissa).
template <class T = float>
std::vector<T> make_matrix(uint64_t rows, uint64_t cols, const std::string& shape, uint64_t seed) {
    auto list = shapes();
    int id = int(std::find(list.begin(), list.end(), shape) - list.begin());
    if (id >= int(list.size())) throw course::UsageError("unknown input '" + shape + "'");
    std::vector<T> m(rows * cols);
    T* p = m.data();
    course::parallel_for(rows * cols, [&](size_t i) {
        uint64_t r = i / cols, c = i % cols;
        int s = id == 8 ? int(r % 8) : id;
        p[i] = T(row_value(s, seed, r, c, cols));
    });
    return m;
}

// Ragged lengths, row by row: "ragged" cycles through 0, 1, k-1, k, k+1, max_len and two random
// lengths (each cut to max_len); "serving" draws every row from [max_len / 16, max_len]; "ragged_equal"
// gives row 0 max_len and every other row max_len / 2 (a long row beside short all-equal ones).
inline std::vector<std::string> ragged_shapes() { return {"ragged", "serving", "ragged_equal"}; }

inline std::vector<uint64_t> ragged_lengths(const std::string& shape, uint64_t rows, uint64_t max_len, uint64_t k,
                                            uint64_t seed) {
    std::vector<uint64_t> len(rows);
    for (uint64_t r = 0; r < rows; ++r) {
        const uint64_t h = course::hash64(seed ^ 0x5EEDu, r);
        const uint64_t lo = shape == "serving" ? max_len / 16 : 1;
        const uint64_t random = lo + h % (max_len - lo + 1);
        uint64_t l = random;
        if (shape == "ragged_equal") l = r == 0 ? max_len : max_len / 2;
        if (shape == "ragged") {
            const uint64_t pick[6] = {0, 1, k - 1, k, k + 1, max_len};
            if (r % 8 < 6) l = pick[r % 8];
        }
        len[r] = std::min(l, max_len);
    }
    return len;
}

// The values of a ragged batch: for "ragged", row r is mixed's shape (r / 8) % 8, so lengths and
// shapes vary apart (the battery's all-equal and NaN rows); for "serving", uniform like the other
// benchmark shapes (an indexer's scores are not all equal); for "ragged_equal" (equal_rows), row 0
// uniform and row r > 0 all one value: 1.0, -inf, NaN for r % 3 = 1, 2, 0.
template <class T>
std::vector<T> make_ragged(const std::vector<int64_t>& offsets, uint64_t seed, bool uniform = false,
                           bool equal_rows = false) {
    const uint64_t rows = offsets.size() - 1, n = uint64_t(offsets.back());
    std::vector<T> v(n);
    T* p = v.data();
    course::parallel_chunks(
        rows,
        [&](size_t b, size_t e, unsigned) {
            for (size_t r = b; r < e; ++r) {
                const uint64_t len = uint64_t(offsets[r + 1] - offsets[r]);
                if (equal_rows && r > 0) {
                    const uint32_t bits[3] = {0x7FC00000u, 0x3F800000u, 0xFF800000u};   // NaN, 1.0, -inf
                    const T v = T(topk::float_from_bits(bits[r % 3]));
                    for (uint64_t c = 0; c < len; ++c) p[offsets[r] + c] = v;
                    continue;
                }
                for (uint64_t c = 0; c < len; ++c)
                    p[offsets[r] + c] = T(row_value(uniform || equal_rows ? 0 : int((r / 8) % 8), seed, r, c, len));
            }
        },
        1);
    return v;
}

// ---- the CPU reference and the checker ------------------------------------------------------------
// Per row: the k-th largest key and how many keys lie above it (lesson.cuh's Reference), found by
// std::nth_element; rows in parallel. The checker is lesson.cuh's check_topk, row by row.
inline std::vector<Reference> reference(const std::vector<uint32_t>& keys, uint64_t rows, uint64_t cols, uint64_t k) {
    std::vector<Reference> ref(rows);
    course::parallel_chunks(
        rows,
        [&](size_t b, size_t e, unsigned) {
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
        },
        std::max<size_t>(1, (size_t(1) << 16) / cols));
    return ref;
}

template <class T>
course::CheckResult check_rows(const std::vector<T>& in, const std::vector<uint32_t>& keys,
                               const std::vector<Reference>& ref, uint64_t rows, uint64_t cols, uint64_t k,
                               bool smallest, const T* vals, const uint32_t* idx) {
    std::atomic<uint64_t> first_bad{rows};
    std::vector<course::CheckResult> res(course::cpu_threads());
    course::parallel_chunks(
        rows,
        [&](size_t b, size_t e, unsigned t) {
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
        },
        std::max<size_t>(1, (size_t(1) << 16) / cols));
    if (first_bad.load() == rows) return course::CheckResult::pass();
    for (auto& c : res)   // the message of the first bad row
        if (!c.ok && c.message.rfind("row " + std::to_string(first_bad.load()) + ":", 0) == 0) return c;
    for (auto& c : res)
        if (!c.ok) return c;
    return course::CheckResult::fail("a row failed");
}

// Ragged rows: row r against its own reference with k' = min(k, length), then every slot from k'
// on must be the padding (index kNoIndex, value pad_value's bits).
template <class T>
course::CheckResult check_ragged(const std::vector<T>& in, const std::vector<uint32_t>& keys,
                                 const std::vector<int64_t>& offsets, uint64_t k, bool smallest, const T* vals,
                                 const uint32_t* idx) {
    const uint64_t rows = offsets.size() - 1;
    std::vector<course::CheckResult> res(rows);
    std::atomic<bool> bad{false};
    const T pad = pad_value<T>(smallest);
    course::parallel_chunks(
        rows,
        [&](size_t b, size_t e, unsigned) {
            for (size_t r = b; r < e && !bad.load(); ++r) {
                const uint64_t start = uint64_t(offsets[r]), len = uint64_t(offsets[r + 1]) - start,
                               kk = std::min(k, len);
                course::CheckResult c = course::CheckResult::pass();
                if (kk > 0) {
                    std::vector<uint32_t> row(keys.begin() + start, keys.begin() + start + len);
                    std::nth_element(row.begin(), row.begin() + (kk - 1), row.end(), std::greater<uint32_t>());
                    Reference ref;
                    ref.kth = row[kk - 1];
                    for (uint64_t i = 0; i < len; ++i) ref.greater += keys[start + i] > ref.kth;
                    c = check_topk(in.data() + start, keys.data() + start, len, ref, kk, smallest, vals + r * k,
                                   idx + r * k);
                }
                for (uint64_t j = kk; j < k && c.ok; ++j)
                    if (idx[r * k + j] != kNoIndex || std::memcmp(&vals[r * k + j], &pad, sizeof(T)) != 0)
                        c = course::CheckResult::fail(
                            "[" + std::to_string(j) + "] the row has " + std::to_string(len) + " elements: slot " +
                            std::to_string(j) + " must be padding (index " + std::to_string(kNoIndex) + ", value " +
                            show_value(pad) + "), got index " + std::to_string(idx[r * k + j]) + ", value " +
                            show_value(vals[r * k + j]));
                if (!c.ok) {
                    res[r] = course::CheckResult::fail("row " + std::to_string(r) + " (length " + std::to_string(len) +
                                                       "): " + c.message);
                    bad = true;
                }
            }
        },
        1);
    for (auto& c : res)
        if (!c.ok) return c;
    return course::CheckResult::pass();
}

// ---- one case --------------------------------------------------------------------------------------
// A case's input name is "shape[/smallest]:ROWSxCOLS"; from the command line it is just the shape.
struct Shape {
    std::string input;
    uint64_t rows = 0, cols = 0;
    bool smallest = false;
};

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

// What a row-wise program may refuse or excuse: a library bar that returns each row's k in any
// order (the checker sorts them first), or one that takes rows of at most max_cols.
struct RowsLimits {
    bool unsorted = false;
    uint64_t max_cols = ~uint64_t(0);
    const char* why = "";
};

// --output for a (rows, k) result: the values, and the column indices beside them (F_idx.npy).
template <class T>
void save_rows_result(const std::string& path, const course::DeviceArray<T>& d_vals,
                      const course::DeviceArray<uint32_t>& d_idx, uint64_t rows, uint64_t k, const char* what) {
    std::vector<T> vals = d_vals.download();
    std::vector<uint32_t> idx = d_idx.download();
    course::save_npy_2d(path, vals.data(), rows, k);
    const std::string ipath = course::npy_sibling(path, "_idx");
    course::save_npy_2d(ipath, idx.data(), rows, k);
    std::printf("wrote %s (values, %llu x %llu%s) and %s (column indices%s)\n", path.c_str(), (unsigned long long)rows,
                (unsigned long long)k, what[0] ? "; short rows padded" : "", ipath.c_str(), what);
}

template <class T> class RowsTrial : public course::Trial {
public:
    RowsTrial(const course::Options& o, const course::Case& c, Launcher<T> fn, RowsLimits lim = {})
        : fn_(fn), k_(c.param), lim_(lim) {
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
            input_ = make_matrix<T>(rows_, cols_, s.input, o.seed);
        }
        if (rows_ == 0 || cols_ == 0)
            throw course::UsageError("the matrix is " + std::to_string(rows_) + " x " + std::to_string(cols_) +
                                     ": it needs at least one row and one column");
        if (k_ < 1 || k_ > cols_)
            throw course::UsageError("--k " + std::to_string(k_) +
                                     " must be between 1 and cols=" + std::to_string(cols_));
        if (cols_ >= (uint64_t(1) << 32)) throw course::UsageError("cols must be < 2^32 (uint32 column indices)");
        if (cols_ > lim_.max_cols)
            throw course::SkipCase("cols=" + std::to_string(cols_) + " is beyond this version's limit of " +
                                   std::to_string(lim_.max_cols) + " (" + lim_.why + ")");
        n = rows_ * cols_;
        label = name_of(s.input, smallest_, rows_, cols_);
        const double e = double(sizeof(T));
        bytes = e * n + (e + 4.0) * rows_ * k_;   // read the matrix once, write rows x k values and indices
        // input, outputs, and the widest scratch (the segmented-sort bar: 16 bytes per element)
        course::require_device_memory(e * n + 8.0 * rows_ * k_ + 16.0 * n + 64.0 * rows_);
        d_in_ = course::DeviceArray<T>(n);
        d_vals_ = course::DeviceArray<T>(rows_ * k_);
        d_idx_ = course::DeviceArray<uint32_t>(rows_ * k_);
        d_in_.upload(input_);
    }
    // A (rows, cols) file, or a 1-D file read as one row.
    static std::vector<T> load_matrix(const std::string& path, uint64_t& r, uint64_t& c) {
        return course::load_npy_matrix<T>(path, r, c);
    }
    void run() override { fn_(d_in_.data(), rows_, cols_, k_, smallest_, d_vals_.data(), d_idx_.data()); }
    void poison() override {
        d_vals_.poison();
        d_idx_.poison();
    }
    course::CheckResult check() override {
        std::vector<T> vals = d_vals_.download();
        std::vector<uint32_t> idx = d_idx_.download();
        if (keys_.empty()) {
            keys_ = keys_of(input_, smallest_);
            ref_ = reference(keys_, rows_, cols_, k_);
        }
        if (lim_.unsorted)
            course::parallel_chunks(rows_, [&](size_t b, size_t e, unsigned) {
                for (size_t r = b; r < e; ++r) order_results(vals.data() + r * k_, idx.data() + r * k_, k_, smallest_);
            });
        return check_rows(input_, keys_, ref_, rows_, cols_, k_, smallest_, vals.data(), idx.data());
    }
    void save(const std::string& path) override { save_rows_result(path, d_vals_, d_idx_, rows_, k_, ""); }

private:
    Launcher<T> fn_;
    uint64_t k_;
    RowsLimits lim_;
    uint64_t rows_ = 0, cols_ = 0;
    bool smallest_ = false;
    std::vector<T> input_;
    std::vector<uint32_t> keys_;
    std::vector<Reference> ref_;
    course::DeviceArray<T> d_in_, d_vals_;
    course::DeviceArray<uint32_t> d_idx_;
};

// One ragged case: offsets from the lengths, the reference per row with k' = min(k, length), and
// each row's padding checked slot by slot.
template <class T> class RaggedTrial : public course::Trial {
public:
    RaggedTrial(const course::Options& o, const course::Case& c, RaggedLauncher<T> fn) : fn_(fn), k_(c.param) {
        Shape s = parse_case(o, c);
        smallest_ = s.smallest;
        std::vector<uint64_t> len;
        if (!o.input.empty()) {
            input_ = course::load_npy<T>(o.input);
            len = load_lengths(o.get("lengths"));
            s.input = "file";
        } else {
            if (s.rows == 0 || s.cols == 0) throw course::UsageError("a ragged batch needs rows >= 1 and --n >= 1");
            course::require_host_memory(14.0 * s.rows * s.cols);
            len = ragged_lengths(s.input, s.rows, s.cols, k_, o.seed);
        }
        rows_ = len.size();
        offsets_.assign(rows_ + 1, 0);
        for (uint64_t r = 0; r < rows_; ++r) {
            if (len[r] >= (uint64_t(1) << 32)) throw course::UsageError("a row of 2^32 or more elements");
            max_len_ = std::max(max_len_, len[r]);
            offsets_[r + 1] = offsets_[r] + int64_t(len[r]);
        }
        if (o.input.empty()) input_ = make_ragged<T>(offsets_, o.seed, s.input == "serving", s.input == "ragged_equal");
        if (uint64_t(offsets_.back()) != input_.size())
            throw course::UsageError("--lengths add up to " + std::to_string(offsets_.back()) + " but the input has " +
                                     std::to_string(input_.size()) + " elements");
        if (rows_ == 0) throw course::UsageError("a ragged batch needs at least one row");
        if (k_ < 1) throw course::UsageError("--k must be at least 1");
        n = input_.size();
        label = name_of(s.input, smallest_, rows_, max_len_);
        const double e = double(sizeof(T));
        bytes = e * n + (e + 4.0) * rows_ * k_ + 8.0 * (rows_ + 1);
        course::require_device_memory(e * n + 8.0 * rows_ * k_ + 16.0 * n + 80.0 * rows_);
        d_in_ = course::DeviceArray<T>(std::max<uint64_t>(n, 1));
        d_off_ = course::DeviceArray<int64_t>(rows_ + 1);
        d_vals_ = course::DeviceArray<T>(rows_ * k_);
        d_idx_ = course::DeviceArray<uint32_t>(rows_ * k_);
        d_in_.upload(input_);
        d_off_.upload(offsets_);
    }
    // One length a row, '<i4' (np.int32): rows of up to 2^31 - 1 elements.
    static std::vector<uint64_t> load_lengths(const std::string& path) {
        if (path.empty()) throw course::UsageError("a 1-D --input of ragged rows needs --lengths lens.npy");
        std::vector<uint64_t> out;
        for (int32_t l : course::load_npy<int32_t>(path)) {
            if (l < 0) throw course::UsageError("--lengths: a negative length");
            out.push_back(uint64_t(l));
        }
        return out;
    }
    void run() override {
        fn_(d_in_.data(), d_off_.data(), rows_, n, max_len_, k_, smallest_, d_vals_.data(), d_idx_.data());
    }
    void poison() override {
        d_vals_.poison();
        d_idx_.poison();
    }
    course::CheckResult check() override {
        std::vector<T> vals = d_vals_.download();
        std::vector<uint32_t> idx = d_idx_.download();
        if (keys_.empty()) keys_ = keys_of(input_, smallest_);
        return check_ragged(input_, keys_, offsets_, k_, smallest_, vals.data(), idx.data());
    }
    void save(const std::string& path) override { save_rows_result(path, d_vals_, d_idx_, rows_, k_, ", -1 padding"); }

private:
    RaggedLauncher<T> fn_;
    uint64_t k_, rows_ = 0, max_len_ = 0;
    bool smallest_ = false;
    std::vector<T> input_;
    std::vector<int64_t> offsets_;
    std::vector<uint32_t> keys_;
    course::DeviceArray<T> d_in_, d_vals_;
    course::DeviceArray<int64_t> d_off_;
    course::DeviceArray<uint32_t> d_idx_;
};

// The shape --plan plans: the case's, or with --input the file's (rows x cols; with --lengths, its rows and its
// longest row as cols), read as the run would read it.
inline Shape plan_shape(const course::Options& o, const course::Case& c) {
    Shape s = parse_case(o, c);
    if (o.input.empty()) return s;
    if (o.has("lengths")) {
        const std::vector<uint64_t> len = RaggedTrial<float>::load_lengths(o.get("lengths"));
        s.rows = len.size();
        if (len.empty()) throw course::UsageError("--lengths holds no rows: a ragged batch needs at least one");
        s.cols = *std::max_element(len.begin(), len.end());
    } else {
        course::dispatch_type(c.dtype, Types{}, [&](auto tag) {
            RowsTrial<typename decltype(tag)::type>::load_matrix(o.input, s.rows, s.cols);
        });
    }
    return s;
}

// Two types in one process, one call after the other: the float32 case, then the same shape in bfloat16, each checked.
// rows_05_serving once tagged a row's steps with a count of calls kept for each type, and its first bfloat16 call after one float32
// call took that call's verdict for its own (TUNING.md); this case, first in run_rows' battery, starts both counts fresh.
constexpr const char* kTwoTypes = "float32,bfloat16";
class TwoTypesTrial : public course::Trial {
public:
    TwoTypesTrial(std::unique_ptr<course::Trial> first, std::unique_ptr<course::Trial> second)
        : first_(std::move(first)), second_(std::move(second)) {
        n = first_->n + second_->n;
        bytes = first_->bytes + second_->bytes;
        label = first_->label;
    }
    void run() override {
        first_->run();
        second_->run();
    }
    void poison() override {
        first_->poison();
        second_->poison();
    }
    course::CheckResult check() override {
        course::CheckResult a = first_->check(), b = second_->check();
        if (!a.ok) a.message = "float32: " + a.message;
        if (!b.ok) b.message = "bfloat16 after float32: " + b.message;
        return a.ok ? b : a;
    }

private:
    std::unique_ptr<course::Trial> first_, second_;
};

// ---- the battery and the benchmark -----------------------------------------------------------------
// Every rows value meets every cols value (up to 2^27 elements; --quick: 2^20) with k in
// {1, 2, 8, 50, 1024, cols} on "mixed" (eight shapes in one matrix); each shape on its own for
// 1 and 7 rows; --smallest; float16 and bfloat16 on the mixed rows (k 256 too); rows of 2-8 chunks; 1 and 3 rows
// of 2^22 + 5; and the benchmark's shapes. two_types (run_rows' programs): first, float32 then bfloat16 in one case.
struct Bench {
    uint64_t rows, cols, k;
};
inline std::vector<Bench> bench_shapes() {
    return {{1, 128256, 50},   {64, 128256, 50}, {256, 256000, 1024},          {4096, 256, 8},
            {16384, 128, 8},   {65536, 64, 2},   {4, uint64_t(1) << 24, 1024}, {64, 131072, 256},
            {256, 262144, 256}};
}

inline std::vector<course::Case> battery(const course::Options& o, bool half, bool ragged = false,
                                         bool two_types = false) {
    std::vector<course::Case> cases;
    // (TwoTypesTrial) first, before any other call: 4 rows of 2^22 + 5, k = 1024 (rows_05: a long row's blocks, collected together)
    if (two_types && half && !o.quick)
        cases.push_back({4 * ((uint64_t(1) << 22) + 5), "uniform:4x4194309", 1024, kTwoTypes});
    auto add = [&](uint64_t r, uint64_t c, uint64_t k, const std::string& input, const char* type = "float32") {
        if (k < 1 || k > c) return;
        std::string name = input + ":" + std::to_string(r) + "x" + std::to_string(c);
        for (auto& x : cases)
            if (x.dist == name && x.param == k && x.dtype == type) return;
        cases.push_back({r * c, name, k, type});
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
            if (half && r != 2 && r != 65536)
                for (const char* t : {"float16", "bfloat16"}) {
                    for (uint64_t k : {uint64_t(1), uint64_t(8), uint64_t(50), uint64_t(256), uint64_t(1024), c})
                        add(r, c, k, "mixed", t);
                    add(r, c, 33, "mixed/smallest", t);
                    add(r, c, 200, "mixed/smallest", t);   // 128-256 winners: rows_05 places them by 32-bit ranks
                }
        }
    // Rows that rows_05 cuts in 2-3 chunks on GPUs of 100-132 SMs, so that its hand-in between a row's blocks
    // meets all-equal, NaN and sorted rows too: 64 x 16383 (2 chunks on an H100 for k > 256; 1 for k <= 256, and
    // on an A100), 40 x 40009 (3). (1 and 7 rows of 128256, each shape alone, take 31 and 19 on an H100.)
    for (const auto& rc : {std::pair<uint64_t, uint64_t>{64, 16383}, {40, 40009}}) {
        if (rc.first * rc.second > limit) continue;
        for (uint64_t k : {uint64_t(1), uint64_t(50), uint64_t(1024), uint64_t(2048)})
            add(rc.first, rc.second, k, "mixed");
        add(rc.first, rc.second, 33, "mixed/smallest");
        if (half) {
            add(rc.first, rc.second, 50, "mixed", "bfloat16");
            add(rc.first, rc.second, 2048, "mixed", "float16");
        }
    }
    if (ragged) {   // every length pattern, k up to 2048, 16-bit types too
        for (uint64_t r : {uint64_t(8), uint64_t(64), uint64_t(1000)})
            for (uint64_t c : {uint64_t(33), uint64_t(4097), uint64_t(131072)}) {
                if (r * c > limit) continue;
                for (uint64_t k : {uint64_t(1), uint64_t(8), uint64_t(50), uint64_t(1024), uint64_t(2048)})
                    add(r, c, k, "ragged");
                add(r, c, 33, "ragged/smallest");
                if (half) {
                    add(r, c, 50, "ragged", "bfloat16");
                    add(r, c, 2048, "ragged", "float16");
                }
            }
        if (!o.quick) {
            add(8, (uint64_t(1) << 22) + 5, 1024, "ragged");   // rows past 2^20 among short ones
            if (half) add(8, (uint64_t(1) << 22) + 5, 2048, "ragged", "bfloat16");
            add(64, 131072, 2048, "serving");
            if (half) add(64, 131072, 2048, "serving", "bfloat16");
            // A row past 2^20 beside all-equal rows half as long (1.0, -inf, NaN): each block of a short row
            // keeps its whole chunk, more than its shared buffer holds (the sampled pass's hand-in).
            add(4, uint64_t(1) << 21, 50, "ragged_equal");
            if (half) add(4, uint64_t(1) << 21, 50, "ragged_equal", "bfloat16");
        }
    }
    if (!o.quick)   // rows past 2^20 (rows_05 keeps their candidates in global memory)
        for (uint64_t r : {uint64_t(1), uint64_t(3)}) {
            const uint64_t c = (uint64_t(1) << 22) + 5;
            for (uint64_t k : {uint64_t(1), uint64_t(50), uint64_t(2048)}) add(r, c, k, "mixed");
            for (auto& s : shapes()) add(r, c, 50, s);
            add(r, c, 33, "mixed/smallest");
            if (half) {   // 16-bit long rows: rows_05 counts their keys as they are handed in
                add(r, c, 1024, "mixed", "bfloat16");
                for (auto& s : shapes()) {
                    add(r, c, 50, s, "bfloat16");
                    add(r, c, 1024, s, "float16");
                }
                add(r, c, 33, "mixed/smallest", "float16");
                add(r, c, 700, "mixed/smallest", "bfloat16");
            }
        }
    if (!o.quick)
        for (auto& b : bench_shapes()) {
            add(b.rows, b.cols, b.k, "uniform");
            if (half) add(b.rows, b.cols, b.k, "uniform", "bfloat16");
        }
    return cases;
}

inline std::vector<course::Case> sweep(const course::Options& o, bool ragged) {
    std::vector<course::Case> cases;
    std::string input = o.dist == "mixed" ? "uniform" : o.dist;
    for (auto& b : bench_shapes())
        cases.push_back(
            {b.rows * b.cols, input + ":" + std::to_string(b.rows) + "x" + std::to_string(b.cols), b.k, o.dtype});
    if (ragged) cases.push_back({64 * 131072, "serving:64x131072", 2048, o.dtype});   // rows of 8K-128K
    return cases;
}

// float32 always; float16 and bfloat16 when both launchers are given (else --type refuses them).
inline bool is_ragged(const std::string& dist) {
    std::string d = dist.substr(0, dist.find(':'));
    split_smallest(d);
    for (auto& r : ragged_shapes())
        if (d == r) return true;
    return false;
}

// The row-wise lesson's command line, option checks, battery and sweep: every row-wise program
// (run_rows below, and rows_06_multi_gpu, which drives its own jobs) starts from it. two_types: the battery's first
// case runs float32 then bfloat16 in one process (TwoTypesTrial; run_rows' programs, which build that trial).
// ragged_max_k: the largest k the ragged launchers take (a ragged run beyond it is refused while parsing).
inline course::LessonDef rows_lesson(const char* version, bool half, bool ragged, bool two_types = false,
                                     uint64_t ragged_max_k = ~uint64_t(0)) {
    course::LessonDef def;
    def.lesson = "01_topk_rows";
    def.version = version;
    def.cli.program = version;
    def.cli.summary = "row-wise top-k: the k largest (or --smallest) of every row of a rows x cols matrix";
    def.cli.dists = shapes();
    if (ragged)
        for (auto& r : ragged_shapes()) def.cli.dists.push_back(r);
    def.cli.dtypes = course::type_names(Types{});
    if (!half) def.cli.dtypes.resize(1);   // float32 alone
    def.cli.param_name = "k";
    def.cli.param_default = 50;
    def.cli.param_min = 1;
    def.cli.n_default = 128256;
    def.cli.extras = {{"rows", true, "rows of the matrix (default 64); --n is the length of each row"},
                      {"smallest", false, "the k smallest values of each row (ascending) instead of the largest"}};
    if (ragged)
        def.cli.extras.push_back({"lengths", true, "ragged rows: a 1-D .npy of row lengths ('<i4') for a 1-D --input"});
    def.validate = [=](const course::Options& o) {
        if (o.has("lengths") && (o.test || o.sweep))
            course::usage_error(
                "--lengths goes with one --input run, not with --test or --sweep (their batteries are fixed)");
        if (o.test || o.sweep) return;
        if (o.has("lengths") && o.input.empty())
            course::usage_error("--lengths goes with a 1-D --input of the rows' values");
        if (o.has("lengths") || is_ragged(o.dist)) {
            if (o.input.empty()) {   // a generated batch: --rows rows of up to --n elements
                uint64_t r = 0;
                if (!course::parse_count(o.get("rows", "64"), r) || r == 0)
                    course::usage_error("--rows '" + o.get("rows") + "' is not a count of at least 1");
                if (o.n == 0) course::usage_error("a ragged batch needs --n (its longest row) of at least 1");
            }
            if (o.param > ragged_max_k)
                course::usage_error("--k " + std::to_string(o.param) +
                                    ": ragged rows take k <= " + std::to_string(ragged_max_k) +
                                    " here (one block sorts a row's k in shared memory)");
            if (o.has("lengths")) {   // both files read and matched before the GPU is touched
                uint64_t total = 0, n = 0;
                const std::vector<uint64_t> lens = RaggedTrial<float>::load_lengths(o.get("lengths"));
                if (lens.empty()) course::usage_error("--lengths holds no rows: a ragged batch needs at least one");
                for (uint64_t l : lens) total += l;
                n = course::dispatch_type(o.dtype, Types{}, [&](auto tag) -> uint64_t {
                    return course::load_npy<typename decltype(tag)::type>(o.input).size();
                });
                if (total != n)
                    course::usage_error("--lengths add up to " + std::to_string(total) + " but --input has " +
                                        std::to_string(n) + " elements");
            }
            return;
        }
        uint64_t r = 0, c = o.n;
        if (!o.input.empty()) {
            if (o.has("rows")) course::usage_error("--input sets the rows from the file: drop --rows");
            course::dispatch_type(o.dtype, Types{}, [&](auto tag) {
                RowsTrial<typename decltype(tag)::type>::load_matrix(o.input, r, c);
            });
        } else if (!course::parse_count(o.get("rows", "64"), r) || r == 0) {
            course::usage_error("--rows '" + o.get("rows") + "' is not a count of at least 1");
        }
        if (c == 0) course::usage_error("row-wise top-k needs at least one column (cols=0)");
        if (o.param > c)
            course::usage_error("--k " + std::to_string(o.param) + " is larger than the row length " +
                                std::to_string(c) + " (k must be between 1 and cols)");
    };
    def.battery = [=](const course::Options& o) { return battery(o, half, ragged, two_types); };
    def.sweep = [ragged](const course::Options& o) { return sweep(o, ragged); };
    return def;
}

inline int run_rows(int argc, char** argv, const char* version, Launcher<float> f32, Launcher<__half> f16 = nullptr,
                    Launcher<__nv_bfloat16> bf16 = nullptr, RowsLimits lim = {}, RaggedLaunchers rag = {}) {
    const bool half = f16 && bf16;
    const bool ragged = rag.f32 && (!half || (rag.f16 && rag.bf16));
    course::LessonDef def = rows_lesson(version, half, ragged, true, rag.max_k);
    const course::Launchers<Launcher, float, __half, __nv_bfloat16> fns{f32, f16, bf16};
    const course::Launchers<RaggedLauncher, float, __half, __nv_bfloat16> ragged_fns{rag.f32, rag.f16, rag.bf16};
    def.make_trial = [=](const course::Options& o, const course::Case& c) -> std::unique_ptr<course::Trial> {
        if (c.dtype == kTwoTypes) {
            course::Case a = c, b = c;
            a.dtype = "float32";
            b.dtype = "bfloat16";
            return std::make_unique<TwoTypesTrial>(std::make_unique<RowsTrial<float>>(o, a, f32, lim),
                                                   std::make_unique<RowsTrial<__nv_bfloat16>>(o, b, bf16, lim));
        }
        const bool ragged_case = o.has("lengths") || is_ragged(c.dist);
        return course::dispatch_type(c.dtype, Types{}, [&](auto tag) -> std::unique_ptr<course::Trial> {
            using T = typename decltype(tag)::type;
            if (ragged_case) return std::make_unique<RaggedTrial<T>>(o, c, ragged_fns.template get<T>());
            return std::make_unique<RowsTrial<T>>(o, c, fns.template get<T>(), lim);
        });
    };
    return course::drive(argc, argv, def);
}

}   // namespace rows
}   // namespace topk
