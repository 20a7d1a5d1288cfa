// 07_multi_gpu — top-k across GPUs: each GPU selects the k best of its slice with 05's radix
// select, an ncclAllGather brings every GPU's k candidates (values and global indices) to every
// GPU, and one more radix select over the P x k candidates gives the answer (on every GPU).
// Notes: ../lesson04_sort/README_multi_gpu.md. Measured: not measured yet.
//
// Build: make build/lesson01_topk/07_multi_gpu, or alone (NCCL from pip's nvidia-nccl-cu13):
//   nvcc -O3 -arch=native -std=c++17 -o topk07 07_multi_gpu.cu -I$NCCL_HOME/include -L$NCCL_HOME/lib -l:libnccl.so.2
// Run:   build/lesson01_topk/07_multi_gpu --n 2^28 --k 1024 --gpus 2      ... --test --gpus 1
//
// What changes since 05 (one GPU): each GPU reads n/P elements (the step that costs bandwidth);
// the k best overall are among the union of each slice's k best, so only P x k candidates cross
// the links: (P-1) x k x 8 bytes into each GPU (k = 1024 on 4 GPUs: 24 KB), a collective's latency.
// The final select reads P x k candidates: microseconds. So P GPUs approach 1/P of the time where
// n is large and k small; below the crossover size, the two extra launches and the collective
// cost more than the slice's read saves. A slice shorter than k gives all of its elements.
// Limits: 05's (n < 2^31, its CUB sort of the k results takes an int count); k <= n.
#define COURSE_NO_MAIN
#include "05_radix_select.cu"
#undef COURSE_NO_MAIN
#include "../common/multi_gpu.cuh"

namespace mtopk {

// The slice's candidates carry slice indices; the final select needs input indices.
__global__ void to_global_index(uint32_t* idx, size_t k, uint32_t first) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < k) idx[i] += first;
}

// The final select returns positions in the candidate array: turn them into input indices.
__global__ void candidate_to_input(const uint32_t* pos, const uint32_t* cand_idx, size_t k, uint32_t* out_idx) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < k) out_idx[i] = cand_idx[pos[i]];
}

template <class T>
class TopkJob : public mgpu::Job {
public:
    TopkJob(const course::Options& o, const course::Case& c) : k_(c.param) {
        mgpu::Team& t = mgpu::team();
        std::string dist = c.dist;
        smallest_ = topk::split_smallest(dist) || o.has("smallest");
        course::require_host_memory(10.0 * c.n);
        input_ = topk::make_input<T>(c.n, dist, o.seed);
        n = c.n;
        if (n == 0) throw course::UsageError("top-k needs at least one element (n=0)");
        if (k_ < 1 || k_ > n) throw course::UsageError("--k " + std::to_string(k_) + " must be between 1 and n=" + std::to_string(n));
        bytes = double(sizeof(T)) * n + (sizeof(T) + 4.0) * k_;
        mine_ = mgpu::slice_of(n, t.rank, t.size);
        for (int r = 0; r < t.size; ++r) from_.push_back(std::min<size_t>(k_, mgpu::slice_of(n, r, t.size).count));
        for (size_t f : from_) candidates_ += f;
        course::require_device_memory(double(sizeof(T)) * mine_.count + (sizeof(T) + 4.0) * k_ * (2.0 * t.size + 3) +
                                      24.0 * mine_.count);
        d_in_ = course::DeviceArray<T>(mine_.count);
        d_in_.upload(input_.data() + mine_.begin, mine_.count);
        d_my_vals_ = course::DeviceArray<T>(k_);
        d_my_idx_ = course::DeviceArray<uint32_t>(k_);
        // A slice shorter than k fills only part of its block, but the all-gather sends all k.
        CUDA_CHECK(cudaMemset(d_my_vals_.data(), 0, k_ * sizeof(T)));
        CUDA_CHECK(cudaMemset(d_my_idx_.data(), 0, k_ * 4));
        d_all_vals_ = course::DeviceArray<T>(k_ * t.size);
        d_all_idx_ = course::DeviceArray<uint32_t>(k_ * t.size);
        d_cand_vals_ = course::DeviceArray<T>(candidates_);
        d_cand_idx_ = course::DeviceArray<uint32_t>(candidates_);
        d_pos_ = course::DeviceArray<uint32_t>(k_);
        d_vals_ = course::DeviceArray<T>(k_);
        d_idx_ = course::DeviceArray<uint32_t>(k_);
        steps.name({"local top-k", "all-gather", "final top-k"});
        link_bytes = {0.0, double(t.size - 1) * k_ * (sizeof(T) + 4.0), 0.0};   // a ring all-gather
    }
    void run() override {
        mgpu::Team& t = mgpu::team();
        const size_t mine_k = from_[t.rank];
        steps.begin();
        if (mine_k) {
            topk::radix::radix_topk<T>(d_in_.data(), mine_.count, mine_k, smallest_, d_my_vals_.data(), d_my_idx_.data());
            to_global_index<<<course::blocks_for(mine_k, 256), 256>>>(d_my_idx_.data(), mine_k, uint32_t(mine_.begin));
            CUDA_CHECK_LAST();
        }
        steps.end(0);
        // Fixed k per GPU in the all-gather; a GPU with fewer leaves the rest of its block unused.
        NCCL_CHECK(ncclGroupStart());
        NCCL_CHECK(ncclAllGather(d_my_vals_.data(), d_all_vals_.data(), k_ * sizeof(T), ncclUint8, t.comm, t.stream));
        NCCL_CHECK(ncclAllGather(d_my_idx_.data(), d_all_idx_.data(), k_, ncclUint32, t.comm, t.stream));
        NCCL_CHECK(ncclGroupEnd());
        size_t at = 0;   // the used part of each block, side by side
        for (int r = 0; r < t.size; ++r) {
            if (!from_[r]) continue;
            CUDA_CHECK(cudaMemcpyAsync(d_cand_vals_.data() + at, d_all_vals_.data() + size_t(r) * k_, from_[r] * sizeof(T),
                                       cudaMemcpyDeviceToDevice, t.stream));
            CUDA_CHECK(cudaMemcpyAsync(d_cand_idx_.data() + at, d_all_idx_.data() + size_t(r) * k_, from_[r] * 4,
                                       cudaMemcpyDeviceToDevice, t.stream));
            at += from_[r];
        }
        steps.end(1);
        topk::radix::radix_topk<T>(d_cand_vals_.data(), candidates_, k_, smallest_, d_vals_.data(), d_pos_.data());
        candidate_to_input<<<course::blocks_for(k_, 256), 256>>>(d_pos_.data(), d_cand_idx_.data(), k_, d_idx_.data());
        CUDA_CHECK_LAST();
        steps.end(2);
    }
    void poison() override { d_vals_.poison(); d_idx_.poison(); }
    // Every GPU holds the answer; rank 0 checks its copy with the lesson's checker, and every GPU's
    // copy must equal rank 0's (element-wise max and min over the GPUs agree).
    course::CheckResult check() override {
        std::vector<uint32_t> idx = d_idx_.download(), hi = idx, lo = idx;
        mgpu::all_reduce_host(hi.data(), hi.size(), ncclMax);
        mgpu::all_reduce_host(lo.data(), lo.size(), ncclMin);
        course::CheckResult r;
        if (hi != lo) r = course::CheckResult::fail("the GPUs' answers differ");
        else if (mgpu::team().lead()) {
            std::vector<T> vals = d_vals_.download();
            if (keys_.empty()) {
                keys_ = topk::keys_of(input_, smallest_);
                ref_ = topk::reference(keys_, k_);
            }
            r = topk::check_topk(input_, keys_, ref_, k_, smallest_, vals.data(), idx.data());
        }
        return mgpu::agree(r);
    }
private:
    size_t k_, candidates_ = 0;
    bool smallest_ = false;
    mgpu::Slice mine_;
    std::vector<size_t> from_;   // candidates from each GPU: min(k, its slice)
    std::vector<T> input_;
    std::vector<uint32_t> keys_;
    topk::Reference ref_;
    course::DeviceArray<T> d_in_, d_my_vals_, d_all_vals_, d_cand_vals_, d_vals_;
    course::DeviceArray<uint32_t> d_my_idx_, d_all_idx_, d_cand_idx_, d_pos_, d_idx_;
};

}  // namespace mtopk

int main(int argc, char** argv) {
    topk::Limits lim = topk::radix::limits();
    course::LessonDef def;
    def.lesson = "01_topk";
    def.version = "07_multi_gpu";
    def.cli.program = def.version;
    def.cli.summary = "top-k across GPUs: the k largest (or --smallest) values and their indices";
    def.cli.dists = topk::dists();
    def.cli.dtypes = {"float32", "int32", "uint32"};
    def.cli.param_name = "k";
    def.cli.param_default = 32;
    def.cli.param_min = 1;
    def.cli.n_default = uint64_t(1) << 24;
    def.cli.extras = {{"smallest", false, "the k smallest values (ascending) instead of the largest"}};
    def.validate = [](const course::Options& o) {
        if (o.test || o.sweep) return;
        if (o.n == 0) course::usage_error("top-k needs at least one element (n=0)");
        if (o.param > o.n)
            course::usage_error("--k " + std::to_string(o.param) + " is larger than n=" + std::to_string(o.n) +
                                " (k must be between 1 and n)");
    };
    def.beyond_limit = [lim](const course::Case& c) -> std::string {
        if (c.n > lim.max_n)
            return "n=" + std::to_string(c.n) + " is beyond this version's limit of " + std::to_string(lim.max_n) +
                   " (" + lim.why + ")";
        return "";
    };
    def.battery = [lim](const course::Options& o) { return topk::battery(o, lim); };
    def.sweep = [lim](const course::Options& o) { return topk::sweep(o, lim); };
    return mgpu::drive(argc, argv, def, [](const course::Options& o, const course::Case& c) -> std::unique_ptr<mgpu::Job> {
        if (c.dtype == "int32") return std::make_unique<mtopk::TopkJob<int32_t>>(o, c);
        if (c.dtype == "uint32") return std::make_unique<mtopk::TopkJob<uint32_t>>(o, c);
        if (c.dtype == "float32") return std::make_unique<mtopk::TopkJob<float>>(o, c);
        throw course::UsageError("this version does not offer --type " + c.dtype);
    });
}
