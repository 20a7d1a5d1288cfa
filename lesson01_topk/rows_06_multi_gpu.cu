// rows_06_multi_gpu — row-wise top-k across GPUs: the rows are split over the GPUs, each GPU runs
// rows_05_serving's launcher (sampled::serving_topk, rows_serving.cuh) on its rows, and the answer
// stays where it was computed (GPU g holds the k best of its rows). Notes:
// ../lesson04_sort/README_multi_gpu.md.
// Build: make build/lesson01_topk/rows_06_multi_gpu, or alone (NCCL from pip's nvidia-nccl-cu13):
//   nvcc -O3 -arch=native -std=c++17 -o rows06 rows_06_multi_gpu.cu -I$NCCL_HOME/include -L$NCCL_HOME/lib -l:libnccl.so.2
// Run:   ./rows06 --rows 256 --n 256000 --k 1024 --gpus 2      ./rows06 --test --gpus 1
//
// What changes since rows_05 (one GPU): nothing inside a row. Rows are independent, so a batch splits
// with no exchange at all: GPU g takes rows [g x rows/P, (g+1) x rows/P) (one more for the first
// rows mod P GPUs) and reads only those. The slowest GPU does ~1/P of the work; NCCL only joins
// the processes and gathers the rows for the checker (outside the timed job). What limits it: a
// batch of fewer rows than GPUs leaves GPUs idle, and a small batch's time is launch latency,
// which P GPUs do not shorten. Types: float32, float16, bfloat16, as rows_05; no ragged rows here.
#include "rows_serving.cuh"
#include "../common/multi_gpu.cuh"

namespace mrows {

template <class T> class RowsJob : public mgpu::Job {
public:
    RowsJob(const course::Options& o, const course::Case& c) : k_(c.param) {
        mgpu::Team& t = mgpu::team();
        topk::rows::Shape s = topk::rows::parse_case(o, c);
        smallest_ = s.smallest;
        rows_ = s.rows;
        cols_ = s.cols;
        if (rows_ == 0 || cols_ == 0) throw course::UsageError("the matrix needs at least one row and one column");
        if (k_ < 1 || k_ > cols_)
            throw course::UsageError("--k " + std::to_string(k_) +
                                     " must be between 1 and cols=" + std::to_string(cols_));
        if (cols_ >= (uint64_t(1) << 32)) throw course::UsageError("cols must be < 2^32 (uint32 column indices)");
        mgpu::require_host_memory(14.0 * rows_ * cols_);   // x P ranks: every rank builds the input
        input_ = topk::rows::make_matrix<T>(rows_, cols_, s.input, o.seed);
        n = rows_ * cols_;
        const double e = double(sizeof(T));
        bytes = e * n + (e + 4.0) * rows_ * k_;   // as rows_05 counts it
        mine_ = mgpu::slice_of(rows_, t.rank, t.size);
        mgpu::require_device_memory(e * mine_.count * cols_ + 8.0 * mine_.count * k_ + 16.0 * mine_.count * cols_ +
                                    64.0 * mine_.count);
        d_in_ = course::DeviceArray<T>(mine_.count * cols_);
        d_in_.upload(input_.data() + mine_.begin * cols_, mine_.count * cols_);
        d_vals_ = course::DeviceArray<T>(mine_.count * k_);
        d_idx_ = course::DeviceArray<uint32_t>(mine_.count * k_);
        steps.name({"rows"});
        link_bytes = {0.0};
    }
    void run() override {
        steps.begin();
        if (mine_.count)
            sampled::serving_topk<T>(d_in_.data(), mine_.count, cols_, k_, smallest_, d_vals_.data(), d_idx_.data());
        steps.end(0);
    }
    void poison() override {
        d_vals_.poison();
        d_idx_.poison();
    }
    // Rank 0 gathers every GPU's rows in GPU order (= row order) and checks them as rows_05's output.
    course::CheckResult check() override {
        std::vector<T> vals = mgpu::gather_to_lead(d_vals_.data(), mine_.count * k_);
        std::vector<uint32_t> idx = mgpu::gather_to_lead(d_idx_.data(), mine_.count * k_);
        course::CheckResult r;
        if (mgpu::team().lead()) {
            if (keys_.empty()) {
                keys_ = topk::keys_of(input_, smallest_);
                ref_ = topk::rows::reference(keys_, rows_, cols_, k_);
            }
            r = topk::rows::check_rows(input_, keys_, ref_, rows_, cols_, k_, smallest_, vals.data(), idx.data());
        }
        return mgpu::agree(r);
    }

private:
    uint64_t k_, rows_ = 0, cols_ = 0;
    bool smallest_ = false;
    mgpu::Slice mine_;
    std::vector<T> input_;
    std::vector<uint32_t> keys_;
    std::vector<topk::Reference> ref_;
    course::DeviceArray<T> d_in_, d_vals_;
    course::DeviceArray<uint32_t> d_idx_;
};

}   // namespace mrows

int main(int argc, char** argv) {
    // The row-wise lesson's command line, checks, battery and sweep (dense rows, three types).
    course::LessonDef def = topk::rows::rows_lesson("rows_06_multi_gpu", true, false);
    def.cli.summary =
        "row-wise top-k across GPUs: the k largest (or --smallest) of every row, rows split over the GPUs";
    return mgpu::drive(
        argc, argv, def, [](const course::Options& o, const course::Case& c) -> std::unique_ptr<mgpu::Job> {
            return course::dispatch_type(c.dtype, topk::rows::Types{}, [&](auto tag) -> std::unique_ptr<mgpu::Job> {
                using T = typename decltype(tag)::type;
                return std::make_unique<mrows::RowsJob<T>>(o, c);
            });
        });
}
