// 07_multi_gpu — a histogram across GPUs: each GPU counts its shard with 04's per-lane-copy
// counting, then one ncclAllReduce (sum) of the bins leaves the whole histogram on every GPU.
// Notes: ../lesson04_sort/README_multi_gpu.md. Measured: not measured yet.
//
// Build: make build/lesson05_histogram/07_multi_gpu, or alone (NCCL from pip's nvidia-nccl-cu13):
//   nvcc -O3 -arch=native -std=c++17 -o hist07 07_multi_gpu.cu -I$NCCL_HOME/include -L$NCCL_HOME/lib -l:libnccl.so.2
// Run:   build/lesson05_histogram/07_multi_gpu --n 2^30 --gpus 2      ... --type uint32 --bins 4096
//
// What changes since 04 (one GPU): the samples are split in P equal slices, one per GPU; each GPU
// reads only n/P samples, so the counting step takes ~1/P of the time. The bins cross the links
// once: a ring all-reduce sends 2(P-1)/P x bins x 4 bytes out of each GPU (256 bins: 1.5 KB on 4
// GPUs), so the exchange costs a collective's latency (tens of microseconds), not bandwidth. That
// latency is the crossover: below some n one GPU counts faster than P GPUs can agree.
// Limits: bins up to what one copy of the bins fits in shared memory (04's path; 05's 16-bit
// counters for larger bin counts are not used here); n up to 2^32 - 1 as in the lesson.
#include "lesson.cuh"
#include "counting.cuh"
#include "../common/multi_gpu.cuh"

namespace mhist {

// One GPU's share: its slice of the samples in, the whole histogram out (the same on every GPU).
template <class T> class HistJob : public mgpu::Job {
public:
    HistJob(const course::Options& o, const course::Case& c) {
        mgpu::Team& t = mgpu::team();
        if constexpr (sizeof(T) == 1) bins_ = 256;
        else {
            bins_ = uint32_t(c.param);
            range_ = hist::key_range(o, c.dist);
        }
        if (bins_ > hist::bins_in_smem())
            throw course::SkipCase("bins=" + std::to_string(bins_) + " needs more shared memory than this GPU has (" +
                                   std::to_string(hist::bins_in_smem()) + " bins at most)");
        mgpu::require_host_memory(2.0 * sizeof(T) * c.n);   // x P ranks: every rank builds the input
        if constexpr (sizeof(T) == 1) input_ = hist::make_bytes(c.n, c.dist, o.seed);
        else input_ = hist::make_keys(c.n, c.dist, range_, o.seed);
        n = c.n;
        bytes = double(sizeof(T)) * n + 4.0 * bins_;   // as the one-GPU versions count it
        mine_ = mgpu::slice_of(n, t.rank, t.size);
        mgpu::require_device_memory(double(sizeof(T)) * mine_.count + 4.0 * bins_);
        d_in_ = course::DeviceArray<T>(mine_.count);
        d_in_.upload(input_.data() + mine_.begin, mine_.count);
        d_hist_ = course::DeviceArray<uint32_t>(bins_);
        steps.name({"count", "all-reduce"});
        link_bytes = {0.0, 2.0 * (t.size - 1) / t.size * 4.0 * bins_};   // a ring's bytes out of each GPU
    }
    void run() override {
        steps.begin();
        if constexpr (sizeof(T) == 1)
            hist::launch_count<false>(d_in_.data(), mine_.count, hist::ByteBins{},
                                      hist::copies_log2(256, hist::kCopiesBudget), d_hist_.data());
        else
            hist::launch_count<false>(d_in_.data(), mine_.count, hist::EvenBins::make(range_.lo, range_.hi, bins_),
                                      hist::copies_log2(bins_, hist::kCopiesBudget), d_hist_.data());
        steps.end(0);
        mgpu::all_reduce(d_hist_.data(), d_hist_.data(), bins_, ncclSum);
        steps.end(1);
    }
    void poison() override { d_hist_.poison(); }
    // Every GPU holds the histogram: the copies must agree (an element-wise max and min over the
    // GPUs are equal), and rank 0 checks its copy against the reference of all samples.
    course::CheckResult check() override {
        std::vector<uint32_t> got = d_hist_.download(), hi = got, lo = got;
        mgpu::all_reduce_host(hi.data(), hi.size(), ncclMax);
        mgpu::all_reduce_host(lo.data(), lo.size(), ncclMin);
        course::CheckResult r;
        if (hi != lo) r = course::CheckResult::fail("the GPUs' copies of the histogram differ");
        else if (mgpu::team().lead()) {
            if (want_.empty()) {
                if constexpr (sizeof(T) == 1) want_ = hist::reference(input_, hist::ByteBins{}, &in_range_);
                else want_ = hist::reference(input_, hist::EvenBins::make(range_.lo, range_.hi, bins_), &in_range_);
            }
            r = hist::check_counts(got, want_, in_range_);
        }
        return mgpu::agree(r);
    }

private:
    uint32_t bins_ = 256;
    hist::Range range_;
    mgpu::Slice mine_;
    std::vector<T> input_;
    std::vector<uint32_t> want_;
    uint64_t in_range_ = 0;
    course::DeviceArray<T> d_in_;
    course::DeviceArray<uint32_t> d_hist_;
};

// --plan: each GPU runs 04's counting kernel on its slice.
static course::PlanHook plan_hook([](const course::Options&, const course::Case& c) {
    return std::vector<course::KernelPlan>{hist::count_plan(c)};
});

}   // namespace mhist

int main(int argc, char** argv) {
    course::LessonDef def = hist::lesson_def("07_multi_gpu", true);   // the lesson's options, checks and battery
    def.cli.summary =
        "histogram across GPUs: bytes into 256 bins (--type uint8) or 32-bit keys into --bins even bins (--type uint32)";
    // The sweep: bytes at every size (the crossover against one GPU), and 4096-bin keys.
    def.sweep = [](const course::Options&) {
        std::vector<course::Case> cases;
        for (uint64_t n : course::sweep_sizes(uint64_t(1) << 30)) cases.push_back({n, "uniform", 256, "uint8"});
        for (uint64_t n : course::sweep_sizes()) cases.push_back({n, "uniform", 4096, "uint32"});
        return cases;
    };
    return mgpu::drive(
        argc, argv, def, [](const course::Options& o, const course::Case& c) -> std::unique_ptr<mgpu::Job> {
            return course::dispatch_type(c.dtype, hist::Types{}, [&](auto tag) -> std::unique_ptr<mgpu::Job> {
                return std::make_unique<mhist::HistJob<typename decltype(tag)::type>>(o, c);
            });
        });
}
