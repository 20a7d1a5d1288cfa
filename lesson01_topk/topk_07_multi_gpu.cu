// topk_07_multi_gpu — top-k across GPUs: each GPU selects the k best of its slice with the best
// one-GPU build (radix_topk.cuh: topk_06's radix select), an ncclAllGather brings every GPU's
// candidates (values and input indices) to every GPU, and each GPU merges the P sorted candidate
// lists into the same k best (deterministic ties). Notes: ../lesson04_sort/README_multi_gpu.md.
// Build: make build/lesson01_topk/topk_07_multi_gpu, or alone (NCCL from pip's nvidia-nccl-cu13):
//   nvcc -O3 -arch=native -std=c++17 -o topk07 topk_07_multi_gpu.cu -I$NCCL_HOME/include -L$NCCL_HOME/lib -l:libnccl.so.2
// Run:   build/lesson01_topk/topk_07_multi_gpu --n 2^28 --k 1024 --gpus 2      ... --test --gpus 1
//
// What changes since topk_06 (one GPU): each GPU reads n/P elements (the step that costs
// bandwidth); the k best overall are among the union of each slice's k best, so only P x min(k,
// n/P) candidates cross the links ((P-1) x k x 8 bytes into each GPU). The final choice is a
// function of the candidates alone, the same on every GPU: order by (key, then lower input index).
// k <= 4096: topk_06 returns each list in that order, so a candidate's place is its place in its
// list plus, per other list, a binary search (one launch); larger k: CUB sorts the candidates by
// (key, index), with a 64-bit count (P x k slots pass 2^31 before n does). topk_06's own tie
// choice (an atomic ticket) could differ between two selects of the same candidates: the first
// build failed that way on 2 and 4 GPUs. Gains only where a slice's read outweighs the exchange
// (large n). Limits: topk_06's (n < 2^31, its CUB sort of the k results takes an int count).
#include "radix_topk.cuh"   // topk_06's radix_topk<T> and limits()
#include "../common/multi_gpu.cuh"

namespace mtopk {

constexpr uint32_t kNoIndex = 0xFFFFFFFFu;   // an unused candidate slot (n < 2^31: no real index)

// The slice's candidates carry slice indices; the exchange needs input indices.
__global__ void to_global_index(uint32_t* idx, size_t k, uint32_t first) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < k) idx[i] += first;
}

// A candidate's place in the final order: (key, then lower index) descending, packed in 64 bits
// as the merge-based versions do (lesson.cuh's pack); an unused slot packs to 0, below them all.
template <class T>
__device__ __forceinline__ uint64_t packed_at(const T* vals, const uint32_t* idx, size_t s, bool smallest) {
    uint32_t i = idx[s];
    return i == kNoIndex ? topk::kEmpty : topk::pack(topk::to_key(vals[s], smallest), i);
}

// k <= 4096, one thread a candidate slot: P lists of `per` slots, each in descending packed order
// (topk_06's rank phase; unused slots last). Candidate j of list r has j candidates of its list above
// it, and in list q the count found by a binary search: the sum is its place in the merge of all
// P lists, distinct for distinct candidates, so the first k places are written exactly once.
template <class T>
__global__ void merge_lists(const T* __restrict__ vals, const uint32_t* __restrict__ idx, size_t per, int lists,
                            size_t k, bool smallest, T* __restrict__ out_vals, uint32_t* __restrict__ out_idx) {
    size_t s = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (s >= per * lists || idx[s] == kNoIndex) return;
    const int r = int(s / per);
    const uint64_t mine = packed_at(vals, idx, s, smallest);
    size_t place = s - size_t(r) * per;
    for (int q = 0; q < lists; ++q) {
        if (q == r) continue;
        size_t lo = 0, hi = per;   // first slot of list q below mine
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (packed_at(vals, idx, size_t(q) * per + mid, smallest) > mine) lo = mid + 1;
            else hi = mid;
        }
        place += lo;
    }
    if (place < k) {
        out_vals[place] = vals[s];
        out_idx[place] = idx[s];
    }
}

// k > 4096 (topk_06's lists are ordered by key only): every slot's packed value, CUB sorts them.
template <class T>
__global__ void pack_slots(const T* __restrict__ vals, const uint32_t* __restrict__ idx, size_t slots, bool smallest,
                           uint64_t* __restrict__ packed, uint32_t* __restrict__ slot) {
    size_t s = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (s >= slots) return;
    packed[s] = packed_at(vals, idx, s, smallest);
    slot[s] = uint32_t(s);
}

// The first k of the sorted slots: their values and input indices.
template <class T>
__global__ void gather_slots(const T* __restrict__ vals, const uint32_t* __restrict__ idx, const uint32_t* slot,
                             size_t k, T* __restrict__ out_vals, uint32_t* __restrict__ out_idx) {
    size_t j = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (j < k) {
        out_vals[j] = vals[slot[j]];
        out_idx[j] = idx[slot[j]];
    }
}

template <class T> class TopkJob : public mgpu::Job {
    static_assert(sizeof(T) == 4, "the check compares values as 32-bit words");

public:
    TopkJob(const course::Options& o, const course::Case& c) : k_(c.param) {
        mgpu::Team& t = mgpu::team();
        std::string dist = c.dist;
        smallest_ = topk::split_smallest(dist) || o.has("smallest");
        mgpu::require_host_memory(10.0 * c.n);   // x P ranks: every rank builds the input
        input_ = topk::make_input<T>(c.n, dist, o.seed);
        n = c.n;
        if (n == 0) throw course::UsageError("top-k needs at least one element (n=0)");
        if (k_ < 1 || k_ > n)
            throw course::UsageError("--k " + std::to_string(k_) + " must be between 1 and n=" + std::to_string(n));
        bytes = double(sizeof(T)) * n + (sizeof(T) + 4.0) * k_;
        mine_ = mgpu::slice_of(n, t.rank, t.size);
        per_ = std::min<size_t>(k_, mgpu::slice_of(n, 0, t.size).count);   // GPU 0's slice is the longest
        slots_ = per_ * t.size;
        if (k_ > topk::kSmallSortMax && slots_ > size_t(INT32_MAX))   // CUB's radix sort below takes an int count
            throw course::UsageError("k=" + std::to_string(k_) + " on " + std::to_string(t.size) + " ranks: " +
                                     std::to_string(slots_) + " candidates, beyond the 2^31 - 1 of the merge's sort");
        mgpu::require_device_memory(double(sizeof(T)) * mine_.count + (sizeof(T) + 4.0) * (per_ + k_) +
                                    (sizeof(T) + 20.0) * slots_ + 24.0 * mine_.count);
        d_in_ = course::DeviceArray<T>(mine_.count);
        d_in_.upload(input_.data() + mine_.begin, mine_.count);
        d_my_vals_ = course::DeviceArray<T>(per_);
        d_my_idx_ = course::DeviceArray<uint32_t>(per_);
        // A slice shorter than per_ fills only part of its list: the rest stays marked unused
        // (topk_06 writes only its k results), and NCCL reads initialised memory.
        CUDA_CHECK(cudaMemset(d_my_vals_.data(), 0, per_ * sizeof(T)));
        CUDA_CHECK(cudaMemset(d_my_idx_.data(), 0xFF, per_ * 4));
        d_all_vals_ = course::DeviceArray<T>(slots_);
        d_all_idx_ = course::DeviceArray<uint32_t>(slots_);
        d_vals_ = course::DeviceArray<T>(k_);
        d_idx_ = course::DeviceArray<uint32_t>(k_);
        if (k_ > topk::kSmallSortMax) {
            d_packed_ = course::DeviceArray<uint64_t>(slots_);
            d_packed_sorted_ = course::DeviceArray<uint64_t>(slots_);
            d_slot_ = course::DeviceArray<uint32_t>(slots_);
            d_slot_sorted_ = course::DeviceArray<uint32_t>(slots_);
            size_t temp = 0;
            CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(nullptr, temp, d_packed_.data(),
                                                                 d_packed_sorted_.data(), d_slot_.data(),
                                                                 d_slot_sorted_.data(), slots_));
            d_temp_ = course::DeviceArray<unsigned char>(std::max<size_t>(temp, 1));
        }
        steps.name({"local top-k", "all-gather", "merge"});
        link_bytes = {0.0, double(t.size - 1) * per_ * (sizeof(T) + 4.0), 0.0};   // a ring all-gather
    }
    void run() override {
        mgpu::Team& t = mgpu::team();
        const size_t mine_k = std::min(k_, mine_.count);
        steps.begin();
        if (mine_k) {
            topk::radix::radix_topk<T>(d_in_.data(), mine_.count, mine_k, smallest_, d_my_vals_.data(),
                                       d_my_idx_.data());
            to_global_index<<<course::blocks_for(mine_k, 256), 256>>>(d_my_idx_.data(), mine_k, uint32_t(mine_.begin));
            CUDA_CHECK_LAST();
        }
        steps.end(0);
        mgpu::group_start();
        mgpu::all_gather(d_my_vals_.data(), d_all_vals_.data(), per_ * sizeof(T));
        mgpu::all_gather(d_my_idx_.data(), d_all_idx_.data(), per_ * sizeof(uint32_t));
        mgpu::group_end();
        steps.end(1);
        if (k_ <= topk::kSmallSortMax) {
            merge_lists<T><<<course::blocks_for(slots_, 256), 256, 0, t.stream>>>(
                d_all_vals_.data(), d_all_idx_.data(), per_, t.size, k_, smallest_, d_vals_.data(), d_idx_.data());
            CUDA_CHECK_LAST();
        } else {
            pack_slots<T><<<course::blocks_for(slots_, 256), 256, 0, t.stream>>>(
                d_all_vals_.data(), d_all_idx_.data(), slots_, smallest_, d_packed_.data(), d_slot_.data());
            CUDA_CHECK_LAST();
            size_t temp = d_temp_.size();
            CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(d_temp_.data(), temp, d_packed_.data(),
                                                                 d_packed_sorted_.data(), d_slot_.data(),
                                                                 d_slot_sorted_.data(), slots_, 0, 64, t.stream));
            gather_slots<T><<<course::blocks_for(k_, 256), 256, 0, t.stream>>>(
                d_all_vals_.data(), d_all_idx_.data(), d_slot_sorted_.data(), k_, d_vals_.data(), d_idx_.data());
            CUDA_CHECK_LAST();
        }
        steps.end(2);
    }
    void poison() override {
        d_vals_.poison();
        d_idx_.poison();
    }
    // Every GPU holds the answer. Each compares its copy with GPU 0's (sent to all), and GPU 0 is
    // told the first difference of each: which GPU, which output slot, both indices and values.
    // GPU 0 checks its copy with the lesson's checker.
    course::CheckResult check() override {
        mgpu::Team& t = mgpu::team();
        std::vector<uint32_t> idx = d_idx_.download();
        std::vector<T> vals = d_vals_.download();
        std::vector<uint32_t> bits(k_), idx0(k_), bits0(k_, 0);
        std::memcpy(bits.data(), vals.data(), k_ * 4);
        if (t.lead()) {
            idx0 = idx;
            bits0 = bits;
        } else std::fill(idx0.begin(), idx0.end(), 0u);
        mgpu::all_reduce_host(idx0.data(), k_, ncclSum);   // GPU 0's answer on every GPU (others add 0)
        mgpu::all_reduce_host(bits0.data(), k_, ncclSum);
        std::vector<double> first(3 * size_t(t.size), 0.0);   // per GPU: 1 + slot, its index, its value's bits
        for (size_t j = 0; j < k_; ++j)
            if (idx[j] != idx0[j] || bits[j] != bits0[j]) {
                first[3 * t.rank] = double(j + 1);
                first[3 * t.rank + 1] = idx[j];
                first[3 * t.rank + 2] = bits[j];
                break;
            }
        mgpu::all_reduce_host(first.data(), first.size(), ncclSum);
        course::CheckResult r;
        if (t.lead()) {
            auto value = [](double b) {
                uint32_t w = uint32_t(b);
                T v;
                std::memcpy(&v, &w, 4);
                return topk::show_value(v);
            };
            for (int g = 1; g < t.size && r.ok; ++g) {
                if (first[3 * g] == 0) continue;
                size_t j = size_t(first[3 * g]) - 1;
                r = course::CheckResult::fail(
                    "GPU " + std::to_string(g) + "'s answer differs from GPU 0's at [" + std::to_string(j) +
                    "]: index " + std::to_string(uint32_t(first[3 * g + 1])) + " value " + value(first[3 * g + 2]) +
                    ", GPU 0 has index " + std::to_string(idx[j]) + " value " + topk::show_value(vals[j]));
            }
            if (r.ok) {
                if (keys_.empty()) {
                    keys_ = topk::keys_of(input_, smallest_);
                    ref_ = topk::reference(keys_, k_);
                }
                r = topk::check_topk(input_, keys_, ref_, k_, smallest_, vals.data(), idx.data());
            }
        }
        return mgpu::agree(r);
    }

private:
    size_t k_, per_ = 0, slots_ = 0;   // per_: candidates a GPU sends, min(k, the longest slice)
    bool smallest_ = false;
    mgpu::Slice mine_;
    std::vector<T> input_;
    std::vector<uint32_t> keys_;
    topk::Reference ref_;
    course::DeviceArray<T> d_in_, d_my_vals_, d_all_vals_, d_vals_;
    course::DeviceArray<uint32_t> d_my_idx_, d_all_idx_, d_idx_, d_slot_, d_slot_sorted_;
    course::DeviceArray<uint64_t> d_packed_, d_packed_sorted_;
    course::DeviceArray<unsigned char> d_temp_;
};

}   // namespace mtopk

int main(int argc, char** argv) {
    topk::Limits lim = topk::radix::limits();
    course::LessonDef def;
    def.lesson = "01_topk";
    def.version = "topk_07_multi_gpu";
    def.cli.program = def.version;
    def.cli.summary = "top-k across GPUs: the k largest (or --smallest) values and their indices";
    def.cli.dists = topk::dists();
    using Types = course::TypeList<float, int32_t, uint32_t>;   // 1-D top-k's 32-bit types
    def.cli.dtypes = course::type_names(Types{});
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
    return mgpu::drive(argc, argv, def,
                       [](const course::Options& o, const course::Case& c) -> std::unique_ptr<mgpu::Job> {
                           return course::dispatch_type(c.dtype, Types{}, [&](auto tag) -> std::unique_ptr<mgpu::Job> {
                               return std::make_unique<mtopk::TopkJob<typename decltype(tag)::type>>(o, c);
                           });
                       });
}
