// lesson01_topk/lesson.cuh — the top-k problem in one place: semantics, order-preserving keys,
// the input shapes, the CPU reference (the checker), the battery, the sweep, the bytes a top-k
// must move, and run_lesson() for every version.
//
// What one run does (common/driver.cuh drives it; TopkTrial below is top-k's part, and rows.cuh's
// RowsTrial the same for a matrix of rows):
//   1. generate the input on the CPU (make_input: a hash of --seed and the index; or --input's
//      .npy file) and upload it;
//   2. poison the outputs (values and indices, every byte 0xAB), run the version's launcher once,
//      check it against the CPU reference (--test: poison and run again; stale scratch fails then);
//   3. (not in --test) warm up, time the launcher alone with CUDA events, the L2 flushed before each
//      repetition; report the median, GB/s from n elements read and k values and indices written,
//      and % of a copy of the same bytes; check the output again after the timed runs.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "../common/harness.cuh"
#include "../common/types.cuh"

// The two 16-bit float types by name, as .npy files and the command line know them. NumPy has no
// bfloat16: a bfloat16 .npy holds the bit patterns as '<u2' (torch: t.view(torch.uint16).numpy(),
// or ml_dtypes' bfloat16 array .view(np.uint16)); float16 is NumPy's own '<f2'.
namespace course {
template <> struct TypeName<__half> {
    static const char* get() { return "float16"; }
};
template <> struct TypeName<__nv_bfloat16> {
    static const char* get() { return "bfloat16"; }
};
template <> inline const char* npy_descr<__half>() { return "<f2"; }
template <> inline const char* npy_descr<__nv_bfloat16>() { return "<u2"; }
}   // namespace course

// Semantics (README.md, "semantics card"):
//   * out_vals[0..k) = the k largest values, in descending order; out_idx[j] = an index i with
//     in[i] == out_vals[j]; the indices are distinct. Duplicates count (as torch.topk): the top 3
//     of {5, 5, 5, 1} are {5, 5, 5}, not {5, 1}.
//   * Ties at the k-th value: any choice among the tied indices is valid.
//   * float32: NaN is larger than +inf (torch's order), every NaN equal to every other; -0.0 equals
//     +0.0 (either may be returned for the other).
//   * --smallest: the k smallest, in ascending order (NaN is then never chosen before a number).
//   * float16 and bfloat16: the same order (NaN largest, -0.0 == +0.0), values returned in the
//     input's type; a 16-bit key sits in the top half of the 32-bit key (to_key below).
//   * Types float32, float16, bfloat16, int32, uint32. 1 <= k <= n. Indices are uint32: n < 2^32 (4 G elements is
//     16 GiB of input: more than any single top-k call here needs; int64 would double the index
//     traffic for nothing).
namespace topk {

// Every version provides a launcher of this shape: device pointers, n elements, k, direction.
// Values and indices are written to out_vals[0..k) and out_idx[0..k). Scratch comes from
// course::scratch(), so the timed runs never allocate.
template <class T>
using Launcher = void (*)(const T* d_in, size_t n, size_t k, bool smallest, T* d_vals, uint32_t* d_idx);

// ---- order-preserving keys ----------------------------------------------------------------------
// Every version compares uint32 keys instead of values: key(a) > key(b) exactly when a comes
// before b in the output order. One mapping for three types and both directions:
//   uint32  the value itself
//   int32   flip the sign bit (INT_MIN -> 0, -1 -> 0x7FFFFFFF, 0 -> 0x80000000)
//   float   positive: set the sign bit; negative: invert all bits (so more negative = smaller);
//           -0.0 is first turned into +0.0 and every NaN into the largest key 0xFFFFFFFF
//           (+inf maps to 0xFF800000, so NaN > +inf, as in torch).
//   smallest: invert the key, so "largest key first" still means "output order first".
__host__ __device__ __forceinline__ uint32_t float_bits(float v) {
#ifdef __CUDA_ARCH__
    return __float_as_uint(v);
#else
    uint32_t b;
    std::memcpy(&b, &v, 4);
    return b;
#endif
}

template <class T> constexpr bool is_half_float = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

// The raw 16 bits of a float16 / bfloat16, and back.
template <class T> __host__ __device__ __forceinline__ uint16_t half_bits(T v) {
#ifdef __CUDA_ARCH__
    if constexpr (std::is_same_v<T, __half>) return __half_as_ushort(v);
    else return __bfloat16_as_ushort(v);
#else
    uint16_t b;
    std::memcpy(&b, &v, 2);
    return b;
#endif
}
template <class T> __host__ __device__ __forceinline__ T half_from_bits(uint16_t b) {
#ifdef __CUDA_ARCH__
    if constexpr (std::is_same_v<T, __half>) return __ushort_as_half(b);
    else return __ushort_as_bfloat16(b);
#else
    T v;
    std::memcpy(&v, &b, 2);
    return v;
#endif
}

// The 16-bit key of a float16 (exponent mask 0x7C00) or bfloat16 (0x7F80): the float32 rule on 16
// bits. Every NaN -> 0xFFFF, -0.0 -> +0.0, then positive: set the sign bit, negative: invert all.
__host__ __device__ __forceinline__ uint16_t half_key(uint16_t b, uint16_t inf_bits) {
    if ((b & 0x7FFFu) > inf_bits) return 0xFFFFu;
    if (b == 0x8000u) b = 0;
    return (b & 0x8000u) ? uint16_t(~b) : uint16_t(b | 0x8000u);
}
// Its inverse (the bits of a value with that key: a NaN's key gives 0x7FFF, a NaN, and 0 gives
// +0.0): tests/lesson01_host.cu checks that all 65,536 patterns round-trip and order like values.
__host__ __device__ __forceinline__ uint16_t half_key_bits(uint16_t key) {
    return (key & 0x8000u) ? uint16_t(key ^ 0x8000u) : uint16_t(~key);
}
template <class T> __host__ __device__ constexpr uint16_t half_inf_bits() {
    return std::is_same_v<T, __half> ? 0x7C00u : 0x7F80u;
}

// ---- a threshold compared in the value's own type (rows_05_serving's one-pass filter) ---------------
// Testing key(x) >= tau costs the key transform on every element; a float comparison costs one
// instruction. bar_of(tau) is a float v such that the elements that pass(), !(x < v) for the
// largest (NaN passes) or x <= v for the smallest (NaN fails), are exactly those whose key is at
// least some T <= tau: an upper set of the output order holding every key >= tau. tau > 0 (0 lets
// everything through: the caller skips the test). 16-bit types compare their exact float value and
// use the top 16 bits of tau. tests/lesson01_host.cu checks both properties exhaustively for 16 bits.
__host__ __device__ __forceinline__ float float_from_bits(uint32_t b) {
#ifdef __CUDA_ARCH__
    return __uint_as_float(b);
#else
    float f;
    std::memcpy(&f, &b, 4);
    return f;
#endif
}
template <class T> __host__ __device__ __forceinline__ float as_float(T x) {
    if constexpr (std::is_same_v<T, float>) return x;
    else if constexpr (std::is_same_v<T, __nv_bfloat16>) return float_from_bits(uint32_t(half_bits(x)) << 16);
    else return __half2float(x);
}
template <class T> __host__ __device__ inline float bar_of(uint32_t tau, bool smallest) {
    if constexpr (is_half_float<T>) {
        const uint16_t inf = half_inf_bits<T>();
        const uint16_t kl = uint16_t(smallest ? ~(tau >> 16) : (tau >> 16));   // the largest-order key
        uint16_t b = half_key_bits(kl);
        if ((b & 0x7FFFu) > inf) b = uint16_t((b & 0x8000u) | inf);   // a NaN pattern: +-inf
        return as_float(half_from_bits<T>(b));
    } else {
        const uint32_t kl = smallest ? ~tau : tau;
        uint32_t b = (kl & 0x80000000u) ? (kl & 0x7FFFFFFFu) : ~kl;
        if ((b & 0x7FFFFFFFu) > 0x7F800000u) b = (b & 0x80000000u) | 0x7F800000u;
        return float_from_bits(b);
    }
}
template <class T> __host__ __device__ __forceinline__ bool passes(T x, float bar, bool smallest) {
    const float f = as_float(x);
    return smallest ? f <= bar : !(f < bar);
}

// Element i of a 16-byte vector of T (4 floats, or 8 float16 / bfloat16). The word is chosen by
// selects, not by indexing an array: an i known only at run time (08's loop over the elements that
// pass) would put such an array in local memory.
template <class T> __device__ __forceinline__ T vec_elem(const uint4& v, int i) {
    const int q = i / int(4 / sizeof(T));
    const uint32_t w = q < 2 ? (q == 0 ? v.x : v.y) : (q == 2 ? v.z : v.w);
    if constexpr (sizeof(T) == 4) return __uint_as_float(w);
    else return half_from_bits<T>(uint16_t(w >> (16 * (i % 2))));
}

// passes() on a whole 16-byte vector (4 floats, or 8 float16 / bfloat16): bit i of the result is
// element i's, so that a pass can skip a vector with one test and visit only the set bits (08).
// 16-bit types: four packed compares (set.geu: !(x < bar), NaN passes; set.le: x <= bar, NaN fails),
// one instruction for two elements where passes() takes two for one (widen, compare). They are
// native for float16 from sm_53 and bfloat16 from sm_90 (packed_compare); elsewhere the library
// compares half by half, so those test each element. bar is a value of T (bar_of), so T(bar) is exact.
template <class T> __device__ constexpr bool packed_compare() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    return std::is_same_v<T, __half>;
#else
    return is_half_float<T>;
#endif
}
template <class T> __device__ __forceinline__ uint32_t passes_mask(const uint4& v, float bar, bool smallest) {
    if constexpr (packed_compare<T>()) {
        using T2 = std::conditional_t<std::is_same_v<T, __half>, __half2, __nv_bfloat162>;
        const uint32_t b = half_bits(T(bar)), bb = b | b << 16;
        T2 bar2, x2[4];
        memcpy(&bar2, &bb, 4);
        memcpy(x2, &v, 16);
        uint32_t m[4];
#pragma unroll
        for (int j = 0; j < 4; ++j) m[j] = smallest ? __hle2_mask(x2[j], bar2) : __hgeu2_mask(x2[j], bar2);
        // m[j] is 0xFFFF in each half that passes: take bit 2j of its low half and bit 2j + 17 of its high one.
        const uint32_t s = (m[0] & 0x20001u) | (m[1] & 0x80004u) | (m[2] & 0x200010u) | (m[3] & 0x800040u);
        return (s | s >> 16) & 0xFFu;
    } else {
        uint32_t m = 0;
#pragma unroll
        for (int i = 0; i < int(16 / sizeof(T)); ++i) m |= uint32_t(passes(vec_elem<T>(v, i), bar, smallest)) << i;
        return m;
    }
}

// float16/bfloat16: the 16-bit key in the top half, the bottom half 0 in BOTH directions (only
// the 16 bits are inverted for smallest), so radix digits below bit 16 never split a row's keys.
template <class T> __host__ __device__ __forceinline__ uint32_t half_to_key(T v, bool smallest) {
    uint16_t h = half_key(half_bits(v), half_inf_bits<T>());
    return uint32_t(uint16_t(smallest ? ~h : h)) << 16;
}

template <class T> __host__ __device__ __forceinline__ uint32_t to_key(T v, bool smallest) {
    if constexpr (is_half_float<T>) {
        return half_to_key(v, smallest);
    } else {
        uint32_t key;
        if constexpr (std::is_same_v<T, float>) {
            uint32_t b = float_bits(v);
            if ((b & 0x7FFFFFFFu) > 0x7F800000u) key = 0xFFFFFFFFu;   // any NaN: above +inf
            else {
                if (b == 0x80000000u) b = 0;   // -0.0 -> +0.0
                key = (b & 0x80000000u) ? ~b : (b | 0x80000000u);
            }
        } else if constexpr (std::is_same_v<T, int32_t>) {
            key = uint32_t(v) ^ 0x80000000u;
        } else {
            static_assert(std::is_same_v<T, uint32_t>, "top-k types: float, __half, __nv_bfloat16, int32_t, uint32_t");
            key = v;
        }
        return smallest ? ~key : key;
    }
}

// The narrowest key a library top-k can compare (CUB's bars): 32 bits for 32-bit types, the 16-bit
// key itself for float16/bfloat16 (half the key bytes to move).
template <class T> using NarrowKey = std::conditional_t<is_half_float<T>, uint16_t, uint32_t>;
template <class T> struct NarrowKeyOf {
    bool smallest;
    __host__ __device__ NarrowKey<T> operator()(T v) const {
        return NarrowKey<T>(to_key(v, smallest) >> (is_half_float<T> ? 16 : 0));
    }
};

// Merge-based versions (01-04) compare (key, index) pairs packed in 64 bits: the key in the high
// half, the inverted index in the low half. Every element then has a distinct packed value (ties
// go to the lower index), and the packed value 0 (key 0, index 0xFFFFFFFF) is below every real
// element because no real index is 0xFFFFFFFF (n < 2^32): it is the "empty slot" sentinel.
__host__ __device__ __forceinline__ uint64_t pack(uint32_t key, uint32_t idx) {
    return (uint64_t(key) << 32) | uint32_t(~idx);
}
__host__ __device__ __forceinline__ uint32_t packed_index(uint64_t p) { return ~uint32_t(p); }
constexpr uint64_t kEmpty = 0;

// Writes out_vals[j] = in[idx] and out_idx[j] = idx for the packed results best[0..k) (already in
// output order). Gathering the value from the input keeps its exact bits (-0.0, NaN payloads).
// An index >= n (an empty slot left by a broken version) is written as is and its value is not
// read, so the checker reports it instead of the kernel faulting.
template <class T>
__global__ void write_packed(const T* __restrict__ in, size_t n, const uint64_t* __restrict__ best, size_t k,
                             T* __restrict__ out_vals, uint32_t* __restrict__ out_idx) {
    size_t j = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (j >= k) return;
    uint32_t i = packed_index(best[j]);
    out_idx[j] = i;
    if (i < n) out_vals[j] = in[i];
}

// ---- inputs -------------------------------------------------------------------------------------

inline std::vector<std::string> dists() {
    auto d = course::common_dists();
    d.push_back("negatives");   // every value negative (ints: int32 only; uint32 gets uniform)
    d.push_back("dupes");       // 64 distinct values: every k-th value has many copies
    d.push_back("topbits");     // values sharing their top bits: floats in [1, 2), ints likewise
    d.push_back("specials");    // floats: +-inf, NaNs (three bit patterns), +-0.0 among uniform
    return d;
}

template <class T> std::vector<T> make_input32(size_t n, const std::string& dist, uint64_t seed) {
    std::vector<T> v;
    constexpr bool kFloat = std::is_floating_point_v<T>;
    if (dist == "negatives" || dist == "dupes" || dist == "topbits" || dist == "specials") {
        v.resize(n);
        T* p = v.data();
        course::parallel_for(n, [&](size_t i) {
            uint64_t h = course::hash64(seed, i);
            double u = course::unit_double(h);
            if (dist == "negatives") {
                if constexpr (kFloat) p[i] = T(-1e-3 - 1000.0 * u);
                else if constexpr (std::is_signed_v<T>) p[i] = T(-1 - int64_t(h >> 34));
                else p[i] = course::uniform_value<T>(h);
            } else if (dist == "dupes") {
                uint32_t level = uint32_t(h >> 58);   // 0..63
                if constexpr (kFloat) p[i] = T(0.25 * level - 8.0);
                else if constexpr (std::is_signed_v<T>) p[i] = T(int32_t(level) * 1000 - 30000);
                else p[i] = T(level * 1000u);
            } else if (dist == "topbits") {
                if constexpr (kFloat) p[i] = T(1.0 + u);          // [1, 2): 9 top bits shared
                else p[i] = T(0x3F800000u | uint32_t(h >> 41));   // the same bit patterns
            } else {                                              // specials
                if constexpr (kFloat) {
                    uint32_t r = uint32_t(h & 31), b;
                    switch (r) {
                        case 0: b = 0x7F800000u; break;   // +inf
                        case 1: b = 0xFF800000u; break;   // -inf
                        case 2: b = 0x7FC00000u; break;   // NaN
                        case 3: b = 0xFFC00000u; break;   // -NaN (still above +inf)
                        case 4: b = 0x7F800001u; break;   // signalling-pattern NaN
                        case 5: b = 0x00000000u; break;   // +0.0
                        case 6: b = 0x80000000u; break;   // -0.0
                        default: {
                            float f = float(u * 2.0 - 1.0);
                            std::memcpy(&b, &f, 4);
                        }
                    }
                    std::memcpy(&p[i], &b, 4);
                } else {
                    auto e = course::extreme_values<T>();
                    p[i] = (h & 3) ? course::uniform_value<T>(h) : e[(h >> 8) % e.size()];
                }
            }
        });
    } else if (!course::generate(v, n, dist, seed)) {
        throw course::UsageError("unknown input '" + dist + "'");
    }
    return v;
}

// float16 and bfloat16 inputs are the float32 ones rounded to nearest (so with more ties).
template <class T> std::vector<T> make_input(size_t n, const std::string& dist, uint64_t seed) {
    if constexpr (is_half_float<T>) {
        std::vector<float> f = make_input32<float>(n, dist, seed);
        std::vector<T> v(n);
        T* p = v.data();
        const float* q = f.data();
        course::parallel_for(n, [&](size_t i) { p[i] = T(q[i]); });
        return v;
    } else {
        return make_input32<T>(n, dist, seed);
    }
}

// ---- the CPU reference --------------------------------------------------------------------------

template <class T> std::vector<uint32_t> keys_of(const std::vector<T>& in, bool smallest) {
    std::vector<uint32_t> keys(in.size());
    course::parallel_for(in.size(), [&](size_t i) { keys[i] = to_key(in[i], smallest); });
    return keys;
}

// The k-th largest key (1 <= k <= n), by std::nth_element: each thread finds the top min(k, chunk)
// keys of its chunk, then one nth_element over those candidates. The top k of the whole are among
// the union of each chunk's top k, so this is exact. (2^28 keys with k = 2048: well under a second.)
inline uint32_t kth_largest_key(const std::vector<uint32_t>& keys, size_t k) {
    size_t n = keys.size();
    unsigned chunks = std::max(1u, std::min<unsigned>(course::cpu_threads(), unsigned(n / 65536 + 1)));
    if (k > n / (4 * chunks)) chunks = 1;   // large k: the candidates would be most of the input
    std::vector<std::vector<uint32_t>> best(chunks);
    size_t per = (n + chunks - 1) / chunks;
    course::parallel_chunks(
        chunks,
        [&](size_t cb, size_t ce, unsigned) {
            for (size_t c = cb; c < ce; ++c) {
                size_t b = std::min(n, c * per), e = std::min(n, b + per);
                std::vector<uint32_t> part(keys.begin() + b, keys.begin() + e);
                size_t keep = std::min(k, part.size());
                if (keep < part.size())
                    std::nth_element(part.begin(), part.begin() + (keep - 1), part.end(), std::greater<uint32_t>());
                part.resize(keep);
                best[c] = std::move(part);
            }
        },
        1);
    std::vector<uint32_t> all;
    for (auto& b : best) all.insert(all.end(), b.begin(), b.end());
    std::nth_element(all.begin(), all.begin() + (k - 1), all.end(), std::greater<uint32_t>());
    return all[k - 1];
}

struct Reference {
    uint32_t kth = 0;     // the k-th largest key
    size_t greater = 0;   // how many keys are larger than it (all must be returned)
};

inline Reference reference(const std::vector<uint32_t>& keys, size_t k) {
    Reference r;
    r.kth = kth_largest_key(keys, k);
    std::vector<size_t> counts(course::cpu_threads(), 0);
    course::parallel_chunks(keys.size(), [&](size_t b, size_t e, unsigned t) {
        size_t c = 0;
        for (size_t i = b; i < e; ++i) c += keys[i] > r.kth;
        counts[t] = c;
    });
    for (size_t c : counts) r.greater += c;
    return r;
}

template <class T> std::string show_value(T v) {
    if constexpr (is_half_float<T>) {
        uint16_t b = half_bits(v);
        if ((b & 0x7FFFu) > half_inf_bits<T>()) return "nan";
        return course::show(double(float(v)));
    } else if constexpr (std::is_same_v<T, float>) {
        uint32_t b = float_bits(v);
        if ((b & 0x7FFFFFFFu) > 0x7F800000u) return "nan";
    }
    return course::show(v);
}

// The checker. A result is right exactly when:
//   1. every index is < n, and no index appears twice;
//   2. every value equals the input at its index (-0.0 == +0.0, NaN == NaN: compared as keys);
//   3. the values are in output order (keys non-increasing);
//   4. the last value is the k-th largest, and the values above it number as many as the input's.
// With 1 and 2 the result is k distinct input elements; 3 and 4 then say that it holds every
// element above the k-th value plus enough copies of it: the same multiset as any right answer.
// (Pointer form: in[0..n) and keys[0..n) may be one row of a matrix, as in rows.cuh.)
template <class T>
course::CheckResult check_topk(const T* in, const uint32_t* keys, size_t n, const Reference& ref, size_t k,
                               bool smallest, const T* vals, const uint32_t* idx) {
    std::vector<uint8_t> seen(n, 0);
    size_t greater = 0;
    for (size_t j = 0; j < k; ++j) {
        std::string at = "[" + std::to_string(j) + "] ";
        if (idx[j] >= n)
            return course::CheckResult::fail(at + "index " + std::to_string(idx[j]) +
                                             " is out of range (n=" + std::to_string(n) + ")");
        if (seen[idx[j]]) return course::CheckResult::fail(at + "index " + std::to_string(idx[j]) + " returned twice");
        seen[idx[j]] = 1;
        uint32_t kv = to_key(vals[j], smallest);
        if (kv != keys[idx[j]])
            return course::CheckResult::fail(at + "value " + show_value(vals[j]) + " but in[" + std::to_string(idx[j]) +
                                             "] = " + show_value(in[idx[j]]));
        if (j > 0 && kv > to_key(vals[j - 1], smallest))
            return course::CheckResult::fail(at + "out of order: " + show_value(vals[j - 1]) + " then " +
                                             show_value(vals[j]));
        if (kv < ref.kth)
            return course::CheckResult::fail(at + "value " + show_value(vals[j]) + " is not among the top " +
                                             std::to_string(k) + " (the k-th is " +
                                             show_value(in[std::find(keys, keys + n, ref.kth) - keys]) + ")");
        greater += kv > ref.kth;
    }
    if (greater != ref.greater)
        return course::CheckResult::fail(std::to_string(greater) + " values above the k-th returned, the input has " +
                                         std::to_string(ref.greater) + " (values or their duplicates missing)");
    return course::CheckResult::pass();
}

template <class T>
course::CheckResult check_topk(const std::vector<T>& in, const std::vector<uint32_t>& keys, const Reference& ref,
                               size_t k, bool smallest, const T* vals, const uint32_t* idx) {
    return check_topk(in.data(), keys.data(), in.size(), ref, k, smallest, vals, idx);
}

// A library bar that returns its k results in any order (CUB's DeviceTopK): the checker first puts
// them in output order (by key, ties by index), then checks them like any other version's. A value
// that is not an input value still fails (its key matches no index's), so nothing is excused but
// the order.
template <class T> void order_results(T* vals, uint32_t* idx, size_t k, bool smallest) {
    std::vector<size_t> o(k);
    for (size_t j = 0; j < k; ++j) o[j] = j;
    std::sort(o.begin(), o.end(), [&](size_t a, size_t b) {
        uint32_t ka = to_key(vals[a], smallest), kb = to_key(vals[b], smallest);
        return ka != kb ? ka > kb : idx[a] < idx[b];
    });
    std::vector<T> v(k);
    std::vector<uint32_t> i(k);
    for (size_t j = 0; j < k; ++j) {
        v[j] = vals[o[j]];
        i[j] = idx[o[j]];
    }
    std::copy(v.begin(), v.end(), vals);
    std::copy(i.begin(), i.end(), idx);
}

// ---- one case on the device ---------------------------------------------------------------------

// Battery and sweep cases ask for the k smallest with a "/smallest" suffix on the input's name.
inline bool split_smallest(std::string& dist) {
    const std::string suffix = "/smallest";
    if (dist.size() > suffix.size() && dist.compare(dist.size() - suffix.size(), suffix.size(), suffix) == 0) {
        dist.resize(dist.size() - suffix.size());
        return true;
    }
    return false;
}

template <class T> class TopkTrial : public course::Trial {
public:
    TopkTrial(const course::Options& o, const course::Case& c, Launcher<T> fn, bool unsorted = false)
        : fn_(fn), k_(c.param), unsorted_(unsorted) {
        std::string dist = c.dist;
        smallest_ = split_smallest(dist) || o.has("smallest");
        if (!o.input.empty()) input_ = course::load_npy<T>(o.input);
        else {
            course::require_host_memory(10.0 * c.n);
            input_ = make_input<T>(c.n, dist, o.seed);
        }
        n = input_.size();
        if (n == 0) throw course::UsageError("top-k needs at least one element (n=0)");
        if (k_ < 1 || k_ > n)
            throw course::UsageError("--k " + std::to_string(k_) + " must be between 1 and n=" + std::to_string(n));
        bytes = double(sizeof(T)) * n + (sizeof(T) + 4.0) * k_;   // read the input once, write k values and k indices
        course::require_device_memory(double(sizeof(T)) * n + 8.0 * k_ + 24.0 * n);   // + the widest scratch (00)
        d_in_ = course::DeviceArray<T>(n);
        d_vals_ = course::DeviceArray<T>(k_);
        d_idx_ = course::DeviceArray<uint32_t>(k_);
        d_in_.upload(input_);
    }
    void run() override { fn_(d_in_.data(), n, k_, smallest_, d_vals_.data(), d_idx_.data()); }
    void poison() override {
        d_vals_.poison();
        d_idx_.poison();
    }
    course::CheckResult check() override {
        std::vector<T> vals = d_vals_.download();
        std::vector<uint32_t> idx = d_idx_.download();
        if (keys_.empty()) {
            keys_ = keys_of(input_, smallest_);
            ref_ = reference(keys_, k_);
        }
        if (unsorted_) order_results(vals.data(), idx.data(), k_, smallest_);
        return check_topk(input_, keys_, ref_, k_, smallest_, vals.data(), idx.data());
    }
    void save(const std::string& path) override {
        std::vector<T> vals = d_vals_.download();
        course::save_npy(path, vals.data(), vals.size());
        std::vector<uint32_t> idx = d_idx_.download();
        std::string ipath = course::npy_sibling(path, "_idx");
        course::save_npy(ipath, idx.data(), idx.size());
        std::printf("wrote %s (values) and %s (indices)\n", path.c_str(), ipath.c_str());
    }

private:
    Launcher<T> fn_;
    size_t k_;
    bool unsorted_ = false, smallest_ = false;
    std::vector<T> input_;
    std::vector<uint32_t> keys_;
    Reference ref_;
    course::DeviceArray<T> d_in_, d_vals_;
    course::DeviceArray<uint32_t> d_idx_;
};

// ---- the program --------------------------------------------------------------------------------

struct Limits {
    uint64_t max_k = uint64_t(1) << 32;         // versions that keep k candidates per thread state theirs
    uint64_t max_n = (uint64_t(1) << 32) - 1;   // uint32 indices
    const char* why = "uint32 indices";
    uint64_t sweep_max_n = uint64_t(1) << 28;   // slow versions benchmark smaller sizes only
    bool best = false;                          // the best version: k = n/2, n in the battery,
                                                // equal and topbits inputs in the sweep
    bool half_floats = false;                   // float16 and bfloat16 launchers were given
    bool unsorted = false;                      // results in any order (CUB's DeviceTopK): sorted
                                                // by the checker before it checks them
};

template <class T> const char* dtype_name() { return course::TypeName<T>::get(); }

inline bool k16_ok(const Limits& lim) { return lim.half_floats; }

inline std::vector<course::Case> battery(const course::Options& o, const Limits& lim) {
    std::vector<course::Case> cases;
    auto add = [&](uint64_t n, const std::string& d, uint64_t k, const char* t) {
        if (n == 0 || k < 1 || k > n || k > lim.max_k || n > lim.max_n) return;
        for (auto& c : cases)
            if (c.n == n && c.dist == d && c.param == k && c.dtype == t) return;
        cases.push_back({n, d, k, t});
    };
    const std::vector<uint64_t> all_k = {1, 2, 31, 32, 33, 100, 256, 1000, 1024, 2048};
    const std::vector<uint64_t> quick_k = {1, 32, 33, 1000, 2048};
    const std::vector<std::string> float_shapes =
        o.quick ? std::vector<std::string>{"uniform", "equal", "dupes", "topbits", "specials", "sorted"}
                : std::vector<std::string>{"uniform",  "sorted",    "reversed", "equal",   "few",     "zipf",
                                           "extremes", "negatives", "dupes",    "topbits", "specials"};
    const std::vector<std::string> int_shapes = {"uniform", "equal", "dupes", "extremes", "negatives", "sorted"};
    for (uint64_t n : course::battery_sizes(4096, o.quick, false)) {
        const auto& ks = o.quick ? quick_k : all_k;
        bool big = n >= 1000000;
        for (uint64_t k : ks) {
            for (auto& d : float_shapes) {
                if (big && (k == 2 || k == 31 || k == 100 || k == 1000)) continue;
                add(n, d, k, "float32");
            }
            if (k == 1 || k == 33 || k == 1024 || k == 2048)
                for (auto& d : int_shapes) {
                    if (big && d != "uniform" && d != "dupes") continue;
                    add(n, d, k, "int32");
                    add(n, d, k, "uint32");
                }
            if (k == 1 || k == 33 || k == 1000) {
                add(n, "uniform/smallest", k, "float32");
                add(n, "specials/smallest", k, "float32");
                add(n, "dupes/smallest", k, "int32");
            }
        }
        if (k16_ok(lim))
            for (uint64_t k : {uint64_t(1), uint64_t(33), uint64_t(1024), uint64_t(2048)})
                for (const char* d : {"uniform", "equal", "specials", "negatives", "specials/smallest"}) {
                    if (big && std::string(d) != "uniform" && std::string(d) != "specials") continue;
                    add(n, d, k, "float16");
                    add(n, d, k, "bfloat16");
                }
        if (n <= 4097) add(n, "dupes", n, "float32");   // k = n: everything
        if (lim.best)
            for (uint64_t k : {n / 2, n - 1, n})
                for (const char* d : {"uniform", "equal", "dupes", "specials"}) add(n, d, k, "float32");
    }
    if (!o.quick) {
        const uint64_t m24 = uint64_t(1) << 24, m28 = uint64_t(1) << 28;
        for (uint64_t k : {1, 32, 2048}) add(m24, "uniform", k, "float32");
        add(m24, "equal", 32, "float32");
        add(m24, "topbits", 1024, "float32");
        add(m24, "uniform", 256, "int32");
        add(m24, "dupes/smallest", 100, "uint32");
        add(m28, "uniform", 2048, "float32");
        if (k16_ok(lim)) {
            add(m24, "uniform", 256, "bfloat16");
            add(m24, "specials", 32, "float16");
        }
        add(m28, "topbits", 32, "float32");
        if (lim.best) {
            add(m24, "uniform", m24 / 2, "float32");
            add(m28, "equal", 1024, "float32");
        }
    }
    return cases;
}

inline std::vector<course::Case> sweep(const course::Options& o, const Limits& lim) {
    std::vector<course::Case> cases;
    std::vector<std::string> shapes = {o.dist};
    if (lim.best)
        for (const char* d : {"equal", "topbits"})
            if (o.dist != d) shapes.push_back(d);
    for (auto& d : shapes) {
        for (uint64_t n : course::sweep_sizes(lim.sweep_max_n))
            for (uint64_t k : {32, 1024})
                if (k <= n && k <= lim.max_k) cases.push_back({n, d, k, o.dtype});
        uint64_t m28 = uint64_t(1) << 28;
        if (lim.sweep_max_n >= m28)
            for (uint64_t k : {1, 256, 2048})
                if (k <= lim.max_k) cases.push_back({m28, d, k, o.dtype});
    }
    return cases;
}

// The 16-bit launchers are optional: a version without them refuses --type float16/bfloat16.
struct HalfLaunchers {
    Launcher<__half> f16 = nullptr;
    Launcher<__nv_bfloat16> bf16 = nullptr;
};

// The element types a 1-D top-k runs, in --help's order (the first is the default --type).
using Types = course::TypeList<float, int32_t, uint32_t, __half, __nv_bfloat16>;

inline int run_lesson(int argc, char** argv, const char* version, Launcher<float> f32, Launcher<int32_t> i32,
                      Launcher<uint32_t> u32, Limits lim = {}, HalfLaunchers h = {}) {
    lim.half_floats = h.f16 && h.bf16;
    course::LessonDef def;
    def.lesson = "01_topk";
    def.version = version;
    def.cli.program = version;
    def.cli.summary = "top-k: the k largest (or --smallest) values and their indices";
    def.cli.dists = dists();
    const course::Launchers<Launcher, float, int32_t, uint32_t, __half, __nv_bfloat16> fns{f32, i32, u32, h.f16,
                                                                                           h.bf16};
    def.cli.dtypes = course::type_names(Types{});
    if (!lim.half_floats) def.cli.dtypes.resize(3);   // float16 and bfloat16 are the last two
    def.cli.param_name = "k";
    def.cli.param_default = std::min<uint64_t>(32, lim.max_k);
    def.cli.param_min = 1;
    def.cli.n_default = std::min<uint64_t>(uint64_t(1) << 24, lim.max_n);
    def.cli.extras = {{"smallest", false, "the k smallest values (ascending) instead of the largest"}};
    def.validate = [lim](const course::Options& o) {
        if (o.test || o.sweep) return;
        uint64_t n = o.n;
        if (!o.input.empty()) {   // the file's n counts: read it now, before the GPU is touched
            n = course::dispatch_type(o.dtype, Types{}, [&](auto tag) -> uint64_t {
                return course::load_npy<typename decltype(tag)::type>(o.input).size();
            });
        }
        if (n == 0) course::usage_error("top-k needs at least one element (n=0)");
        if (o.param > n)
            course::usage_error("--k " + std::to_string(o.param) + " is larger than n=" + std::to_string(n) +
                                " (k must be between 1 and n)");
        if (!o.input.empty() && (o.param > lim.max_k || n > lim.max_n))
            course::usage_error("this version handles k <= " + std::to_string(lim.max_k) +
                                " and n <= " + std::to_string(lim.max_n) + " (" + lim.why + ")");
    };
    def.beyond_limit = [lim](const course::Case& c) -> std::string {
        if (c.param > lim.max_k)
            return "k=" + std::to_string(c.param) +
                   " is beyond this version's limit of k <= " + std::to_string(lim.max_k) + " (" + lim.why + ")";
        if (c.n > lim.max_n)
            return "n=" + std::to_string(c.n) + " is beyond this version's limit of " + std::to_string(lim.max_n) +
                   " (" + lim.why + ")";
        return "";
    };
    def.battery = [lim](const course::Options& o) { return battery(o, lim); };
    def.sweep = [lim](const course::Options& o) { return sweep(o, lim); };
    def.make_trial = [=](const course::Options& o, const course::Case& c) -> std::unique_ptr<course::Trial> {
        return course::dispatch_type(c.dtype, Types{}, [&](auto tag) -> std::unique_ptr<course::Trial> {
            using T = typename decltype(tag)::type;
            return std::make_unique<TopkTrial<T>>(o, c, fns.template get<T>(), lim.unsorted);
        });
    };
    return course::drive(argc, argv, def);
}

}   // namespace topk
