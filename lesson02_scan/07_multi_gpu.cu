// 07_multi_gpu — a scan across GPUs: each GPU scans its slice, the slice totals are all-gathered,
// each GPU adds the sum of the totals before it. Decoupled look-back at the scale of GPUs, with
// one round instead of a chain. Notes: ../lesson04_sort/README_multi_gpu.md. Measured: not measured yet.
//
// Build: make build/lesson02_scan/07_multi_gpu, or alone (NCCL from pip's nvidia-nccl-cu13):
//   nvcc -O3 -arch=native -std=c++17 -o scan07 07_multi_gpu.cu -I$NCCL_HOME/include -L$NCCL_HOME/lib -l:libnccl.so.2
// Run:   build/lesson02_scan/07_multi_gpu --n 2^28 --gpus 2     ... --type float32 --exclusive 1
//
// What changes since 06 (one GPU): the input is split in P slices, one per GPU.
//   1 local scan  06's decoupled look-back scan of the slice (8 bytes per element).
//   2 totals      the slice's total (last output, plus the last input when exclusive), one
//                 ncclAllGather of P values: 4 x P bytes, so a collective's latency, not bandwidth.
//   3 offset      GPU g adds total[0] + ... + total[g-1] to its slice: another 8 bytes per element
//                 (GPU 0 skips it). A one-pass version would hand the offset to the scan as its
//                 first tile's prefix; 06's launcher has no such input, so this pass is the price
//                 of reusing it unchanged.
// The slowest GPU does 16 of the one-GPU 8 bytes per element on n/P elements: 2 GPUs should at
// best match one, 4 should be ~2x; the collective's latency sets the crossover size.
#include "lesson.cuh"
#include "scan.cuh"
#include "../common/multi_gpu.cuh"

namespace mscan {

// Step 2: the slice's total, written where the all-gather reads it.
template <class T> __global__ void slice_total(const T* in, const T* out, size_t count, scan::Kind kind, T* total) {
    T t = T(0);
    if (count) {
        t = out[count - 1];
        if (kind == scan::Kind::exclusive) {
            if constexpr (std::is_same_v<T, int32_t>) t = scan::wrap_add(t, in[count - 1]);
            else t = t + in[count - 1];
        }
    }
    *total = t;
}

// Step 3: every element of the slice plus the totals of the GPUs before this one. Each block
// sums the P totals itself (P <= 64, from L2): no extra launch.
template <class T> __global__ void add_offset(T* out, size_t count, const T* totals, int rank) {
    T offset = T(0);
    for (int g = 0; g < rank; ++g) {
        if constexpr (std::is_same_v<T, int32_t>) offset = scan::wrap_add(offset, totals[g]);
        else offset = offset + totals[g];
    }
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
        if constexpr (std::is_same_v<T, int32_t>) out[i] = scan::wrap_add(out[i], offset);
        else out[i] = out[i] + offset;
    }
}

template <class T> class ScanJob : public mgpu::Job {
public:
    ScanJob(const course::Options& o, const course::Case& c, scan::Kind kind) : kind_(kind) {
        mgpu::Team& t = mgpu::team();
        mgpu::require_host_memory(3.0 * sizeof(T) * c.n + 8.0 * c.n);   // x P ranks: every rank builds the input
        input_ = scan::make_input<T>(c.n, c.dist, o.seed);
        n = c.n;
        bytes = 2.0 * sizeof(T) * n;
        mine_ = mgpu::slice_of(n, t.rank, t.size);
        mgpu::require_device_memory(2.0 * sizeof(T) * mine_.count);
        d_in_ = course::DeviceArray<T>(mine_.count);
        d_in_.upload(input_.data() + mine_.begin, mine_.count);
        d_out_ = course::DeviceArray<T>(mine_.count);
        d_totals_ = course::DeviceArray<T>(size_t(t.size) + 1);   // the last word: this GPU's total
        steps.name({"local scan", "totals", "offset"});
        link_bytes = {0.0, double(sizeof(T)) * (t.size - 1), 0.0};   // a ring all-gather: P-1 words out
    }
    void run() override {
        mgpu::Team& t = mgpu::team();
        T* mine_total = d_totals_.data() + t.size;
        steps.begin();
        scan::device_scan(d_in_.data(), d_out_.data(), mine_.count, kind_, 1);
        steps.end(0);
        slice_total<T><<<1, 1>>>(d_in_.data(), d_out_.data(), mine_.count, kind_, mine_total);
        CUDA_CHECK_LAST();
        mgpu::all_gather(mine_total, d_totals_.data(), sizeof(T));
        steps.end(1);
        if (t.rank > 0 && mine_.count) {
            unsigned grid =
                std::min<unsigned>(course::blocks_for(mine_.count, 256), unsigned(course::device().sm_count) * 8u);
            add_offset<T><<<grid, 256>>>(d_out_.data(), mine_.count, d_totals_.data(), t.rank);
            CUDA_CHECK_LAST();
        }
        steps.end(2);
    }
    void poison() override { d_out_.poison(); }
    // Rank 0 gathers the slices in GPU order and checks them as one scan, like 06's output.
    course::CheckResult check() override {
        std::vector<T> got = mgpu::gather_to_lead(d_out_.data(), mine_.count);
        course::CheckResult r;
        if (mgpu::team().lead() && n) {
            if constexpr (std::is_floating_point_v<T>) {
                if (ref_.empty()) scan::reference(input_, kind_, ref_, &abs_sum_);
                r = course::compare_close(got.data(), ref_.data(), abs_sum_.data(), n, scan::kFloatRelTol,
                                          scan::kFloatAbsTol);
            } else {
                if (ref_.empty()) scan::reference(input_, kind_, ref_, nullptr);
                r = course::compare_exact(reinterpret_cast<const uint32_t*>(got.data()), ref_.data(), n);
            }
        }
        return mgpu::agree(r);
    }

private:
    scan::Kind kind_;
    mgpu::Slice mine_;
    std::vector<T> input_;
    std::vector<std::conditional_t<std::is_floating_point_v<T>, double, uint32_t>> ref_;
    std::vector<double> abs_sum_;
    course::DeviceArray<T> d_in_, d_out_, d_totals_;
};

}   // namespace mscan

int main(int argc, char** argv) {
    course::LessonDef def = scan::lesson_def("07_multi_gpu", true);   // the lesson's command line
    def.cli.summary += " across GPUs";
    // The lesson's battery (06's tile), less its 2^31 - 1 case: 06's own battery checks its 64-bit indexing.
    def.battery = [](const course::Options& o) {
        scan::Limits lim;
        lim.tile = scan::detail::kScanTile;
        std::vector<course::Case> cases = scan::battery(o, lim, true);
        cases.erase(std::remove_if(cases.begin(), cases.end(),
                                   [](const course::Case& c) { return c.n >= (uint64_t(1) << 31) - 1; }),
                    cases.end());
        return cases;
    };
    def.sweep = [](const course::Options& o) {
        std::vector<course::Case> cases;
        for (uint64_t n : course::sweep_sizes(uint64_t(1) << 30)) {
            cases.push_back({n, o.dist, 0, "int32"});
            cases.push_back({n, o.dist, 0, "float32"});
        }
        return cases;
    };
    return mgpu::drive(
        argc, argv, def, [](const course::Options& o, const course::Case& c) -> std::unique_ptr<mgpu::Job> {
            scan::Kind kind = c.param ? scan::Kind::exclusive : scan::Kind::inclusive;
            return course::dispatch_type(c.dtype, scan::Types{}, [&](auto tag) -> std::unique_ptr<mgpu::Job> {
                return std::make_unique<mscan::ScanJob<typename decltype(tag)::type>>(o, c, kind);
            });
        });
}
