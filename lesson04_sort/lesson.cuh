// lesson04_sort/lesson.cuh — the sorting problem in one place: key types and their order, the
// input shapes, the checker, the test battery, the bytes a sort must move, and run_lesson() for
// every version (comparison sorts and radix sorts alike).
//
// What one run does (common/driver.cuh drives it; KeysTrial and PairsTrial below are the sort's part):
//   1. generate the keys on the CPU (make_input: a hash of --seed and the index; or --input's
//      .npy file), for pairs also the values 0..n-1, and upload them;
//   2. poison the output (every byte 0xAB), run the version's launcher once, check it (the checker
//      below; --test: poison and run again, a stale scratch state fails the second time);
//   3. (not in --test) warm up, time the launcher alone with CUDA events, the L2 flushed before each
//      repetition; report the median, GB/s from every key (and value) read once and written once,
//      and % of a copy of the same bytes; check the output again after the timed runs.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "../common/harness.cuh"
#include "../common/types.cuh"

namespace sorting {
struct Pairs {};   // --type pairs: uint32 keys, each carrying a uint32 value
}   // namespace sorting
template <> struct course::TypeName<sorting::Pairs> {
    static const char* get() { return "pairs"; }
};

namespace sorting {

// ---- the interface every version fills ------------------------------------------------------
// Semantics (README.md, "semantics card"):
//   keys     uint32, int32, float32, uint64 (each version offers what it supports: --type)
//   pairs    uint32 key + uint32 value, sorted by key, STABLE: equal keys keep their input order
//            (the battery's values are the input indices, so stability is checkable)
//   order    ascending; int32 two's complement; float32 by float_to_ordered() below:
//              -inf < ... < -0.0 < +0.0 < ... < +inf < +NaNs < -NaNs
//            i.e. -0.0 sorts before +0.0 and every NaN after +inf; the bits of every key are
//            preserved (no NaN is canonicalised, -0.0 stays -0.0)
//   n        0 up to what fits in GPU memory (64-bit sizes); versions with a limit state it
//   input    const: a version must not modify d_keys_in (the checker re-runs it)

template <class K> using KeysFn = void (*)(const K* d_keys_in, K* d_keys_out, size_t n);
// Pairs: must be stable (equal keys keep the order of their values' input positions).
using PairsFn = void (*)(const uint32_t* d_keys_in, const uint32_t* d_vals_in, uint32_t* d_keys_out,
                         uint32_t* d_vals_out, size_t n);

struct Sorter {
    KeysFn<uint32_t> u32 = nullptr;
    KeysFn<int32_t> i32 = nullptr;
    KeysFn<float> f32 = nullptr;
    KeysFn<uint64_t> u64 = nullptr;
    PairsFn pairs = nullptr;
    uint64_t max_n = course::kMaxCount;   // versions with a size limit state it here
    const char* limit_why = "";           // e.g. "O(n^2) work: minutes beyond 2^17"
    // The keys launcher of type K (nullptr where the version does not offer it).
    template <class K> KeysFn<K> keys() const {
        if constexpr (std::is_same_v<K, uint32_t>) return u32;
        else if constexpr (std::is_same_v<K, int32_t>) return i32;
        else if constexpr (std::is_same_v<K, float>) return f32;
        else return u64;
    }
};

// The types a sort runs, in --help's order; a version offers those it gives a launcher for.
using Types = course::TypeList<uint32_t, int32_t, float, uint64_t, Pairs>;

// A version whose keys sort is one template V::keys<K>, with V::pairs for pairs, offers every
// type; this fills its Sorter (06, and 07 / 08 through radix::sorter_for):
//     sorting::Sorter s = sorting::every_type<MyVersion>();
template <class V> Sorter every_type() {
    Sorter s;
    s.u32 = V::template keys<uint32_t>;
    s.i32 = V::template keys<int32_t>;
    s.f32 = V::template keys<float>;
    s.u64 = V::template keys<uint64_t>;
    s.pairs = V::pairs;
    return s;
}

// ---- key order as unsigned bits (the radix sorts sort these; the checker compares these) ------

// Float order as a bijective map of the 32 bits onto uint32, order-preserving:
//   negative floats (sign set) are flipped entirely (~bits): -0.0 -> 0x7FFFFFFF, -inf -> 0x007FFFFF,
//     -NaNs -> 0x00000000..0x007FFFFE (below -inf);
//   non-negative floats get the sign bit set: +0.0 -> 0x80000000, +inf -> 0xFF800000,
//     +NaNs -> 0xFF800001..0xFFFFFFFF (above +inf).
// That is the classic radix-sort flip; -NaNs would sort first. Subtracting 0x7FFFFF (mod 2^32)
// rotates the -NaN block (the lowest 0x7FFFFF codes) to the very top:
//   -inf -> 0, ..., -0.0 -> 0x7F800000, +0.0 -> 0x7F800001, ..., +inf -> 0xFF000001,
//   +NaNs -> 0xFF000002..0xFF800000, -NaNs -> 0xFF800001..0xFFFFFFFF.
// Both steps are bijections, so the map is one: sorting the codes and mapping back restores every
// original bit pattern (NaN payloads and -0.0 included). Among NaNs: +NaNs by increasing payload,
// then -NaNs by decreasing payload (the negative side is flipped), e.g. 0xFFFFFFFF < 0xFF800001.
__host__ __device__ inline uint32_t float_to_ordered(uint32_t bits) {
    uint32_t flipped = (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
    return flipped - 0x7FFFFFu;
}
__host__ __device__ inline uint32_t ordered_to_float(uint32_t key) {
    uint32_t flipped = key + 0x7FFFFFu;
    return (flipped & 0x80000000u) ? (flipped & 0x7FFFFFFFu) : ~flipped;
}
// Two's complement order: flipping the sign bit makes INT_MIN the smallest unsigned code.
__host__ __device__ inline uint32_t int_to_ordered(int32_t v) { return uint32_t(v) ^ 0x80000000u; }
__host__ __device__ inline int32_t ordered_to_int(uint32_t key) { return int32_t(key ^ 0x80000000u); }

// Ordered<K>: the unsigned code type U of key type K and the two directions of the map.
template <class K> struct Ordered;
template <> struct Ordered<uint32_t> {
    using U = uint32_t;
    __host__ __device__ static U to(uint32_t k) { return k; }
    __host__ __device__ static uint32_t from(U u) { return u; }
};
template <> struct Ordered<int32_t> {
    using U = uint32_t;
    __host__ __device__ static U to(int32_t k) { return int_to_ordered(k); }
    __host__ __device__ static int32_t from(U u) { return ordered_to_int(u); }
};
template <> struct Ordered<float> {
    using U = uint32_t;
    __host__ __device__ static U to(float k) {
        uint32_t b;
        memcpy(&b, &k, 4);
        return float_to_ordered(b);
    }
    __host__ __device__ static float from(U u) {
        uint32_t b = ordered_to_float(u);
        float f;
        memcpy(&f, &b, 4);
        return f;
    }
};
template <> struct Ordered<uint64_t> {
    using U = uint64_t;
    __host__ __device__ static U to(uint64_t k) { return k; }
    __host__ __device__ static uint64_t from(U u) { return u; }
};

// a < b in the lesson's order (comparison sorts use this so float NaN/-0.0 rules hold everywhere)
template <class K> __host__ __device__ inline bool key_less(K a, K b) { return Ordered<K>::to(a) < Ordered<K>::to(b); }

template <class K> std::string show_key(K k) {
    std::string s = course::show(k);
    if constexpr (std::is_floating_point_v<K>) {   // -0.0 and NaN payloads must be visible
        uint32_t b;
        std::memcpy(&b, &k, 4);
        char buf[16];
        std::snprintf(buf, sizeof buf, "(0x%08x)", b);
        s += buf;
    }
    return s;
}

// ---- inputs -------------------------------------------------------------------------------------

// The common shapes plus:
//   highbyte  only the top byte varies (the other bits a constant): an LSD radix sort's early
//             passes see one digit value, the last pass does all the work
//   lowbits   only the low 8 bits vary: many duplicates, the high passes see one digit
//   specials  floats: +-inf, +-0.0, NaNs (quiet, signalling, negative, with payloads), denormals,
//             +-FLT_MAX and ordinary negatives mixed; integers: the type's edge values mixed in
inline std::vector<std::string> dists() {
    auto d = course::common_dists();
    d.push_back("highbyte");
    d.push_back("lowbits");
    d.push_back("specials");
    return d;
}

template <class K> K from_bits_of(uint64_t bits) {
    if constexpr (std::is_same_v<K, float>) {
        uint32_t b = uint32_t(bits);
        float f;
        std::memcpy(&f, &b, 4);
        return f;
    } else return K(bits);
}

template <class K> std::vector<K> make_input(size_t n, const std::string& dist, uint64_t seed) {
    std::vector<K> v;
    constexpr int kBits = 8 * sizeof(K);
    if (dist == "highbyte" || dist == "lowbits") {
        v.resize(n);
        // The constant part: for float32 0x40490FDB (pi) has exponent bits that never become all
        // ones when only the top byte varies (bit 23 stays 0), so no NaN or inf appears.
        const uint64_t constant = kBits == 64 ? 0x2F3E4D5C6B7A8998ull : 0x40490FDBull;
        const bool high = dist == "highbyte";
        course::parallel_for(n, [&](size_t i) {
            uint64_t r = course::hash64(seed, i) & 0xFF;
            uint64_t bits =
                high ? (constant & ~(0xFFull << (kBits - 8))) | (r << (kBits - 8)) : (constant & ~0xFFull) | r;
            v[i] = from_bits_of<K>(bits);
        });
    } else if (dist == "specials") {
        v.resize(n);
        course::parallel_for(n, [&](size_t i) {
            uint64_t h = course::hash64(seed, i);
            uint32_t pick = uint32_t(h & 15);
            if constexpr (std::is_same_v<K, float>) {
                const uint32_t specials[] = {
                    0x7F800000u,
                    0xFF800000u,
                    0x00000000u,
                    0x80000000u,   // +-inf, +-0
                    0x7FC00000u,
                    0xFFC00000u,                                          // quiet NaN, -NaN
                    0x7F800000u | uint32_t(1 + ((h >> 20) & 0x3FFFFE)),   // signalling NaN, payload
                    0xFF800000u | uint32_t(1 + ((h >> 20) & 0x7FFFFE)),   // negative NaN, payload
                    0x00000001u,
                    0x80000001u,
                    0x7F7FFFFFu,
                    0xFF7FFFFFu};   // denormals, +-FLT_MAX
                if (pick < 12) v[i] = from_bits_of<float>(specials[pick]);
                else v[i] = float(course::unit_double(h >> 4) * 2000.0 - 1000.0);   // ordinary, half negative
            } else {
                std::vector<K> edge = course::extreme_values<K>();
                v[i] = pick < 8 ? edge[(h >> 8) % edge.size()] : course::uniform_value<K>(h);
            }
        });
    } else {
        if (!course::generate(v, n, dist, seed)) throw course::UsageError("unknown --dist '" + dist + "'");
    }
    return v;
}

// ---- the CPU reference and the checker -------------------------------------------------------
// The checker (check_keys / check_pairs, host-only, used by tests/lesson04_radix_host.cu too):
//   keys   the output is ordered (by the transform) AND a permutation of the input: compared
//          element by element with a CPU sort of the input up to kExactLimit elements, above that
//          an order-independent fingerprint (sum and xor of a 64-bit mix of every key) so that
//          2^28 keys check in a fraction of a second. An all-zeros "sorted" output fails.
//   pairs  for every i: vals_out[i] < n, keys_out[i] == keys_in[vals_out[i]] (each value still
//          with its key), and (key, value) strictly increasing from i-1 to i: sorted by key and,
//          among equal keys, increasing values = stable. Strictly increasing also proves the
//          values are distinct, so they are a permutation of 0..n-1 and the keys are the input's.

constexpr size_t kExactLimit = size_t(1) << 24;   // up to here: element-wise vs a CPU sort

// Parallel CPU sort (sorted chunks, then rounds of pairwise merges) so the reference of 2^24
// keys takes a fraction of a second on 16 cores.
template <class U> void parallel_sort(std::vector<U>& v) {
    size_t n = v.size();
    unsigned chunks = 1;
    while (chunks * 2 <= course::cpu_threads()) chunks *= 2;
    if (n < (size_t(1) << 16) || chunks == 1) {
        std::sort(v.begin(), v.end());
        return;
    }
    size_t per = (n + chunks - 1) / chunks;
    course::parallel_chunks(
        chunks,
        [&](size_t cb, size_t ce, unsigned) {
            for (size_t c = cb; c < ce; ++c) {
                size_t b = std::min(n, c * per), e = std::min(n, b + per);
                std::sort(v.begin() + b, v.begin() + e);
            }
        },
        1);
    std::vector<U> tmp(n);
    U* src = v.data();
    U* dst = tmp.data();
    for (size_t width = per; width < n; width *= 2) {
        size_t pairs = (n + 2 * width - 1) / (2 * width);
        course::parallel_chunks(
            pairs,
            [&](size_t pb, size_t pe, unsigned) {
                for (size_t p = pb; p < pe; ++p) {
                    size_t b = p * 2 * width, m = std::min(n, b + width), e = std::min(n, b + 2 * width);
                    std::merge(src + b, src + m, src + m, src + e, dst + b);
                }
            },
            1);
        std::swap(src, dst);
    }
    if (src != v.data()) std::copy(src, src + n, v.data());
}

// An order-independent fingerprint of a multiset of codes: two sums of different 64-bit mixes
// and an xor. A lost, duplicated or altered key changes it with probability ~1 - 2^-64.
struct Fingerprint {
    uint64_t sum = 0, sum2 = 0, x = 0;
    bool operator==(const Fingerprint& o) const { return sum == o.sum && sum2 == o.sum2 && x == o.x; }
};
template <class U> Fingerprint fingerprint(const U* codes, size_t n) {
    unsigned threads = course::cpu_threads();
    std::vector<Fingerprint> part(threads + 1);
    course::parallel_chunks(n, [&](size_t b, size_t e, unsigned t) {
        Fingerprint f;
        for (size_t i = b; i < e; ++i) {
            uint64_t c = uint64_t(codes[i]);
            uint64_t h = course::hash64(0xF1A9E4ull, c), g = course::hash64(0x5EEDull, c);
            f.sum += h;
            f.sum2 += g;
            f.x ^= h;
        }
        part[t] = f;
    });
    Fingerprint all;
    for (auto& f : part) {
        all.sum += f.sum;
        all.sum2 += f.sum2;
        all.x ^= f.x;
    }
    return all;
}

// The expected answer, computed once per case and kept for the re-checks.
template <class K> struct KeysReference {
    using U = typename Ordered<K>::U;
    bool ready = false;
    std::vector<U> sorted;   // n <= kExactLimit: the input's codes, sorted
    Fingerprint print;       // n > kExactLimit: the input's fingerprint
};

template <class K> std::vector<typename Ordered<K>::U> codes_of(const K* keys, size_t n) {
    std::vector<typename Ordered<K>::U> c(n);
    course::parallel_for(n, [&](size_t i) { c[i] = Ordered<K>::to(keys[i]); });
    return c;
}

// The whole keys check: ordered, then a permutation of the input (see this section's opening).
template <class K>
course::CheckResult check_keys(const std::vector<K>& in, const std::vector<K>& out, KeysReference<K>& ref) {
    using U = typename Ordered<K>::U;
    size_t n = in.size();
    if (out.size() != n)
        return course::CheckResult::fail("output has " + std::to_string(out.size()) + " keys, input " +
                                         std::to_string(n));
    {
        course::MismatchLog log("adjacent keys out of order");
        course::parallel_for(n, [&](size_t i) {
            if (i > 0 && Ordered<K>::to(out[i]) < Ordered<K>::to(out[i - 1]))
                log.add(i, ">= " + show_key(out[i - 1]), show_key(out[i]));
        });
        course::CheckResult r = log.result(n);
        if (!r.ok) return course::CheckResult::fail("not sorted: " + r.message);
    }
    if (!ref.ready) {
        if (n <= kExactLimit) {
            ref.sorted = codes_of(in.data(), n);
            parallel_sort(ref.sorted);
        } else {
            std::vector<U> c = codes_of(in.data(), n);
            ref.print = fingerprint(c.data(), n);
        }
        ref.ready = true;
    }
    if (n <= kExactLimit) {
        course::MismatchLog log("keys");
        course::parallel_for(n, [&](size_t i) {
            U got = Ordered<K>::to(out[i]);
            if (got != ref.sorted[i]) log.add(i, show_key(Ordered<K>::from(ref.sorted[i])), show_key(out[i]));
        });
        course::CheckResult r = log.result(n);
        if (!r.ok) return course::CheckResult::fail("sorted, but not a permutation of the input: " + r.message);
        return r;
    }
    std::vector<U> c = codes_of(out.data(), n);
    if (!(fingerprint(c.data(), n) == ref.print))
        return course::CheckResult::fail(
            "sorted, but not a permutation of the input (the multiset "
            "fingerprint differs: keys lost, duplicated or altered)");
    return course::CheckResult::pass();
}

// Pairs: values are the input indices. See this section's opening for why these three conditions are
// exactly "a stable sort of the input".
inline course::CheckResult check_pairs(const std::vector<uint32_t>& keys_in, const std::vector<uint32_t>& keys_out,
                                       const std::vector<uint32_t>& vals_out) {
    size_t n = keys_in.size();
    if (keys_out.size() != n || vals_out.size() != n) return course::CheckResult::fail("output size differs");
    course::MismatchLog lost("values (not an input index, or separated from their key)");
    course::MismatchLog order("adjacent keys out of order");
    course::MismatchLog unstable("equal keys with values not increasing (unstable, or a value duplicated)");
    course::parallel_for(n, [&](size_t i) {
        uint32_t v = vals_out[i];
        if (v >= n) lost.add(i, "an index < " + std::to_string(n), std::to_string(v));
        else if (keys_in[v] != keys_out[i])
            lost.add(i, "key " + std::to_string(keys_in[v]) + " (input key of value " + std::to_string(v) + ")",
                     "key " + std::to_string(keys_out[i]));
        if (i > 0) {
            if (keys_out[i] < keys_out[i - 1])
                order.add(i, ">= " + std::to_string(keys_out[i - 1]), std::to_string(keys_out[i]));
            else if (keys_out[i] == keys_out[i - 1] && v <= vals_out[i - 1])
                unstable.add(
                    i, "value > " + std::to_string(vals_out[i - 1]) + " (key " + std::to_string(keys_out[i]) + ")",
                    std::to_string(v));
        }
    });
    course::CheckResult r = lost.result(n);
    if (!r.ok) return course::CheckResult::fail("pair broken: " + r.message);
    r = order.result(n);
    if (!r.ok) return course::CheckResult::fail("not sorted: " + r.message);
    r = unstable.result(n);
    if (!r.ok) return course::CheckResult::fail("not stable: " + r.message);
    return r;
}

// ---- one case on the device ---------------------------------------------------------------------

template <class K> class KeysTrial : public course::Trial {
public:
    KeysTrial(const course::Options& o, const course::Case& c, KeysFn<K> fn) : fn_(fn) {
        if (!o.input.empty()) input_ = course::load_npy<K>(o.input);
        else {
            course::require_host_memory(4.0 * sizeof(K) * c.n);
            input_ = make_input<K>(c.n, c.dist, o.seed);
        }
        n = input_.size();
        bytes = 2.0 * sizeof(K) * n;                  // read every key once, write it once
        course::require_device_memory(2.0 * bytes);   // in, out, and room for a version's buffers
        d_in_ = course::DeviceArray<K>(n);
        d_out_ = course::DeviceArray<K>(n);
        d_in_.upload(input_);
    }
    void run() override { fn_(d_in_.data(), d_out_.data(), n); }
    void poison() override { d_out_.poison(); }
    course::CheckResult check() override {
        std::vector<K> got = d_out_.download();
        return check_keys(input_, got, ref_);
    }
    void save(const std::string& path) override {
        std::vector<K> got = d_out_.download();
        course::save_npy(path, got.data(), got.size());
    }

private:
    KeysFn<K> fn_;
    std::vector<K> input_;
    KeysReference<K> ref_;
    course::DeviceArray<K> d_in_, d_out_;
};

// Pairs: uint32 keys from the named shape (or --input), values 0..n-1 (their input positions).
class PairsTrial : public course::Trial {
public:
    PairsTrial(const course::Options& o, const course::Case& c, PairsFn fn) : fn_(fn) {
        if (!o.input.empty()) keys_ = course::load_npy<uint32_t>(o.input);
        else {
            course::require_host_memory(16.0 * c.n);
            keys_ = make_input<uint32_t>(c.n, c.dist, o.seed);
        }
        n = keys_.size();
        if (n > 0xFFFFFFFFull) throw course::SkipCase("pairs carry uint32 indices: n must be < 2^32");
        bytes = 16.0 * n;   // keys and values, each read once and written once
        course::require_device_memory(2.0 * bytes);
        std::vector<uint32_t> vals(n);
        course::parallel_for(n, [&](size_t i) { vals[i] = uint32_t(i); });
        d_keys_in_ = course::DeviceArray<uint32_t>(n);
        d_vals_in_ = course::DeviceArray<uint32_t>(n);
        d_keys_out_ = course::DeviceArray<uint32_t>(n);
        d_vals_out_ = course::DeviceArray<uint32_t>(n);
        d_keys_in_.upload(keys_);
        d_vals_in_.upload(vals);
    }
    void run() override { fn_(d_keys_in_.data(), d_vals_in_.data(), d_keys_out_.data(), d_vals_out_.data(), n); }
    void poison() override {
        d_keys_out_.poison();
        d_vals_out_.poison();
    }
    course::CheckResult check() override { return check_pairs(keys_, d_keys_out_.download(), d_vals_out_.download()); }
    // The sorted keys, and beside them the values: each sorted key's position in the input, i.e.
    // the permutation that sorts it (NumPy's argsort with kind='stable'): sorted.npy, sorted_idx.npy.
    void save(const std::string& path) override {
        std::vector<uint32_t> got = d_keys_out_.download();
        course::save_npy(path, got.data(), got.size());
        std::vector<uint32_t> perm = d_vals_out_.download();
        std::string ppath = course::npy_sibling(path, "_idx");
        course::save_npy(ppath, perm.data(), perm.size());
        std::printf("wrote %s (sorted keys) and %s (their input positions: the stable argsort)\n", path.c_str(),
                    ppath.c_str());
    }

private:
    PairsFn fn_;
    std::vector<uint32_t> keys_;
    course::DeviceArray<uint32_t> d_keys_in_, d_vals_in_, d_keys_out_, d_vals_out_;
};

// ---- the program ------------------------------------------------------------------------------

inline std::vector<std::string> offered_types(const Sorter& s) {
    std::vector<std::string> t;
    for (const std::string& name : course::type_names(Types{}))
        if (course::dispatch_type(name, Types{}, [&](auto tag) {
                using T = typename decltype(tag)::type;
                if constexpr (std::is_same_v<T, Pairs>) return s.pairs != nullptr;
                else return s.keys<T>() != nullptr;
            }))
            t.push_back(name);
    return t;
}

// The battery: every offered type on every shape at the awkward sizes up to 65537; the larger
// sizes (about 10^6, 2^20) on the shapes that stress a sort differently (duplicates, one varying
// byte, float specials); 2^24 for a few shapes per type; 2^28 uniform uint32 keys and pairs only
// (the headline size). --quick stops at 2^20 and keeps the large sizes to uniform and few.
inline std::vector<course::Case> battery(const Sorter& s, const course::Options& o) {
    std::vector<course::Case> cases;
    std::vector<std::string> types = offered_types(s);
    std::vector<uint64_t> sizes = course::battery_sizes(4096, o.quick);
    for (uint64_t n : {uint64_t(3839), uint64_t(3840), uint64_t(3841), uint64_t(7681), uint64_t(65537)})
        sizes.push_back(n);   // around a 15-per-thread x 256 tile, and across many tiles
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    for (uint64_t n : sizes) {
        for (const std::string& t : types) {
            std::vector<std::string> shapes;
            if (n >= (uint64_t(1) << 28)) {
                if (t == "uint32" || t == "pairs") shapes = {"uniform"};
            } else if (n >= (uint64_t(1) << 24)) {
                shapes = {"uniform"};
                if (t == "uint32" || t == "pairs") shapes.push_back("zipf");
                if (t == "float32") shapes.push_back("specials");
            } else if (n > 65537) {
                if (o.quick) shapes = {"uniform", "few"};
                else shapes = {"uniform", "few", "zipf", "highbyte", "lowbits", "reversed"};
                if (t == "float32" || t == "int32") shapes.push_back("specials");
            } else {
                shapes = dists();
            }
            for (auto& d : shapes) cases.push_back({n, d, 0, t});
        }
    }
    return cases;
}

inline int run_lesson(int argc, char** argv, const char* version, const Sorter& s) {
    course::LessonDef def;
    def.lesson = "04_sort";
    def.version = version;
    def.cli.program = version;
    std::vector<std::string> types = offered_types(s);
    def.cli.summary = "sort keys ascending (" + course::join(types, ", ") + ")";
    def.cli.dists = dists();
    def.cli.dtypes = types;
    def.cli.param_name = "";
    def.cli.n_default = std::min<uint64_t>(uint64_t(1) << 24, s.max_n);
    Sorter sorter = s;
    def.beyond_limit = [sorter](const course::Case& c) -> std::string {
        if (c.n <= sorter.max_n) return "";
        return "n=" + std::to_string(c.n) + " is beyond this version's limit of " + std::to_string(sorter.max_n) +
               " (" + sorter.limit_why + ")";
    };
    def.battery = [sorter](const course::Options& o) { return battery(sorter, o); };
    // The benchmark: uniform (or --dist) uint32 keys and pairs, where offered, at every sweep size.
    def.sweep = [sorter](const course::Options& o) {
        std::vector<course::Case> cases;
        for (uint64_t n : course::sweep_sizes()) {
            if (sorter.u32) cases.push_back({n, o.dist, 0, "uint32"});
            if (sorter.pairs) cases.push_back({n, o.dist, 0, "pairs"});
        }
        return cases;
    };
    def.make_trial = [sorter](const course::Options& o, const course::Case& c) -> std::unique_ptr<course::Trial> {
        return course::dispatch_type(c.dtype, Types{}, [&](auto tag) -> std::unique_ptr<course::Trial> {
            using T = typename decltype(tag)::type;
            if constexpr (std::is_same_v<T, Pairs>) return std::make_unique<PairsTrial>(o, c, sorter.pairs);
            else return std::make_unique<KeysTrial<T>>(o, c, sorter.keys<T>());
        });
    };
    return course::drive(argc, argv, def);
}

}   // namespace sorting
