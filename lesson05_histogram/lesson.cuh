// lesson05_histogram/lesson.cuh — the histogram problem in one place: semantics, input shapes,
// the CPU reference (the checker), the battery, the bytes a histogram must move, and run_lesson().
//
// What one run does (common/driver.cuh drives it; HistTrial below is the histogram's part):
//   1. generate the samples on the CPU (make_bytes / make_keys: a hash of --seed and the index; or
//      --input's .npy file) and upload them (--test: an odd n starts 3 elements in, unaligned);
//   2. poison the bins (every byte 0xAB), run the version's launcher once, check the counts against
//      the CPU reference (--test: poison and run again; a stale scratch state fails the second time);
//   3. (not in --test) warm up, time the launcher alone (its zeroing of the bins included) with
//      CUDA events, the L2 flushed before each repetition; report the median, GB/s from n samples
//      read and the bins written once, and % of a copy of the same bytes; check the counts again.
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "../common/harness.cuh"
#include "../common/types.cuh"
#include "histogram.cuh"

// Semantics (README.md, "semantics card"):
//   --type uint8  (default)  samples are bytes; 256 bins; bin = the byte; every sample is counted.
//   --type uint32            samples are 32-bit keys; --bins B (1 .. 2^20, default 256) equal bins
//                            over [--lo, --hi) (default the whole key space [0, 2^32)):
//                            bin = floor((key - lo) * B / (hi - lo)); keys outside are not counted
//                            (exactly CUB's DeviceHistogram::HistogramEven).
//   counts are uint32; n is at most 2^32 - 1 samples, so no count can overflow.
//   The output is written whole (every bin, zeros too) by the launcher, which zeroes it first:
//   the zeroing is part of the timed job.
namespace hist {

constexpr uint64_t kMaxSamples = 0xFFFFFFFFull;   // 2^32 - 1: a uint32 count cannot overflow
constexpr uint32_t kMaxBins = 1u << 20;
constexpr uint64_t kKeySpace = uint64_t(1) << 32;

// Every version provides one or both launchers: device pointers, n samples, d_hist of bins
// counters that the launcher zeroes and fills. Scratch from course::scratch(); no allocation.
using ByteLauncher = void (*)(const uint8_t* d_in, size_t n, uint32_t* d_hist);
using KeyLauncher = void (*)(const uint32_t* d_in, size_t n, EvenBins bins, uint32_t* d_hist);

// What a version can do. The battery and the sweep leave out what it cannot; a single run asking
// for it is refused with one line (exit 2).
struct Support {
    ByteLauncher bytes = nullptr;   // null: no byte mode
    KeyLauncher keys = nullptr;     // null: no key mode
    uint32_t max_bins = kMaxBins;   // a fixed limit (e.g. 48 KB of shared counters)
    const char* bins_why = "";
    uint64_t max_n = kMaxSamples;   // slow versions keep the battery short
    const char* n_why = "";
    uint32_t (*device_max_bins)() = nullptr;   // a limit that depends on this GPU (opt-in shared memory)
};

// ---- inputs -----------------------------------------------------------------------------------------

inline std::vector<std::string> dists() {
    // uniform   every value equally likely (bytes: all 256; keys: all of [lo, hi))
    // equal     one value everywhere: the worst contention there is
    // zipf      Zipf(1.1) ranks on scrambled values (bytes: 256 ranks; keys: 65536 ranks in range)
    // hot60     60% one value, the rest uniform
    // text      English letter frequencies with spaces and punctuation (keys: spread over the range)
    // outside   keys only: a quarter in range, the rest below lo, at hi, or anywhere in 2^32; unless
    //           --lo/--hi are given the range is [2^30 + 12345, 3*2^30 - 999) (an odd width)
    return {"uniform", "equal", "zipf", "hot60", "text", "outside"};
}

struct Range {
    uint64_t lo = 0, hi = kKeySpace;
};

// The range a key case uses: --lo/--hi when given, else the whole key space, except for `outside`.
inline Range key_range(const course::Options& o, const std::string& dist) {
    Range r;
    if (dist == "outside") {
        r.lo = (uint64_t(1) << 30) + 12345;
        r.hi = 3 * (uint64_t(1) << 30) - 999;
    }
    if (o.has("lo")) course::parse_count(o.get("lo"), r.lo);
    if (o.has("hi")) course::parse_count(o.get("hi"), r.hi);
    return r;
}

// A byte with English-text frequencies: letters (per mille, roughly), space, newline, punctuation.
inline uint8_t text_byte(uint64_t bits) {
    static const char symbols[] = "etaoinshrdlcumwfgypbvkjxqz ,.\nT";
    static const unsigned weight[] = {127, 91, 82, 75, 70, 67, 63, 61, 60, 43, 40,  28, 28, 24, 24, 22,
                                      20,  20, 19, 15, 10, 8,  2,  2,  1,  1,  180, 12, 10, 4,  3};
    static const unsigned total = [] {
        unsigned t = 0;
        for (unsigned w : weight) t += w;
        return t;
    }();
    unsigned u = unsigned(bits % total);
    for (int s = 0; s < int(sizeof(weight) / sizeof(weight[0])); ++s) {
        if (u < weight[s]) return uint8_t(symbols[s]);
        u -= weight[s];
    }
    return ' ';
}

inline std::vector<uint8_t> make_bytes(size_t n, const std::string& dist, uint64_t seed) {
    std::vector<uint8_t> v;
    if (dist == "uniform" || dist == "equal" || dist == "zipf") {
        course::generate(v, n, dist, seed);
        return v;
    }
    v.resize(n);
    uint8_t* p = v.data();
    uint8_t hot = uint8_t(course::hash64(seed, ~0ull) & 255);
    if (dist == "hot60")
        course::parallel_for(n, [&](size_t i) {
            uint64_t h = course::hash64(seed, i);
            p[i] = (h % 100) < 60 ? hot : uint8_t(h >> 56);
        });
    else if (dist == "text") course::parallel_for(n, [&](size_t i) { p[i] = text_byte(course::hash64(seed, i)); });
    else throw course::UsageError("--dist " + dist + " is for --type uint32 keys");
    return v;
}

// Keys are drawn relative to the range, so every shape is meaningful for any [lo, hi).
inline std::vector<uint32_t> make_keys(size_t n, const std::string& dist, Range r, uint64_t seed) {
    std::vector<uint32_t> v(n);
    uint32_t* p = v.data();
    const uint64_t width = r.hi - r.lo;
    auto in_range = [&](uint64_t bits) { return uint32_t(r.lo + bits % width); };
    const uint32_t hot = in_range(course::hash64(seed, ~0ull));
    if (dist == "uniform") {
        course::parallel_for(n, [&](size_t i) { p[i] = in_range(course::hash64(seed, i)); });
    } else if (dist == "equal") {
        std::fill(v.begin(), v.end(), hot);
    } else if (dist == "zipf") {
        course::ZipfTable table(1 << 16, 1.1);
        course::parallel_for(n, [&](size_t i) {
            size_t rank = table.rank(course::unit_double(course::hash64(seed, i)));
            p[i] = in_range(course::hash64(seed ^ 0x5A17u, rank));
        });
    } else if (dist == "hot60") {
        course::parallel_for(n, [&](size_t i) {
            uint64_t h = course::hash64(seed, i);
            p[i] = (h % 100) < 60 ? hot : in_range(h >> 7);
        });
    } else if (dist == "text") {   // byte c lands at lo + c * width / 256
        course::parallel_for(n, [&](size_t i) {
            uint8_t c = text_byte(course::hash64(seed, i));
            p[i] = uint32_t(r.lo + uint64_t(c) * width / 256);
        });
    } else if (dist == "outside") {
        course::parallel_for(n, [&](size_t i) {
            uint64_t h = course::hash64(seed, i);
            uint64_t any = h >> 32;   // anywhere in the key space
            switch (h % 8) {
                case 3: p[i] = uint32_t(r.lo > 0 ? r.lo - 1 : any); break;       // just below
                case 4: p[i] = uint32_t(r.hi < kKeySpace ? r.hi : any); break;   // just above
                case 5: p[i] = uint32_t(r.lo); break;                            // first counted
                case 6: p[i] = uint32_t(r.hi - 1); break;                        // last counted
                case 7: p[i] = in_range(h >> 3); break;
                default: p[i] = uint32_t(any);
            }
        });
    } else {
        throw course::UsageError("unknown --dist " + dist);
    }
    return v;
}

// ---- the CPU reference --------------------------------------------------------------------------

// Per-thread private histograms, then a sum: exact, and fast enough for 2^32 samples.
// `in_range` receives the number of counted samples (what the bins must sum to).
template <class T, class Binner>
std::vector<uint32_t> reference(const std::vector<T>& in, Binner binner, uint64_t* in_range = nullptr) {
    const uint32_t nb = binner.count();
    unsigned chunks = course::cpu_threads();
    std::vector<std::vector<uint64_t>> part(chunks);
    course::parallel_chunks(
        chunks,
        [&](size_t cb, size_t ce, unsigned) {
            size_t per = (in.size() + chunks - 1) / chunks;
            for (size_t c = cb; c < ce; ++c) {
                part[c].assign(nb, 0);
                size_t b = std::min(in.size(), c * per), e = std::min(in.size(), b + per);
                for (size_t i = b; i < e; ++i) {
                    uint32_t bin;
                    if (binner(uint32_t(in[i]), bin)) ++part[c][bin];
                }
            }
        },
        1);
    std::vector<uint32_t> out(nb, 0);
    uint64_t total = 0;
    for (uint32_t b = 0; b < nb; ++b) {
        uint64_t s = 0;
        for (auto& p : part) s += p[b];
        out[b] = uint32_t(s);
        total += s;
    }
    if (in_range) *in_range = total;
    return out;
}

// Exact counts bin by bin, and (a second look that names the symptom) their sum against the number
// of counted samples: a lost update shows as a short sum, a double merge as a long one.
inline course::CheckResult check_counts(const std::vector<uint32_t>& got, const std::vector<uint32_t>& want,
                                        uint64_t in_range) {
    if (got.size() != want.size())
        return course::CheckResult::fail("got " + std::to_string(got.size()) + " bins, expected " +
                                         std::to_string(want.size()));
    course::CheckResult r = course::compare_exact(got.data(), want.data(), want.size(), "bins");
    uint64_t sum = 0;
    for (uint32_t g : got) sum += g;
    if (sum != in_range) {
        std::string m =
            "counts sum to " + std::to_string(sum) + ", expected " + std::to_string(in_range) + " (samples in range)";
        return course::CheckResult::fail(r.ok ? m : m + "; " + r.message);
    }
    return r;
}

// ---- one case on the device -----------------------------------------------------------------------

template <class T> class HistTrial : public course::Trial {
public:
    HistTrial(const course::Options& o, const course::Case& c, const Support& s) : support_(s) {
        if constexpr (sizeof(T) == 1) bins_ = 256;
        else {
            bins_ = uint32_t(c.param);
            range_ = key_range(o, c.dist);
        }
        // A user's file is read (and a bad one refused, exit 2) before the GPU is asked anything.
        if (!o.input.empty()) input_ = course::load_npy<T>(o.input);
        if (support_.device_max_bins && bins_ > support_.device_max_bins())
            throw course::SkipCase("bins=" + std::to_string(bins_) + " needs more shared memory than this GPU has (" +
                                   std::to_string(support_.device_max_bins()) + " bins at most)");
        if (o.input.empty()) {
            course::require_host_memory(2.0 * sizeof(T) * c.n);
            if constexpr (sizeof(T) == 1) input_ = make_bytes(c.n, c.dist, o.seed);
            else input_ = make_keys(c.n, c.dist, range_, o.seed);
        }
        n = input_.size();
        if (n > kMaxSamples) throw course::UsageError("at most 2^32 - 1 samples (a count must fit in uint32)");
        bytes = double(sizeof(T)) * n + 4.0 * bins_;   // read every sample once, write every bin once
        // In --test, odd sizes start 3 elements into the allocation: the input is then not 16-byte
        // aligned and the versions' unaligned head path runs.
        offset_ = (o.test && (n & 1)) ? 3 : 0;
        course::require_device_memory(double(sizeof(T)) * (n + offset_) + 4.0 * bins_);
        d_in_ = course::DeviceArray<T>(n + offset_);
        d_hist_ = course::DeviceArray<uint32_t>(bins_);
        if (n) CUDA_CHECK(cudaMemcpy(d_in_.data() + offset_, input_.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    }
    void run() override {
        const T* in = d_in_.data() ? d_in_.data() + offset_ : nullptr;
        if constexpr (sizeof(T) == 1) support_.bytes(in, n, d_hist_.data());
        else support_.keys(in, n, EvenBins::make(range_.lo, range_.hi, bins_), d_hist_.data());
    }
    void poison() override { d_hist_.poison(); }
    course::CheckResult check() override {
        if (want_.empty()) {
            if constexpr (sizeof(T) == 1) want_ = reference(input_, ByteBins{}, &in_range_);
            else want_ = reference(input_, EvenBins::make(range_.lo, range_.hi, bins_), &in_range_);
        }
        return check_counts(d_hist_.download(), want_, in_range_);
    }
    void save(const std::string& path) override {
        std::vector<uint32_t> got = d_hist_.download();
        course::save_npy(path, got.data(), got.size());
    }

private:
    Support support_;
    uint32_t bins_ = 256;
    Range range_;
    size_t offset_ = 0;
    std::vector<T> input_;
    std::vector<uint32_t> want_;
    uint64_t in_range_ = 0;
    course::DeviceArray<T> d_in_;
    course::DeviceArray<uint32_t> d_hist_;
};

// ---- the battery and the sweep --------------------------------------------------------------------

inline std::vector<course::Case> battery(const course::Options& o) {
    std::vector<course::Case> cases;
    const uint64_t M = uint64_t(1) << 20;
    // Bytes: the awkward sizes (vector width 16, warps, tiles, a prime) on every shape.
    std::vector<uint64_t> sizes = course::battery_sizes(65536, o.quick);
    for (uint64_t extra : {15, 16, 17, 4095, 4096, 4097}) sizes.push_back(extra);
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    for (uint64_t n : sizes) {
        std::vector<std::string> shapes = {"uniform", "equal", "zipf", "hot60", "text"};
        if (n == 16 * M) shapes = {"uniform", "zipf", "hot60"};
        if (n > 16 * M) shapes = {"uniform", "equal"};
        for (auto& d : shapes) cases.push_back({n, d, 256, "uint8"});
    }
    if (!o.quick) {
        cases.push_back({uint64_t(1) << 30, "uniform", 256, "uint8"});   // the headline size
        cases.push_back({uint64_t(1) << 30, "hot60", 256, "uint8"});
        cases.push_back({kMaxSamples, "equal", 256, "uint8"});   // one bin reaches 2^32 - 1
    }
    // Keys: every bin count on every shape at small sizes, the big bin counts at larger ones.
    std::vector<uint64_t> key_sizes = o.quick ? std::vector<uint64_t>{0, 1, 33, 1025, 65537}
                                              : std::vector<uint64_t>{0, 1, 31, 33, 1025, 4097, 65537, 1000003};
    for (uint64_t bins : {1, 2, 7, 256, 1000, 4096, 65536}) {
        for (uint64_t n : key_sizes)
            for (const char* d : {"uniform", "equal", "zipf", "hot60", "text", "outside"})
                cases.push_back({n, d, bins, "uint32"});
        cases.push_back({M, "uniform", bins, "uint32"});
        cases.push_back({M, "outside", bins, "uint32"});
    }
    // 8M+ keys: with ~132 blocks each block sees > 2^15 samples of the hot value, so 05_large_bins' 16-bit
    // counters cross 0x8000 and hand over (at least once per block on `equal`).
    for (uint64_t bins : {4096, 65536}) {
        for (const char* d : {"uniform", "hot60", "equal"})
            cases.push_back({o.quick ? 8 * M : 16 * M, d, bins, "uint32"});
        if (!o.quick) cases.push_back({256 * M, "uniform", bins, "uint32"});
    }
    return cases;
}

inline std::vector<course::Case> sweep(const course::Options&) {
    std::vector<course::Case> cases;
    const uint64_t G = uint64_t(1) << 30;
    for (uint64_t n : course::sweep_sizes()) cases.push_back({n, "uniform", 256, "uint8"});
    cases.push_back({G, "uniform", 256, "uint8"});
    for (const char* d : {"equal", "zipf", "hot60", "text"}) {
        cases.push_back({uint64_t(1) << 24, d, 256, "uint8"});
        cases.push_back({G, d, 256, "uint8"});
    }
    for (uint64_t bins : {4096, 65536}) {
        for (uint64_t n : course::sweep_sizes()) cases.push_back({n, "uniform", bins, "uint32"});
        for (const char* d : {"zipf", "hot60"}) cases.push_back({uint64_t(1) << 28, d, bins, "uint32"});
    }
    return cases;
}

// ---- the program ------------------------------------------------------------------------------------

// The sample types: bytes (256 bins) and 32-bit keys (--bins even bins over [--lo, --hi)).
using Types = course::TypeList<uint8_t, uint32_t>;

// The lesson's own options, checked before the GPU is touched (every histogram program uses it).
inline void validate_options(const course::Options& o) {
    if (o.n > kMaxSamples) course::usage_error("--n is at most 2^32 - 1 samples (counts are uint32)");
    if (o.dtype == "uint8") {
        if (o.param_given && o.param != 256)
            course::usage_error("--type uint8 has exactly 256 bins (use --type uint32 for --bins)");
        if (o.has("lo") || o.has("hi")) course::usage_error("--lo/--hi are for --type uint32 keys");
        if (o.dist == "outside") course::usage_error("--dist outside is for --type uint32 keys");
    } else {
        for (const char* k : {"lo", "hi"}) {
            uint64_t v;
            if (o.has(k) && (!course::parse_count(o.get(k), v) || v > kKeySpace))
                course::usage_error(std::string("--") + k + " '" + o.get(k) + "' must be a count from 0 to 2^32");
        }
        Range r = key_range(o, o.dist);
        if (r.lo >= r.hi) course::usage_error("the key range needs --lo < --hi");
        if (r.lo >= kKeySpace) course::usage_error("--lo must be below 2^32");
    }
}

// The lesson's command line, option checks, battery and sweep for `version`: every histogram
// program, on one GPU (run_lesson below) or several (07_multi_gpu), starts from it. The first type
// is the default: bytes, unless the version only does keys.
inline course::LessonDef lesson_def(const char* version, bool bytes_first) {
    course::LessonDef def;
    def.lesson = "05_histogram";
    def.version = version;
    def.cli.program = version;
    def.cli.summary =
        "histogram: bytes into 256 bins (--type uint8) or 32-bit keys into --bins even bins over [--lo, --hi) (--type uint32)";
    def.cli.dists = dists();
    def.cli.dtypes = course::type_names(Types{});
    if (!bytes_first) std::swap(def.cli.dtypes[0], def.cli.dtypes[1]);   // keys the default
    def.cli.param_name = "bins";
    def.cli.param_default = 256;
    def.cli.param_min = 1;
    def.cli.param_max = kMaxBins;
    def.cli.n_default = uint64_t(1) << 24;
    def.cli.extras = {{"lo", true, "uint32 keys: first key counted (default 0)"},
                      {"hi", true, "uint32 keys: one past the last key counted, up to 2^32 (default 2^32)"}};
    def.validate = validate_options;
    def.battery = battery;
    def.sweep = sweep;
    return def;
}

inline int run_lesson(int argc, char** argv, const char* version, Support s) {
    course::LessonDef def = lesson_def(version, s.bytes);
    def.beyond_limit = [s](const course::Case& c) -> std::string {
        if (c.dtype == "uint8" && !s.bytes) return "this version has no byte mode (--type uint8)";
        if (c.dtype == "uint32" && !s.keys) return "this version has no key mode (--type uint32)";
        if (c.dtype == "uint32" && c.param > s.max_bins)
            return "bins=" + std::to_string(c.param) + " is beyond this version's limit of " +
                   std::to_string(s.max_bins) + " (" + s.bins_why + ")";
        if (c.n > s.max_n)
            return "n=" + std::to_string(c.n) + " is beyond this version's limit of " + std::to_string(s.max_n) + " (" +
                   s.n_why + ")";
        return "";
    };
    def.make_trial = [s](const course::Options& o, const course::Case& c) -> std::unique_ptr<course::Trial> {
        return course::dispatch_type(c.dtype, Types{}, [&](auto tag) -> std::unique_ptr<course::Trial> {
            return std::make_unique<HistTrial<typename decltype(tag)::type>>(o, c, s);
        });
    };
    return course::drive(argc, argv, def);
}

}   // namespace hist
