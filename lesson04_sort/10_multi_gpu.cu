// 10_multi_gpu — a sort across GPUs: splitters, partition each shard, exchange, sort once. GPU g
// ends with the g-th slice of the sorted array. Notes: README_multi_gpu.md.
// Build: make build/lesson04_sort/10_multi_gpu, or alone (NCCL from pip's nvidia-nccl-cu13):
//   nvcc -O3 -arch=native -std=c++17 -o sort10 10_multi_gpu.cu -I$NCCL_HOME/include -L$NCCL_HOME/lib -l:libnccl.so.2
// Run:   ./sort10 --n 2^29 --gpus 2      ./sort10 --type pairs --n 2^29      ./sort10 --test --gpus 1
//   1 splitters  1024 (key, position) samples a GPU, all-gathered; P-1 splitters. Order = (key,
//                input position), so equal keys are split by position: all-equal keys go n/P a GPU.
//   2 partition  count the buckets per tile (one read), scan, then a stable scatter (one read, one
//                write): each block stages its tile in shared memory bucket by bucket and writes
//                each bucket's run in whole lines (the first build scattered one key a thread
//                between barriers: ~3x the bytes' time on 4 x H200, README_multi_gpu.md).
//   3 exchange   P x P counts all-gathered, then ncclSend/ncclRecv: by default P-1 rounds (GPU g
//                sends to g+r), --exchange group puts all pairs in one group (35 % of the link on
//                4 x H200, 89 % on 2). (P-1)/P of the keys cross links.
//   4 sort       each GPU sorts what it received with 08's onesweep launcher (stable for pairs).
// Measured: README_multi_gpu.md (4 x H200, first build: 1.05x 08 on 2 GPUs, 1.33x on 4).
// Limits: one GPU's receive stays below 08's 2^30 keys (n up to ~0.8 x P x 2^30), 8 GPUs at most.
#define COURSE_NO_MAIN
#include "08_radix_onesweep.cu"
#undef COURSE_NO_MAIN
#include "lesson.cuh"
#include "../lesson02_scan/scan.cuh"
#include "../common/multi_gpu.cuh"
#include "splitters.cuh"

namespace msort {

constexpr int kPartBlock = 256, kPartItems = 16, kPartTile = kPartBlock * kPartItems;

// Step 1: kSamples (code, input position) pairs at hashed positions of this shard (splitters.cuh
// has the arithmetic); an empty shard marks its samples kNoSample.
template <class K>
__global__ void take_samples(const K* keys, size_t count, uint64_t first, Sample* samples) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= kSamples) return;
    if (count == 0) { samples[i] = Sample{kNoSample, kNoSample}; return; }
    size_t at = size_t(sample_offset(first, count, i));
    samples[i] = Sample{uint64_t(sorting::Ordered<K>::to(keys[at])), first + at};
}

// Step 2a: per tile, the count of each bucket, stored bucket-major (counts[b * tiles + tile]) so
// that one exclusive scan turns them into each (bucket, tile)'s start in the partitioned shard.
// All 16 loads of a thread first, then the buckets; a thread's counts share one 64-bit word (8
// bits a bucket: it counts 16 keys at most), a warp's two (16 bits a bucket: 512 at most).
template <class K>
__global__ void __launch_bounds__(kPartBlock)
count_buckets(const K* keys, size_t count, uint64_t first, Splitters s, size_t tiles, uint32_t* counts) {
    __shared__ uint32_t block_count[kMaxGpus];
    if (threadIdx.x < kMaxGpus) block_count[threadIdx.x] = 0;
    const size_t base = size_t(blockIdx.x) * kPartTile;
    K key[kPartItems];
#pragma unroll
    for (int j = 0; j < kPartItems; ++j) {
        size_t i = base + size_t(j) * kPartBlock + threadIdx.x;
        key[j] = keys[i < count ? i : count - 1];
    }
    uint64_t packed = 0;
#pragma unroll
    for (int j = 0; j < kPartItems; ++j) {
        size_t i = base + size_t(j) * kPartBlock + threadIdx.x;
        if (i < count) packed += uint64_t(1) << (8 * bucket_of(s, uint64_t(sorting::Ordered<K>::to(key[j])), first + i));
    }
    const uint64_t even = packed & 0x00FF00FF00FF00FFull, odd = (packed >> 8) & 0x00FF00FF00FF00FFull;
    const uint64_t ev = scan::warp_reduce(even, scan::Plus{}), od = scan::warp_reduce(odd, scan::Plus{});
    __syncthreads();
    if ((threadIdx.x & 31) == 0)
        for (int q = 0; q <= s.count; ++q) {
            uint32_t c = uint32_t(((q & 1) ? od : ev) >> (16 * (q >> 1))) & 0xFFFFu;
            if (c) atomicAdd(&block_count[q], c);
        }
    __syncthreads();
    if (threadIdx.x <= s.count) counts[size_t(threadIdx.x) * tiles + blockIdx.x] = block_count[threadIdx.x];
}

// Step 2b: each bucket's size, from the scanned starts, as 64-bit counts for NCCL.
__global__ void bucket_sizes(const uint32_t* starts, size_t tiles, size_t count, int buckets, uint64_t* sizes) {
    int q = threadIdx.x;
    if (q >= buckets) return;
    if (tiles == 0) { sizes[q] = 0; return; }
    uint64_t begin = starts[size_t(q) * tiles];
    uint64_t end = q + 1 < buckets ? starts[size_t(q + 1) * tiles] : count;
    sizes[q] = end - begin;
}

// Step 2c: the stable scatter, one tile a block, in three moves (08's scatter does the same with
// 256 digits): (1) rank: key j of a thread is element j x 256 + thread; its place among the
// tile's keys of its bucket = the keys of that bucket in earlier (j, warp) groups (a scan of the
// groups' counts, bucket-major) + its warp's lower lanes with that bucket (4 ballots); (2) stage
// the tile in shared memory, bucket by bucket, input order kept; (3) write: consecutive threads
// take consecutive staged keys, so each bucket's run goes out in full, coalesced lines.
template <class K, bool kPairs>
__global__ void __launch_bounds__(kPartBlock)
scatter_buckets(const K* keys, const uint32_t* vals, size_t count, uint64_t first, Splitters s, size_t tiles,
                const uint32_t* starts, K* out_keys, uint32_t* out_vals) {
    constexpr int kWarps = kPartBlock / 32, kGroups = kPartItems * kWarps;   // 128 (j, warp) groups
    __shared__ uint32_t group_at[kMaxGpus * kGroups];   // [bucket][j][warp]: count, then start
    __shared__ uint32_t tile_start[kMaxGpus + 1];       // bucket q's first staged slot
    __shared__ uint32_t out_start[kMaxGpus];            // bucket q's place in the partitioned shard
    __shared__ uint32_t warp_sums[kWarps];
    __shared__ K staged_keys[kPartTile];
    __shared__ uint32_t staged_vals[kPairs ? kPartTile : 1];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, buckets = s.count + 1;
    const size_t base = size_t(blockIdx.x) * kPartTile;
    for (int f = threadIdx.x; f < kMaxGpus * kGroups; f += kPartBlock) group_at[f] = 0;
    K key[kPartItems];
    uint32_t val[kPairs ? kPartItems : 1];
#pragma unroll
    for (int j = 0; j < kPartItems; ++j) {          // all loads first (coalesced: a warp reads 32 neighbours)
        size_t i = base + size_t(j) * kPartBlock + threadIdx.x;
        key[j] = keys[i < count ? i : count - 1];
        if constexpr (kPairs) val[j] = vals[i < count ? i : count - 1];
    }
    __syncthreads();                                 // group_at zeroed
    uint32_t where[kPartItems];                      // bucket | lanes below with that bucket << 8
#pragma unroll
    for (int j = 0; j < kPartItems; ++j) {
        size_t i = base + size_t(j) * kPartBlock + threadIdx.x;
        uint32_t b = i < count ? uint32_t(bucket_of(s, uint64_t(sorting::Ordered<K>::to(key[j])), first + i)) : kMaxGpus;
        unsigned peers = scan::match_low_bits<4>(b);
        where[j] = b | (uint32_t(__popc(peers & ((1u << lane) - 1u))) << 8);
        if (b < kMaxGpus && lane == __ffs(peers) - 1) group_at[(b * kPartItems + j) * kWarps + warp] = __popc(peers);
    }
    __syncthreads();
    // Exclusive scan of the buckets x 128 group counts: thread t owns entries 4t .. 4t + 3.
    uint32_t c[4], sum = 0;
#pragma unroll
    for (int u = 0; u < 4; ++u) { c[u] = group_at[4 * threadIdx.x + u]; sum += c[u]; }
    uint32_t total;
    uint32_t run = scan::block_exclusive_scan<kPartBlock>(sum, 0u, total, warp_sums);
#pragma unroll
    for (int u = 0; u < 4; ++u) { group_at[4 * threadIdx.x + u] = run; run += c[u]; }
    if (threadIdx.x % (kGroups / 4) == 0 && threadIdx.x / (kGroups / 4) < buckets)   // bucket q's first entry
        tile_start[threadIdx.x / (kGroups / 4)] = group_at[4 * threadIdx.x];
    if (threadIdx.x == 0) tile_start[buckets] = total;
    if (threadIdx.x < buckets) out_start[threadIdx.x] = starts[size_t(threadIdx.x) * tiles + blockIdx.x];
    __syncthreads();
#pragma unroll
    for (int j = 0; j < kPartItems; ++j) {
        uint32_t b = where[j] & 0xFFu;
        if (b >= kMaxGpus) continue;
        uint32_t slot = group_at[(b * kPartItems + j) * kWarps + warp] + (where[j] >> 8);
        staged_keys[slot] = key[j];
        if constexpr (kPairs) staged_vals[slot] = val[j];
    }
    __syncthreads();
    for (uint32_t p = threadIdx.x; p < total; p += kPartBlock) {
        int q = 0;
        while (q + 1 < buckets && p >= tile_start[q + 1]) ++q;
        size_t dst = size_t(out_start[q]) + (p - tile_start[q]);
        out_keys[dst] = staged_keys[p];
        if constexpr (kPairs) out_vals[dst] = staged_vals[p];
    }
}

// One GPU's share of the sort: its slice of the input in, its slice of the sorted output out.
template <class K, bool kPairs>
class SortJob : public mgpu::Job {
public:
    SortJob(const course::Options& o, const course::Case& c) {
        mgpu::Team& t = mgpu::team();
        rounds_ = !o.has("exchange") || o.get("exchange") == "rounds";
        course::require_host_memory((kPairs ? 12.0 : 2.0 * sizeof(K)) * c.n);
        input_ = sorting::make_input<K>(c.n, c.dist, o.seed);
        n = c.n;
        bytes = kPairs ? 16.0 * n : 2.0 * sizeof(K) * n;
        if (kPairs && n > 0xFFFFFFFFull) throw course::SkipCase("pairs carry uint32 indices: n must be < 2^32");
        mine_ = mgpu::slice_of(n, t.rank, t.size);
        size_t cap = std::max<size_t>(size_t(kReceiveSlack * double(n) / t.size) + 1, 1 << 16);
        double per = sizeof(K) + (kPairs ? 4.0 : 0.0);
        course::require_device_memory(per * (2.0 * mine_.count + 3.0 * cap));   // in, partitioned, recv, out, 08's tmp
        d_keys_ = course::DeviceArray<K>(mine_.count);
        d_keys_.upload(input_.data() + mine_.begin, mine_.count);
        d_part_keys_ = course::DeviceArray<K>(mine_.count);
        if constexpr (kPairs) {
            std::vector<uint32_t> v(mine_.count);
            for (size_t i = 0; i < mine_.count; ++i) v[i] = uint32_t(mine_.begin + i);
            d_vals_ = course::DeviceArray<uint32_t>(mine_.count);
            d_vals_.upload(v);
            d_part_vals_ = course::DeviceArray<uint32_t>(mine_.count);
        }
        grow(cap);
        tiles_ = (mine_.count + kPartTile - 1) / kPartTile;
        d_counts_ = course::DeviceArray<uint32_t>(std::max<size_t>(size_t(t.size) * tiles_, 1));
        d_starts_ = course::DeviceArray<uint32_t>(std::max<size_t>(size_t(t.size) * tiles_, 1));
        d_samples_ = course::DeviceArray<Sample>(kSamples);
        d_all_samples_ = course::DeviceArray<Sample>(size_t(kSamples) * t.size);
        d_sizes_ = course::DeviceArray<uint64_t>(t.size);
        d_matrix_ = course::DeviceArray<uint64_t>(size_t(t.size) * t.size);
        steps.name({"splitters", "partition", "exchange", "sort"});
        CUDA_CHECK(cudaStreamCreateWithFlags(&side_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaEventCreateWithFlags(&partitioned_, cudaEventDisableTiming));
        CUDA_CHECK(cudaEventCreateWithFlags(&kept_, cudaEventDisableTiming));
        link_bytes.assign(4, 0.0);
    }

    void run() override {
        mgpu::Team& t = mgpu::team();
        const int P = t.size, me = t.rank;
        steps.begin();
        // 1. splitters: sample, all-gather, sort on the host, pick P-1.
        take_samples<K><<<kSamples / 256, 256>>>(d_keys_.data(), mine_.count, mine_.begin, d_samples_.data());
        CUDA_CHECK_LAST();
        NCCL_CHECK(ncclAllGather(d_samples_.data(), d_all_samples_.data(), kSamples * sizeof(Sample), ncclUint8,
                                 t.comm, t.stream));
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
            scatter_buckets<K, kPairs><<<unsigned(tiles_), kPartBlock>>>(
                d_keys_.data(), d_vals_.data(), mine_.count, mine_.begin, s, tiles_, d_starts_.data(),
                d_part_keys_.data(), d_part_vals_.data());
            CUDA_CHECK_LAST();
        }
        bucket_sizes<<<1, kMaxGpus>>>(d_starts_.data(), tiles_, mine_.count, P, d_sizes_.data());
        CUDA_CHECK_LAST();
        steps.end(1);
        // 3. exchange: the P x P counts first (every GPU learns what it will receive), then the data.
        NCCL_CHECK(ncclAllGather(d_sizes_.data(), d_matrix_.data(), P, ncclUint64, t.comm, t.stream));
        std::vector<uint64_t> m(size_t(P) * P);   // m[src * P + dst]
        CUDA_CHECK(cudaMemcpyAsync(m.data(), d_matrix_.data(), m.size() * 8, cudaMemcpyDeviceToHost, t.stream));
        CUDA_CHECK(cudaStreamSynchronize(t.stream));
        std::vector<size_t> send_at(P, 0), recv_at(P, 0);
        size_t received = 0, sent_away = 0;
        for (int p = 0; p < P; ++p) {
            send_at[p] = p ? send_at[p - 1] + m[size_t(me) * P + p - 1] : 0;
            recv_at[p] = received;
            received += m[size_t(p) * P + me];
            if (p != me) sent_away += m[size_t(me) * P + p];
        }
        if (received > onesweep_limit()) {
            std::fprintf(stderr, "error: GPU %d received %zu keys, beyond the one-GPU sort's limit of %zu (fewer "
                                 "keys, or more GPUs)\n", me, received, onesweep_limit());
            std::exit(course::kExitUsage);
        }
        grow(received);
        received_ = received;
        link_bytes[2] = double(sent_away) * (sizeof(K) + (kPairs ? 4 : 0));
        // The bucket this GPU keeps is a local copy, on a side stream so that it runs while the
        // links carry the others (after the group it would add its time to the exchange).
        const size_t own = m[size_t(me) * P + me];
        CUDA_CHECK(cudaEventRecord(partitioned_, t.stream));
        CUDA_CHECK(cudaStreamWaitEvent(side_, partitioned_, 0));
        if (own) {
            CUDA_CHECK(cudaMemcpyAsync(d_recv_keys_.data() + recv_at[me], d_part_keys_.data() + send_at[me],
                                       own * sizeof(K), cudaMemcpyDeviceToDevice, side_));
            if constexpr (kPairs)
                CUDA_CHECK(cudaMemcpyAsync(d_recv_vals_.data() + recv_at[me], d_part_vals_.data() + send_at[me],
                                           own * 4, cudaMemcpyDeviceToDevice, side_));
        }
        CUDA_CHECK(cudaEventRecord(kept_, side_));
        // GPU me sends bucket `to` to GPU `to` and receives its bucket from GPU `from`.
        auto send_recv = [&](int to, int from) {
            size_t out = m[size_t(me) * P + to], in = m[size_t(from) * P + me];
            if (out) NCCL_CHECK(ncclSend(d_part_keys_.data() + send_at[to], out * sizeof(K), ncclUint8, to, t.comm, t.stream));
            if (in) NCCL_CHECK(ncclRecv(d_recv_keys_.data() + recv_at[from], in * sizeof(K), ncclUint8, from, t.comm, t.stream));
            if constexpr (kPairs) {
                if (out) NCCL_CHECK(ncclSend(d_part_vals_.data() + send_at[to], out * 4, ncclUint8, to, t.comm, t.stream));
                if (in) NCCL_CHECK(ncclRecv(d_recv_vals_.data() + recv_at[from], in * 4, ncclUint8, from, t.comm, t.stream));
            }
        };
        // A send and its receive are always in one group (two GPUs sending to each other outside a
        // group would each wait for the other's receive). "rounds": P-1 groups, in round r GPU g
        // sends to g+r and receives from g-r, so each GPU talks to one peer at a time; "group":
        // every pair in ONE group, NCCL spreading its channels over the P-1 peers at once.
        if (rounds_) {
            for (int r = 1; r < P; ++r) {
                NCCL_CHECK(ncclGroupStart());
                send_recv((me + r) % P, (me - r + P) % P);
                NCCL_CHECK(ncclGroupEnd());
            }
        } else {
            NCCL_CHECK(ncclGroupStart());
            for (int r = 1; r < P; ++r) send_recv((me + r) % P, (me - r + P) % P);
            NCCL_CHECK(ncclGroupEnd());
        }
        CUDA_CHECK(cudaStreamWaitEvent(t.stream, kept_, 0));
        steps.end(2);
        // 4. the local sort: 08's launcher on what arrived (stable, so pairs stay in input order).
        onesweep::sort<K, kPairs>(d_recv_keys_.data(), d_out_keys_.data(), d_recv_vals_.data(), d_out_vals_.data(),
                                  received);
        steps.end(3);
    }

    ~SortJob() override {
        cudaStreamDestroy(side_);
        cudaEventDestroy(partitioned_);
        cudaEventDestroy(kept_);
    }

    void poison() override {
        d_out_keys_.poison();
        if constexpr (kPairs) d_out_vals_.poison();
    }

    // Rank 0 gathers every GPU's sorted slice, in GPU order: one array, checked like 08's output.
    course::CheckResult check() override {
        std::vector<K> keys = mgpu::gather_to_lead(d_out_keys_.data(), received_);
        std::vector<uint32_t> vals;
        if constexpr (kPairs) vals = mgpu::gather_to_lead(d_out_vals_.data(), received_);
        course::CheckResult r;
        if (mgpu::team().lead()) {
            if constexpr (kPairs) r = sorting::check_pairs(input_, keys, vals);
            else r = sorting::check_keys(input_, keys, ref_);
        }
        return mgpu::agree(r);
    }

private:
    static size_t onesweep_limit() { return (size_t(1) << 30) - 1; }
    void grow(size_t cap) {   // receive and output buffers (and 08's scratch grows by itself)
        if (cap <= cap_) return;
        cap_ = cap;
        d_recv_keys_ = course::DeviceArray<K>(cap);
        d_out_keys_ = course::DeviceArray<K>(cap);
        if constexpr (kPairs) {
            d_recv_vals_ = course::DeviceArray<uint32_t>(cap);
            d_out_vals_ = course::DeviceArray<uint32_t>(cap);
        }
    }
    std::vector<K> input_;
    sorting::KeysReference<K> ref_;
    mgpu::Slice mine_;
    size_t tiles_ = 0, cap_ = 0, received_ = 0;
    bool rounds_ = true;                           // the exchange's schedule (--exchange)
    course::DeviceArray<K> d_keys_, d_part_keys_, d_recv_keys_, d_out_keys_;
    course::DeviceArray<uint32_t> d_vals_, d_part_vals_, d_recv_vals_, d_out_vals_, d_counts_, d_starts_;
    course::DeviceArray<Sample> d_samples_, d_all_samples_;
    cudaStream_t side_ = nullptr;                  // the kept bucket's copy, beside the exchange
    cudaEvent_t partitioned_ = nullptr, kept_ = nullptr;
    course::DeviceArray<uint64_t> d_sizes_, d_matrix_;
};

}  // namespace msort

int main(int argc, char** argv) {
    sorting::Sorter offered = radix::sorter_for<onesweep::Sort<>>();   // 08's types: the battery's list
    course::LessonDef def;
    def.lesson = "04_sort";
    def.version = "10_multi_gpu";
    def.cli.program = def.version;
    def.cli.summary = "sort keys ascending across GPUs (" + course::join(sorting::offered_types(offered), ", ") + ")";
    def.cli.dists = sorting::dists();
    def.cli.dtypes = sorting::offered_types(offered);
    def.cli.n_default = uint64_t(1) << 24;
    def.cli.extras = {{"exchange", true, "rounds (default: P-1 rounds, GPU g sends to g+r) or group (all pairs in one NCCL group)"}};
    def.validate = [](const course::Options& o) {
        if (o.has("exchange") && o.get("exchange") != "rounds" && o.get("exchange") != "group")
            course::usage_error("--exchange '" + o.get("exchange") + "' must be rounds or group");
    };
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
    // A GPU receives about n/P keys (up to kReceiveSlack more): it must stay below 08's 2^30.
    def.beyond_limit = [](const course::Case& c) -> std::string {
        int P = mgpu::team().size;
        double most = msort::kReceiveSlack * double(c.n) / P;
        if (P > msort::kMaxGpus) return "at most " + std::to_string(msort::kMaxGpus) + " GPUs";
        if (most < double((uint64_t(1) << 30) - 1)) return "";
        return "n=" + std::to_string(c.n) + " on " + std::to_string(P) + " GPUs: a GPU may receive " +
               std::to_string(uint64_t(most)) + " keys, beyond the one-GPU sort's 2^30 - 1 (use more GPUs)";
    };
    return mgpu::drive(argc, argv, def, [](const course::Options& o, const course::Case& c) -> std::unique_ptr<mgpu::Job> {
        if (c.dtype == "uint32") return std::make_unique<msort::SortJob<uint32_t, false>>(o, c);
        if (c.dtype == "int32") return std::make_unique<msort::SortJob<int32_t, false>>(o, c);
        if (c.dtype == "float32") return std::make_unique<msort::SortJob<float, false>>(o, c);
        if (c.dtype == "uint64") return std::make_unique<msort::SortJob<uint64_t, false>>(o, c);
        if (c.dtype == "pairs") return std::make_unique<msort::SortJob<uint32_t, true>>(o, c);
        throw course::UsageError("this version does not offer --type " + c.dtype);
    });
}
