// exercises/ring_handoff — write the hand-off of 08_tma_pipeline's ring of shared-memory stages.
//
// The kernel is 08's: a producer warp fills stage i % S (S = 2) for fill number i = 0, 1, 2, ...
// and 8 consumer warps scan each fill. Between them, two mbarriers per stage (tma_ring.cuh):
// full[s] (armed for 1 arrival) and empty[s] (armed for 8, one per consumer warp). The consumer
// side is given; the producer's two steps are yours. The skeleton does nothing, so the consumers
// wait for a fill that never comes: after 2 s their wait traps and the program says so (exit 1).
// TODO, in MyHandoff below:
//  * producer_acquire(empty, i): before fill i reuses its stage, wait until the consumers have
//    handed back fill i - S (nothing to wait for in the first S fills). Which phase of empty[s]
//    is that, and so which parity? (tma_ring::wait(bar, parity) waits for a phase of that parity.)
//  * producer_commit(full, i, dst, src, bytes): announce the bytes on full[s] with
//    tma_ring::arrive_expect_tx, then start tma_ring::bulk_copy (it counts them down on full[s]).
//    bytes == 0 (a partial last tile: its consumers read memory): a plain tma_ring::arrive.
// Why does the announcement go first? What if you swap the two calls, or count elements, not
// bytes? (README, "08_tma_pipeline": the pitfalls.) The grid is capped at 4 blocks, so every
// stage is refilled many times: a wrong parity shows.
// Needs a GPU with TMA (sm_90+) and code built for it (ARCH=90 or native); elsewhere it says so
// and stops (exit 77).   Check:  make grade EX=ring_handoff   (exit 0 once done)
#define COURSE_NO_MAIN   // 08's kernel and launcher, without its main
#include "../08_tma_pipeline.cu"

struct MyHandoff {
    static constexpr int S = scan::ring::kStages;
    __device__ static void producer_acquire(uint64_t* empty, unsigned i) {
        // TODO: wait for the consumers to hand back fill i - S (see the header).
        (void)empty;
        (void)i;
    }
    __device__ static void producer_commit(uint64_t* full, unsigned i, void* dst, const void* src, uint32_t bytes) {
        // TODO: announce `bytes` on full[i % S] and start the copy; bytes == 0: a plain arrival.
        (void)full;
        (void)i;
        (void)dst;
        (void)src;
        (void)bytes;
    }
    // Given: a consumer waits for phase i / S of full[s], then (lane 0, once the warp has read the
    // stage) arrives on empty[s].
    __device__ static void consumer_wait(uint64_t* full, unsigned i) { tma_ring::wait(&full[i % S], (i / S) & 1); }
    __device__ static void consumer_release(uint64_t* empty, unsigned i) { tma_ring::arrive(&empty[i % S]); }
};

constexpr unsigned kBlocks = 4;   // few blocks: each stage is refilled many times

template <class T> void ring_scan(const T* in, T* out, size_t n, scan::Kind kind) {
    if (!scan::ring::tma_path()) {
        std::fprintf(stderr, "ring_handoff needs a GPU with TMA (sm_90+) and code built for it; skipped\n");
        std::exit(course::kExitNoDevice);
    }
    scan::ring::launch_ring_scan<T, MyHandoff>(in, out, n, kind, 1, 0, kBlocks);
    tma_ring::exit_if_ring_stopped(
        "does every fill arrive on full[s] (with its bytes), and every refill wait for empty[s]?");
}
void scan_int(const int32_t* in, int32_t* out, size_t n, scan::Kind kind) {
    ring_scan(reinterpret_cast<const uint32_t*>(in), reinterpret_cast<uint32_t*>(out), n, kind);
}
void scan_float(const float* in, float* out, size_t n, scan::Kind kind) { ring_scan(in, out, n, kind); }

int main(int argc, char** argv) {
    scan::Limits limits;
    limits.tile = scan::ring::kTile;
    return scan::run_lesson(argc, argv, "ring_handoff", scan_int, scan_float, limits);
}
