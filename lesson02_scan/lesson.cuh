// lesson02_scan/lesson.cuh — the scan problem in one place: semantics, the CPU reference (the
// checker), the test battery, the bytes a scan must move, and run_lesson() for every version.
//
// Semantics (see README.md, "semantics card"):
//   inclusive  out[i] = in[0] + ... + in[i]
//   exclusive  out[i] = in[0] + ... + in[i-1], out[0] = 0
//   int32 adds with two's-complement wrap-around (computed as uint32, so overflow is defined);
//   float32 (versions that offer it) is checked against a double-precision reference.
//   n from 0 up to what fits in GPU memory; indices are 64-bit.
//
// What one run does (common/driver.cuh drives it; ScanTrial below is the scan's part):
//   1. generate the input on the CPU (make_input: a hash of seed and index), upload it;
//   2. poison the output (every byte 0xAB), run the version's launcher once, check it against the
//      CPU reference (--test: poison and run again, a stale scratch state fails the second time);
//   3. warm up, then time the launcher alone with CUDA events, the L2 flushed before each
//      repetition; report the median (and the minimum), GB/s from 2n elements, % of a copy of the
//      same bytes measured in the same run; check the output again after the timed runs.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "../common/harness.cuh"
#include "../common/types.cuh"
#include "primitives.cuh"

namespace scan {

// Every version provides a launcher of this shape: device pointers in and out, n elements.
// Scratch comes from course::scratch(), so the timed runs never allocate.
template <class T> using Launcher = void (*)(const T* d_in, T* d_out, size_t n, Kind kind);
// The element types a scan runs, in --help's order (float32 only where a version gives its launcher).
using Types = course::TypeList<int32_t, float>;

// Wrap-around int32 addition: signed overflow is undefined in C++, unsigned is not.
__host__ __device__ inline int32_t wrap_add(int32_t a, int32_t b) { return int32_t(uint32_t(a) + uint32_t(b)); }

// ---- inputs -----------------------------------------------------------------------------------

inline std::vector<std::string> dists() {
    auto d = course::common_dists();
    d.push_back("alternating");   // +v, -v, +v, ...: partial sums stay small, cancellation
    d.push_back("intmax");        // mostly INT_MAX: the running sum wraps again and again
    return d;
}

template <class T> std::vector<T> make_input(size_t n, const std::string& dist, uint64_t seed) {
    std::vector<T> v;
    if (dist == "alternating") {
        v.resize(n);
        course::parallel_for(n, [&](size_t i) {
            T mag = std::is_floating_point_v<T> ? T(0.5 + course::unit_double(course::hash64(seed, i)))
                                                : T(1 + (course::hash64(seed, i) >> 40));
            v[i] = (i & 1) ? T(-mag) : mag;
        });
    } else if (dist == "intmax") {
        v.resize(n);
        course::parallel_for(n, [&](size_t i) {
            uint64_t h = course::hash64(seed, i);
            if constexpr (std::is_floating_point_v<T>) v[i] = (h & 7) ? T(1e30) : T(-1e30);
            else v[i] = (h & 7) ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min();
        });
    } else {
        course::generate(v, n, dist, seed);
    }
    return v;
}

// ---- the CPU reference ------------------------------------------------------------------------

// Two-pass parallel scan on the CPU (per-chunk totals, then each chunk rescans with its offset),
// so checking 2^31 elements takes a second rather than ten. Acc is uint32_t for int32 (wrap) and
// double for float32; `abs_sum` (floats only) receives the running sum of |x|: the scale of the
// rounding error, used by the tolerance.
template <class T, class Acc>
void reference(const std::vector<T>& in, Kind kind, std::vector<Acc>& out, std::vector<double>* abs_sum) {
    size_t n = in.size();
    out.resize(n);
    if (abs_sum) abs_sum->resize(n);
    unsigned chunks = course::cpu_threads();
    std::vector<Acc> total(chunks + 1, Acc(0));
    std::vector<double> abs_total(chunks + 1, 0.0);
    size_t per = (n + chunks - 1) / std::max(chunks, 1u);
    auto pass = [&](bool write) {
        course::parallel_chunks(
            chunks,
            [&](size_t cb, size_t ce, unsigned) {
                for (size_t c = cb; c < ce; ++c) {
                    size_t b = std::min(n, c * per), e = std::min(n, b + per);
                    Acc run = write ? total[c] : Acc(0);
                    double arun = write ? abs_total[c] : 0.0;
                    for (size_t i = b; i < e; ++i) {
                        Acc x;
                        if constexpr (std::is_same_v<Acc, uint32_t>) x = uint32_t(in[i]);
                        else x = Acc(in[i]);
                        if (write && kind == Kind::exclusive) out[i] = run;
                        run = run + x;
                        arun += std::fabs(double(in[i]));
                        if (write && kind == Kind::inclusive) out[i] = run;
                        if (write && abs_sum) (*abs_sum)[i] = arun;
                    }
                    if (!write) {
                        total[c] = run;
                        abs_total[c] = arun;
                    }
                }
            },
            1);
        if (!write) {   // chunk totals -> exclusive chunk offsets
            Acc run = Acc(0);
            double arun = 0;
            for (unsigned c = 0; c < chunks; ++c) {
                Acc t = total[c];
                double at = abs_total[c];
                total[c] = run;
                abs_total[c] = arun;
                run = run + t;
                arun += at;
            }
        }
    };
    pass(false);
    pass(true);
}

// Float tolerance: |got - exact| <= 1e-5 * (|x_0| + ... + |x_i|) + 1e-6. A float32 scan that adds
// in any order carries rounding of about eps * (number of additions on the path) * that sum; the
// GPU's tree adds far fewer terms in a chain than the sequential loop, so its error is usually
// *smaller* than a float32 CPU loop's: why the reference is double, not the CPU in float.
constexpr double kFloatRelTol = 1e-5, kFloatAbsTol = 1e-6;

// ---- one case on the device -------------------------------------------------------------------

template <class T> class ScanTrial : public course::Trial {
public:
    ScanTrial(const course::Options& o, const course::Case& c, Launcher<T> fn, Kind kind) : fn_(fn), kind_(kind) {
        if (!o.input.empty()) input_ = course::load_npy<T>(o.input);
        else {
            course::require_host_memory(3.0 * sizeof(T) * c.n + 8.0 * c.n);
            input_ = make_input<T>(c.n, c.dist, o.seed);
        }
        n = input_.size();
        bytes = 2.0 * sizeof(T) * n;   // read the input once, write the output once
        course::require_device_memory(bytes);
        d_in_ = course::DeviceArray<T>(n);
        d_out_ = course::DeviceArray<T>(n);
        d_in_.upload(input_);
    }
    void run() override { fn_(d_in_.data(), d_out_.data(), n, kind_); }
    void poison() override { d_out_.poison(); }
    course::CheckResult check() override {
        std::vector<T> got = d_out_.download();
        if constexpr (std::is_floating_point_v<T>) {
            if (ref_.empty() && n) reference(input_, kind_, ref_, &abs_sum_);
            return course::compare_close(got.data(), ref_.data(), abs_sum_.data(), n, kFloatRelTol, kFloatAbsTol);
        } else {
            if (ref_.empty() && n) {
                reference(input_, kind_, ref_, nullptr);   // uint32 sums: the wrap is defined
            }
            return course::compare_exact(reinterpret_cast<const uint32_t*>(got.data()), ref_.data(), n);
        }
    }
    void save(const std::string& path) override {
        std::vector<T> got = d_out_.download();
        course::save_npy(path, got.data(), got.size());
    }

private:
    Launcher<T> fn_;
    Kind kind_;
    std::vector<T> input_;
    // The reference: uint32 for int32 (the wrapped sum's bit pattern), double for float32.
    std::vector<std::conditional_t<std::is_floating_point_v<T>, double, uint32_t>> ref_;
    std::vector<double> abs_sum_;
    course::DeviceArray<T> d_in_, d_out_;
};

// ---- the program ------------------------------------------------------------------------------

// What a version can do, set field by field in its main (the defaults suit a multi-block scan):
//   scan::Limits limits;
//   limits.max_n = 1024;  limits.why = "one block of 1024 threads";  limits.tile = 1024;
struct Limits {
    uint64_t max_n = course::kMaxCount;   // single-block versions state theirs
    const char* why = "";                 // e.g. "one block of 1024 threads"
    uint64_t tile = 4096;                 // the version's tile: the battery tests tile-1, tile, tile+1
};

// The battery every scan program runs (07_multi_gpu too): the awkward sizes around the tile (and a
// single-block version's edge), every shape, both kinds, int32 and (with_float) float32.
inline std::vector<course::Case> battery(const course::Options& o, const Limits& limits, bool with_float) {
    std::vector<course::Case> cases;
    std::vector<uint64_t> sizes = course::battery_sizes(limits.tile, o.quick);
    if (limits.max_n < course::kMaxCount) {   // a single-block version: its edge, and one past it
        for (uint64_t e : {limits.max_n - 1, limits.max_n, limits.max_n + 1}) sizes.push_back(e);
        std::sort(sizes.begin(), sizes.end());
        sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    }
    for (uint64_t n : sizes) {
        bool large = n >= (uint64_t(1) << 24);
        std::vector<std::string> shapes =
            large ? std::vector<std::string>{"uniform", "intmax"}
                  : std::vector<std::string>{"uniform", "equal", "sorted", "alternating", "intmax"};
        for (auto& d : shapes)
            for (uint64_t excl : {0, 1}) {
                cases.push_back({n, d, excl, "int32"});
                if (with_float && d != "intmax") cases.push_back({n, d, excl, "float32"});
            }
    }
    if (!o.quick) cases.push_back({(uint64_t(1) << 31) - 1, "uniform", 0, "int32"});   // 64-bit indexing
    return cases;
}

// A version's own command-line options (e.g. 03's --padding): `configure` sees the parsed options
// before the GPU is touched; it keeps what it needs and throws course::UsageError (exit 2) for a
// bad value.
struct Extras {
    std::vector<course::ExtraOption> options;
    std::function<void(const course::Options&)> configure;
};

// The lesson parameter `param` encodes the scan kind in --test/--sweep cases: 0 inclusive,
// 1 exclusive (in CSV rows it appears as "exclusive=0/1").
// The lesson's command line for `version` (float32 too when with_float): every scan program, on
// one GPU (run_lesson below) or several (07_multi_gpu), starts from it.
inline course::LessonDef lesson_def(const char* version, bool with_float, uint64_t max_n = course::kMaxCount) {
    course::LessonDef def;
    def.lesson = "02_scan";
    def.version = version;
    def.cli.program = version;
    def.cli.summary = "prefix sum (scan) of int32" + std::string(with_float ? " or float32" : "");
    def.cli.dists = dists();
    def.cli.dtypes = course::type_names(Types{});
    if (!with_float) def.cli.dtypes.resize(1);   // int32 alone
    def.cli.param_name = "exclusive";
    def.cli.param_default = 0;
    def.cli.param_max = 1;
    def.cli.n_default = std::min<uint64_t>(uint64_t(1) << 24, max_n);
    return def;
}

inline int run_lesson(int argc, char** argv, const char* version, Launcher<int32_t> int_fn,
                      Launcher<float> float_fn = nullptr, Limits limits = {}, Extras extras = {}) {
    course::LessonDef def = lesson_def(version, float_fn != nullptr, limits.max_n);
    def.cli.extras = extras.options;
    if (extras.configure) def.validate = extras.configure;
    def.beyond_limit = [limits](const course::Case& c) -> std::string {
        if (c.n <= limits.max_n) return "";
        return "n=" + std::to_string(c.n) + " is beyond this version's limit of " + std::to_string(limits.max_n) +
               " (" + limits.why + ")";
    };
    def.battery = [float_fn, limits](const course::Options& o) { return battery(o, limits, float_fn != nullptr); };
    def.sweep = [float_fn](const course::Options& o) {
        std::vector<course::Case> cases;
        for (uint64_t n : course::sweep_sizes()) {
            cases.push_back({n, o.dist, 0, "int32"});
            if (float_fn) cases.push_back({n, o.dist, 0, "float32"});
        }
        return cases;
    };
    def.make_trial = [=](const course::Options& o, const course::Case& c) -> std::unique_ptr<course::Trial> {
        const Kind kind = c.param ? Kind::exclusive : Kind::inclusive;
        const course::Launchers<Launcher, int32_t, float> fns{int_fn, float_fn};
        return course::dispatch_type(c.dtype, Types{}, [&](auto tag) -> std::unique_ptr<course::Trial> {
            using T = typename decltype(tag)::type;
            return std::make_unique<ScanTrial<T>>(o, c, fns.template get<T>(), kind);
        });
    };
    return course::drive(argc, argv, def);
}

}   // namespace scan
