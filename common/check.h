// common/check.h — comparing a GPU result with the CPU reference (host-only).
//
// Rules the whole course follows:
//  * integers (and data that is only moved, like sorted floats) compare exactly, bit for bit;
//  * computed floats compare against a double-precision reference within a stated tolerance,
//    and NaN never passes;
//  * a failure names the first few mismatches with index, expected and got, plus the count.
#pragma once
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "parallel.h"

namespace course {

struct CheckResult {
    bool ok = true;
    std::string message;   // empty when ok; otherwise what went wrong, first mismatches first
    static CheckResult pass() { return {}; }
    static CheckResult fail(const std::string& m) { return {false, m}; }
};

template <class T> std::string show(T v) {
    char buf[64];
    if constexpr (std::is_floating_point_v<T>) std::snprintf(buf, sizeof buf, "%.9g", double(v));
    else if constexpr (std::is_signed_v<T>) std::snprintf(buf, sizeof buf, "%lld", (long long)v);
    else std::snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
    return buf;
}

// Bitwise equality for floats too: -0.0 differs from +0.0, and NaN equals the same NaN. Used for
// results that are selected or moved rather than computed (sort, top-k, compaction).
template <class T> bool same_bits(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) return std::memcmp(&a, &b, sizeof(T)) == 0;
    else return a == b;
}

// Collects mismatches from many threads; keeps the lowest indices for the report.
class MismatchLog {
public:
    explicit MismatchLog(const char* what) : what_(what) {}
    void add(size_t i, const std::string& expected, const std::string& got) {
        count_.fetch_add(1, std::memory_order_relaxed);
        std::lock_guard<std::mutex> lock(mu_);
        rows_.push_back({i, expected, got});
        if (rows_.size() > 64) {   // keep only the smallest indices
            std::sort(rows_.begin(), rows_.end(), [](const Row& a, const Row& b) { return a.i < b.i; });
            rows_.resize(kShown);
        }
    }
    CheckResult result(size_t n) {
        if (count_ == 0) return CheckResult::pass();
        std::sort(rows_.begin(), rows_.end(), [](const Row& a, const Row& b) { return a.i < b.i; });
        std::string m = std::to_string(count_.load()) + " of " + std::to_string(n) + " " + what_ + " wrong;";
        for (size_t r = 0; r < rows_.size() && r < kShown; ++r)
            m += " [" + std::to_string(rows_[r].i) + "] expected " + rows_[r].expected + " got " + rows_[r].got + ";";
        return CheckResult::fail(m);
    }

private:
    struct Row {
        size_t i;
        std::string expected, got;
    };
    static constexpr size_t kShown = 5;
    const char* what_;
    std::atomic<size_t> count_{0};
    std::mutex mu_;
    std::vector<Row> rows_;
};

template <class T> CheckResult compare_exact(const T* got, const T* expected, size_t n, const char* what = "elements") {
    MismatchLog log(what);
    parallel_for(n, [&](size_t i) {
        if (!same_bits(got[i], expected[i])) log.add(i, show(expected[i]), show(got[i]));
    });
    return log.result(n);
}

// |got - expected| <= atol + rtol * scale[i], where the lesson chooses `scale` (for a sum, the sum
// of absolute values of its terms is the honest scale: the rounding error grows with it, not with
// the result, which can cancel to near zero). NaN or inf in `got` fails unless expected is the same.
template <class T>
CheckResult compare_close(const T* got, const double* expected, const double* scale, size_t n, double rtol, double atol,
                          const char* what = "elements") {
    MismatchLog log(what);
    parallel_for(n, [&](size_t i) {
        double g = double(got[i]), e = expected[i];
        bool ok;
        if (std::isnan(g) || std::isnan(e)) ok = false;   // NaN never passes
        else if (std::isinf(g) || std::isinf(e)) ok = g == e;
        else ok = std::fabs(g - e) <= atol + rtol * (scale ? scale[i] : std::fabs(e));
        if (!ok) log.add(i, show(e), show(g));
    });
    return log.result(n);
}

}   // namespace course
