// common/driver.cuh — the loop every program shares: parse options, build the cases, set each one
// up, check it, time it, print it, append it to the CSV. A lesson describes its problem in a
// LessonDef (see lessonNN/lesson.cuh); a version only supplies its launcher.
//
//   single run  : check, warm up, time (median of reps), check again, one human line
//   --test      : every case of the battery, checked twice (the second run catches state a
//                 version forgot to reset), one line per case, then 'N passed, N failed'
//   --sweep     : sizes 2^10..2^28 for the benchmark, rows appended to --csv
#pragma once
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <sys/stat.h>
#include <vector>

#include "check.h"
#include "cli.h"
#include "device.cuh"
#include "npy.h"

namespace course {

struct Case {
    uint64_t n = 0;
    std::string dist;     // input shape, or matrix family for SpMV
    uint64_t param = 0;   // k, bins, percent kept, ... (meaning set by the lesson)
    std::string dtype;
};

// One case set up on the device. The lesson's subclass owns the device buffers and the input.
class Trial {
public:
    virtual ~Trial() = default;
    virtual void run() = 0;            // the timed region: the version, device data only
    virtual void poison() = 0;         // outputs filled with a value no right answer has
    virtual CheckResult check() = 0;   // copy the result back and compare with the CPU reference
    virtual void save(const std::string& path) {
        (void)path;
        throw UsageError("--output is not supported here");
    }
    uint64_t n = 0;      // the size actually run (from --input, it is the file's)
    double bytes = 0;    // bytes the problem must move: inputs once, outputs once
    std::string label;   // the input's name as printed and in the CSV, when it
                         // says more than the case's (a matrix's rows x cols)
};

struct LessonDef {
    std::string lesson;    // "02_scan": the plots and tables group by this
    std::string version;   // "04_reduce_then_scan"
    CliSpec cli;
    std::function<void(const Options&)> validate;               // extra usage checks (exit 2)
    std::function<std::vector<Case>(const Options&)> battery;   // --test
    std::function<std::vector<Case>(const Options&)> sweep;     // --sweep
    std::function<std::string(const Case&)> beyond_limit;       // "" or why this version cannot
    std::function<std::unique_ptr<Trial>(const Options&, const Case&)> make_trial;
    std::string param_name() const { return cli.param_name; }
};

// A version whose launch plan depends on the GPU registers the function that computes it, once,
// at file scope:   static course::PlanHook plan_hook(my_plan);
// The launcher calls the same function, so what --plan prints is what runs.
using PlanFn = std::function<std::vector<KernelPlan>(const Options&, const Case&)>;
inline PlanFn& registered_plan() {
    static PlanFn fn;
    return fn;
}
struct PlanHook {
    explicit PlanHook(PlanFn fn) { registered_plan() = std::move(fn); }
};

// --plan: one line a kernel launch, nothing run. tests/test_plans.py reads these lines.
inline int print_plan(const LessonDef& def, const Options& o, const Case& c) {
    plan_only() = true;
    const DeviceInfo& d = device();
    std::printf("%s/%s plan on %s (sm_%d%d, %d SMs, %zu B shared a block, %zu B an SM, %s)\n", def.lesson.c_str(),
                def.version.c_str(), d.name.c_str(), d.cc_major, d.cc_minor, d.sm_count, d.max_smem_optin,
                d.smem_per_sm, d.clusters ? "clusters" : "no clusters");
    std::printf("limits cc=%d sms=%d smem_block=%zu smem_sm=%zu threads_sm=%d blocks_sm=%d regs_sm=%d clusters=%d\n",
                d.cc(), d.sm_count, d.max_smem_optin, d.smem_per_sm, d.threads_per_sm, d.blocks_per_sm, d.regs_per_sm,
                d.clusters ? 1 : 0);
    if (!registered_plan()) {
        std::printf("plan: fixed (no choice depends on the GPU)\n");
        return kExitPass;
    }
    for (const KernelPlan& k : registered_plan()(o, c))
        std::printf("plan threads=%d dyn_smem=%zu blocks_per_sm=%d cluster=%d kernel=\"%s\"  # %s\n", k.threads,
                    k.dyn_smem, k.blocks_per_sm, k.cluster, k.kernel.c_str(), k.note.c_str());
    return kExitPass;
}

// The battery's sizes: the awkward ones around warps, blocks and the version's tile, a prime, and
// powers of two up to 2^28 (2^24 and up only where `large` is set, --quick stops at 2^20).
inline std::vector<uint64_t> battery_sizes(uint64_t tile, bool quick, bool large = true) {
    std::vector<uint64_t> s = {0,    1,    2,        31,   32,       33,      1023,
                               1024, 1025, tile - 1, tile, tile + 1, 1000003, uint64_t(1) << 20};
    if (!quick && large) {
        s.push_back(uint64_t(1) << 24);
        s.push_back(uint64_t(1) << 28);
    }
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
    return s;
}

// The benchmark's sizes: 2^10, 2^12, ... 2^28 (2^20, 2^24 and 2^28 are the headline sizes).
inline std::vector<uint64_t> sweep_sizes(uint64_t largest = uint64_t(1) << 28) {
    std::vector<uint64_t> s;
    for (uint64_t n = 1 << 10; n <= largest; n <<= 2) s.push_back(n);
    return s;
}

inline std::string describe(const LessonDef& def, const Case& c) {
    std::string s = "n=" + std::to_string(c.n) + " " + c.dist;
    if (!def.cli.param_name.empty()) s += " " + def.cli.param_name + "=" + std::to_string(c.param);
    if (def.cli.dtypes.size() > 1) s += " " + c.dtype;
    return s;
}

// The CSV's columns: what was measured, then who measured it (provenance): the commit (COURSE_COMMIT,
// which `make bench` sets from git; "unknown" when unset), the CUDA runtime and the driver.
constexpr const char* kCsvHeader =
    "gpu,lesson,version,dtype,n,dist,param,reps,ms_median,ms_min,gbps,copy_gbps,check,commit,cuda,driver";

// A CSV cell: no comma, no line break, never empty.
inline std::string csv_cell(std::string s) {
    for (char& ch : s)
        if (ch == ',' || ch == '\n' || ch == '\r') ch = ' ';
    return s.empty() ? "unknown" : s;
}

// ",commit,cuda,driver" for a row. The driver is its release (580.95.05) from the kernel module where
// Linux shows it, else the CUDA version the driver supports ("api 13.0").
inline const std::string& csv_provenance() {
    static const std::string text = [] {
        const char* env = std::getenv("COURSE_COMMIT");
        std::string commit = env && *env ? env : "unknown";
        int rt = 0, dv = 0;
        cudaRuntimeGetVersion(&rt);
        cudaDriverGetVersion(&dv);
        auto dotted = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
        std::string driver = dv ? "api " + dotted(dv) : "unknown";
        if (FILE* f = std::fopen("/proc/driver/nvidia/version", "r")) {
            char line[512] = {0};
            if (std::fgets(line, sizeof line, f)) {   // "NVRM version: NVIDIA UNIX ... Module  580.95.05  ..."
                std::string l = line;
                size_t at = l.find("Module");
                for (size_t i = at == std::string::npos ? 0 : at; i < l.size(); ++i) {
                    if (!std::isdigit((unsigned char)l[i]) || (i && std::isalnum((unsigned char)l[i - 1]))) continue;
                    size_t j = i;
                    while (j < l.size() && (std::isdigit((unsigned char)l[j]) || l[j] == '.')) ++j;
                    if (l.substr(i, j - i).find('.') != std::string::npos) {
                        driver = l.substr(i, j - i);
                        break;
                    }
                    i = j;
                }
            }
            std::fclose(f);
        }
        return "," + csv_cell(commit) + "," + csv_cell(rt ? dotted(rt) : "") + "," + csv_cell(driver);
    }();
    return text;
}

// Opens --csv for appending: a new file gets the header; an old file must have the same header (rows
// of an older layout would be misread), else a one-line refusal.
inline FILE* open_csv(const std::string& path) {
    struct stat st;
    bool fresh = stat(path.c_str(), &st) != 0 || st.st_size == 0;
    if (!fresh) {
        FILE* r = std::fopen(path.c_str(), "r");
        char head[512] = {0};
        bool same = r && std::fgets(head, sizeof head, r) && std::string(head) == std::string(kCsvHeader) + "\n";
        if (r) std::fclose(r);
        if (!same)
            throw UsageError("--csv file '" + path + "' has other columns than this program writes (" + kCsvHeader +
                             "): write a new file, then plot.py --merge it");
    }
    FILE* f = std::fopen(path.c_str(), "a");
    if (!f) throw UsageError("cannot write --csv file '" + path + "'");
    if (fresh) std::fprintf(f, "%s\n", kCsvHeader);
    return f;
}

inline void append_csv(const std::string& path, const LessonDef& def, const Case& c, uint64_t n, const Timing& t,
                       double gbps, double copy, bool ok) {
    FILE* f = open_csv(path);
    std::string param = def.cli.param_name.empty() ? "" : def.cli.param_name + "=" + std::to_string(c.param);
    std::fprintf(f, "%s,%s,%s,%s,%llu,%s,%s,%d,%.6f,%.6f,%.2f,%.2f,%s%s\n", device().name.c_str(), def.lesson.c_str(),
                 def.version.c_str(), c.dtype.empty() ? "-" : c.dtype.c_str(), (unsigned long long)n, c.dist.c_str(),
                 param.c_str(), t.reps, t.ms_median, t.ms_min, gbps, copy, ok ? "PASS" : "FAIL",
                 csv_provenance().c_str());
    std::fclose(f);
}

// Reps by duration when --reps is not given: enough for a stable median, bounded wall time.
inline int auto_reps(double ms_one) {
    if (ms_one < 0.05) return 200;
    if (ms_one < 1.0) return 50;
    if (ms_one < 20.0) return 15;
    return 5;
}

// Runs one case. Returns 1 pass, 0 fail, -1 skipped.
inline int run_case(const LessonDef& def, const Options& o, const Case& c, bool test_mode) {
    std::unique_ptr<Trial> trial;
    try {
        trial = def.make_trial(o, c);
    } catch (const SkipCase& s) {
        if (!test_mode && !o.sweep) throw;
        std::printf("skip  %-40s %s\n", describe(def, c).c_str(), s.what());
        return -1;
    }
    static bool announced = false;
    if (!announced) {
        const DeviceInfo& dev = device();
        std::printf("%s/%s on %s (%d SMs, sm_%d%d), seed %llu\n", def.lesson.c_str(), def.version.c_str(),
                    dev.name.c_str(), dev.sm_count, dev.cc_major, dev.cc_minor, (unsigned long long)o.seed);
        announced = true;
    }
    Case shown = c;
    shown.n = trial->n;
    if (!trial->label.empty()) shown.dist = trial->label;
    if (def.beyond_limit && !def.beyond_limit(shown).empty()) throw UsageError(def.beyond_limit(shown));
    std::string what = describe(def, shown);

    trial->poison();
    trial->run();
    CUDA_CHECK(cudaDeviceSynchronize());
    CheckResult first = trial->check();
    if (test_mode) {
        CheckResult second = first;
        if (first.ok) {   // again, on a poisoned output: stale state shows here
            trial->poison();
            trial->run();
            CUDA_CHECK(cudaDeviceSynchronize());
            second = trial->check();
            if (!second.ok) second.message = "second run differs: " + second.message;
        }
        bool ok = first.ok && second.ok;
        std::printf("%s  %s%s%s\n", ok ? "PASS" : "FAIL", what.c_str(), ok ? "" : "  ",
                    ok ? "" : (first.ok ? second : first).message.c_str());
        std::fflush(stdout);
        return ok ? 1 : 0;
    }
    if (!first.ok) {
        std::printf("%-24s %s  FAIL  %s\n", def.version.c_str(), what.c_str(), first.message.c_str());
        return 0;
    }
    if (!o.output.empty()) trial->save(o.output);

    int reps = o.reps;
    if (reps == 0) reps = auto_reps(time_gpu([&] { trial->run(); }, 1, 1).ms_median);
    Timing t = time_gpu([&] { trial->run(); }, reps);
    CheckResult after = trial->check();   // the timed runs must leave the right answer too
    double gbps = trial->bytes / (t.ms_median * 1e6);
    double copy = copy_gbps(trial->bytes, reps);
    std::printf("%-24s %-34s %9.4f ms %7.1f GB/s %5.1f%% of copy  %s\n", def.version.c_str(), what.c_str(), t.ms_median,
                gbps, copy > 0 ? 100.0 * gbps / copy : 0.0, after.ok ? "PASS" : "FAIL");
    if (!after.ok) std::printf("  after the timed runs: %s\n", after.message.c_str());
    std::fflush(stdout);
    if (!o.csv.empty()) append_csv(o.csv, def, shown, trial->n, t, gbps, copy, after.ok);
    return after.ok ? 1 : 0;
}

// A refusal from inside the run (the option parser exits by itself): one line, exit 2. drive()
// catches only course::Refusal (text.h), not std::runtime_error: any other exception is a bug, and
// it must still end the program loudly (abort), not as exit 2.
inline int refuse(const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", one_line(e.what()).c_str());
    return kExitUsage;
}

// The whole program. Exit: 0 pass, 1 wrong answer, 2 usage/input error, 3 CUDA error, 77 no GPU.
// The closing line of a --test battery and its exit status. A battery that ran no case (every one
// past the version's limits, or skipped) checked nothing: it says so and fails, never "0 failed".
inline int battery_end(const std::string& version, int passed, int failed, int skipped, size_t beyond) {
    std::printf("%s: %d passed, %d failed", version.c_str(), passed, failed);
    if (skipped) std::printf(", %d skipped", skipped);
    std::printf("\n");
    if (passed + failed == 0) {
        std::printf(
            "FAIL  %s: the battery ran no case (%zu beyond this version's limit, %d skipped): nothing was "
            "checked\n",
            version.c_str(), beyond, skipped);
        return kExitWrong;
    }
    return failed ? kExitWrong : kExitPass;
}

inline int drive(int argc, char** argv, const LessonDef& def) {
    Options o = parse_options(argc, argv, def.cli);
    try {
        if (def.validate) def.validate(o);
        if (o.plan) {
            plan_only() = true;
            Case c{o.n, o.dist, o.param, o.dtype};
            if (def.beyond_limit && !def.beyond_limit(c).empty()) usage_error(def.beyond_limit(c));
            return print_plan(def, o, c);
        }
        std::vector<Case> cases;
        if (o.test) cases = def.battery(o);
        else if (o.sweep) cases = def.sweep(o);
        else cases.push_back({o.n, o.dist, o.param, o.dtype});

        // A version's stated limit: a single run refuses before touching the GPU; the battery
        // and the sweep leave those cases out and say how many.
        std::vector<Case> runnable;
        size_t beyond = 0;
        for (auto& c : cases) {
            std::string why = def.beyond_limit && o.input.empty() ? def.beyond_limit(c) : "";
            if (why.empty()) runnable.push_back(c);
            else if (!o.test && !o.sweep) usage_error(why);
            else ++beyond;
        }
        // With --input the file is read (and a bad one refused, exit 2) before the GPU is asked
        // for; otherwise a machine without a GPU is told so (exit 77) before inputs are generated.
        if (o.input.empty()) device();
        if (beyond) std::printf("note: %zu cases beyond this version's limit are not run\n", beyond);
        int passed = 0, failed = 0, skipped = 0;
        for (auto& c : runnable) {
            int r = run_case(def, o, c, o.test);
            (r > 0 ? passed : r == 0 ? failed : skipped)++;
        }
        if (o.test) return battery_end(def.version, passed, failed, skipped, beyond);
        return failed ? kExitWrong : kExitPass;
    } catch (const Refusal& e) {   // an option, a --matrix or --input file, a case this GPU or version cannot run
        return refuse(e);
    }
}

}   // namespace course
