// tests/lesson_multi_gpu_host.cu — host-only tests of the multi-GPU sort's decomposition (no GPU,
// no NCCL): the slices (common/slices.h), and lesson04_sort/splitters.cuh replayed on the CPU for
// P = 1..8 simulated GPUs: every GPU samples its slice, the splitters are chosen from all samples,
// every key gets its bucket, GPU q "receives" its bucket from every source in source order and
// sorts it stably; the concatenation must pass the lesson's pairs checker (sorted, stable, a
// permutation), and from 10^5 keys up no bucket may exceed kReceiveSlack x n/P, equal keys
// included. Planted bugs must fail: splitters on the key alone (equal keys pile onto one GPU),
// splitters from one GPU's samples (sorted input piles onto the last GPU), bucket q sent to GPU
// P-1-q (not sorted), sources received in reverse order (unstable).
//
//   make build/tests/lesson_multi_gpu_host && build/tests/lesson_multi_gpu_host
#include <cstdio>

#include "../common/slices.h"
#include "../lesson04_sort/lesson.cuh"
#include "../lesson04_sort/splitters.cuh"

static int g_pass = 0, g_fail = 0;
static void report(const std::string& name, bool ok, const std::string& why = "") {
    if (ok) { std::printf("PASS %s\n", name.c_str()); ++g_pass; }
    else { std::printf("FAIL %s: %s\n", name.c_str(), why.c_str()); ++g_fail; }
}

enum class Bug { none, key_only, first_gpu_samples, mirrored_destinations, reversed_sources };

struct Outcome {
    course::CheckResult check;
    size_t largest = 0;   // the most keys one GPU receives
};

// The whole multi-GPU sort of uint32 keys (values = input positions) on the CPU.
static Outcome simulate(const std::vector<uint32_t>& keys, int P, Bug bug) {
    const size_t n = keys.size();
    std::vector<msort::Sample> all;
    for (int r = 0; r < P; ++r) {
        mgpu::Slice s = mgpu::slice_of(n, r, P);
        for (int i = 0; i < msort::kSamples; ++i) {
            if (s.count == 0) { all.push_back({msort::kNoSample, msort::kNoSample}); continue; }
            uint64_t at = s.begin + msort::sample_offset(s.begin, s.count, i);
            all.push_back({keys[at], at});
        }
    }
    if (bug == Bug::first_gpu_samples) all.resize(msort::kSamples);   // GPU 0's samples only
    msort::Splitters sp = msort::choose_splitters(all, P);
    // buckets[q][src]: the keys source src sends to GPU q, in input order (a stable partition)
    std::vector<std::vector<std::vector<uint32_t>>> buckets(P, std::vector<std::vector<uint32_t>>(P));
    for (int r = 0; r < P; ++r) {
        mgpu::Slice s = mgpu::slice_of(n, r, P);
        for (size_t i = s.begin; i < s.begin + s.count; ++i) {
            int q = msort::bucket_of(sp, keys[i], i);
            if (bug == Bug::key_only) {   // the splitter's key alone decides: ties all go right
                q = 0;
                for (int j = 0; j < sp.count; ++j) q += keys[i] >= sp.code[j];
            }
            if (bug == Bug::mirrored_destinations) q = P - 1 - q;
            buckets[q][r].push_back(uint32_t(i));
        }
    }
    Outcome o;
    std::vector<uint32_t> ko, vo;
    for (int q = 0; q < P; ++q) {
        std::vector<uint32_t> got;
        for (int k = 0; k < P; ++k) {
            int src = bug == Bug::reversed_sources ? P - 1 - k : k;
            got.insert(got.end(), buckets[q][src].begin(), buckets[q][src].end());
        }
        o.largest = std::max(o.largest, got.size());
        std::stable_sort(got.begin(), got.end(), [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
        for (uint32_t v : got) { ko.push_back(keys[v]); vo.push_back(v); }
    }
    o.check = sorting::check_pairs(keys, ko, vo);
    return o;
}

static void test_slices() {
    bool ok = true;
    for (size_t n : {0, 1, 2, 3, 7, 8, 1000003})
        for (int P = 1; P <= 8; ++P) {
            size_t at = 0;
            for (int r = 0; r < P; ++r) {
                mgpu::Slice s = mgpu::slice_of(n, r, P);
                ok = ok && s.begin == at && s.count + 1 >= n / P && s.count <= n / P + 1;
                at += s.count;
            }
            ok = ok && at == n;
        }
    report("slices cover 0..n in order, sizes n/P or n/P + 1", ok);
}

static void test_decomposition() {
    double worst = 0;   // the largest bucket against n/P, from 10^5 keys up
    for (const char* dist : {"uniform", "equal", "few", "sorted", "reversed", "zipf", "lowbits"}) {
        for (size_t n : {0, 1, 2, 5, 33, 4097, 100003, 1000003}) {
            std::vector<uint32_t> keys = sorting::make_input<uint32_t>(n, dist, 7);
            for (int P : {1, 2, 3, 4, 8}) {
                Outcome o = simulate(keys, P, Bug::none);
                std::string name = std::string(dist) + " n=" + std::to_string(n) + " P=" + std::to_string(P);
                bool balanced = n < 100000 || double(o.largest) <= msort::kReceiveSlack * double(n) / P;
                if (n >= 100000) worst = std::max(worst, double(o.largest) * P / double(n));
                if (!o.check.ok || !balanced)
                    report("decomposition " + name, false,
                           !o.check.ok ? o.check.message : "a GPU receives " + std::to_string(o.largest) + " keys");
                else ++g_pass;
            }
        }
    }
    std::printf("PASS decomposition: sorted, stable and balanced on every shape, size and P (%d checks so far); "
                "the largest bucket held %.3f x n/P\n", g_pass, worst);
}

static void test_planted() {
    std::vector<uint32_t> equal = sorting::make_input<uint32_t>(1000003, "equal", 7);
    std::vector<uint32_t> few = sorting::make_input<uint32_t>(100003, "few", 7);
    std::vector<uint32_t> uni = sorting::make_input<uint32_t>(100003, "uniform", 7);
    std::vector<uint32_t> sorted = sorting::make_input<uint32_t>(1000003, "sorted", 7);
    Outcome a = simulate(equal, 4, Bug::key_only);
    report("planted: splitters on the key alone pile equal keys onto one GPU (caught by the balance bound)",
           double(a.largest) > msort::kReceiveSlack * double(equal.size()) / 4);
    Outcome b = simulate(uni, 4, Bug::mirrored_destinations);
    report("planted: bucket q sent to GPU P-1-q (caught by the checker)", !b.check.ok);
    Outcome e = simulate(sorted, 4, Bug::first_gpu_samples);
    report("planted: splitters from GPU 0's samples only, sorted input (caught by the balance bound)",
           double(e.largest) > msort::kReceiveSlack * double(sorted.size()) / 4);
    Outcome c = simulate(few, 4, Bug::reversed_sources);
    report("planted: sources received in reverse order (caught by the checker: unstable)", !c.check.ok);
    Outcome d = simulate(equal, 4, Bug::none);
    report("all-equal keys on 4 GPUs: every GPU within the bound", d.check.ok &&
           double(d.largest) <= msort::kReceiveSlack * double(equal.size()) / 4);
}

int main() {
    test_slices();
    test_decomposition();
    test_planted();
    std::printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
