// lesson04_sort/multi_gpu_sort.cuh — what the two multi-GPU sorts (10_multi_gpu: partition, exchange,
// sort; 11_merge_multi_gpu: sort, exchange, merge) share, so that neither copies the other:
//
//   ShardJob<K, kPairs>   one GPU's share of a case: the input (made on every rank from the seed),
//                         this GPU's slice of it on the device (pairs: values = input positions),
//                         the output slice, and the check (rank 0 gathers every GPU's output slice
//                         in GPU order and checks one sorted array, as 08's checker does);
//   run_sort_program()    main(): the command line, the battery (the lesson's, plus the skewed
//                         shapes where splitting matters), the sweep, and the key types of 08's
//                         one-sweep sort, on mgpu::drive (common/multi_gpu.cuh).
//
// A version supplies its job (run(): the steps between the input slice and the output slice) and
// its size limit. Both run 08's one-sweep launcher per GPU, so both take its kernels from here.
#pragma once
#ifdef COURSE_NO_MAIN
#include "08_radix_onesweep.cu"
#else
#define COURSE_NO_MAIN
#include "08_radix_onesweep.cu"
#undef COURSE_NO_MAIN
#endif
#include "lesson.cuh"
#include "../common/multi_gpu.cuh"
#include "splitters.cuh"

namespace msort {

template <class K, bool kPairs> class ShardJob : public mgpu::Job {
public:
    void poison() override {
        d_out_keys_.poison();
        if constexpr (kPairs) d_out_vals_.poison();
    }

    // Rank 0 gathers every GPU's sorted slice, in GPU order: one array, checked like 08's output.
    course::CheckResult check() override {
        std::vector<K> keys = mgpu::gather_to_lead(d_out_keys_.data(), out_count_);
        std::vector<uint32_t> vals;
        if constexpr (kPairs) vals = mgpu::gather_to_lead(d_out_vals_.data(), out_count_);
        course::CheckResult r;
        if (mgpu::team().lead()) {
            if constexpr (kPairs) r = sorting::check_pairs(input_, keys, vals);
            else r = sorting::check_keys(input_, keys, ref_);
        }
        return mgpu::agree(r);
    }

protected:
    static constexpr double kKeyBytes = sizeof(K) + (kPairs ? 4.0 : 0.0);   // one key (and its value)

    // The whole input on every rank (the checker's reference on rank 0) and this GPU's slice of it;
    // nothing on the device yet: the version checks its device memory first, then upload_shard().
    ShardJob(const course::Options& o, const course::Case& c) {
        mgpu::Team& t = mgpu::team();
        mgpu::require_host_memory((kPairs ? 12.0 : 2.0 * sizeof(K)) * c.n);   // x P ranks: every rank builds the input
        input_ = sorting::make_input<K>(c.n, c.dist, o.seed);
        n = c.n;
        bytes = kPairs ? 16.0 * n : 2.0 * sizeof(K) * n;
        if (kPairs && n > 0xFFFFFFFFull) throw course::SkipCase("pairs carry uint32 indices: n must be < 2^32");
        mine_ = mgpu::slice_of(n, t.rank, t.size);
    }

    // This GPU's input slice on the device; pairs carry each key's input position as its value.
    void upload_shard() {
        d_keys_ = course::DeviceArray<K>(mine_.count);
        d_keys_.upload(input_.data() + mine_.begin, mine_.count);
        if constexpr (kPairs) {
            std::vector<uint32_t> v(mine_.count);
            for (size_t i = 0; i < mine_.count; ++i) v[i] = uint32_t(mine_.begin + i);
            d_vals_ = course::DeviceArray<uint32_t>(mine_.count);
            d_vals_.upload(v);
        }
    }

    // Output buffers for `cap` keys (grow-only: a repetition of the same case allocates nothing).
    void grow_output(size_t cap) {
        if (cap <= d_out_keys_.size()) return;
        d_out_keys_ = course::DeviceArray<K>(cap);
        if constexpr (kPairs) d_out_vals_ = course::DeviceArray<uint32_t>(cap);
    }

    std::vector<K> input_;
    sorting::KeysReference<K> ref_;
    mgpu::Slice mine_;                             // this GPU's slice of the input
    course::DeviceArray<K> d_keys_, d_out_keys_;   // the input slice; this GPU's slice of the output
    course::DeviceArray<uint32_t> d_vals_, d_out_vals_;
    size_t out_count_ = 0;   // keys in the output slice (set by run())
};

// The run sizes all-gathered (d_sizes: this GPU's P, on the device) and read on the host: the job's
// one wait there, since a receive must be posted with its size.
// A planted defect for wrong/shifted_offset_multi_gpu.cu (set before main): off in every version.
inline bool& plant_shifted_offsets() {
    static bool on = false;
    return on;
}

inline Routes route_runs(const uint64_t* d_sizes, uint64_t* d_matrix, RunLayout layout) {
    mgpu::Team& t = mgpu::team();
    Routes r;
    r.P = t.size;
    r.me = t.rank;
    r.m.resize(size_t(r.P) * r.P);
    mgpu::all_gather(d_sizes, d_matrix, size_t(r.P) * sizeof(uint64_t));
    CUDA_CHECK(cudaMemcpyAsync(r.m.data(), d_matrix, r.m.size() * 8, cudaMemcpyDeviceToHost, t.stream));
    CUDA_CHECK(cudaStreamSynchronize(t.stream));
    plan_routes(r, layout);
    if (plant_shifted_offsets())   // wrong/shifted_offset_multi_gpu.cu only: runs after the first land one key early
        for (int p = 1; p < r.P; ++p)
            if (r.recv_at[p] > 0) r.recv_wire[p].at = --r.recv_at[p];
    return r;
}

// Every run that changes GPU (mgpu::pair_links): for each round d of the pairing, this GPU sends its
// run to the round's partner and receives the partner's, one NCCL group on the pair's own
// communicator and stream (a send and a receive posted one by one would wait forever when both
// GPUs send first). All rounds run at once; each ends with its event pl.arrived[d], and the caller
// waits for the ones it needs (await_round): 11 merges its first two runs as soon as they are here.
// One group on the team's communicator serialises the pairs; a communicator per pair lets them
// overlap, which measured fastest of the three forms tried (lesson04_sort/TUNING.md). The buffers are
// mgpu::LinkArrays, so NCCL writes straight into the receiver's (faster than cudaMalloc's buffers and
// a staging copy: TUNING.md).
template <class K, bool kPairs>
void send_runs(const Routes& r, const K* keys, const uint32_t* vals, K* recv_keys, uint32_t* recv_vals) {
    if (r.P < 2) return;
    mgpu::Team& t = mgpu::team();
    if (t.copy) {   // P ranks on one GPU (--ranks): the same runs, to the same places, through the copy board
        std::vector<mgpu::BoardPiece> sends, recvs;
        for (int p = 0; p < r.P; ++p) {
            if (p == r.me) continue;
            const Span out = r.send_wire[p], in = r.recv_wire[p];
            sends.push_back({p, keys + out.at, nullptr, out.count * sizeof(K)});
            recvs.push_back({p, nullptr, recv_keys + in.at, in.count * sizeof(K)});
            if constexpr (kPairs) {
                sends.push_back({p, vals + out.at, nullptr, out.count * 4});
                recvs.push_back({p, nullptr, recv_vals + in.at, in.count * 4});
            }
        }
        mgpu::copy_exchange(sends, recvs);
        return;
    }
    mgpu::PairLinks& pl = mgpu::pair_links();
    CUDA_CHECK(cudaEventRecord(pl.ready, t.stream));   // the runs are ready
    for (size_t d = 0; d < pl.partner.size(); ++d) {
        const int p = pl.partner[d];
        cudaStream_t s = pl.stream[d];
        CUDA_CHECK(cudaStreamWaitEvent(s, pl.ready, 0));
        if (p < r.P) {
            const Span out = r.send_wire[p], in = r.recv_wire[p];
            ncclComm_t c = pl.comm[p];
            const int q = pl.peer[p];   // GPU p's rank in the pair's communicator
            NCCL_CHECK(ncclGroupStart());
            if (out.count) NCCL_CHECK(ncclSend(keys + out.at, out.count * sizeof(K), ncclUint8, q, c, s));
            if (in.count) NCCL_CHECK(ncclRecv(recv_keys + in.at, in.count * sizeof(K), ncclUint8, q, c, s));
            if constexpr (kPairs) {
                if (out.count) NCCL_CHECK(ncclSend(vals + out.at, out.count * 4, ncclUint8, q, c, s));
                if (in.count) NCCL_CHECK(ncclRecv(recv_vals + in.at, in.count * 4, ncclUint8, q, c, s));
            }
            NCCL_CHECK(ncclGroupEnd());
        }
        CUDA_CHECK(cudaEventRecord(pl.arrived[d], s));
    }
}

// The job's stream waits until rounds 0..d are over (d < 0: nothing to wait for).
inline void await_round(int d) {
    mgpu::PairLinks& pl = mgpu::pair_links_made();
    for (int i = 0; i <= d && i < int(pl.arrived.size()); ++i)
        CUDA_CHECK(cudaStreamWaitEvent(mgpu::team().stream, pl.arrived[size_t(i)], 0));
}
inline void await_all_rounds() { await_round(int(mgpu::pair_links_made().arrived.size()) - 1); }
// A stream of the links on which every round is over (where the exchange step ends); on one GPU,
// with no links, the job's stream.
inline cudaStream_t rounds_joined() {
    mgpu::PairLinks& pl = mgpu::pair_links_made();
    if (pl.stream.empty()) return mgpu::team().stream;
    for (cudaEvent_t e : pl.arrived) CUDA_CHECK(cudaStreamWaitEvent(pl.stream.back(), e, 0));
    return pl.stream.back();
}

// limit(n, P): "" where the version can sort n keys on P GPUs, else why not (a usage error for a
// single case; the battery and the sweep leave such cases out).
using SizeLimit = std::function<std::string(uint64_t n, int gpus)>;

template <template <class, bool> class Job>
int run_sort_program(int argc, char** argv, const char* version, SizeLimit limit) {
    sorting::Sorter offered = radix::sorter_for<onesweep::Sort<>>();   // 08's types: the battery's list
    course::LessonDef def;
    def.lesson = "04_sort";
    def.version = version;
    def.cli.program = def.version;
    def.cli.summary = "sort keys ascending across GPUs (" + course::join(sorting::offered_types(offered), ", ") + ")";
    def.cli.dists = sorting::dists();
    def.cli.dtypes = sorting::offered_types(offered);
    def.cli.n_default = uint64_t(1) << 24;
    // The battery: the lesson's, plus the skewed shapes at sizes where splitting matters.
    def.battery = [offered](const course::Options& o) {
        std::vector<course::Case> cases = sorting::battery(offered, o);
        for (const char* t : {"uint32", "pairs"})
            for (const char* d : {"equal", "few", "sorted", "reversed"}) cases.push_back({uint64_t(1) << 20, d, 0, t});
        if (!o.quick) cases.push_back({uint64_t(1) << 24, "equal", 0, "pairs"});
        return cases;
    };
    def.sweep = [](const course::Options& o) {
        std::vector<course::Case> cases;
        for (uint64_t n : course::sweep_sizes(uint64_t(1) << 30))
            for (const char* t : {"uint32", "pairs"}) cases.push_back({n, o.dist, 0, t});
        cases.push_back({uint64_t(1) << 29, o.dist, 0, "uint32"});
        cases.push_back({uint64_t(1) << 29, o.dist, 0, "pairs"});
        return cases;
    };
    def.beyond_limit = [limit](const course::Case& c) -> std::string {
        int P = mgpu::team().size;
        if (P > kMaxGpus) return "at most " + std::to_string(kMaxGpus) + " GPUs";
        return limit(c.n, P);
    };
    return mgpu::drive(
        argc, argv, def, [](const course::Options& o, const course::Case& c) -> std::unique_ptr<mgpu::Job> {
            return course::dispatch_type(c.dtype, sorting::Types{}, [&](auto tag) -> std::unique_ptr<mgpu::Job> {
                using T = typename decltype(tag)::type;
                if constexpr (std::is_same_v<T, sorting::Pairs>) return std::make_unique<Job<uint32_t, true>>(o, c);
                else return std::make_unique<Job<T, false>>(o, c);
            });
        });
}

}   // namespace msort
