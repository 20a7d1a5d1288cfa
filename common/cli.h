// common/cli.h — the command line every program in the course shares (host-only, no CUDA).
//
// Strict on purpose: a typo must never turn into a silent default. Every error is one line on
// stderr and exit status 2, and all of it happens before the GPU is touched.
#pragma once
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "text.h"   // one_line

namespace course {

constexpr int kExitPass = 0, kExitWrong = 1, kExitUsage = 2, kExitNoDevice = 77;

// Largest --n / --k we accept from the command line; memory checks refuse what does not fit.
constexpr uint64_t kMaxCount = uint64_t(1) << 40;

[[noreturn]] inline void usage_error(const std::string& msg) {
    std::fprintf(stderr, "error: %s (try --help)\n", one_line(msg).c_str());
    std::exit(kExitUsage);
}

// Parses a count: 1000000, 1<<24, 2^24, 16M (K, M, G are powers of 1024), 0.
// Returns false (and leaves `out` alone) for anything else: signs, hex, exponents, junk, overflow.
inline bool parse_count(const std::string& text, uint64_t& out) {
    auto digits = [](const std::string& s, uint64_t& v) {
        if (s.empty() || s.size() > 19) return false;
        v = 0;
        for (char c : s) {
            if (c < '0' || c > '9') return false;
            v = v * 10 + uint64_t(c - '0');
        }
        return true;
    };
    uint64_t base = 0, exponent = 0;
    size_t shift = text.find("<<"), caret = text.find('^');
    if (shift != std::string::npos) {   // 1<<24 : base shifted left
        if (!digits(text.substr(0, shift), base) || !digits(text.substr(shift + 2), exponent)) return false;
        if (exponent >= 63 || (base >> (63 - exponent)) != 0) return false;
        out = base << exponent;
    } else if (caret != std::string::npos) {   // 2^24 : a power
        if (!digits(text.substr(0, caret), base) || !digits(text.substr(caret + 1), exponent)) return false;
        uint64_t v = 1;                                           // 0^e and 1^e end at once; any other base
        if (base <= 1) v = (base == 0 && exponent > 0) ? 0 : 1;   // passes kMaxCount in < 41 steps
        else
            for (uint64_t i = 0; i < exponent; ++i) {
                if (v > kMaxCount / base) return false;
                v *= base;
            }
        out = v;
    } else {   // 1000000 or 16M
        uint64_t scale = 1;
        std::string body = text;
        if (!body.empty()) {
            char suffix = body.back();
            if (suffix == 'K') scale = uint64_t(1) << 10;
            if (suffix == 'M') scale = uint64_t(1) << 20;
            if (suffix == 'G') scale = uint64_t(1) << 30;
            if (scale != 1) body.pop_back();
        }
        if (!digits(body, base) || base > kMaxCount / scale) return false;
        out = base * scale;
    }
    return out <= kMaxCount;
}

// One extra option a lesson adds (e.g. --exclusive, --smallest, --matrix FILE).
struct ExtraOption {
    std::string name;   // without the leading dashes
    bool takes_value;
    std::string help;
};

struct Options {
    uint64_t n = 0;
    bool n_given = false;
    std::string dist;     // input distribution (lesson's first by default)
    std::string dtype;    // element type (lesson's first by default)
    uint64_t param = 0;   // the lesson parameter (k, bins, percent kept, ...)
    bool param_given = false;
    uint64_t seed = 12345;
    int reps = 0;   // 0: the driver picks by size
    bool test = false, sweep = false, quick = false;
    bool plan = false;   // print the launch plan for this GPU (or COURSE_GPU_PROFILE)
    std::string csv, input, output;
    std::map<std::string, std::string> extra;   // lesson options that were given
    bool has(const std::string& name) const { return extra.count(name) != 0; }
    std::string get(const std::string& name, const std::string& fallback = "") const {
        auto it = extra.find(name);
        return it == extra.end() ? fallback : it->second;
    }
};

// What a lesson accepts on top of the common options.
struct CliSpec {
    std::string program;               // e.g. "04_reduce_then_scan"
    std::string summary;               // one line for --help
    std::vector<std::string> dists;    // first is the default
    std::vector<std::string> dtypes;   // first is the default
    std::string param_name;            // "k", "bins", "pct" or "" for none
    uint64_t param_default = 0, param_min = 0, param_max = kMaxCount;
    uint64_t n_default = 1 << 24;
    std::vector<ExtraOption> extras;
};

inline std::string join(const std::vector<std::string>& v, const char* sep = " | ") {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
    return s;
}

inline void print_help(const CliSpec& spec) {
    std::printf("%s — %s\n\nusage: %s [options]\n", spec.program.c_str(), spec.summary.c_str(), spec.program.c_str());
    std::printf("  --n N          problem size: 1000000, 1<<24, 2^24, 16M (K/M/G = 2^10/2^20/2^30)\n");
    std::printf("  --dist NAME    input: %s\n", join(spec.dists).c_str());
    if (!spec.dtypes.empty()) std::printf("  --type T       element type: %s\n", join(spec.dtypes).c_str());
    if (!spec.param_name.empty())
        std::printf("  --%-12s lesson parameter (default %llu)\n", spec.param_name.c_str(),
                    (unsigned long long)spec.param_default);
    for (auto& e : spec.extras)
        std::printf("  --%-12s %s\n", (e.name + (e.takes_value ? " X" : "")).c_str(), e.help.c_str());
    std::printf("  --seed S       input seed (printed; same seed, same input)\n");
    std::printf("  --reps R       timed repetitions, median reported\n");
    std::printf("  --test         run the lesson's whole battery; ends with 'N passed, N failed'\n");
    std::printf("  --quick        with --test: a smaller battery\n");
    std::printf("  --sweep        benchmark sizes 2^10..2^28 (skips what does not fit)\n");
    std::printf(
        "  --plan         print the launch plan this case gets on this GPU, and run nothing\n"
        "                 (COURSE_GPU_PROFILE=t4|a100|l4|... plays another GPU, no GPU needed)\n");
    std::printf("  --csv FILE     append result rows to FILE\n");
    std::printf(
        "  --input F.npy  run on your data; --output F.npy saves the result (and F_idx.npy beside it\n"
        "                 where a result has indices: top-k, a sort of pairs gives the argsort)\n");
    std::printf("exit status: 0 pass, 1 wrong answer, 2 bad usage/input, 3 CUDA error, 77 no GPU\n");
}

inline Options parse_options(int argc, char** argv, const CliSpec& spec) {
    Options o;
    o.dist = spec.dists.empty() ? "" : spec.dists.front();
    o.dtype = spec.dtypes.empty() ? "" : spec.dtypes.front();
    o.param = spec.param_default;
    auto known = [](const std::vector<std::string>& list, const std::string& v) {
        for (auto& s : list)
            if (s == v) return true;
        return false;
    };
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        std::string value;
        bool has_inline = false;
        if (arg.rfind("--", 0) == 0 && arg.find('=') != std::string::npos) {   // --n=1M
            value = arg.substr(arg.find('=') + 1);
            arg = arg.substr(0, arg.find('='));
            has_inline = true;
        }
        auto next = [&]() -> std::string {
            if (has_inline) return value;
            if (i + 1 >= argc) usage_error(arg + " needs a value");
            return argv[++i];
        };
        auto count = [&](const char* what) {
            std::string v = next();
            uint64_t out;
            if (!parse_count(v, out))
                usage_error(std::string(what) + " '" + v + "' is not a count (use 1000000, 1<<24, 2^24 or 16M)");
            return out;
        };
        if (arg == "--help" || arg == "-h") {
            print_help(spec);
            std::exit(kExitPass);
        } else if (arg == "--n") {
            o.n = count("--n");
            o.n_given = true;
        } else if (arg == "--dist") {
            o.dist = next();
            if (!known(spec.dists, o.dist))
                usage_error("unknown --dist '" + o.dist + "' (choose " + join(spec.dists) + ")");
        } else if (arg == "--type" && !spec.dtypes.empty()) {   // a one-type program accepts its own type
            o.dtype = next();
            if (!known(spec.dtypes, o.dtype))
                usage_error("unknown --type '" + o.dtype + "' (choose " + join(spec.dtypes) + ")");
        } else if (!spec.param_name.empty() && arg == "--" + spec.param_name) {
            o.param = count(arg.c_str());
            o.param_given = true;
            if (o.param < spec.param_min || o.param > spec.param_max)
                usage_error(arg + " must be between " + std::to_string(spec.param_min) + " and " +
                            std::to_string(spec.param_max));
        } else if (arg == "--seed") o.seed = count("--seed");
        else if (arg == "--reps") {
            uint64_t r = count("--reps");
            if (r < 1 || r > 100000) usage_error("--reps must be between 1 and 100000");
            o.reps = int(r);
        } else if (arg == "--test" || arg == "--quick" || arg == "--sweep" || arg == "--plan") {
            if (has_inline) usage_error(arg + " takes no value (give the flag, or leave it out)");
            (arg == "--test" ? o.test : arg == "--quick" ? o.quick : arg == "--sweep" ? o.sweep : o.plan) = true;
        } else if (arg == "--csv") o.csv = next();
        else if (arg == "--input") o.input = next();
        else if (arg == "--output") o.output = next();
        else {
            bool matched = false;
            for (auto& e : spec.extras) {
                if (arg != "--" + e.name) continue;
                o.extra[e.name] = e.takes_value ? next() : "1";
                if (!e.takes_value && has_inline) usage_error(arg + " takes no value");
                matched = true;
            }
            if (!matched) usage_error("unknown option '" + std::string(argv[i]) + "'");
        }
    }
    if (o.test && o.sweep) usage_error("--test and --sweep are separate modes: give one");
    if (o.plan && (o.test || o.sweep)) usage_error("--plan describes one case: drop --test/--sweep");
    if (!o.input.empty() && (o.test || o.sweep)) usage_error("--input runs one case: drop --test/--sweep");
    if (!o.input.empty() && o.n_given) usage_error("--input sets n from the file: drop --n");
    if (!o.output.empty() && (o.test || o.sweep)) usage_error("--output saves one case: drop --test/--sweep");
    if (!o.n_given) o.n = spec.n_default;
    return o;
}

}   // namespace course
