// lesson03_compact_spmv/spmv.cuh — the SpMV problem in one place: the matrix families, the
// Matrix Market input, the double-precision CPU reference (the checker), the battery, the sweep,
// the bytes SpMV must move, and run_lesson() for every spmv_NN version.
//
// Semantics (README.md, Part 3, "semantics card"):
//   y = A x, A in CSR (row_ptr[rows + 1], col[nnz], val[nnz]), x[cols], y[rows].
//   Every y[i] is written, empty rows included (y[i] = 0). Duplicates would be summed (the
//   generators and the .mtx reader merge them, columns sorted within a row).
//   float32 everywhere; float64 for the versions that offer it (--type float64).
//   Indices are 32-bit (rows, cols, nnz <= 2^31 - 1); sums of rows + nnz use 64 bits.
//   Checked per row against a double-precision reference:
//     |y_i - ref_i| <= rtol * sum_j |a_ij x_j| + atol
//   rtol = 1e-5 (float32) / 1e-13 (float64): a few hundred units of rounding of the row's own
//   scale. Any summation order passes (the versions use very different orders); a wrong, missing
//   or doubled term (|a_ij x_j| ~ scale / row length) fails for every row shorter than ~10^4.
// What one run does (common/driver.cuh drives it; SpmvTrial is SpMV's part): build the matrix on
// the CPU (or read --matrix), upload it and x; poison y, run the launcher once and check (--test:
// twice); warm up, time the launcher alone with CUDA events (L2 flushed before each repetition,
// median reported, GB/s from problem_bytes, % of a copy in the same run); check again after.
#pragma once
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "../common/harness.cuh"
#include "../common/types.cuh"
#include "mtx.h"

namespace spmv {

// ---- the device view of a matrix and the launcher every version provides ----------------------

template <class T> struct Csr {
    int rows = 0, cols = 0, nnz = 0;
    const int* row_ptr = nullptr;   // rows + 1 offsets, row_ptr[0] = 0, row_ptr[rows] = nnz
    const int* col = nullptr;       // nnz column indices, sorted within each row
    const T* val = nullptr;         // nnz values
};

// y = A x. Device pointers; scratch from course::scratch(); never allocates in the timed runs.
template <class T> using Launcher = void (*)(const Csr<T>& A, const T* x, T* y);
// The value types SpMV runs, in --help's order (float64 only where a version gives its launcher).
using Types = course::TypeList<float, double>;

constexpr double kRelTolF32 = 1e-5, kRelTolF64 = 1e-13;
constexpr double kAbsTolF32 = 1e-30, kAbsTolF64 = 1e-300;

// ---- device helpers shared by the versions ----------------------------------------------------

// Sum over a group of W consecutive lanes (W = 1, 2, 4, ..., 32, aligned inside the warp); every
// lane of the group gets the total. All 32 lanes of the warp must call it (full mask).
template <int W, class T> __device__ __forceinline__ T group_sum(T v) {
#pragma unroll
    for (int offset = W / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(0xFFFFFFFFu, v, offset, W);
    return v;
}

// Read-only loads through the non-coherent cache path: the matrix is never written by SpMV.
template <class T> __device__ __forceinline__ T ldg(const T* p) { return __ldg(p); }

// The same loads with an L2 eviction hint: "evict these lines first". For data read exactly once
// (the matrix's columns and values) while other data is read again and again (x, gathered), so
// that the streamed lines leave the L2 before x's do. The hint is a 64-bit cache policy made once
// by createpolicy and carried by each load (PTX: ld.global.nc.L2::cache_hint). Both need sm_80 or
// later; compiled for an older GPU (the Makefile also builds sm_75) they are plain loads.
__device__ __forceinline__ uint64_t l2_evict_first_policy() {
    uint64_t policy = 0;
#if __CUDA_ARCH__ >= 800
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
#endif
    return policy;
}
// One load for every 4- or 8-byte type (int, float, double): the bits are loaded and reinterpreted.
template <class T> __device__ __forceinline__ T ldg_hint(const T* p, uint64_t policy) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "a 4- or 8-byte element");
#if __CUDA_ARCH__ >= 800
    T v;
    if constexpr (sizeof(T) == 4) {
        uint32_t bits;
        asm("ld.global.nc.L2::cache_hint.b32 %0, [%1], %2;" : "=r"(bits) : "l"(p), "l"(policy));
        memcpy(&v, &bits, 4);
    } else {
        uint64_t bits;
        asm("ld.global.nc.L2::cache_hint.b64 %0, [%1], %2;" : "=l"(bits) : "l"(p), "l"(policy));
        memcpy(&v, &bits, 8);
    }
    return v;
#else
    return __ldg(p);
#endif
}

// ---- merge-path pieces of spmv_05 (its tile walk and its partition search) ---------------------
// Host and device, so that tests/lesson03_spmv_host.cu runs them over whole matrices. Templates
// and inline functions only: a version that does not call them gets no code from them.
namespace merge {

// Tile-local merge-path search in 32 bits: how many of the tile's `rows` row ends come before its
// merge item `diag`, where row_end[i] is row i's end counted in the tile's own nonzeros (0..nnz).
// Row end i comes before nonzero k exactly when row_end[i] <= k. The answer lies in [lo, hi].
// (A template so that only the programs calling it compile it.)
template <class Index>
__host__ __device__ __forceinline__ Index search_local(Index diag, Index rows, Index nnz, const Index* row_end) {
    Index lo = diag > nnz ? diag - nnz : 0, hi = diag < rows ? diag : rows;
    while (lo < hi) {
        const Index mid = (lo + hi) >> 1;   // mid < hi <= rows: row end mid exists
        if (row_end[mid] <= diag - mid - 1) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// One thread's walk over `count` merge items (kFull: count == kItems, no per-item test), from
// row i and tile-local nonzero j, on a staged tile: row_end[0..rows) are the row ends in tile
// nonzeros and row_end[rows] a sentinel above every nonzero index; prod[j] is nonzero j's product
// and prod[nnz] one readable slot past the last. A row end (row_end[i] <= j) stores the running sum
// to y[i] and restarts it; a nonzero adds prod[j]. The next row end and the next product ride in
// registers (re, p), so an item costs one shared load, not two. No bounds tests are needed: the
// sentinel never counts as a row end (i stops at rows), and while rows remain a nonzero is taken
// only when j < its row's end <= nnz; once i == rows, the path has exactly nnz - j items left.
template <int kItems, bool kFull, class T>
__host__ __device__ __forceinline__ void walk(const int* row_end, const T* prod, T* y, int& i, int& j, int count,
                                              T& sum) {
    int re = row_end[i];
    T p = prod[j];
#pragma unroll
    for (int u = 0; u < kItems; ++u) {
        if (kFull || u < count) {
            if (re <= j) {   // row i ends before nonzero j
                y[i] = sum;
                sum = T(0);
                ++i;
                re = row_end[i];
            } else {
                sum += p;
                ++j;
                p = prod[j];
            }
        }
    }
}

// Partition search with a guess (spmv_05's partition_tiles). On a matrix of near-equal rows the
// merge path is nearly a straight line: diagonal d crosses it at about d * rows / (rows + nnz) row ends.
// In floating point: d * rows overflows 64 bits near the 32-bit index limits; a guess need not be exact.
__host__ __device__ __forceinline__ int64_t linear_guess(int64_t d, int64_t rows, int64_t nnz) {
    return int64_t(double(d) * double(rows) / double(rows + nnz));
}

// The row end probed by lane `gl` of a group of G, in [lo, hi) (the caller has lo < hi). First
// step: lanes 0 .. G/2 - 1 probe around the guess at offsets -1, 0, -G, G - 1, -G^2, G^2 - 1, ...
// (a matrix of equal rows is done in this one step, one whose crossing is within about G rows of
// the guess in two), lanes G/2 .. G - 1 split [lo, hi) into G/2 equal parts from lo (a matrix far
// from the line still shrinks its interval G/2-fold). Later steps: G evenly spaced points from lo,
// G-fold per step. Probes need not be sorted or distinct: the group keeps the largest
// passing probe and the smallest failing one (narrow_proposal).
template <int G>
__host__ __device__ __forceinline__ int64_t probe(int64_t lo, int64_t hi, int64_t guess, int gl, bool first) {
    int64_t m;
    if (!first) {
        m = lo + (hi - lo) * gl / G;
    } else if (gl < G / 2) {
        int64_t step = 1;   // G^(gl / 2)
        for (int e = 0; e < gl / 2; ++e) step *= G;
        m = gl % 2 ? guess + step - 1 : guess - step;
    } else {
        m = lo + (hi - lo) * (gl - G / 2) / (G / 2);
    }
    return m < lo ? lo : m >= hi ? hi - 1 : m;
}

// One lane's share of the narrowing: a probe m that passed (row end m comes before nonzero d-m-1:
// the answer is above m) proposes lo = m + 1, one that failed proposes hi = m. The group takes the
// largest lo and the smallest hi proposed (the test is monotone in m: they never cross).
__host__ __device__ __forceinline__ void narrow_proposal(bool passed, int64_t m, int64_t& lo, int64_t& hi) {
    if (passed) lo = m + 1;
    else hi = m;
}

}   // namespace merge

// ---- the matrix families ----------------------------------------------------------------------

// The first is the default: power-law rows exercise every path (short, medium and long rows).
inline std::vector<std::string> families() {
    return {"powerlaw", "random", "banded", "poisson2d", "empty_rows", "giant_row"};
}
// what `--dist file` (set by --matrix) shows in the output and CSV
inline const char* kFileDist = "file";

// `per_row` columns of [0, cols), sorted and distinct: one uniformly random column in each of
// `per_row` equal strata. Spreads a row over the whole of x (the gathers are random) without a
// sort or a duplicate check.
inline void stratified_columns(int32_t* out, int64_t count, int64_t cols, uint64_t seed, uint64_t row) {
    for (int64_t t = 0; t < count; ++t) {
        int64_t lo = t * cols / count, hi = (t + 1) * cols / count;   // hi > lo since count <= cols
        out[t] = int32_t(lo + int64_t(course::hash64(seed ^ 0xC01u, row * 131071u + uint64_t(t)) % uint64_t(hi - lo)));
    }
}

// Row lengths first (so the nonzero count is known and checked before anything big is built),
// then columns and values per row in parallel.
//   poisson2d   2-D 5-point Laplacian on a ceil(sqrt(n))-wide grid (values 4 and -1; per_row unused)
//   banded      per_row consecutive diagonals centred on the main one (shorter at the edges)
//   random      per_row random columns per row (stratified: distinct, sorted)
//   powerlaw    Pareto(alpha = 1.5) row lengths with mean ~per_row, capped at cols; random columns
//   empty_rows  rows n/4..n/2, the first and last row, and half the others at random are empty;
//               the rest have per_row random columns
//   giant_row   row n/3 holds every column; the others max(1, per_row/8) random columns
// The value of every stored entry is uniform in [-1, 1) except poisson2d's.
inline HostCsr generate_matrix(const std::string& family, int64_t rows, int64_t per_row, uint64_t seed) {
    HostCsr A;
    A.rows = rows;
    A.cols = rows;
    const int64_t cols = rows;
    const int64_t p = std::min<int64_t>(per_row, cols);
    const int64_t grid_w = std::max<int64_t>(1, int64_t(std::ceil(std::sqrt(double(rows)))));
    // The row arrays (8-byte lengths, 4-byte offsets) are asked for before they are allocated: a huge
    // --n on a small host is a one-line refusal, not std::bad_alloc. The nonzeros are checked below.
    course::require_host_memory(12.0 * double(rows + 1));
    std::vector<int64_t> row_len(static_cast<size_t>(rows));
    course::parallel_for(size_t(rows), [&](size_t r) {
        int64_t i = int64_t(r), L = 0;
        uint64_t h = course::hash64(seed ^ 0x7E11u, r);
        if (family == "poisson2d") {
            L = 1 + (i - grid_w >= 0) + (i % grid_w != 0) + ((i + 1) % grid_w != 0 && i + 1 < rows) +
                (i + grid_w < rows);
        } else if (family == "banded") {
            int64_t lo = std::max<int64_t>(0, i - p / 2), hi = std::min<int64_t>(cols, i - p / 2 + p);
            L = std::max<int64_t>(0, hi - lo);
        } else if (family == "random") {
            L = p;
        } else if (family == "powerlaw") {
            double u = 1.0 - course::unit_double(h);   // (0, 1]
            double xm = double(per_row) / 3.0;         // Pareto mean = alpha xm / (alpha - 1) = 3 xm
            L = std::min<int64_t>(cols, int64_t(std::floor(xm * std::pow(u, -1.0 / 1.5))));
        } else if (family == "empty_rows") {
            bool empty = i == 0 || i == rows - 1 || (i >= rows / 4 && i < rows / 2) || (h & 1);
            L = empty ? 0 : p;
        } else if (family == "giant_row") {
            L = i == rows / 3 ? cols : std::min<int64_t>(cols, std::max<int64_t>(1, per_row / 8));
        }
        row_len[r] = L;
    });
    int64_t total = 0;
    A.row_ptr.assign(size_t(rows) + 1, 0);
    for (int64_t r = 0; r < rows; ++r) {
        total += row_len[size_t(r)];
        if (total > kMaxIndex)
            throw course::SkipCase("more than 2^31 - 1 nonzeros (this lesson's CSR uses 32-bit indices)");
        A.row_ptr[size_t(r) + 1] = int32_t(total);
    }
    course::require_host_memory(double(total) * (4 + 8 + 8 + 8) + 48.0 * double(rows));
    A.col.resize(size_t(total));
    A.val.resize(size_t(total));
    course::parallel_for(size_t(rows), [&](size_t r) {
        int64_t i = int64_t(r), b = A.row_ptr[r], L = row_len[r];
        int32_t* c = A.col.data() + b;
        double* v = A.val.data() + b;
        if (family == "poisson2d") {
            int k = 0;
            auto put = [&](int64_t j, double a) {
                c[k] = int32_t(j);
                v[k] = a;
                ++k;
            };
            if (i - grid_w >= 0) put(i - grid_w, -1.0);
            if (i % grid_w != 0) put(i - 1, -1.0);
            put(i, 4.0);
            if ((i + 1) % grid_w != 0 && i + 1 < rows) put(i + 1, -1.0);
            if (i + grid_w < rows) put(i + grid_w, -1.0);
            return;
        }
        if (family == "banded") {
            int64_t lo = std::max<int64_t>(0, i - p / 2);
            for (int64_t t = 0; t < L; ++t) c[t] = int32_t(lo + t);
        } else if (family == "giant_row" && L == cols) {
            for (int64_t t = 0; t < L; ++t) c[t] = int32_t(t);
        } else {
            stratified_columns(c, L, cols, seed, r);
        }
        for (int64_t t = 0; t < L; ++t)
            v[t] = course::uniform_value<double>(course::hash64(seed ^ 0xA11u, uint64_t(b + t)));
    });
    return A;
}

// x: uniform in [-1, 1) (random signs: a wrong term cannot hide behind all-ones symmetry).
template <class T> std::vector<T> make_x(int64_t cols, uint64_t seed) {
    std::vector<T> x(static_cast<size_t>(cols));
    course::parallel_for(size_t(cols),
                         [&](size_t j) { x[j] = course::uniform_value<T>(course::hash64(seed ^ 0x5EEDu, j)); });
    return x;
}

// ---- the CPU reference ------------------------------------------------------------------------

// ref_i = sum_j a_ij x_j and scale_i = sum_j |a_ij x_j|, both in double, from the values exactly
// as the GPU sees them (`val` already rounded to T).
template <class T>
void reference(const HostCsr& A, const std::vector<T>& val, const std::vector<T>& x, std::vector<double>& ref,
               std::vector<double>& scale) {
    ref.assign(size_t(A.rows), 0.0);
    scale.assign(size_t(A.rows), 0.0);
    course::parallel_for(size_t(A.rows), [&](size_t i) {
        double s = 0, a = 0;
        for (int64_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
            double t = double(val[size_t(k)]) * double(x[size_t(A.col[size_t(k)])]);
            s += t;
            a += std::fabs(t);
        }
        ref[i] = s;
        scale[i] = a;
    });
}

template <class T>
course::CheckResult check_y(const std::vector<T>& got, const std::vector<double>& ref,
                            const std::vector<double>& scale) {
    bool f32 = std::is_same_v<T, float>;
    return course::compare_close(got.data(), ref.data(), scale.data(), got.size(), f32 ? kRelTolF32 : kRelTolF64,
                                 f32 ? kAbsTolF32 : kAbsTolF64, "rows");
}

// Bytes SpMV must move: the matrix (values, column indices, row offsets) once, x once (a lower
// bound: a gather may fetch parts of x many times) and y written once.
inline double problem_bytes(int64_t rows, int64_t cols, int64_t nnz, size_t elem) {
    return double(nnz) * double(elem + 4) + double(rows + 1) * 4 + double(cols) * elem + double(rows) * elem;
}

// ---- one case on the device -------------------------------------------------------------------

// A --matrix file, read and checked once during validation (so a bad file exits 2 before the GPU
// is looked for), then used by the trial.
inline std::shared_ptr<HostCsr>& file_matrix() {
    static std::shared_ptr<HostCsr> m;
    return m;
}

template <class T> class SpmvTrial : public course::Trial {
public:
    SpmvTrial(const course::Options& o, const course::Case& c, Launcher<T> fn) : fn_(fn) {
        if (c.dist == kFileDist) {
            A_ = file_matrix();
        } else {
            if (c.n > uint64_t(kMaxIndex))
                throw course::SkipCase("more than 2^31 - 1 rows (this lesson's CSR uses 32-bit indices)");
            A_ = std::make_shared<HostCsr>(generate_matrix(c.dist, int64_t(c.n), int64_t(c.param), o.seed));
        }
        const HostCsr& A = *A_;
        n = uint64_t(A.rows);
        bytes = problem_bytes(A.rows, A.cols, int64_t(A.nnz()), sizeof(T));
        course::require_device_memory(bytes);
        val_.resize(A.nnz());
        course::parallel_for(A.nnz(), [&](size_t k) { val_[k] = T(A.val[k]); });
        x_ = make_x<T>(A.cols, o.seed);
        d_row_ptr_ = course::DeviceArray<int>(A.row_ptr.size());
        d_col_ = course::DeviceArray<int>(A.nnz());
        d_val_ = course::DeviceArray<T>(A.nnz());
        d_x_ = course::DeviceArray<T>(size_t(A.cols));
        d_y_ = course::DeviceArray<T>(size_t(A.rows));
        d_row_ptr_.upload(A.row_ptr.data(), A.row_ptr.size());
        d_col_.upload(A.col.data(), A.nnz());
        d_val_.upload(val_);
        d_x_.upload(x_);
        dev_.rows = int(A.rows);
        dev_.cols = int(A.cols);
        dev_.nnz = int(A.nnz());
        dev_.row_ptr = d_row_ptr_.data();
        dev_.col = d_col_.data();
        dev_.val = d_val_.data();
    }
    void run() override { fn_(dev_, d_x_.data(), d_y_.data()); }
    void poison() override { d_y_.poison(); }
    course::CheckResult check() override {
        std::vector<T> got = d_y_.download();
        if (ref_.size() != got.size()) reference(*A_, val_, x_, ref_, scale_);
        return check_y(got, ref_, scale_);
    }
    void save(const std::string& path) override {
        std::vector<T> got = d_y_.download();
        course::save_npy(path, got.data(), got.size());
    }

private:
    Launcher<T> fn_;
    std::shared_ptr<HostCsr> A_;
    std::vector<T> val_, x_;
    std::vector<double> ref_, scale_;
    course::DeviceArray<int> d_row_ptr_, d_col_;
    course::DeviceArray<T> d_val_, d_x_, d_y_;
    Csr<T> dev_;
};

// ---- the program ------------------------------------------------------------------------------

// The battery: awkward row counts on every family; 2^22 rows x 16 (64M nonzeros) on two families
// and a 2M-entry row in the full battery; float64 where the version offers it.
inline std::vector<course::Case> battery(const course::Options& o, bool has_f64) {
    std::vector<course::Case> cases;
    std::vector<uint64_t> rows = {0, 1, 2, 31, 32, 33, 1023, 1025, 4099, 1000003};
    if (o.quick) rows = {0, 1, 33, 1025, 100003};
    for (uint64_t n : rows)
        for (auto& fam : families()) {
            cases.push_back({n, fam, 16, "float32"});
            if (has_f64 && (n == 1025 || n == 100003 || n == 1000003)) cases.push_back({n, fam, 16, "float64"});
        }
    // Row lengths around the warp and the versions' group widths, on the families that use them.
    for (uint64_t per : {1ull, 3ull, 31ull, 33ull, 100ull, 1000ull})
        for (const char* fam : {"random", "powerlaw"})
            cases.push_back({o.quick ? 3001ull : 20011ull, fam, per, "float32"});
    if (!o.quick) {   // the headline size (64M nonzeros) on two families only: test time is shared
        cases.push_back({1ull << 22, "random", 16, "float32"});
        cases.push_back({1ull << 22, "powerlaw", 16, has_f64 ? "float64" : "float32"});
        if (has_f64) cases.push_back({1ull << 22, "random", 16, "float64"});   // x of 32 MB: over half an L2
        cases.push_back({1ull << 21, "giant_row", 16, "float32"});             // one row of 2M entries
    }
    return cases;
}

// The sweep: rows 2^10 .. 2^22 (x4) at the lesson parameter (16 nonzeros per row) on the three
// headline families; float64 too where offered.
inline std::vector<course::Case> sweep(const course::Options& o, bool has_f64) {
    std::vector<course::Case> cases;
    for (const char* fam : {"banded", "random", "powerlaw"})
        for (uint64_t n : course::sweep_sizes(uint64_t(1) << 22)) {
            cases.push_back({n, fam, o.param, "float32"});
            if (has_f64) cases.push_back({n, fam, o.param, "float64"});
        }
    return cases;
}

// `--gen NAME` is another spelling of `--dist NAME`; `--matrix F.mtx` runs on a file (shown as
// dist "file"). Rewritten here so that the shared parser sees only what it knows.
inline std::vector<std::string> rewrite_args(int argc, char** argv) {
    std::vector<std::string> args(argv, argv + argc);
    bool matrix = false;
    for (auto& a : args) {
        if (a == "--gen") a = "--dist";
        else if (a.rfind("--gen=", 0) == 0) a = "--dist=" + a.substr(6);
        if (a == "--matrix" || a.rfind("--matrix=", 0) == 0) matrix = true;
    }
    for (size_t i = 1; i < args.size(); ++i)   // --dist file is only reachable through --matrix
        if (args[i] == "--dist=" + std::string(kFileDist) ||
            (args[i] == "--dist" && i + 1 < args.size() && args[i + 1] == kFileDist))
            course::usage_error("give the file with --matrix F.mtx");
    if (matrix) {
        args.push_back("--dist");
        args.push_back(kFileDist);
    }
    return args;
}

inline int run_lesson(int argc, char** argv, const char* version, Launcher<float> f32, Launcher<double> f64 = nullptr) {
    course::LessonDef def;
    def.lesson = "03_spmv";
    def.version = version;
    def.cli.program = version;
    def.cli.summary = "sparse matrix times vector y = A x, CSR, float32" + std::string(f64 ? " or float64" : "");
    def.cli.dists = families();
    def.cli.dists.push_back(kFileDist);
    def.cli.dtypes = course::type_names(Types{});
    if (!f64) def.cli.dtypes.resize(1);   // float32 alone
    def.cli.param_name = "per_row";
    def.cli.param_default = 16;
    def.cli.param_min = 1;
    def.cli.param_max = 1 << 20;
    def.cli.n_default = uint64_t(1) << 22;
    def.cli.extras = {
        {"gen", true, "matrix family, same as --dist: " + course::join(families())},
        {"matrix", true, "Matrix Market file F.mtx (coordinate real/integer/pattern, general/symmetric)"}};
    def.validate = [](const course::Options& o) {
        if (!o.input.empty())
            throw course::UsageError("--input is not supported for SpMV: give a matrix with --matrix F.mtx");
        if (o.has("matrix")) {
            if (o.test || o.sweep) throw course::UsageError("--matrix runs one case: drop --test/--sweep");
            if (o.n_given) throw course::UsageError("--matrix sets the size from the file: drop --n");
            try {
                file_matrix() = std::make_shared<HostCsr>(read_mtx(o.get("matrix")));
            } catch (const MtxError& e) { throw course::UsageError(e.what()); }
        }
    };
    def.battery = [f64](const course::Options& o) { return battery(o, f64 != nullptr); };
    def.sweep = [f64](const course::Options& o) { return sweep(o, f64 != nullptr); };
    def.make_trial = [=](const course::Options& o, const course::Case& c) -> std::unique_ptr<course::Trial> {
        const course::Launchers<Launcher, float, double> fns{f32, f64};
        return course::dispatch_type(c.dtype, Types{}, [&](auto tag) -> std::unique_ptr<course::Trial> {
            using T = typename decltype(tag)::type;
            return std::make_unique<SpmvTrial<T>>(o, c, fns.template get<T>());
        });
    };
    std::vector<std::string> args = rewrite_args(argc, argv);
    std::vector<char*> ptrs;
    for (auto& a : args) ptrs.push_back(const_cast<char*>(a.c_str()));
    return course::drive(int(ptrs.size()), ptrs.data(), def);
}

}   // namespace spmv
