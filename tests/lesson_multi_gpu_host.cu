// tests/lesson_multi_gpu_host.cu — host-only tests of the multi-GPU sorts' decompositions (no GPU,
// no NCCL): the slices (common/slices.h) and lesson04_sort/splitters.cuh replayed on the CPU for
// P = 1..8 simulated GPUs.
//   10 (partition first): every GPU samples its slice, the splitters are chosen from all samples,
//   every key gets its bucket, GPU q "receives" its bucket from every source in source order and
//   sorts it stably; the concatenation must pass the lesson's pairs checker (sorted, stable, a
//   permutation), and from 10^5 keys up no bucket may exceed kReceiveSlack x n/P, equal keys
//   included. Planted bugs must fail: splitters on the key alone (equal keys pile onto one GPU),
//   splitters from one GPU's samples (sorted input piles onto the last GPU), bucket q sent to GPU
//   P-1-q (not sorted), sources received in reverse order (unstable).
//   11 (sort first): every GPU sorts its slice stably, takes regular samples, ranks all samples as
//   the rank kernel does, cuts its sorted slice at the splitters; GPU q merges the runs it receives
//   in 11's rounds. The cuts must be monotone and partition every slice, each GPU must hold exactly
//   the next contiguous range of the stable global order, and no GPU more than psrs_receive_bound.
//   Planted bugs must fail: ties cut by the index alone (rank ignored), the rank compared off by
//   one (g + 1 < r*), the merge taking ties from the higher source rank. A splitter's own key put
//   on the lower side (i <= i*) must pass: it is only another cut point of the same total order.
//
//   The round-robin pairing of the exchange (mgpu::pair_links: a communicator and a round per pair
//   of GPUs): every pair of 2-8 GPUs meets once, mutually; pair_round inverts it; on 2, 4 and 8
//   GPUs neighbours meet first, then aligned groups of 4, then 8. Planted: an off-by-one, a repeated
//   XOR partner, and a valid pairing that does not fill groups first (the circle method) must fail.
//
//   The copy transport (common/copy_board.h: what `--ranks P` exchanges through on one GPU), run
//   by P = 2, 3, 4, 8 forked processes as the programs run it: random run sizes (some empty),
//   routed by plan_routes (packed as 10, aligned as 11), every run sent through the board to its
//   planned place; every rank must find every run's keys where its merge reads them, and the
//   all-gather of one value per rank must arrive in rank order. Planted: a receive offset shifted
//   by one key (the wrong/shifted_offset_multi_gpu.cu bug) must be caught, and a receive one key
//   longer than what was sent must be refused by the board itself.
//
//   make build/tests/lesson_multi_gpu_host && build/tests/lesson_multi_gpu_host
#include <cstdio>
#include <cstring>
#include <random>
#include <sys/wait.h>

#include "../common/copy_board.h"
#include "../common/slices.h"
#include "../lesson04_sort/lesson.cuh"
#include "../lesson04_sort/splitters.cuh"

static int g_pass = 0, g_fail = 0;
static void report(const std::string& name, bool ok, const std::string& why = "") {
    if (ok) {
        std::printf("PASS %s\n", name.c_str());
        ++g_pass;
    } else {
        std::printf("FAIL %s: %s\n", name.c_str(), why.c_str());
        ++g_fail;
    }
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
            if (s.count == 0) {
                all.push_back({msort::kNoSample, msort::kNoSample});
                continue;
            }
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
        for (uint32_t v : got) {
            ko.push_back(keys[v]);
            vo.push_back(v);
        }
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

// The pairing behind mgpu::pair_links: over the rounds every GPU meets every other GPU exactly once,
// both sides agree on each meeting, and a GPU meets at most one partner a round (it is a function).
// A planted off-by-one (2d - g + 1) must fail.
static bool pairing_ok(int (*partner)(int, int, int), int P, std::string& why) {
    const int n = P + P % 2;
    for (int g = 0; g < P; ++g) {
        std::vector<int> met(P, 0);
        for (int d = 0; d < mgpu::pair_rounds(P); ++d) {
            const int q = partner(g, d, P);
            if (q < 0 || q >= n || q == g) {
                why = "P=" + std::to_string(P) + ": GPU " + std::to_string(g) + " meets " + std::to_string(q);
                return false;
            }
            if (q < P && partner(q, d, P) != g) {
                why = "P=" + std::to_string(P) + ": round " + std::to_string(d) + " not mutual";
                return false;
            }
            if (q < P) ++met[q];
        }
        for (int q = 0; q < P; ++q)
            if (q != g && met[q] != 1) {
                why = "P=" + std::to_string(P) + ": GPUs " + std::to_string(g) + ", " + std::to_string(q) + " meet " +
                      std::to_string(met[q]) + " times";
                return false;
            }
    }
    return true;
}
// Powers of two: the rounds before 2^j - 1 keep every GPU inside its aligned group of 2^j, so a
// group's runs are all there after rounds 0..2^j - 2 (11 merges them without waiting for the rest).
static bool groups_ok(int (*partner)(int, int, int), int P) {
    for (int g = 0; g < P; ++g)
        for (int d = 0; d < P - 1; ++d) {
            int s = 2;
            while (s < d + 2) s *= 2;   // the group that round d completes or fills
            if (partner(g, d, P) / s != g / s) return false;
        }
    return true;
}
static void test_pairing() {
    std::string why;
    bool ok = true;
    for (int P = 2; P <= 8 && ok; ++P) ok = pairing_ok(mgpu::pair_partner, P, why);
    report("round-robin pairing: every pair of 2-8 GPUs meets once, mutually", ok, why);
    bool back = true;
    for (int P = 2; P <= 8; ++P)
        for (int g = 0; g < P; ++g)
            for (int p = 0; p < P; ++p)
                if (p != g) back = back && mgpu::pair_partner(g, mgpu::pair_round(g, p, P), P) == p;
    report("pair_round(g, p) is the round in which g meets p", back);
    bool grouped = true;
    for (int P : {2, 4, 8}) grouped = grouped && groups_ok(mgpu::pair_partner, P);
    report("2, 4, 8 GPUs: neighbours first, then aligned groups of 4, then 8", grouped);
    auto planted = [](int g, int d, int P) {
        const int n = P + P % 2;
        if (g == n - 1) return d;
        if (g == d) return n - 1;
        return ((2 * d - g + 1) % (n - 1) + (n - 1)) % (n - 1);
    };
    bool caught = false;
    for (int P = 2; P <= 8; ++P) caught = caught || !pairing_ok(planted, P, why);
    report("planted bug caught: pairing off by one (2d - g + 1)", caught, "the checker passed it");
    auto planted_xor = [](int g, int d, int P) {
        return g ^ (d + 1) ^ (P > 2 && d == 1 ? 3 : 0);
    };   // round 1 meets g ^ 1 again
    bool caught_xor = false;
    for (int P : {4, 8}) caught_xor = caught_xor || !pairing_ok(planted_xor, P, why);
    report("planted bug caught: XOR rounds with a partner repeated", caught_xor, "the checker passed it");
    bool circle = true;   // the circle method alone is a valid pairing for every count, but not grouped
    for (int P = 2; P <= 8 && circle; ++P) circle = pairing_ok(mgpu::circle_partner, P, why);
    report("the circle method alone: every pair of 2-8 GPUs meets once, mutually", circle, why);
    report("planted bug caught: a pairing that does not fill aligned groups first", !groups_ok(mgpu::circle_partner, 4),
           "the group check passed the circle method");
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
    std::printf(
        "PASS decomposition: sorted, stable and balanced on every shape, size and P (%d checks so far); "
        "the largest bucket held %.3f x n/P\n",
        g_pass, worst);
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
    report("all-equal keys on 4 GPUs: every GPU within the bound",
           d.check.ok && double(d.largest) <= msort::kReceiveSlack * double(equal.size()) / 4);
}

// ---- 11_merge_multi_gpu: sort first, regular samples, cuts, merge -----------------------------

enum class Tie { right, index_only, rank_off_by_one, splitter_below, merge_ties_to_higher_rank };

struct PsrsOutcome {
    std::string error;    // empty when every check passed
    size_t largest = 0;   // the most keys one GPU receives
};

// The first i in [0, count) with !before(i) (before is true on a prefix): the cut kernel's search.
template <class Before> static size_t first_not_before(size_t count, Before before) {
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (before(mid)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// A sorted slice's codes for cut_of (a callable of the kind the kernel passes, host memory here).
struct HostCodes {
    const uint32_t* keys;
    __host__ __device__ uint64_t operator()(uint64_t i) const { return keys[i]; }
};

// 11 on the CPU for uint32 keys. `order` is the stable global order (input positions sorted by key).
static PsrsOutcome simulate_psrs(const std::vector<uint32_t>& keys, const std::vector<uint32_t>& order, int P,
                                 Tie tie) {
    using msort::Sample;
    const size_t n = keys.size();
    const int S = msort::kSamples;
    // 1. each GPU's slice, sorted stably: shard[g][i] = the input position of its i-th smallest key
    std::vector<mgpu::Slice> sl(P);
    std::vector<std::vector<uint32_t>> shard(P);
    for (int g = 0; g < P; ++g) {
        sl[g] = mgpu::slice_of(n, g, P);
        for (size_t i = 0; i < sl[g].count; ++i) shard[g].push_back(uint32_t(sl[g].begin + i));
        std::stable_sort(shard[g].begin(), shard[g].end(), [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
    }
    // 2a. regular samples (take_regular_samples), 2b. their ranks and the splitters (pick_splitters)
    std::vector<Sample> all;
    uint64_t real = 0;
    for (int g = 0; g < P; ++g) {
        real += sl[g].count ? S : 0;
        for (int s = 0; s < S; ++s) {
            if (!sl[g].count) {
                all.push_back({msort::kNoSample, msort::kNoSample});
                continue;
            }
            uint64_t i = msort::regular_sample_index(sl[g].count, s);
            all.push_back({keys[shard[g][i]], sl[g].begin + i});
        }
    }
    std::vector<Sample> sp(P > 1 ? P - 1 : 0);
    std::vector<int> hits(sp.size(), 0);
    for (int g = 0; g < P; ++g)
        for (int s = 0; s < S; ++s) {
            const Sample x = all[size_t(g) * S + s];
            if (x.pos == msort::kNoSample) continue;
            uint64_t rank = uint64_t(s);
            for (int h = 0; h < P; ++h)
                if (h != g) rank += msort::samples_before(all.data() + size_t(h) * S, x, h < g);
            for (int j = 1; j < P; ++j)
                if (rank == msort::splitter_rank(j, real, P)) {
                    sp[j - 1] = x;
                    ++hits[j - 1];
                }
        }
    PsrsOutcome o;
    for (size_t j = 0; j < sp.size() && real; ++j)
        if (hits[j] != 1)
            return {"splitter " + std::to_string(j + 1) + " picked " + std::to_string(hits[j]) + " times", 0};
    // 2c. the cuts (cut_runs); the planted rules in the (key, rank, index) form of splitters.cuh
    std::vector<std::vector<size_t>> cut(P, std::vector<size_t>(P + 1, 0));
    for (int g = 0; g < P; ++g) {
        const size_t c = sl[g].count;
        cut[g][P] = c;
        std::vector<uint32_t> sorted_keys(c);
        for (size_t i = 0; i < c; ++i) sorted_keys[i] = keys[shard[g][i]];
        for (int j = 1; j < P; ++j) {
            if (c == 0) continue;
            const Sample z = sp[j - 1];
            int r = 0;   // the splitter's GPU r and index zi: pos = first_r + zi
            while (!(sl[r].count && z.pos >= sl[r].begin && z.pos < sl[r].begin + sl[r].count)) ++r;
            const uint64_t zi = z.pos - sl[r].begin;
            auto code = [&](size_t i) { return uint64_t(keys[shard[g][i]]); };
            auto before = [&](size_t i) {
                if (code(i) != z.code) return code(i) < z.code;
                switch (tie) {
                    case Tie::index_only: return i < zi;
                    case Tie::rank_off_by_one: return g + 1 < r || (g == r && i < zi);
                    case Tie::splitter_below: return g < r || (g == r && i <= zi);
                    default: return g < r || (g == r && i < zi);
                }
            };
            if (tie == Tie::right || tie == Tie::merge_ties_to_higher_rank)
                cut[g][j] = msort::cut_of(HostCodes{sorted_keys.data()}, c, sl[g].begin, z);
            else cut[g][j] = first_not_before(c, before);
            if ((tie == Tie::right || tie == Tie::merge_ties_to_higher_rank) &&
                cut[g][j] != first_not_before(c, before))
                return {"cut_of disagrees with the (key, rank, index) rule on GPU " + std::to_string(g), 0};
        }
    }
    for (int g = 0; g < P; ++g)
        for (int j = 1; j <= P; ++j)
            if (cut[g][j - 1] > cut[g][j])
                return {"cuts of GPU " + std::to_string(g) + " not monotone at splitter " + std::to_string(j), 0};
    // 3-4. GPU q receives run q of every GPU, in source order, and merges neighbours in rounds.
    size_t at = 0;
    const uint64_t bound = msort::psrs_receive_bound(n, P);
    for (int q = 0; q < P; ++q) {
        std::vector<std::vector<uint32_t>> runs;
        for (int g = 0; g < P; ++g) runs.emplace_back(shard[g].begin() + cut[g][q], shard[g].begin() + cut[g][q + 1]);
        while (runs.size() > 1) {
            std::vector<std::vector<uint32_t>> next;
            for (size_t i = 0; i + 1 < runs.size(); i += 2) {
                std::vector<uint32_t> m(runs[i].size() + runs[i + 1].size());
                auto less = [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; };
                if (tie == Tie::merge_ties_to_higher_rank)   // std::merge takes ties from its first range
                    std::merge(runs[i + 1].begin(), runs[i + 1].end(), runs[i].begin(), runs[i].end(), m.begin(), less);
                else
                    std::merge(runs[i].begin(), runs[i].end(), runs[i + 1].begin(), runs[i + 1].end(), m.begin(), less);
                next.push_back(std::move(m));
            }
            if (runs.size() % 2) next.push_back(std::move(runs.back()));
            runs = std::move(next);
        }
        const std::vector<uint32_t>& got = runs[0];
        o.largest = std::max(o.largest, got.size());
        if (got.size() > bound)
            return {"GPU " + std::to_string(q) + " receives " + std::to_string(got.size()) + " keys, over the bound " +
                        std::to_string(bound),
                    o.largest};
        for (size_t i = 0; i < got.size(); ++i)
            if (at + i >= n || got[i] != order[at + i])
                return {"GPU " + std::to_string(q) + "'s key " + std::to_string(i) + " is input position " +
                            std::to_string(got[i]) + ", the global order has " +
                            (at + i < n ? std::to_string(order[at + i]) : std::string("nothing")) + " there",
                        o.largest};
        at += got.size();
    }
    if (at != n) return {"the GPUs hold " + std::to_string(at) + " keys of " + std::to_string(n), o.largest};
    return o;
}

static std::vector<uint32_t> stable_order(const std::vector<uint32_t>& keys) {
    std::vector<uint32_t> order(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) order[i] = uint32_t(i);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
    return order;
}

static void test_psrs() {
    double worst = 0;   // the largest receive against n/P, from 10^5 keys up
    int checks = 0, failed = 0;
    for (const char* dist : {"uniform", "equal", "few", "sorted", "reversed", "zipf", "lowbits"}) {
        for (size_t n : {0, 1, 2, 5, 33, 1023, 1025, 4097, 100003, 1000003}) {
            std::vector<uint32_t> keys = sorting::make_input<uint32_t>(n, dist, 7);
            std::vector<uint32_t> order = stable_order(keys);
            for (int P = 1; P <= 8; ++P) {
                if (n > 200000 && P != 2 && P != 4 && P != 7 && P != 8) continue;   // keeps the test quick
                PsrsOutcome o = simulate_psrs(keys, order, P, Tie::right);
                ++checks;
                if (n >= 100000) worst = std::max(worst, double(o.largest) * P / double(n));
                if (o.error.empty()) {
                    ++g_pass;
                } else {
                    ++failed;
                    report(std::string("sort-first decomposition ") + dist + " n=" + std::to_string(n) +
                               " P=" + std::to_string(P),
                           false, o.error);
                }
            }
        }
    }
    if (!failed)
        std::printf(
            "PASS sort-first decomposition (11): %d cases, cuts monotone and partitioning every slice, each GPU "
            "the next contiguous range of the stable order, within psrs_receive_bound; the largest receive "
            "held %.4f x n/P (n >= 10^5; 8 GPUs at 10^6 keys allow %.4f)\n",
            checks, worst, double(msort::psrs_receive_bound(1000003, 8)) * 8 / 1000003.0);
}

static void test_psrs_planted() {
    std::vector<uint32_t> equal = sorting::make_input<uint32_t>(100003, "equal", 7);
    std::vector<uint32_t> few = sorting::make_input<uint32_t>(100003, "few", 7);
    std::vector<uint32_t> eo = stable_order(equal), fo = stable_order(few);
    PsrsOutcome a = simulate_psrs(equal, eo, 4, Tie::index_only);
    report("planted: ties cut by the index alone, the rank ignored (caught: " + a.error + ")", !a.error.empty());
    PsrsOutcome b = simulate_psrs(equal, eo, 4, Tie::rank_off_by_one);
    report("planted: ties compared g + 1 < r* instead of g < r*, an off-by-one (caught: " + b.error + ")",
           !b.error.empty());
    PsrsOutcome b2 = simulate_psrs(few, fo, 3, Tie::rank_off_by_one);
    report("planted: the same off-by-one on few distinct keys, 3 GPUs (caught: " + b2.error + ")", !b2.error.empty());
    PsrsOutcome c = simulate_psrs(few, fo, 4, Tie::merge_ties_to_higher_rank);
    report("planted: the merge takes ties from the higher source rank (caught: " + c.error + ")", !c.error.empty());
    PsrsOutcome d = simulate_psrs(equal, eo, 4, Tie::splitter_below);
    report("not a bug: the splitter's own key on the lower side (i <= i*) is another cut of the same order",
           d.error.empty(), d.error);
}

// plan_routes, replayed: every GPU's send buffer holds tags (source GPU, index), kAlign - 1 spare
// elements after its shard included; each wire span is copied to its receiver as NCCL would. Every
// run must land whole at recv_at, the spans of both ends must agree in length, and (aligned) start
// and length must be multiples of kAlign; receive spans must not overlap. Routings: random sizes,
// empty runs, runs of 1-7 keys, for P = 1..8. Planted: a run read at its stretch's start (phase
// ignored), and a stretch not rounded out, must fail.
enum class RouteBug { none, phase_ignored, not_rounded };
static bool routes_ok(const std::vector<uint64_t>& m, int P, msort::RunLayout layout, RouteBug bug, std::string& why) {
    using msort::Routes;
    std::vector<Routes> r(P);
    for (int g = 0; g < P; ++g) {
        r[g].P = P;
        r[g].me = g;
        r[g].m = m;
        msort::plan_routes(r[g], layout);
        for (int p = 0; p < P; ++p) {
            if (bug == RouteBug::phase_ignored) r[g].recv_at[p] = r[g].recv_wire[p].at;
            if (bug == RouteBug::not_rounded && r[g].to(p)) r[g].send_wire[p].count = r[g].to(p);
        }
    }
    const bool aligned = layout == msort::RunLayout::aligned;
    auto tag = [](int g, size_t i) { return uint64_t(g) << 40 | uint64_t(i); };
    for (int dst = 0; dst < P; ++dst) {
        std::vector<uint64_t> recv(r[dst].recv_space, ~0ull);
        std::vector<char> used(r[dst].recv_space, 0);
        for (int src = 0; src < P; ++src) {
            if (src == dst && aligned) continue;
            const msort::Span out = r[src].send_wire[dst], in = r[dst].recv_wire[src];
            size_t shard = 0;
            for (int q = 0; q < P; ++q) shard += m[size_t(src) * P + q];
            if (out.count != in.count) {
                why = "wire lengths differ";
                return false;
            }
            if (out.at + out.count > shard + msort::kAlign - 1) {
                why = "reads past the spare elements";
                return false;
            }
            if (aligned && in.count && (out.at % msort::kAlign || in.at % msort::kAlign || in.count % msort::kAlign)) {
                why = "unaligned span";
                return false;
            }
            if (in.at + in.count > recv.size()) {
                why = "span past recv_space";
                return false;
            }
            for (size_t i = 0; i < in.count; ++i) {
                if (used[in.at + i]++) {
                    why = "receive spans overlap";
                    return false;
                }
                recv[in.at + i] = tag(src, out.at + i);
            }
            for (size_t i = 0; i < m[size_t(src) * P + dst]; ++i)
                if (recv[r[dst].recv_at[src] + i] != tag(src, r[src].send_at[dst] + i)) {
                    why = "run from GPU " + std::to_string(src) + " to " + std::to_string(dst) + " lands wrong";
                    return false;
                }
        }
    }
    return true;
}
static void test_routes() {
    uint64_t draw = 0;
    auto next = [&draw] { return course::hash64(77, draw++); };
    bool ok = true;
    std::string why;
    int planted_caught = 0, planted = 0;
    for (int P = 1; P <= 8 && ok; ++P)
        for (int trial = 0; trial < 40 && ok; ++trial) {
            std::vector<uint64_t> m(size_t(P) * P);
            for (auto& x : m) {
                const uint64_t pick = next() % 4;
                x = pick == 0 ? 0 : pick == 1 ? 1 + next() % 7 : next() % 5000;
            }
            for (auto layout : {msort::RunLayout::packed, msort::RunLayout::aligned})
                if (!routes_ok(m, P, layout, RouteBug::none, why)) {
                    ok = false;
                    why += " (P=" + std::to_string(P) + ")";
                }
            if (P >= 2) {
                std::string w;
                for (auto bug : {RouteBug::phase_ignored, RouteBug::not_rounded}) {
                    ++planted;
                    planted_caught += !routes_ok(m, P, msort::RunLayout::aligned, bug, w);
                }
            }
        }
    report("plan_routes: every run lands whole, aligned spans agree at both ends (P = 1..8)", ok, why);
    // a planted routing slips through only when no run of the routing needs the fix (all phases 0)
    report("plan_routes planted bugs caught in most routings", planted_caught * 10 >= planted * 9,
           std::to_string(planted_caught) + " of " + std::to_string(planted));
}

// ---- the copy transport -------------------------------------------------------------------------

enum class BoardBug { none, shifted_offset, longer_receive };

// One rank's part: send its runs through the board as send_runs does under --ranks, then check
// every run it must hold. 0: right, 1: a run is wrong, 2: the board refused the exchange.
static int board_rank(mgpu::Board& b, const std::vector<uint64_t>& m, int P, int me, msort::RunLayout layout,
                      BoardBug bug) {
    msort::Routes r;
    r.P = P;
    r.me = me;
    r.m = m;
    msort::plan_routes(r, layout);
    if (bug == BoardBug::shifted_offset)
        for (int p = 0; p < P; ++p)
            if (p != me) r.recv_wire[p].at = r.recv_wire[p].at ? r.recv_wire[p].at - 1 : 1;   // one key early (or late)
    if (bug == BoardBug::longer_receive && me == 0 && P > 1) ++r.recv_wire[1].count;
    auto code = [](uint64_t src, uint64_t dst, uint64_t j) { return uint32_t(src << 28 | dst << 24 | j); };
    size_t total = 0;
    for (int q = 0; q < P; ++q) total += r.to(q);
    std::vector<uint32_t> keys(total + msort::kAlign, 0), recv(std::max(r.recv_space, r.received) + 8, 0xFFFFFFFFu);
    for (int q = 0; q < P; ++q)
        for (uint64_t j = 0; j < r.to(q); ++j) keys[r.send_at[q] + j] = code(me, q, j);
    auto copy = [](void* dst, const void* src, size_t bytes) { std::memcpy(dst, src, bytes); };
    // the all-gather of one word a rank, in rank order (route_runs, the samples, scan's totals),
    // first: a rank that finds a wrong run below leaves without another collective
    std::vector<uint32_t> word(1, 1000u + me), all(P, 0);
    std::vector<mgpu::BoardPiece> gs, gr;
    for (int q = 0; q < P; ++q) {
        gs.push_back({q, word.data(), nullptr, 4});
        gr.push_back({q, nullptr, all.data() + q, 4});
    }
    b.all_to_all(me, gs, gr, copy, copy);
    bool gathered = true;
    for (int q = 0; q < P; ++q) gathered = gathered && all[q] == 1000u + q;
    std::vector<mgpu::BoardPiece> sends, recvs;
    for (int p = 0; p < P; ++p) {
        if (p == me) continue;
        sends.push_back({p, keys.data() + r.send_wire[p].at, nullptr, r.send_wire[p].count * 4});
        recvs.push_back({p, nullptr, recv.data() + r.recv_wire[p].at, r.recv_wire[p].count * 4});
    }
    try {
        b.all_to_all(me, sends, recvs, copy, copy);
    } catch (const std::exception&) { return 2; }
    const bool aligned = layout == msort::RunLayout::aligned;
    if (!aligned && r.from(me)) std::memcpy(recv.data() + r.recv_at[me], keys.data() + r.send_at[me], r.from(me) * 4);
    for (int p = 0; p < P; ++p) {
        const uint32_t* run = p == me && aligned ? keys.data() + r.send_at[me] : recv.data() + r.recv_at[p];
        for (uint64_t j = 0; j < r.from(p); ++j)
            if (run[j] != code(p, me, j)) return 1;
    }
    return gathered ? 0 : 1;
}

// The whole exchange on P processes; the worst rank's result (0 right, 1 wrong run, 2 refused).
static int board_job(int P, msort::RunLayout layout, BoardBug bug, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<uint64_t> m(size_t(P) * P);
    for (auto& c : m) c = seed && rng() % 4 == 0 ? 0 : 1 + rng() % 3000;   // seed 0: no run empty; else some
    std::fflush(stdout);
    mgpu::Board b;
    b.create(P);
    std::vector<pid_t> kids;
    for (int r = 1; r < P; ++r) {
        pid_t pid = fork();
        if (pid == 0) {
            alarm(60);   // a rank left waiting at a barrier ends the test instead of hanging it
            _exit(board_rank(b, m, P, r, layout, bug));
        }
        kids.push_back(pid);
    }
    int worst = board_rank(b, m, P, 0, layout, bug);
    for (pid_t k : kids) {
        int st = 0;
        waitpid(k, &st, 0);
        worst = std::max(worst, WIFEXITED(st) ? WEXITSTATUS(st) : 3);
    }
    return worst;
}

static void test_copy_board() {
    for (int P : {2, 3, 4, 8})
        for (auto layout : {msort::RunLayout::packed, msort::RunLayout::aligned}) {
            const std::string name = "copy board, " + std::to_string(P) + " ranks, " +
                                     (layout == msort::RunLayout::packed ? "packed (10)" : "aligned (11)");
            int ok = 0, shifted = 0, longer = 0;
            for (unsigned seed = 0; seed <= 3; ++seed) {
                ok = std::max(ok, board_job(P, layout, BoardBug::none, seed));
                shifted = std::max(shifted, board_job(P, layout, BoardBug::shifted_offset, seed));
                longer = std::max(longer, board_job(P, layout, BoardBug::longer_receive, seed));
            }
            report(name + ": every run lands where it is read", ok == 0, "result " + std::to_string(ok));
            report(name + ": planted shifted receive offset is caught", shifted == 1,
                   "result " + std::to_string(shifted));
            report(name + ": planted longer receive is refused by the board", longer == 2,
                   "result " + std::to_string(longer));
        }
}

int main() {
    alarm(300);   // the copy board's jobs: a hang fails the test program
    test_copy_board();
    alarm(0);
    test_slices();
    test_pairing();
    test_decomposition();
    test_planted();
    test_psrs();
    test_psrs_planted();
    test_routes();
    std::printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
