// common/inputs.h — reproducible test inputs (host-only).
//
// Element i of every input is a pure function of (seed, i): a counter-based generator, so the
// input is the same whatever the thread count, and a failing case can be re-run from the seed
// that the program prints. Lessons add their own shapes on top (see each lesson.cuh).
#pragma once
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "parallel.h"

namespace course {

// splitmix64 finaliser on a (seed, index) counter: fast, stateless, well mixed.
inline uint64_t hash64(uint64_t seed, uint64_t i) {
    uint64_t z = seed * 0x9E3779B97F4A7C15ull + i * 0xD1B54A32D192ED03ull + 0x632BE59BD9B4E019ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
inline double unit_double(uint64_t bits) { return double(bits >> 11) * (1.0 / 9007199254740992.0); }

// The distributions every lesson knows. Lessons append their own names to this list.
inline std::vector<std::string> common_dists() {
    return {"uniform", "sorted", "reversed", "equal", "few", "zipf", "extremes"};
}

template <class T> struct TypeName;
template <> struct TypeName<int32_t> {
    static const char* get() { return "int32"; }
};
template <> struct TypeName<uint32_t> {
    static const char* get() { return "uint32"; }
};
template <> struct TypeName<uint64_t> {
    static const char* get() { return "uint64"; }
};
template <> struct TypeName<float> {
    static const char* get() { return "float32"; }
};
template <> struct TypeName<double> {
    static const char* get() { return "float64"; }
};
template <> struct TypeName<uint8_t> {
    static const char* get() { return "uint8"; }
};

// A uniform value of type T from 64 random bits: the whole range for integers (so int32 has
// negatives and sums that wrap), [-1, 1) for floats.
template <class T> T uniform_value(uint64_t bits) {
    if constexpr (std::is_floating_point_v<T>) return T(unit_double(bits) * 2.0 - 1.0);
    else return T(bits >> (64 - 8 * sizeof(T)));
}

// Value at fraction f in [0, 1) of a non-decreasing ramp across the type's range (floats: [-1, 1)).
template <class T> T ramp_value(double f) {
    if constexpr (std::is_floating_point_v<T>) return T(-1.0 + 2.0 * f);
    else {
        long double lo = (long double)std::numeric_limits<T>::min();
        long double span = (long double)std::numeric_limits<T>::max() - lo;
        return T(lo + span * (long double)f);
    }
}

template <class T> T equal_value() {
    if constexpr (std::is_floating_point_v<T>) return T(3.25);
    else if constexpr (sizeof(T) == 1) return T(0xA7);
    else return T(0x2F3E4D5Cu);
}

// The type's edges and their neighbours: min, max, 0, +-1, min+1, max-1 (unsigned: also the
// middle, where the top bit flips; floats: +-FLT_MAX,
// +-0.0, +-FLT_MIN, the smallest denormal, +-1). No infinities or NaN: lessons add those.
template <class T> std::vector<T> extreme_values() {
    if constexpr (std::is_floating_point_v<T>) {
        T mx = std::numeric_limits<T>::max(), mn = std::numeric_limits<T>::min();
        return {mx, -mx, T(0), -T(0), mn, -mn, std::numeric_limits<T>::denorm_min(), T(1), T(-1)};
    } else {
        T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
        if constexpr (std::is_signed_v<T>) return {lo, hi, T(0), T(1), T(-1), T(lo + 1), T(hi - 1)};
        else return {T(0), T(1), hi, T(hi - 1), T(hi / 2), T(hi / 2 + 1)};   // 0 and max, and the middle
    }
}

// Zipf(s) over `ranks` ranks; rank r maps to a scrambled value so that the frequent values are
// not simply 0, 1, 2 (which would flatter any kernel that special-cases small values).
struct ZipfTable {
    std::vector<double> cdf;
    ZipfTable(size_t ranks, double s) : cdf(ranks) {
        double sum = 0;
        for (size_t r = 0; r < ranks; ++r) cdf[r] = (sum += 1.0 / std::pow(double(r + 1), s));
        for (auto& c : cdf) c /= sum;
    }
    size_t rank(double u) const { return size_t(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin()); }
};

template <class T> T zipf_value(size_t rank, uint64_t seed) {
    uint64_t h = hash64(seed ^ 0x5A17u, rank);
    if constexpr (sizeof(T) == 1) return T((rank * 167u + (seed & 255)) & 255u);   // a permutation of bytes
    else return uniform_value<T>(h);
}

// Fills out[0, n) with the named distribution; returns false for a name it does not know.
template <class T> bool generate(std::vector<T>& out, size_t n, const std::string& dist, uint64_t seed) {
    out.resize(n);
    T* p = out.data();
    if (dist == "uniform") {
        parallel_for(n, [&](size_t i) { p[i] = uniform_value<T>(hash64(seed, i)); });
    } else if (dist == "sorted" || dist == "reversed") {
        bool rev = dist == "reversed";
        parallel_for(n, [&](size_t i) {
            size_t j = rev ? n - 1 - i : i;
            p[i] = ramp_value<T>(double(j) / double(n));
        });
    } else if (dist == "equal") {
        std::fill(out.begin(), out.end(), equal_value<T>());
    } else if (dist == "few") {   // 16 distinct values, randomly placed
        T pool[16];
        for (int v = 0; v < 16; ++v) pool[v] = uniform_value<T>(hash64(seed ^ 0xF00Du, v));
        parallel_for(n, [&](size_t i) { p[i] = pool[hash64(seed, i) & 15]; });
    } else if (dist == "zipf") {   // s = 1.1: a heavy head and a long tail
        ZipfTable table(sizeof(T) == 1 ? 256 : 1 << 16, 1.1);
        parallel_for(n, [&](size_t i) { p[i] = zipf_value<T>(table.rank(unit_double(hash64(seed, i))), seed); });
    } else if (dist == "extremes") {
        std::vector<T> edge = extreme_values<T>();
        parallel_for(n, [&](size_t i) { p[i] = edge[hash64(seed, i) % edge.size()]; });
    } else {
        return false;
    }
    return true;
}

}   // namespace course
