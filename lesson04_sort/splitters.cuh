// lesson04_sort/splitters.cuh — the arithmetic of 10_multi_gpu's partition, in a header without
// NCCL so that tests/lesson_multi_gpu_host.cu replays it on the host: where a GPU samples, how P-1
// splitters are chosen from every GPU's samples, and which bucket (= destination GPU) a key goes to.
//
// Keys are ordered by (code, input position): a total order even when keys repeat, so equal keys
// are split between GPUs by position and all-equal input still gives every GPU ~n/P keys.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace msort {

constexpr int kMaxGpus = 8;
constexpr int kSamples = 1024;   // per GPU: a bucket's size is then within a few % of n/P
constexpr uint64_t kNoSample = ~0ull;   // an empty shard's samples carry this position
// Receive buffers hold n/P x this; from 10^5 keys up the host test holds every bucket within it.
constexpr double kReceiveSlack = 1.25;

// One sample: a key's order code and its input position.
struct Sample { uint64_t code, pos; };
inline bool sample_less(const Sample& a, const Sample& b) { return a.code != b.code ? a.code < b.code : a.pos < b.pos; }

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
    x ^= x >> 30; x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27; x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    return x % count;
}

// Every GPU's samples (kSamples each, empty shards' marked kNoSample) -> P-1 splitters at ranks
// j x (valid samples) / P of the sorted samples. With no sample at all (n = 0) every key would go
// to bucket 0; there are none.
inline Splitters choose_splitters(const std::vector<Sample>& all, int gpus) {
    std::vector<Sample> keep;
    for (const Sample& v : all) if (v.pos != kNoSample) keep.push_back(v);
    // Only P-1 ranks of the sorted samples are needed: one nth_element each, every one on what
    // lies above the rank before, not a whole sort (the host is on the job's critical path: the
    // splitter step took 0.52 ms on 4 x H200 with a whole sort, how much of it the sort is not
    // measured).
    Splitters s;
    s.count = gpus - 1;
    size_t from = 0;
    for (int j = 1; j < gpus; ++j) {
        if (keep.empty()) { s.code[j - 1] = ~0ull; s.pos[j - 1] = ~0ull; continue; }
        const size_t rank = std::min(keep.size() - 1, size_t(j) * keep.size() / size_t(gpus));
        std::nth_element(keep.begin() + from, keep.begin() + rank, keep.end(), sample_less);
        from = rank;
        const Sample& v = keep[rank];
        s.code[j - 1] = v.code;
        s.pos[j - 1] = v.pos;
    }
    return s;
}

}  // namespace msort
