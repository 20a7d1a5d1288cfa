// lesson04_sort/splitters.cuh — the splitter and routing arithmetic of the multi-GPU sorts, in a
// header without NCCL so that tests/lesson_multi_gpu_host.cu replays it on the host.
//   10_multi_gpu (partition first): where a GPU samples its unsorted shard, how P-1 splitters are
//     chosen from every GPU's samples, and which bucket (= destination GPU) a key goes to.
//   11_merge_multi_gpu (sort first): regular samples of each SORTED shard, every sample's rank in
//     the merged order of all samples (the splitters are the samples at ranks j x M / P), and the
//     cut of a sorted shard at a splitter (a binary search).
//   Both: where each run of the exchange starts, travels and lands (plan_routes).
//
// Keys are ordered by (code, a position): a total order even when keys repeat, so equal keys are
// split between GPUs by position and all-equal input still gives every GPU ~n/P keys.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace msort {

constexpr int kMaxGpus = 8;
constexpr int kSamples = 1024;          // per GPU: a bucket's size is then within a few % of n/P
constexpr uint64_t kNoSample = ~0ull;   // an empty shard's samples carry this position
// Receive buffers hold n/P x this; from 10^5 keys up the host test holds every bucket within it.
constexpr double kReceiveSlack = 1.25;

// One sample: a key's order code and its input position.
struct Sample {
    uint64_t code, pos;
};
__host__ __device__ inline bool sample_less(const Sample& a, const Sample& b) {
    return a.code != b.code ? a.code < b.code : a.pos < b.pos;
}

// P-1 splitters in (code, position) order; passed by value as a kernel argument.
struct Splitters {
    int count = 0;
    uint64_t code[kMaxGpus - 1] = {};
    uint64_t pos[kMaxGpus - 1] = {};
};

// The bucket of the key with code `code` at input position `pos`: how many splitters are <= it.
// Unrolled over the largest count, so that each splitter is read where the kernel argument lies
// (a loop to s.count indexed the struct at run time: nvcc copied it to each thread's stack).
__host__ __device__ inline int bucket_of(const Splitters& s, uint64_t code, uint64_t pos) {
    int b = 0;
#pragma unroll
    for (int j = 0; j < kMaxGpus - 1; ++j)
        b += j < s.count && (code > s.code[j] || (code == s.code[j] && pos >= s.pos[j]));
    return b;
}

// Where in its shard (`count` keys starting at input position `first`) a GPU takes sample i:
// hashed (splitmix64's finaliser), so no input pattern lines up with the sampling stride.
__host__ __device__ inline uint64_t sample_offset(uint64_t first, uint64_t count, int i) {
    uint64_t x = first * 0x9E3779B97F4A7C15ull + uint64_t(i);
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    return x % count;
}

// Every GPU's samples (kSamples each, empty shards' marked kNoSample) -> P-1 splitters at ranks
// j x (valid samples) / P of the sorted samples. With no sample at all (n = 0) every key would go
// to bucket 0; there are none.
inline Splitters choose_splitters(const std::vector<Sample>& all, int gpus) {
    std::vector<Sample> keep;
    for (const Sample& v : all)
        if (v.pos != kNoSample) keep.push_back(v);
    // Only P-1 ranks of the sorted samples are needed: one nth_element each, every one on what
    // lies above the rank before, not a whole sort (the host is on the job's critical path).
    Splitters s;
    s.count = gpus - 1;
    size_t from = 0;
    for (int j = 1; j < gpus; ++j) {
        if (keep.empty()) {
            s.code[j - 1] = ~0ull;
            s.pos[j - 1] = ~0ull;
            continue;
        }
        const size_t rank = std::min(keep.size() - 1, size_t(j) * keep.size() / size_t(gpus));
        std::nth_element(keep.begin() + from, keep.begin() + rank, keep.end(), sample_less);
        from = rank;
        const Sample& v = keep[rank];
        s.code[j - 1] = v.code;
        s.pos[j - 1] = v.pos;
    }
    return s;
}

// ---- 11: sort first, then split (parallel sorting by regular sampling, PSRS) -------------------
//
// Each GPU g has sorted its shard (input positions [first_g, first_g + count_g), 08's stable sort).
// An element is named by (code, g, i): its key's code, its GPU, its index in the sorted shard.
// Among equal codes that order IS the input order (08 is stable and the shards are input slices in
// rank order), and it is a total order, so equal keys can be cut anywhere. It travels as one
// number, pos = first_g + i: shards are consecutive slices, so for equal codes
//     pos < pos*   iff   g < r*, or g == r* and i < i*
// and Sample and sample_less above serve as they are.

// Where GPU g takes sample s (0 <= s < kSamples) of its sorted shard of `count` keys: the middle of
// the s-th of kSamples equal parts. Every sample then stands for count / kSamples keys.
__host__ __device__ inline uint64_t regular_sample_index(uint64_t count, int s) {
    return (2 * uint64_t(s) + 1) * count / (2 * uint64_t(kSamples));
}

// Sample x (of GPU g) against the sorted samples `list` of GPU h != g: how many of them come before
// x in the merge of all samples. A list of a lower rank wins ties (its equal samples come first), so
// the ranks of all samples are 0, 1, ..., M-1 with none repeated, even where a small shard was
// sampled twice at one index. Empty shards' samples (kNoSample) are above every real one.
template <class List>
__host__ __device__ inline uint32_t samples_before(const List& list, const Sample& x, bool lower_rank) {
    int lo = 0, hi = kSamples;
    while (lo < hi) {   // the first list entry that comes after x
        const int mid = (lo + hi) / 2;
        const Sample& y = list[mid];
        const bool before = lower_rank ? !sample_less(x, y) : sample_less(y, x);
        if (before) lo = mid + 1;
        else hi = mid;
    }
    return uint32_t(lo);
}

// Splitter j (1 <= j < P) is the sample of merged rank j x M / P, M = the real samples (kSamples for
// every non-empty shard): P - 1 evenly spaced ranks of the merged samples.
__host__ __device__ inline uint64_t splitter_rank(int j, uint64_t real_samples, int gpus) {
    return uint64_t(j) * real_samples / uint64_t(gpus);
}

// How many keys of a sorted shard go before splitter (code*, pos*): the first index i whose
// (code(i), first + i) is not below it. Keys below code* go before; keys equal to code* go before
// iff first + i < pos* (the rule above). code_at(i) returns the ordered code of the i-th key.
template <class CodeAt>
__host__ __device__ inline uint64_t cut_of(const CodeAt& code_at, uint64_t count, uint64_t first, const Sample& sp) {
    uint64_t lo = 0, hi = count;
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        const uint64_t c = code_at(mid);
        if (c < sp.code || (c == sp.code && first + mid < sp.pos)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// The most keys one GPU can receive. A splitter's merged rank fixes, in every shard h, the number
// of h's samples below it; each sample stands for count_h / kSamples keys, so the splitter's place
// in the whole order is off its target by less than one sample's worth per shard (rounding: +2).
// Two splitters, P shards: a GPU receives at most ceil(n/P) + P x ceil(n/P) / kSamples + 2 keys,
// whatever the keys are (equal keys included). tests/lesson_multi_gpu_host.cu checks it.
inline uint64_t psrs_receive_bound(uint64_t n, int gpus) {
    const uint64_t most = (n + uint64_t(gpus) - 1) / uint64_t(gpus);
    return most + (uint64_t(gpus) * most + kSamples - 1) / kSamples + 2;
}

// The exchange both versions end with: GPU g holds P runs one after another (run q for GPU q); every
// GPU learns the P x P run sizes, then sends run q to GPU q and receives one run from every GPU.
struct Span {
    size_t at = 0, count = 0;
};   // elements of a buffer
struct Routes {
    int P = 1, me = 0;
    std::vector<uint64_t> m;                // m[src * P + dst]: the keys GPU src sends GPU dst
    std::vector<size_t> send_at, recv_at;   // run q's start in the send buffer; GPU p's in the receive buffer
    std::vector<Span> send_wire,
        recv_wire;   // what travels: to GPU q from the send buffer, from GPU p into the receive buffer
    size_t received = 0, sent_away = 0;   // keys that end on this GPU (own run included); keys sent away
    size_t recv_space = 0;                // elements the receive buffer must hold
    uint64_t to(int q) const { return m[size_t(me) * P + q]; }
    uint64_t from(int p) const { return m[size_t(p) * P + me]; }
};

// Where the received runs lie, and what travels.
// packed: the runs exactly, back to back in the receive buffer, the kept run among them (10 copies
// it there and sorts the whole buffer as one array).
// aligned: the kept run stays where it lies; each run travels as the 16-byte-aligned stretch that
// holds it (up to 3 more elements at each end, rounded out to multiples of kAlign elements) into an
// aligned place, and the run itself starts up to 3 elements into it. NCCL copies 16-byte vectors
// only where both ends are 16-byte aligned: an all-to-all of blocks 4 or 8 bytes off ran about a
// third slower than aligned, and 11's exchange was that much faster with the runs aligned.
// The sender reads up to kAlign - 1 elements past its last run: its buffer must have them.
enum class RunLayout { packed, aligned };
constexpr size_t kAlign = 4;   // elements: 16 bytes of 4-byte keys and values (32 of 8-byte keys)

// Where the runs of a routing (r.m, r.P, r.me set) start, travel and land (see RunLayout).
inline void plan_routes(Routes& r, RunLayout layout) {
    const bool aligned = layout == RunLayout::aligned;
    // the stretch of a run [at, at + count) that travels
    auto stretch = [aligned](size_t at, size_t count) {
        if (!aligned || count == 0) return Span{at, count};
        const size_t first = at / kAlign * kAlign, end = (at + count + kAlign - 1) / kAlign * kAlign;
        return Span{first, end - first};
    };
    r.send_at.assign(r.P, 0);
    r.recv_at.assign(r.P, 0);
    r.send_wire.assign(r.P, Span{});
    r.recv_wire.assign(r.P, Span{});
    r.received = r.sent_away = 0;
    size_t at = 0;
    for (int p = 0; p < r.P; ++p) {
        r.send_at[p] = p ? r.send_at[p - 1] + r.to(p - 1) : 0;
        r.send_wire[p] = stretch(r.send_at[p], r.to(p));
        r.received += r.from(p);
        if (p != r.me) r.sent_away += r.to(p);
        if (p == r.me && aligned) continue;
        size_t src_at = 0;   // GPU p's run for me starts after its runs for GPUs 0..me-1
        for (int q = 0; q < r.me; ++q) src_at += r.m[size_t(p) * r.P + q];
        const Span w = stretch(src_at, r.from(p));
        r.recv_wire[p] = Span{at, w.count};
        r.recv_at[p] = at + (src_at - w.at);
        at += w.count;
    }
    r.recv_space = at;
}

}   // namespace msort
