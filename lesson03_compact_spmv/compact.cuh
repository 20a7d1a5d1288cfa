// lesson03_compact_spmv/compact.cuh — two applications of scan in one place: stream compaction
// (namespace compact) and allocate/expand (namespace expand). For each: the semantics, the input
// shapes, the CPU reference (the checker), the battery, the sweep, the bytes the problem must move,
// a Trial and run_lesson(). SpMV, the lesson's third part, has its own header (spmv*.cuh).
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
#pragma once
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "../common/harness.cuh"
#include "../lesson02_scan/scan.cuh"

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
    course::parallel_chunks(chunks, [&](size_t cb, size_t ce, unsigned) {
        for (size_t c = cb; c < ce; ++c) {
            size_t b = std::min(n, c * per), e = std::min(n, b + per), k = 0;
            for (size_t i = b; i < e; ++i) k += keep(in[i], pct);
            kept[c + 1] = k;
        }
    }, 1);
    for (unsigned c = 0; c < chunks; ++c) kept[c + 1] += kept[c];
    std::vector<int32_t> out(kept[chunks]);
    course::parallel_chunks(chunks, [&](size_t cb, size_t ce, unsigned) {
        for (size_t c = cb; c < ce; ++c) {
            size_t b = std::min(n, c * per), e = std::min(n, b + per), o = kept[c];
            for (size_t i = b; i < e; ++i)
                if (keep(in[i], pct)) out[o++] = in[i];
        }
    }, 1);
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
            throw course::UsageError("n=" + std::to_string(n) + " is beyond compaction's limit of 2^31 - 1 "
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
    void poison() override { d_out_.poison(); d_count_.poison(); }
    course::CheckResult check() override {
        uint64_t count = d_count_.download(1)[0];
        std::vector<int32_t> got = d_out_.download(size_t(std::min<uint64_t>(count, std::min<size_t>(n, expected_.size()))));
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
            if (n >= (uint64_t(1) << 24)) {          // large sizes: few cases
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

}  // namespace compact

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
            double u = course::unit_double(course::hash64(seed, i));          // [0, 1)
            double x = std::pow(1.0 - u, -1.0 / 1.5);                          // Pareto(1.5) >= 1
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
    course::parallel_chunks(chunks, [&](size_t cb, size_t ce, unsigned) {
        for (size_t c = cb; c < ce; ++c) {
            size_t b = std::min(n, c * per), e = std::min(n, b + per);
            uint64_t s = 0;
            for (size_t i = b; i < e; ++i) s += uint64_t(counts[i]);
            start[c + 1] = s;
        }
    }, 1);
    for (unsigned c = 0; c < chunks; ++c) start[c + 1] += start[c];
    course::MismatchLog log("outputs");
    course::parallel_chunks(chunks, [&](size_t cb, size_t ce, unsigned) {
        for (size_t c = cb; c < ce; ++c) {
            size_t b = std::min(n, c * per), e = std::min(n, b + per);
            uint64_t o = start[c];
            for (size_t i = b; i < e; ++i)
                for (int32_t k = 0; k < counts[i]; ++k, ++o)
                    if (got[o] != int32_t(i)) log.add(size_t(o), course::show(int32_t(i)), course::show(got[o]));
        }
    }, 1);
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
                   std::to_string(lim.max_n_one) + " (one thread would write all " +
                   std::to_string(4 * c.n) + " outputs)";
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

// ---- the merge-path expansion (the best version's kernels; the wrong/ twin reuses them) -------
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
constexpr int kMpThreads = 256;
constexpr int kMpItems = 16;                           // merge steps per thread
constexpr int kMpTile = kMpThreads * kMpItems;         // merge steps per block

template <bool kTieToOutput>
__host__ __device__ inline bool output_first(uint64_t a, uint32_t b_end) {
    return kTieToOutput ? a <= b_end : a < b_end;
}

// The item ends, as the partition sees them (global memory) and as a block sees them (shared).
struct GlobalEnds {
    const uint32_t* off;   // exclusive offsets
    size_t n, total;
    __host__ __device__ uint32_t operator()(uint64_t i) const { return i + 1 < n ? off[i + 1] : uint32_t(total); }
};
struct LocalEnds {
    const uint32_t* ends;  // ends[b] = end of item b0 + b
    __host__ __device__ uint32_t operator()(uint64_t b) const { return ends[b]; }
};

// Merge-path search on diagonal d of the merge of outputs a_base, a_base + 1, ... (na of them)
// and item ends ends(0 .. nb-1): returns how many outputs are among the first d merged entries.
// Binary search on a in [max(0, d - nb), min(d, na)]: output `mid` comes before item end
// d - 1 - mid exactly when at least mid + 1 outputs are in the first d entries.
template <bool kTieToOutput, class Ends>
__host__ __device__ inline uint64_t merge_path_search(uint64_t a_base, Ends ends, uint64_t na, uint64_t nb, uint64_t d) {
    uint64_t lo = d > nb ? d - nb : 0, hi = d < na ? d : na;
    while (lo < hi) {
        uint64_t mid = (lo + hi) / 2;
        if (output_first<kTieToOutput>(a_base + mid, ends(d - 1 - mid))) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// The search as a functor, so the kernels can be given another one (exercises/expand_merge_path_search.cu).
template <bool kTieToOutput>
struct MergePathSearch {
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
        if (take_output) { stage[a] = int32_t(item_base + b); ++a; }
        else ++b;
    }
}

// Pass 1: one thread per block boundary finds where the block's piece of the path starts. Done in
// its own kernel so the ~log2(n) dependent global loads of all the searches overlap.
template <bool kTieToOutput, class Search>
__global__ void merge_path_partition(const uint32_t* off, size_t n, size_t total, size_t parts, uint2* starts) {
    size_t p = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (p > parts) return;
    uint64_t end = uint64_t(n) + total, d = uint64_t(p) * kMpTile;
    if (d > end) d = end;
    uint64_t a = Search{}(0, GlobalEnds{off, n, total}, total, n, d);
    starts[p] = make_uint2(uint32_t(a), uint32_t(d - a));
}

// Pass 2: block p walks its piece [starts[p], starts[p+1]) of the path. Its item ends go to shared
// memory (at most kMpTile of them), each thread finds its own start by a merge-path search there,
// walks kMpItems steps writing item numbers into a shared staging buffer, and the block then writes
// the staged outputs to global memory in order: consecutive threads, consecutive addresses.
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

// ---- expand_03: the same path from per-group offsets --------------------------------------------
// Where the path crosses item boundaries: right after item b-1's end is taken, exactly off[b]
// outputs are taken (every output below off[b] comes before that end), so the path passes through
// P_b = (off[b], b), on diagonal off[b] + b; from there it takes counts[b] outputs, then item b's
// end. So the point on diagonal d is (d - b, b) for the largest b with off[b] + b <= d. To find b
// it is enough to know off[] at every 32nd item (group_off[g] = off[32 g]): a binary search over
// the groups, then at most 32 counts added one by one. That is what lets expand_03 keep only
// n / 32 offsets instead of n.
constexpr int kGroup = 32;

struct PathPoint { uint64_t a, b, off_b; };   // outputs taken, items taken, off[b]

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
    while (b < n && o + uint64_t(counts[b]) + b + 1 <= d) { o += uint64_t(counts[b]); ++b; }
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
        for (int k = 0; k < 4; ++k) if (e + k < n) s += uint32_t(counts[e + k]);
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
template <int TILE = kMpTile>
uint4* group_starts(const int32_t* d_counts, size_t n, size_t total, unsigned& blocks) {
    size_t groups = (n + kGroup - 1) / kGroup;
    uint32_t* sums = course::scratch_as<uint32_t>(0, groups);
    uint32_t* group_off = course::scratch_as<uint32_t>(1, groups);
    bool aligned = reinterpret_cast<uintptr_t>(d_counts) % 16 == 0;
    group_sums<kSumThreads><<<course::blocks_for((n + 3) / 4, kSumThreads), kSumThreads>>>(d_counts, n, sums, aligned);
    CUDA_CHECK_LAST();
    scan::device_scan(sums, group_off, groups, scan::Kind::exclusive);
    blocks = course::blocks_for(n + total, TILE);
    uint4* starts = course::scratch_as<uint4>(2, size_t(blocks) + 1);
    group_partition_kernel<TILE><<<course::blocks_for(size_t(blocks) + 1, 256), 256>>>(group_off, d_counts, n, total,
                                                                                        blocks, starts);
    CUDA_CHECK_LAST();
    return starts;
}

// Shared-memory index with one padding word after every 32: a thread that works on 16 consecutive
// entries (16t .. 16t + 15) would otherwise share 2 banks with its whole warp (a 16-way conflict).
__host__ __device__ inline int padded(int b) { return b + b / 32; }

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
    merge_path_partition<kTieToOutput, Search><<<course::blocks_for(size_t(blocks) + 1, 256), 256>>>(off, n, total, blocks, starts);
    CUDA_CHECK_LAST();
    merge_path_expand<kTieToOutput, Search><<<blocks, kMpThreads>>>(off, n, total, starts, d_out);
    CUDA_CHECK_LAST();
}

}  // namespace expand
