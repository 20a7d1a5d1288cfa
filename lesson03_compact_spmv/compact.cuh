// lesson03_compact_spmv/compact.cuh — two applications of scan, as problems: stream compaction
// (namespace compact) and allocate/expand (namespace expand). For each: the semantics, the input
// shapes, the CPU reference (the checker), the battery, the sweep, the bytes the problem must move,
// a Trial and run_lesson(). The kernels are in the versions' files (expand's merge-path pieces
// that several share: expand_path.cuh); SpMV, the lesson's third part, has its own header (spmv.cuh).
//
// Compaction semantics (README.md, "semantics card"):
//   out = the elements x of in[0, n) with keep(x, pct), in their input order (a stable select-if);
//   *count = how many were kept. keep() hashes the VALUE, so a test's selectivity is "pct percent"
//   on random data while equal values always get the same answer (and 'equal' keeps all or none).
//   int32 only; n from 0 to 2^31 - 1 (counts and offsets are 32-bit); out has room for n.
//   Bytes the problem must move: 4n read + 4*kept written + the 4-byte count.
//
// Expand (allocate) semantics:
//   input counts[0, n) (int32, each >= 0); output out[0, total) with total = sum of counts, where
//   item i's index i appears counts[i] times, items in order:  counts {2,0,3} -> {0,0,2,2,2}.
//   n up to 2^31 - 1 (the index is int32); total up to 2^32 - 1 (offsets are 32-bit) and what fits
//   in GPU memory: a larger total is refused with one clear line (exit 2).
//   The caller passes `total` (it must allocate the output, so it knows it: in an application it is
//   the last offset of the scan, one 4-byte read-back). Bytes: 4n read + 4*total written.
//
// What one run does (common/driver.cuh drives it; CompactTrial and ExpandTrial are the problems'
// part): generate the input on the CPU (a hash of seed and index; compaction also computes its
// reference), upload it; poison the outputs, run the launcher once and check (--test: twice);
// warm up, time the launcher alone with CUDA events (L2 flushed before each repetition, median
// reported, GB/s from the bytes above, % of a copy measured in the same run); check again after.
#pragma once
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "../common/harness.cuh"

// ================================================================================================
namespace compact {

// ---- the predicate -----------------------------------------------------------------------------
// keep x when hash(x) % 100 < pct. A multiply-xorshift hash of the value (cheap on the GPU: two
// multiplies, two shifts and a multiply-high for the % 100), so the kept fraction is pct percent on
// random inputs and no version can guess the pattern from the index.
__host__ __device__ inline uint32_t value_hash(int32_t x) {
    uint32_t h = uint32_t(x) * 0x9E3779B1u;
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    return h;
}
__host__ __device__ inline bool keep(int32_t x, uint32_t pct) { return value_hash(x) % 100u < pct; }

// The device functor (CUB and the kernels take it by value).
struct KeepPct {
    uint32_t pct;
    __host__ __device__ bool operator()(int32_t x) const { return keep(x, pct); }
};

// Every version: device pointers; writes the kept elements to d_out[0, count) and count to *d_count.
// Scratch comes from course::scratch(); nothing is allocated in the timed runs.
using Launcher = void (*)(const int32_t* d_in, int32_t* d_out, uint32_t* d_count, size_t n, uint32_t pct);

// ---- packed keep flags (compact_03's in-warp offsets) -----------------------------------------
// A thread of compact_03 holds rows of 4 elements (row j, element k). Its keep flags live in 32-bit
// words, one BYTE per row: the flag of (j, k) is bit 8 (j % 4) + k of word j / 4 (low nibble used,
// high nibble always 0). A byte per row is what lets a warp scan four rows' counts at once: the
// per-row counts are 0..4, their sums over 32 lanes at most 128, so adding two packed words adds
// the four bytes independently (no carry ever crosses into the next byte). These functions are
// shared by the kernel and tests/lesson03_compact_host.cu, which runs them on the host.
__host__ __device__ constexpr uint32_t flag_bit(int j, int k) { return 1u << (8 * (j % 4) + k); }
__host__ __device__ constexpr uint32_t byte_of(uint32_t w, int i) { return (w >> (8 * i)) & 0xFFu; }

// Per byte, how many of its low 4 bits are set (0..4): a SWAR popcount, pairs of bits then the two
// pair counts. The high nibble is never looked at.
__host__ __device__ constexpr uint32_t row_counts(uint32_t flags) {
    const uint32_t pairs = (flags & 0x05050505u) + ((flags >> 1) & 0x05050505u);   // bits 0+1 and 2+3
    return (pairs & 0x03030303u) + ((pairs >> 2) & 0x03030303u);
}

// The four bytes of a packed word added up (a warp's kept count over four rows: at most 512).
__host__ __device__ constexpr uint32_t bytes_sum(uint32_t w) {
    return byte_of(w, 0) + byte_of(w, 1) + byte_of(w, 2) + byte_of(w, 3);
}

// One lane's part of staging its warp's kept elements, given the scan of the packed counts:
// excl[w] = the counts of the lanes below (per row byte), tot[w] = the whole warp's counts. Row j of
// this lane starts after all kept elements of rows 0..j-1 (every lane) and those of row j in the
// lanes below; inside the row, element k follows the lane's own kept elements before k. Writes
// x[j][k] for each kept (j, k) to its place in run[] (the warp's run: run[0] is its first kept
// element). A pointer that moves on by one per kept element, rather than run[index]: it keeps the
// address arithmetic to one add per store.
template <int kVecs, class T>
__host__ __device__ __forceinline__ void stage_kept(const uint32_t* flags, const uint32_t* excl, const uint32_t* tot,
                                                    const T (*x)[4], T* run) {
    T* row = run;   // the first slot of row j (all lanes)
#pragma unroll
    for (int j = 0; j < kVecs; ++j) {
        T* dst = row + byte_of(excl[j / 4], j % 4);
#pragma unroll
        for (int k = 0; k < 4; ++k)
            if (flags[j / 4] & flag_bit(j, k)) *dst++ = x[j][k];
        row += byte_of(tot[j / 4], j % 4);
    }
}

constexpr uint64_t kMaxN = (uint64_t(1) << 31) - 1;

inline std::vector<std::string> dists() { return course::common_dists(); }

// ---- the CPU reference -------------------------------------------------------------------------
// Two passes over per-thread chunks (count, then write at the chunk's offset): the same structure
// as the three-kernel GPU version, so 2^31 elements are checked in about a second.
inline std::vector<int32_t> reference(const std::vector<int32_t>& in, uint32_t pct) {
    size_t n = in.size();
    unsigned chunks = course::cpu_threads();
    size_t per = (n + chunks - 1) / chunks;
    std::vector<size_t> kept(chunks + 1, 0);
    course::parallel_chunks(
        chunks,
        [&](size_t cb, size_t ce, unsigned) {
            for (size_t c = cb; c < ce; ++c) {
                size_t b = std::min(n, c * per), e = std::min(n, b + per), k = 0;
                for (size_t i = b; i < e; ++i) k += keep(in[i], pct);
                kept[c + 1] = k;
            }
        },
        1);
    for (unsigned c = 0; c < chunks; ++c) kept[c + 1] += kept[c];
    std::vector<int32_t> out(kept[chunks]);
    course::parallel_chunks(
        chunks,
        [&](size_t cb, size_t ce, unsigned) {
            for (size_t c = cb; c < ce; ++c) {
                size_t b = std::min(n, c * per), e = std::min(n, b + per), o = kept[c];
                for (size_t i = b; i < e; ++i)
                    if (keep(in[i], pct)) out[o++] = in[i];
            }
        },
        1);
    return out;
}

// The checker: the count first (a wrong count is reported as such), then the kept elements in
// order, exactly. `got` holds at least min(got_count, expected.size()) elements.
inline course::CheckResult check(const int32_t* got, uint64_t got_count, const std::vector<int32_t>& expected) {
    std::string prefix;
    if (got_count != expected.size())
        prefix = "count is " + std::to_string(got_count) + ", expected " + std::to_string(expected.size()) + "; ";
    size_t m = size_t(std::min<uint64_t>(got_count, expected.size()));
    course::CheckResult r = course::compare_exact(got, expected.data(), m, "kept elements");
    if (prefix.empty()) return r;
    return course::CheckResult::fail(prefix + (r.ok ? "the first " + std::to_string(m) + " match" : r.message));
}

// ---- one case on the device --------------------------------------------------------------------
struct Limits {
    double scratch_bytes_per_item = 0;   // e.g. 8 for the three-kernel version (flags + offsets)
    bool huge_test = false;              // put the n = 2^31 - 1 case in the full battery
    uint64_t tile = 4096;                // the version's tile: the battery tests n = tile - 1, tile, tile + 1
};

class CompactTrial : public course::Trial {
public:
    CompactTrial(const course::Options& o, const course::Case& c, Launcher fn, Limits lim)
        : fn_(fn), pct_(uint32_t(c.param)) {
        if (!o.input.empty()) input_ = course::load_npy<int32_t>(o.input);
        else {
            course::require_host_memory(4.0 * c.n * 2.2);
            course::generate(input_, c.n, c.dist, o.seed);
        }
        n = input_.size();
        if (n > kMaxN)
            throw course::UsageError("n=" + std::to_string(n) +
                                     " is beyond compaction's limit of 2^31 - 1 "
                                     "(32-bit counts and offsets)");
        expected_ = reference(input_, pct_);
        bytes = 4.0 * n + 4.0 * expected_.size() + 4.0;
        course::require_device_memory(8.0 * n + lim.scratch_bytes_per_item * n);
        d_in_ = course::DeviceArray<int32_t>(n);
        d_out_ = course::DeviceArray<int32_t>(std::max<size_t>(n, 1));
        d_count_ = course::DeviceArray<uint32_t>(1);
        d_in_.upload(input_);
    }
    void run() override { fn_(d_in_.data(), d_out_.data(), d_count_.data(), n, pct_); }
    void poison() override {
        d_out_.poison();
        d_count_.poison();
    }
    course::CheckResult check() override {
        uint64_t count = d_count_.download(1)[0];
        std::vector<int32_t> got =
            d_out_.download(size_t(std::min<uint64_t>(count, std::min<size_t>(n, expected_.size()))));
        return compact::check(got.data(), count, expected_);
    }
    void save(const std::string& path) override {
        uint64_t count = std::min<uint64_t>(d_count_.download(1)[0], n);
        std::vector<int32_t> got = d_out_.download(size_t(count));
        course::save_npy(path, got.data(), got.size());
    }

private:
    Launcher fn_;
    uint32_t pct_;
    std::vector<int32_t> input_, expected_;
    course::DeviceArray<int32_t> d_in_, d_out_;
    course::DeviceArray<uint32_t> d_count_;
};

// ---- the program -------------------------------------------------------------------------------
inline int run_lesson(int argc, char** argv, const char* version, Launcher fn, Limits lim = {}) {
    course::LessonDef def;
    def.lesson = "03_compact";
    def.version = version;
    def.cli.program = version;
    def.cli.summary = "stream compaction: keep the int32 x with hash(x) % 100 < pct, in order";
    def.cli.dists = dists();
    def.cli.dtypes = {"int32"};
    def.cli.param_name = "pct";
    def.cli.param_default = 50;
    def.cli.param_min = 0;
    def.cli.param_max = 100;
    def.beyond_limit = [](const course::Case& c) -> std::string {
        if (c.n <= kMaxN) return "";
        return "n=" + std::to_string(c.n) + " is beyond compaction's limit of 2^31 - 1 (32-bit counts and offsets)";
    };
    def.battery = [lim](const course::Options& o) {
        std::vector<course::Case> cases;
        const uint64_t tile = lim.tile;   // the tile of the version (4096 unless it says otherwise)
        for (uint64_t n : course::battery_sizes(tile, o.quick)) {
            if (n >= (uint64_t(1) << 24)) {   // large sizes: few cases
                cases.push_back({n, "uniform", 10, "int32"});
                cases.push_back({n, "uniform", 50, "int32"});
                continue;
            }
            for (uint64_t pct : {0, 1, 10, 50, 90, 100}) cases.push_back({n, "uniform", pct, "int32"});
            if (n <= tile + 1 || n == (uint64_t(1) << 20))
                for (const char* d : {"sorted", "equal", "few", "extremes"}) cases.push_back({n, d, 50, "int32"});
        }
        if (!o.quick && lim.huge_test) cases.push_back({kMaxN, "uniform", 10, "int32"});   // 64-bit indexing
        return cases;
    };
    def.sweep = [](const course::Options& o) {
        std::vector<course::Case> cases;
        std::vector<uint64_t> pcts = o.param_given ? std::vector<uint64_t>{o.param} : std::vector<uint64_t>{10, 50};
        for (uint64_t n : course::sweep_sizes())
            for (uint64_t p : pcts) cases.push_back({n, o.dist, p, "int32"});
        return cases;
    };
    def.make_trial = [=](const course::Options& o, const course::Case& c) -> std::unique_ptr<course::Trial> {
        return std::make_unique<CompactTrial>(o, c, fn, lim);
    };
    return course::drive(argc, argv, def);
}

}   // namespace compact

// ================================================================================================
namespace expand {

// Every version: counts in, out[0, total) written. See the semantics at the top of the file.
using Launcher = void (*)(const int32_t* d_counts, size_t n, int32_t* d_out, size_t total);

constexpr uint64_t kMaxN = (uint64_t(1) << 31) - 1;
constexpr uint64_t kMaxTotal = 0xFFFFFFFFull;

// Count distributions (the input shapes of this part):
//   uniform   0..8, mean 4: the easy case
//   zeros     95% zeros, the rest 1..64: most items ask for nothing
//   powerlaw  Pareto(1.5) minus 1: about 65% zeros, a heavy tail of a few huge counts
//   one       one item (at a random place) holds everything (4n), all others 0
inline std::vector<std::string> dists() { return {"uniform", "zeros", "powerlaw", "one"}; }

inline bool generate_counts(std::vector<int32_t>& out, size_t n, const std::string& dist, uint64_t seed) {
    out.assign(n, 0);
    int32_t* p = out.data();
    if (dist == "uniform") {
        course::parallel_for(n, [&](size_t i) { p[i] = int32_t(course::hash64(seed, i) % 9); });
    } else if (dist == "zeros") {
        course::parallel_for(n, [&](size_t i) {
            uint64_t h = course::hash64(seed, i);
            p[i] = (h % 100) < 95 ? 0 : int32_t(1 + (h >> 32) % 64);
        });
    } else if (dist == "powerlaw") {
        course::parallel_for(n, [&](size_t i) {
            double u = course::unit_double(course::hash64(seed, i));   // [0, 1)
            double x = std::pow(1.0 - u, -1.0 / 1.5);                  // Pareto(1.5) >= 1
            p[i] = int32_t(std::min(x - 1.0, double(1 << 26)));
        });
    } else if (dist == "one") {
        if (n) p[course::hash64(seed, 0x0e) % n] = int32_t(std::min<uint64_t>(4 * uint64_t(n), 0x7FFFFFFF));
    } else {
        return false;
    }
    return true;
}

inline uint64_t total_of(const std::vector<int32_t>& counts) {
    std::vector<uint64_t> part(course::cpu_threads(), 0);
    course::parallel_chunks(counts.size(), [&](size_t b, size_t e, unsigned t) {
        uint64_t s = 0;
        for (size_t i = b; i < e; ++i) s += uint64_t(uint32_t(counts[i]));
        part[t] = s;
    });
    uint64_t s = 0;
    for (auto v : part) s += v;
    return s;
}

// The reference, written plainly (the host tests compare the checker against it).
inline std::vector<int32_t> reference(const std::vector<int32_t>& counts) {
    std::vector<int32_t> out;
    out.reserve(size_t(total_of(counts)));
    for (size_t i = 0; i < counts.size(); ++i)
        for (int32_t k = 0; k < counts[i]; ++k) out.push_back(int32_t(i));
    return out;
}

// The checker, without building the expected output: item i's run [off_i, off_i + counts[i]) must
// hold i; the runs tile [0, total), so every output position is checked exactly once. `got` has
// `got_size` elements (which must equal the total).
inline course::CheckResult check(const int32_t* got, uint64_t got_size, const std::vector<int32_t>& counts) {
    size_t n = counts.size();
    uint64_t total = total_of(counts);
    if (got_size != total)
        return course::CheckResult::fail("output has " + std::to_string(got_size) + " elements, expected " +
                                         std::to_string(total));
    unsigned chunks = course::cpu_threads();
    size_t per = (n + chunks - 1) / std::max(chunks, 1u);
    std::vector<uint64_t> start(chunks + 1, 0);
    course::parallel_chunks(
        chunks,
        [&](size_t cb, size_t ce, unsigned) {
            for (size_t c = cb; c < ce; ++c) {
                size_t b = std::min(n, c * per), e = std::min(n, b + per);
                uint64_t s = 0;
                for (size_t i = b; i < e; ++i) s += uint64_t(counts[i]);
                start[c + 1] = s;
            }
        },
        1);
    for (unsigned c = 0; c < chunks; ++c) start[c + 1] += start[c];
    course::MismatchLog log("outputs");
    course::parallel_chunks(
        chunks,
        [&](size_t cb, size_t ce, unsigned) {
            for (size_t c = cb; c < ce; ++c) {
                size_t b = std::min(n, c * per), e = std::min(n, b + per);
                uint64_t o = start[c];
                for (size_t i = b; i < e; ++i)
                    for (int32_t k = 0; k < counts[i]; ++k, ++o)
                        if (got[o] != int32_t(i)) log.add(size_t(o), course::show(int32_t(i)), course::show(got[o]));
            }
        },
        1);
    return log.result(size_t(total));
}

// ---- one case on the device --------------------------------------------------------------------
struct Limits {
    uint64_t max_n_one = kMaxN;          // thread per item: one thread writes all of 'one'
    double scratch_bytes_per_item = 4;   // the offsets
    bool huge_test = false;              // put n = 2^28 (2^30 outputs, 4 GiB) in the full battery
};

class ExpandTrial : public course::Trial {
public:
    ExpandTrial(const course::Options& o, const course::Case& c, Launcher fn, Limits lim) : fn_(fn) {
        if (!o.input.empty()) {
            counts_ = course::load_npy<int32_t>(o.input);
            for (size_t i = 0; i < counts_.size(); ++i)
                if (counts_[i] < 0)
                    throw course::UsageError("count[" + std::to_string(i) + "] = " + std::to_string(counts_[i]) +
                                             " is negative: counts must be >= 0");
        } else {
            course::require_host_memory(4.0 * c.n);
            generate_counts(counts_, c.n, c.dist, o.seed);
        }
        n = counts_.size();
        if (n > kMaxN)
            throw course::UsageError("n=" + std::to_string(n) + " items is beyond expand's limit of 2^31 - 1");
        total_ = total_of(counts_);
        if (total_ > kMaxTotal)
            throw course::SkipCase("the counts add up to " + std::to_string(total_) +
                                   " outputs, beyond the 2^32 - 1 that 32-bit offsets can address");
        course::require_host_memory(4.0 * n + 4.0 * total_);
        bytes = 4.0 * n + 4.0 * total_;
        course::require_device_memory(bytes + lim.scratch_bytes_per_item * n);
        d_counts_ = course::DeviceArray<int32_t>(n);
        d_out_ = course::DeviceArray<int32_t>(std::max<size_t>(total_, 1));
        d_counts_.upload(counts_);
    }
    void run() override { fn_(d_counts_.data(), n, d_out_.data(), size_t(total_)); }
    void poison() override { d_out_.poison(); }
    course::CheckResult check() override {
        std::vector<int32_t> got = d_out_.download(size_t(total_));
        return expand::check(got.data(), got.size(), counts_);
    }
    void save(const std::string& path) override {
        std::vector<int32_t> got = d_out_.download(size_t(total_));
        course::save_npy(path, got.data(), got.size());
    }

private:
    Launcher fn_;
    std::vector<int32_t> counts_;
    uint64_t total_ = 0;
    course::DeviceArray<int32_t> d_counts_, d_out_;
};

inline int run_lesson(int argc, char** argv, const char* version, Launcher fn, Limits lim = {}) {
    course::LessonDef def;
    def.lesson = "03_expand";
    def.version = version;
    def.cli.program = version;
    def.cli.summary = "allocate/expand: write item i's index counts[i] times, items in order";
    def.cli.dists = dists();
    def.cli.dtypes = {"int32"};
    def.cli.n_default = uint64_t(1) << 24;
    def.beyond_limit = [lim](const course::Case& c) -> std::string {
        if (c.n > kMaxN) return "n=" + std::to_string(c.n) + " items is beyond expand's limit of 2^31 - 1";
        if (c.dist == "one" && c.n > lim.max_n_one)
            return "dist 'one' with n=" + std::to_string(c.n) + " is beyond this version's limit of " +
                   std::to_string(lim.max_n_one) + " (one thread would write all " + std::to_string(4 * c.n) +
                   " outputs)";
        return "";
    };
    def.battery = [lim](const course::Options& o) {
        std::vector<course::Case> cases;
        const uint64_t tile = 4096;
        for (uint64_t n : course::battery_sizes(tile, o.quick)) {
            if (n == (uint64_t(1) << 28)) {   // output byte offsets past 2^32: the best versions only
                if (lim.huge_test) cases.push_back({n, "uniform", 0, "int32"});
                continue;
            }
            for (auto& d : dists()) cases.push_back({n, d, 0, "int32"});
        }
        return cases;
    };
    // Items up to 2^26 for 'uniform' and 'powerlaw' (uniform: 2^28 outputs, 1 GiB written: the other
    // lessons' headline size counted in output elements), up to 2^24 for 'zeros' and 'one' (sweep time).
    def.sweep = [](const course::Options& o) {
        std::vector<course::Case> cases;
        std::vector<std::string> ds = o.dist != dists().front() ? std::vector<std::string>{o.dist} : dists();
        for (uint64_t n : course::sweep_sizes(uint64_t(1) << 26))
            for (auto& d : ds)
                if (n <= (uint64_t(1) << 24) || d == "uniform" || d == "powerlaw" || ds.size() == 1)
                    cases.push_back({n, d, 0, "int32"});
        return cases;
    };
    def.make_trial = [=](const course::Options& o, const course::Case& c) -> std::unique_ptr<course::Trial> {
        return std::make_unique<ExpandTrial>(o, c, fn, lim);
    };
    return course::drive(argc, argv, def);
}

}   // namespace expand
