// 10_multi_gpu — a sort across GPUs: splitters, partition each shard, exchange, sort once. GPU g
// ends with the g-th slice of the sorted array. Notes: README_multi_gpu.md (its speed-up over 08 on 4 GPUs).
// Build: make build/lesson04_sort/10_multi_gpu, or alone (NCCL from pip's nvidia-nccl-cu13):
//   nvcc -O3 -arch=native -std=c++17 -o sort10 10_multi_gpu.cu -I$NCCL_HOME/include -L$NCCL_HOME/lib -l:libnccl.so.2
// Run:   ./sort10 --n 2^29 --gpus 2      ./sort10 --type pairs --n 2^29      ./sort10 --test --gpus 1
//
// What changes since 08 (one GPU): partition first, then sort once (sample sort with P buckets):
//   1 splitters  each GPU samples 1024 (key, position) pairs; an ncclAllGather gives every GPU all
//                of them; each sorts them and takes P-1 splitters. Order = (key, input position),
//                so equal keys are split by position: all-equal keys still go n/P a GPU.
//   2 partition  each GPU splits its shard into P buckets, stably (count per tile, scan, scatter):
//                reads the shard twice, writes it once.
//   3 exchange   bucket counts all-gathered (P x P), then bucket q goes to GPU q: a send and a receive
//                per pair of GPUs, every pair at once on its own communicator (multi_gpu_sort.cuh),
//                landing in source order (= input order). (P-1)/P of the keys cross links.
//   4 sort       each GPU sorts what it received with 08's onesweep launcher (stable for pairs).
// Why faster than 08: the local sort handles n/P keys; the partition costs ~1.5 radix passes and
// the exchange ~n/P keys over NVLink. Limits: one GPU's receive stays below 08's 2^30 keys, so n
// up to ~0.8 x P x 2^30 (the sampling margin), and at most 8 GPUs.
#include "multi_gpu_sort.cuh"   // 08's launcher, the job's input/output/check, main's scaffolding
#include "../lesson02_scan/scan.cuh"

namespace msort {

constexpr int kPartBlock = 256, kPartItems = 16, kPartTile = kPartBlock * kPartItems;

// Step 1: kSamples (code, input position) pairs at hashed positions of this shard (splitters.cuh
// has the arithmetic); an empty shard marks its samples kNoSample.
template <class K> __global__ void take_samples(const K* keys, size_t count, uint64_t first, Sample* samples) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= kSamples) return;
    if (count == 0) {
        samples[i] = Sample{kNoSample, kNoSample};
        return;
    }
    size_t at = size_t(sample_offset(first, count, i));
    samples[i] = Sample{uint64_t(sorting::Ordered<K>::to(keys[at])), first + at};
}

// Step 2a: per tile, the count of each bucket, stored bucket-major (counts[b * tiles + tile]) so
// that one exclusive scan turns them into each (bucket, tile)'s start in the partitioned shard.
template <class K>
__global__ void __launch_bounds__(kPartBlock)
    count_buckets(const K* keys, size_t count, uint64_t first, Splitters s, size_t tiles, uint32_t* counts) {
    __shared__ uint32_t block_count[kMaxGpus];
    if (threadIdx.x < kMaxGpus) block_count[threadIdx.x] = 0;
    __syncthreads();
    uint32_t mine[kMaxGpus] = {};
    const size_t base = size_t(blockIdx.x) * kPartTile;
    for (int j = 0; j < kPartItems; ++j) {
        size_t i = base + size_t(j) * kPartBlock + threadIdx.x;
        if (i >= count) break;
        int b = bucket_of(s, uint64_t(sorting::Ordered<K>::to(keys[i])), first + i);
#pragma unroll
        for (int q = 0; q < kMaxGpus; ++q) mine[q] += (b == q);
    }
#pragma unroll
    for (int q = 0; q < kMaxGpus; ++q) {
        uint32_t c = mine[q];
        for (int d = 16; d > 0; d >>= 1) c += __shfl_down_sync(0xFFFFFFFFu, c, d);
        if ((threadIdx.x & 31) == 0 && c) atomicAdd(&block_count[q], c);
    }
    __syncthreads();
    if (threadIdx.x <= s.count) counts[size_t(threadIdx.x) * tiles + blockIdx.x] = block_count[threadIdx.x];
}

// Step 2b: each bucket's size, from the scanned starts, as 64-bit counts for NCCL.
__global__ void bucket_sizes(const uint32_t* starts, size_t tiles, size_t count, int buckets, uint64_t* sizes) {
    int q = threadIdx.x;
    if (q >= buckets) return;
    if (tiles == 0) {
        sizes[q] = 0;
        return;
    }
    uint64_t begin = starts[size_t(q) * tiles];
    uint64_t end = q + 1 < buckets ? starts[size_t(q + 1) * tiles] : count;
    sizes[q] = end - begin;
}

// Step 2c: the stable scatter. Round j handles elements j*256 + thread of the tile: in each round
// a key's place = its bucket's running start + the keys of that bucket in earlier warps of the
// round + in lower lanes of its warp (one ballot per bucket), so input order is kept.
template <class K, bool kPairs>
__global__ void __launch_bounds__(kPartBlock)
    scatter_buckets(const K* keys, const uint32_t* vals, size_t count, uint64_t first, Splitters s, size_t tiles,
                    const uint32_t* starts, K* out_keys, uint32_t* out_vals) {
    constexpr int kWarps = kPartBlock / 32;
    __shared__ uint32_t warp_start[kWarps][kMaxGpus];
    __shared__ uint32_t running[kMaxGpus];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, buckets = s.count + 1;
    if (threadIdx.x < buckets) running[threadIdx.x] = starts[size_t(threadIdx.x) * tiles + blockIdx.x];
    const size_t base = size_t(blockIdx.x) * kPartTile;
    for (int j = 0; j < kPartItems; ++j) {
        const size_t i = base + size_t(j) * kPartBlock + threadIdx.x;
        const bool valid = i < count;
        K key = valid ? keys[i] : K();
        int b = valid ? bucket_of(s, uint64_t(sorting::Ordered<K>::to(key)), first + i) : -1;
        uint32_t below = 0;
        for (int q = 0; q < buckets; ++q) {
            uint32_t m = __ballot_sync(0xFFFFFFFFu, b == q);
            if (b == q) below = __popc(m & ((1u << lane) - 1u));
            if (lane == 0) warp_start[warp][q] = __popc(m);
        }
        __syncthreads();
        if (threadIdx.x < buckets) {   // thread q: bucket q's counts over the warps -> starts
            uint32_t run = running[threadIdx.x];
            for (int w = 0; w < kWarps; ++w) {
                uint32_t c = warp_start[w][threadIdx.x];
                warp_start[w][threadIdx.x] = run;
                run += c;
            }
            running[threadIdx.x] = run;
        }
        __syncthreads();
        if (valid) {
            uint32_t dst = warp_start[warp][b] + below;
            out_keys[dst] = key;
            if constexpr (kPairs) out_vals[dst] = vals[i];
        }
        __syncthreads();   // warp_start is rewritten by the next round
    }
}

// One GPU's share of the sort: its slice of the input in, its slice of the sorted output out
// (ShardJob, multi_gpu_sort.cuh, holds both and the check).
template <class K, bool kPairs> class SortJob : public ShardJob<K, kPairs> {
    using Base = ShardJob<K, kPairs>;
    using Base::mine_, Base::d_keys_, Base::d_vals_, Base::d_out_keys_, Base::d_out_vals_, Base::out_count_;

public:
    SortJob(const course::Options& o, const course::Case& c) : Base(o, c) {
        mgpu::Team& t = mgpu::team();
        size_t cap = std::max<size_t>(size_t(kReceiveSlack * double(this->n) / t.size) + 1, 1 << 16);
        mgpu::require_device_memory(this->kKeyBytes *
                                    (2.0 * mine_.count + 3.0 * cap));   // in, partitioned, recv, out, 08's tmp
        this->upload_shard();
        d_part_keys_ = mgpu::LinkArray<K>(mine_.count);
        if constexpr (kPairs) d_part_vals_ = mgpu::LinkArray<uint32_t>(mine_.count);
        grow(cap);
        tiles_ = (mine_.count + kPartTile - 1) / kPartTile;
        d_counts_ = course::DeviceArray<uint32_t>(std::max<size_t>(size_t(t.size) * tiles_, 1));
        d_starts_ = course::DeviceArray<uint32_t>(std::max<size_t>(size_t(t.size) * tiles_, 1));
        d_samples_ = course::DeviceArray<Sample>(kSamples);
        d_all_samples_ = course::DeviceArray<Sample>(size_t(kSamples) * t.size);
        d_sizes_ = course::DeviceArray<uint64_t>(t.size);
        d_matrix_ = course::DeviceArray<uint64_t>(size_t(t.size) * t.size);
        this->steps.name({"splitters", "partition", "exchange", "sort"});
        CUDA_CHECK(cudaStreamCreateWithFlags(&side_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaEventCreateWithFlags(&partitioned_, cudaEventDisableTiming));
        CUDA_CHECK(cudaEventCreateWithFlags(&kept_, cudaEventDisableTiming));
        this->link_bytes.assign(4, 0.0);
    }

    void run() override {
        mgpu::Team& t = mgpu::team();
        const int P = t.size, me = t.rank;
        mgpu::Steps& steps = this->steps;
        steps.begin();
        // 1. splitters: sample, all-gather, sort on the host, pick P-1.
        take_samples<K><<<kSamples / 256, 256>>>(d_keys_.data(), mine_.count, mine_.begin, d_samples_.data());
        CUDA_CHECK_LAST();
        mgpu::all_gather(d_samples_.data(), d_all_samples_.data(), kSamples * sizeof(Sample));
        std::vector<Sample> all(size_t(kSamples) * P);
        CUDA_CHECK(cudaMemcpyAsync(all.data(), d_all_samples_.data(), all.size() * sizeof(Sample),
                                   cudaMemcpyDeviceToHost, t.stream));
        CUDA_CHECK(cudaStreamSynchronize(t.stream));
        Splitters s = choose_splitters(all, P);
        steps.end(0);
        // 2. partition: count per tile, scan, bucket sizes, stable scatter.
        if (tiles_) {
            count_buckets<K><<<unsigned(tiles_), kPartBlock>>>(d_keys_.data(), mine_.count, mine_.begin, s, tiles_,
                                                               d_counts_.data());
            CUDA_CHECK_LAST();
            scan::device_scan(d_counts_.data(), d_starts_.data(), size_t(P) * tiles_, scan::Kind::exclusive, 6);
            scatter_buckets<K, kPairs><<<unsigned(tiles_), kPartBlock>>>(d_keys_.data(), d_vals_.data(), mine_.count,
                                                                         mine_.begin, s, tiles_, d_starts_.data(),
                                                                         d_part_keys_.data(), d_part_vals_.data());
            CUDA_CHECK_LAST();
        }
        bucket_sizes<<<1, kMaxGpus>>>(d_starts_.data(), tiles_, mine_.count, P, d_sizes_.data());
        CUDA_CHECK_LAST();
        steps.end(1);
        // 3. exchange: the P x P counts first (every GPU learns what it will receive), then the data.
        const Routes rt = route_runs(d_sizes_.data(), d_matrix_.data(), RunLayout::packed);
        if (rt.received > onesweep_limit())   // this GPU's alone: mgpu::drive ends the whole job
            throw course::UsageError("received " + std::to_string(rt.received) +
                                     " keys, beyond the one-GPU sort's "
                                     "limit of " +
                                     std::to_string(onesweep_limit()) + " (fewer keys, or more GPUs)");
        grow(rt.received);
        out_count_ = rt.received;
        this->link_bytes[2] = double(rt.sent_away) * this->kKeyBytes;
        // The bucket this GPU keeps is a local copy, on a side stream so that it runs while the
        // links carry the others (after the group it would add its time to the exchange).
        const size_t own = rt.from(me);
        CUDA_CHECK(cudaEventRecord(partitioned_, t.stream));
        CUDA_CHECK(cudaStreamWaitEvent(side_, partitioned_, 0));
        if (own) {
            CUDA_CHECK(cudaMemcpyAsync(d_recv_keys_.data() + rt.recv_at[me], d_part_keys_.data() + rt.send_at[me],
                                       own * sizeof(K), cudaMemcpyDeviceToDevice, side_));
            if constexpr (kPairs)
                CUDA_CHECK(cudaMemcpyAsync(d_recv_vals_.data() + rt.recv_at[me], d_part_vals_.data() + rt.send_at[me],
                                           own * 4, cudaMemcpyDeviceToDevice, side_));
        }
        CUDA_CHECK(cudaEventRecord(kept_, side_));
        send_runs<K, kPairs>(rt, d_part_keys_.data(), d_part_vals_.data(), d_recv_keys_.data(), d_recv_vals_.data());
        await_all_rounds();
        CUDA_CHECK(cudaStreamWaitEvent(t.stream, kept_, 0));
        steps.end(2);
        // 4. the local sort: 08's launcher on what arrived (stable, so pairs stay in input order).
        onesweep::sort<K, kPairs>(d_recv_keys_.data(), d_out_keys_.data(), d_recv_vals_.data(), d_out_vals_.data(),
                                  rt.received);
        steps.end(3);
    }

    ~SortJob() override {
        cudaStreamDestroy(side_);
        cudaEventDestroy(partitioned_);
        cudaEventDestroy(kept_);
    }

private:
    static size_t onesweep_limit() { return (size_t(1) << 30) - 1; }
    void grow(size_t cap) {   // receive and output buffers (and 08's scratch grows by itself)
        if (cap <= cap_) return;
        cap_ = cap;
        d_recv_keys_ = mgpu::LinkArray<K>(cap);
        if constexpr (kPairs) d_recv_vals_ = mgpu::LinkArray<uint32_t>(cap);
        this->grow_output(cap);
    }
    size_t tiles_ = 0, cap_ = 0;
    mgpu::LinkArray<K> d_part_keys_, d_recv_keys_;   // what is sent and received (registered with NCCL)
    mgpu::LinkArray<uint32_t> d_part_vals_, d_recv_vals_;
    course::DeviceArray<uint32_t> d_counts_, d_starts_;
    course::DeviceArray<Sample> d_samples_, d_all_samples_;
    cudaStream_t side_ = nullptr;   // the kept bucket's copy, beside the exchange
    cudaEvent_t partitioned_ = nullptr, kept_ = nullptr;
    course::DeviceArray<uint64_t> d_sizes_, d_matrix_;
};

}   // namespace msort

// A GPU receives about n/P keys (up to kReceiveSlack more): it must stay below 08's 2^30.
int main(int argc, char** argv) {
    return msort::run_sort_program<msort::SortJob>(argc, argv, "10_multi_gpu", [](uint64_t n, int P) -> std::string {
        double most = msort::kReceiveSlack * double(n) / P;
        if (most < double((uint64_t(1) << 30) - 1)) return "";
        return "n=" + std::to_string(n) + " on " + std::to_string(P) + " GPUs: a GPU may receive " +
               std::to_string(uint64_t(most)) + " keys, beyond the one-GPU sort's 2^30 - 1 (use more GPUs)";
    });
}
