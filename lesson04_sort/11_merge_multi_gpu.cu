// 11_merge_multi_gpu — a sort across GPUs that sorts first: each GPU sorts its shard (08), splitters
// come from regular samples of the sorted shards, the sorted runs are exchanged, and each GPU merges
// the P runs it holds (05's merge path). GPU g ends with the g-th slice of the sorted array.
// What changed since 10: no partition pass. 10 split each unsorted shard into P buckets (the shard
// read twice and written once) before sorting; a SORTED shard splits at P-1 binary searches into
// contiguous runs, each sent as the 16-byte-aligned stretch that holds it (the kept run is merged
// in place, never copied). The merge
// reads and writes each received key once per round: one round on 2 GPUs, two on 4. Splitters from
// regular samples of sorted shards keep every GPU within about n/P x (1 + P/1024) keys, proven for
// any input (equal keys included), where 10's random samples needed a 1.25 x n/P margin.
// Steps: sort | splitters (1024 samples a GPU, ncclAllGather, a rank kernel, a cut kernel) |
// exchange (run sizes all-gathered: the job's one wait on the host; then every pair of GPUs at once,
// each on its own communicator, multi_gpu_sort.cuh) | merge (the neighbour's run first, as soon as it
// is in). Limit: a GPU sorts ceil(n/P) keys, which must stay below 08's 2^30 (look-back counts); the
// merge has none, so n < P x 2^30 (10: ~0.8 x P x 2^30). Its speed-up over 08: README_multi_gpu.md.
// Build: make build/lesson04_sort/11_merge_multi_gpu, or alone (NCCL from pip's nvidia-nccl-cu13):
//   nvcc -O3 -arch=native -std=c++17 -o sort11 11_merge_multi_gpu.cu -I$NCCL_HOME/include -L$NCCL_HOME/lib -l:libnccl.so.2
// Run:   ./sort11 --n 2^29 --gpus 2      ./sort11 --type pairs --n 2^29 --gpus 4      ./sort11 --test --gpus 1
#define COURSE_NO_MAIN
#include "05_merge_path.cu"     // the merge-path tile (merge_tile_lean, kTile), without 05's main
#include "multi_gpu_sort.cuh"   // 08's one-sweep launcher; the job's input, output and check; main
#undef COURSE_NO_MAIN

namespace msort {

// Step 2a: kSamples regular samples of this GPU's SORTED shard as (code, first + index) (10 took
// hashed positions of the unsorted shard); an empty shard marks its samples kNoSample.
template <class K>
__global__ void take_regular_samples(const K* sorted, size_t count, uint64_t first, Sample* samples) {
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= kSamples) return;
    if (count == 0) {
        samples[s] = Sample{kNoSample, kNoSample};
        return;
    }
    const uint64_t i = regular_sample_index(count, s);
    samples[s] = Sample{uint64_t(sorting::Ordered<K>::to(sorted[i])), first + i};
}

// Step 2b: new since 10 (which sorted the samples on the host): every sample's rank in the merge of
// all GPUs' sorted sample lists, one binary search per other list (staged in shared memory in turn);
// the samples of rank j x M / P are the splitters. Block (x, g) ranks 256 samples of GPU g.
__global__ void __launch_bounds__(256)
    pick_splitters(const Sample* all, int gpus, uint64_t real_samples, Sample* splitters) {
    __shared__ Sample list[kSamples];
    const int g = blockIdx.y, s = blockIdx.x * blockDim.x + threadIdx.x;
    const Sample x = all[size_t(g) * kSamples + s];
    uint64_t rank = uint64_t(s);
    for (int h = 0; h < gpus; ++h) {
        if (h == g) continue;
        __syncthreads();   // everyone is done with the previous list
        for (int i = threadIdx.x; i < kSamples; i += blockDim.x) list[i] = all[size_t(h) * kSamples + i];
        __syncthreads();
        rank += samples_before(list, x, h < g);
    }
    if (x.pos == kNoSample) return;
    for (int j = 1; j < gpus; ++j)
        if (rank == splitter_rank(j, real_samples, gpus)) splitters[j - 1] = x;
}

// The ordered code of the i-th key of a sorted shard, for cut_of.
template <class K> struct ShardCodes {
    const K* keys;
    __host__ __device__ uint64_t operator()(uint64_t i) const { return uint64_t(sorting::Ordered<K>::to(keys[i])); }
};

// Step 2c: new since 10 (whose bucket of a key was a splitter count per key): the cut of the sorted
// shard at each splitter, one binary search a thread; run q = [cut q-1, cut q) goes to GPU q, and
// its size is what the exchange all-gathers.
template <class K>
__global__ void cut_runs(const K* sorted, size_t count, uint64_t first, const Sample* splitters, int gpus,
                         uint64_t* sizes) {
    __shared__ uint64_t cut[kMaxGpus + 1];
    const int q = threadIdx.x;
    if (q == 0) cut[0] = 0;
    if (q < gpus)   // an empty shard reads no splitter (with n = 0 there are none)
        cut[q + 1] = q + 1 == gpus || count == 0 ? count : cut_of(ShardCodes<K>{sorted}, count, first, splitters[q]);
    __syncthreads();
    if (q < gpus) sizes[q] = cut[q + 1] - cut[q];
}

// Step 4a: where each merge tile's first output lies on the merge path. Delta from 05's
// partition_tiles: runs A and B are two arrays of any lengths (one of them the kept run, in place),
// not neighbours of one array of equal-width runs; boundaries 0..tiles, the last one included.
template <class K>
__global__ void partition_two_runs(const K* a, size_t na, const K* b, size_t nb, size_t tiles,
                                   unsigned long long* splits) {
    for (size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x; t <= tiles; t += size_t(gridDim.x) * blockDim.x) {
        const size_t diag = t * kTile < na + nb ? t * kTile : na + nb;
        splits[t] = (unsigned long long)(sorting::cmp::merge_path(a, na, b, nb, diag));
    }
}

// Step 4b: one 4096-output tile per block. Delta from 05's merge_tiles: the tile's A and B pieces
// come from two arrays; then 05's merge_tile_lean as it is (ties to A, the lower source rank).
template <class K, bool kPairs>
__global__ void __launch_bounds__(kBlock)
    merge_two_runs(const K* __restrict__ ka, const uint32_t* __restrict__ va, size_t na, const K* __restrict__ kb,
                   const uint32_t* __restrict__ vb, size_t nb, K* __restrict__ kdst, uint32_t* __restrict__ vdst,
                   const unsigned long long* __restrict__ splits) {
    extern __shared__ __align__(16) unsigned char dyn_smem[];
    K* sk = reinterpret_cast<K*>(dyn_smem);
    uint32_t* sv = reinterpret_cast<uint32_t*>(dyn_smem + kPadded * sizeof(K));
    const size_t t = blockIdx.x, start = t * kTile;
    const size_t end = start + kTile < na + nb ? start + kTile : na + nb;
    const size_t a_at = splits[t], a_end = splits[t + 1];   // A keys before the tile, before its end
    const size_t b_at = start - a_at, b_end = end - a_end;
    const int ta = int(a_end - a_at), tb = int(b_end - b_at);
    const uint32_t* vat = kPairs ? va + a_at : nullptr;
    const uint32_t* vbt = kPairs ? vb + b_at : nullptr;
    uint32_t* vout = kPairs ? vdst + start : nullptr;
    if (ta + tb == kTile)   // the same branch for the whole block
        merge_tile_lean<true, K, kPairs>(sk, sv, ka + a_at, kb + b_at, vat, vbt, kdst + start, vout, ta, tb);
    else merge_tile_lean<false, K, kPairs>(sk, sv, ka + a_at, kb + b_at, vat, vbt, kdst + start, vout, ta, tb);
}

// A sorted run on this GPU: the kept part of its own shard, a received run, or a merge of runs;
// `round`: it is all here once exchange rounds (pairings) 0..round are over (-1: from the start).
template <class K> struct Run {
    const K* keys;
    const uint32_t* vals;   // pairs only
    size_t count;
    int round;
};

// One GPU's share of the sort: its slice of the input in, its slice of the sorted output out
// (ShardJob, multi_gpu_sort.cuh, holds both and the check, as for 10).
template <class K, bool kPairs> class MergeJob : public ShardJob<K, kPairs> {
    using Base = ShardJob<K, kPairs>;
    using Base::mine_, Base::d_keys_, Base::d_vals_, Base::d_out_keys_, Base::d_out_vals_, Base::out_count_;

public:
    MergeJob(const course::Options& o, const course::Case& c) : Base(o, c) {
        mgpu::Team& t = mgpu::team();
        const int P = t.size;
        // What any GPU can receive (splitters.cuh proves the bound); grow() still checks each run.
        const size_t cap = std::max<size_t>(psrs_receive_bound(this->n, P), 1 << 16);
        // in, sorted, 08's tmp (the shard each); receive, out and the merge rounds' buffers (cap each)
        if (P == 1) mgpu::require_device_memory(this->kKeyBytes * 3.0 * mine_.count);   // in, out, 08's tmp
        else mgpu::require_device_memory(this->kKeyBytes * (3.0 * mine_.count + (2.0 + merge_buffers(P)) * cap));
        this->upload_shard();
        if (P == 1) {
            this->grow_output(mine_.count);
        } else {
            // kAlign more: the exchange sends each run's aligned stretch, which may end past the shard
            d_sorted_keys_ = mgpu::LinkArray<K>(mine_.count + kAlign);
            if constexpr (kPairs) d_sorted_vals_ = mgpu::LinkArray<uint32_t>(mine_.count + kAlign);
            CUDA_CHECK(cudaMemset(d_sorted_keys_.data() + mine_.count, 0, kAlign * sizeof(K)));   // sent, never read
            if constexpr (kPairs) CUDA_CHECK(cudaMemset(d_sorted_vals_.data() + mine_.count, 0, kAlign * 4));
            grow(cap);
        }
        for (int r = 0; r < P; ++r) real_samples_ += mgpu::slice_of(this->n, r, P).count ? kSamples : 0;
        d_samples_ = course::DeviceArray<Sample>(kSamples);
        d_all_samples_ = course::DeviceArray<Sample>(size_t(kSamples) * P);
        d_splitters_ = course::DeviceArray<Sample>(kMaxGpus - 1);
        d_sizes_ = course::DeviceArray<uint64_t>(P);
        d_matrix_ = course::DeviceArray<uint64_t>(size_t(P) * P);
        this->steps.name({"sort", "splitters", "exchange", "merge"});
        this->link_bytes.assign(4, 0.0);
    }

    void run() override {
        mgpu::Team& t = mgpu::team();
        const int P = t.size, me = t.rank;
        const size_t count = mine_.count;
        mgpu::Steps& steps = this->steps;
        steps.begin();
        // 1. sort: 08's launcher on this GPU's slice, stable (equal keys stay in input order). On one
        //    GPU the sorted slice is the answer: no splitters, exchange or merge.
        K* sorted = P == 1 ? d_out_keys_.data() : d_sorted_keys_.data();
        uint32_t* sorted_vals = P == 1 ? d_out_vals_.data() : d_sorted_vals_.data();
        onesweep::sort<K, kPairs>(d_keys_.data(), sorted, d_vals_.data(), sorted_vals, count);
        steps.end(0);
        if (P == 1) {
            out_count_ = count;
            for (int s = 1; s < 4; ++s) steps.end(s);
            return;
        }
        // 2. splitters: regular samples, all-gathered; every GPU ranks them (the same answer on
        //    every GPU) and cuts its sorted shard into P runs. Nothing waits on the host.
        take_regular_samples<K><<<kSamples / 256, 256>>>(sorted, count, mine_.begin, d_samples_.data());
        CUDA_CHECK_LAST();
        mgpu::all_gather(d_samples_.data(), d_all_samples_.data(), kSamples * sizeof(Sample));
        pick_splitters<<<dim3(kSamples / 256, P), 256>>>(d_all_samples_.data(), P, real_samples_, d_splitters_.data());
        CUDA_CHECK_LAST();
        cut_runs<K><<<1, kMaxGpus>>>(sorted, count, mine_.begin, d_splitters_.data(), P, d_sizes_.data());
        CUDA_CHECK_LAST();
        steps.end(1);
        // 3. exchange: the P x P run sizes first (every GPU learns what it receives), then the runs;
        //    the run this GPU keeps does not move.
        const Routes rt = route_runs(d_sizes_.data(), d_matrix_.data(), RunLayout::aligned);
        grow(std::max(rt.received, rt.recv_space));
        out_count_ = rt.received;
        this->link_bytes[2] = double(rt.sent_away) * this->kKeyBytes;
        send_runs<K, kPairs>(rt, sorted, sorted_vals, d_recv_keys_.data(), d_recv_vals_.data());
        steps.end(2, rounds_joined());   // every pairing is over: every run is here
        // 4. merge the P runs, in source order: the kept one where it lies, the others as received,
        //    each merge as soon as the pairings that bring its runs are over.
        std::vector<Run<K>> runs;
        for (int p = 0; p < P; ++p) {
            if (p == me)
                runs.push_back(
                    {sorted + rt.send_at[me], kPairs ? sorted_vals + rt.send_at[me] : nullptr, rt.from(me), -1});
            else
                runs.push_back({d_recv_keys_.data() + rt.recv_at[p],
                                kPairs ? d_recv_vals_.data() + rt.recv_at[p] : nullptr, rt.from(p),
                                mgpu::pair_round(me, p, P)});
        }
        merge_runs(std::move(runs));
        await_all_rounds();   // (the last merge waited for them already; the next sort overwrites what was sent)
        steps.end(3);
    }

private:
    // The merge: a tree of 05's two-run merges on neighbouring runs (0+1, 2+3, ...; an odd last run
    // waits for the next level) until one run is left, written to the output. Neighbours in source
    // order, A before B on ties: equal keys come out in source order, so pairs stay stable. Each
    // merge waits only for the pairings that bring its runs (on 2^j GPUs pairing 0 is the
    // neighbour, pair_partner), so 0+1 or 2+3 starts while other pairs are still on the wire (the
    // merge after the last arrival shrinks: TUNING.md has the measurement). On 4 GPUs this
    // still reads and writes every received key twice; a 4-way merge path would do it once, but
    // needs a search over 3 split points per tile and a 4-way choice per output in a kernel 05
    // showed to be bound by instructions, not bytes.
    void merge_runs(std::vector<Run<K>> runs) {
        struct Merge {
            Run<K> a, b;
            K* kdst;
            uint32_t* vdst;
        };
        std::vector<Merge> merges;
        for (int level = 0; runs.size() > 1; ++level) {
            const bool last = runs.size() == 2;
            // P <= 8: at most two levels before the last (8 -> 4 -> 2 -> 1), into tmp 0 then tmp 1,
            // so a run that waits a level is never overwritten.
            K* kdst = last ? d_out_keys_.data() : d_tmp_keys_[level].data();
            uint32_t* vdst = last ? d_out_vals_.data() : d_tmp_vals_[level].data();
            std::vector<Run<K>> next;
            size_t at = 0;
            for (size_t i = 0; i + 1 < runs.size(); i += 2) {
                merges.push_back({runs[i], runs[i + 1], kdst + at, kPairs ? vdst + at : nullptr});
                const size_t merged = runs[i].count + runs[i + 1].count;
                next.push_back(
                    {kdst + at, kPairs ? vdst + at : nullptr, merged, std::max(runs[i].round, runs[i + 1].round)});
                at += merged;
            }
            if (runs.size() % 2) next.push_back(runs.back());
            runs = std::move(next);
        }
        // A merge is ready no sooner than the merges that make its runs, which come earlier in the
        // list: a stable sort by readiness keeps them first.
        auto ready = [](const Merge& m) { return std::max(m.a.round, m.b.round); };
        std::stable_sort(merges.begin(), merges.end(),
                         [&](const Merge& x, const Merge& y) { return ready(x) < ready(y); });
        int waited = -1;
        for (const Merge& m : merges) {
            if (ready(m) > waited) await_round(waited = ready(m));
            merge_two(m.a, m.b, m.kdst, m.vdst);
        }
    }

    // 05's merge path on two runs at two places: one split per tile boundary, then one block a tile.
    void merge_two(const Run<K>& a, const Run<K>& b, K* kdst, uint32_t* vdst) {
        const size_t total = a.count + b.count;
        if (total == 0) return;
        const size_t tiles = (total + kTile - 1) / kTile;
        partition_two_runs<K>
            <<<course::blocks_for(tiles + 1, 256), 256>>>(a.keys, a.count, b.keys, b.count, tiles, d_splits_.data());
        CUDA_CHECK_LAST();
        constexpr size_t kSmem = merge_smem<K, kPairs>();
        course::allow_dynamic_smem(merge_two_runs<K, kPairs>, kSmem);
        merge_two_runs<K, kPairs><<<course::blocks_for(total, kTile), kBlock, kSmem>>>(
            a.keys, a.vals, a.count, b.keys, b.vals, b.count, kdst, vdst, d_splits_.data());
        CUDA_CHECK_LAST();
    }

    // Buffers of a whole merge round's output before the last round: 1 from 3 GPUs, 2 from 5.
    static int merge_buffers(int gpus) { return gpus >= 5 ? 2 : gpus >= 3 ? 1 : 0; }

    void grow(size_t cap) {   // receive, merge rounds' and output buffers (08's scratch grows by itself)
        if (cap <= cap_) return;
        cap_ = cap;
        d_recv_keys_ = mgpu::LinkArray<K>(cap);
        if constexpr (kPairs) d_recv_vals_ = mgpu::LinkArray<uint32_t>(cap);
        for (int r = 0; r < merge_buffers(mgpu::team().size); ++r) {
            d_tmp_keys_[r] = course::DeviceArray<K>(cap);
            if constexpr (kPairs) d_tmp_vals_[r] = course::DeviceArray<uint32_t>(cap);
        }
        d_splits_ = course::DeviceArray<unsigned long long>(cap / kTile + 2);
        this->grow_output(cap);
    }

    size_t cap_ = 0;
    uint64_t real_samples_ = 0;                        // kSamples for every GPU whose shard is not empty
    mgpu::LinkArray<K> d_sorted_keys_, d_recv_keys_;   // what is sent and received (registered with NCCL)
    mgpu::LinkArray<uint32_t> d_sorted_vals_, d_recv_vals_;
    course::DeviceArray<K> d_tmp_keys_[2];
    course::DeviceArray<uint32_t> d_tmp_vals_[2];
    course::DeviceArray<unsigned long long> d_splits_;
    course::DeviceArray<Sample> d_samples_, d_all_samples_, d_splitters_;
    course::DeviceArray<uint64_t> d_sizes_, d_matrix_;
};

}   // namespace msort

// Each GPU sorts its slice, ceil(n/P) keys: only that must stay below 08's 2^30 (the merge has no
// such limit), so n < P x 2^30.
int main(int argc, char** argv) {
    return msort::run_sort_program<msort::MergeJob>(
        argc, argv, "11_merge_multi_gpu", [](uint64_t n, int P) -> std::string {
            const uint64_t most = mgpu::slice_of(n, 0, P).count;
            if (most < (uint64_t(1) << 30)) return "";
            return "n=" + std::to_string(n) + " on " + std::to_string(P) + " GPUs: a GPU sorts " +
                   std::to_string(most) + " keys, beyond the one-GPU sort's 2^30 - 1 (use more GPUs)";
        });
}
