// wrong/ring_missing_expect_tx — 08_tma_pipeline's ring, but the producer announces a fill with a
// plain mbarrier arrive instead of arrive.expect_tx(bytes).
// CAUGHT-BY: checker
//
// full[s] is armed for one arrival. With expect_tx, that arrival also adds the copy's bytes to the
// phase, which then completes only when the copy engine has counted them all down. Without it the
// phase completes at the arrival itself, before the copy has even started: the consumers read the
// stage while it still holds whatever was there (wrong sums, caught by the checker). The bytes are
// then counted down on the NEXT phase, which can never reach zero: a refill of the stage waits
// forever. tma_ring's waits are bounded, so that wait traps after 2 s and the launcher reports it
// (exit 1) instead of hanging the test run.
// Needs a GPU with TMA (sm_90+) and code built for it; elsewhere it says so (exit 77).
// Run: ./ring_missing_expect_tx --test --quick   (exit 1)
#define COURSE_NO_MAIN
#include "../08_tma_pipeline.cu"

// The bug: producer_commit arrives without announcing the bytes (the rest is tma_ring::Handoff).
struct NoExpectTx : tma_ring::Handoff<scan::ring::kStages> {
    __device__ static void producer_commit(uint64_t* full, unsigned i, void* dst, const void* src, uint32_t bytes) {
        uint64_t* bar = &full[i % scan::ring::kStages];
        tma_ring::arrive(bar);
        if (bytes) tma_ring::bulk_copy(dst, src, bytes, bar);
    }
};

template <class T> void ring_scan(const T* in, T* out, size_t n, scan::Kind kind) {
    if (!scan::ring::tma_path()) {
        std::fprintf(stderr, "ring_missing_expect_tx needs a GPU with TMA (sm_90+) and code built for it; skipped\n");
        std::exit(course::kExitNoDevice);
    }
    scan::ring::launch_ring_scan<T, NoExpectTx>(in, out, n, kind, 1, 0);
    tma_ring::exit_if_ring_stopped("a fill announced without its bytes (arrive instead of arrive.expect_tx)");
}
void scan_int(const int32_t* in, int32_t* out, size_t n, scan::Kind kind) {
    ring_scan(reinterpret_cast<const uint32_t*>(in), reinterpret_cast<uint32_t*>(out), n, kind);
}
void scan_float(const float* in, float* out, size_t n, scan::Kind kind) { ring_scan(in, out, n, kind); }

int main(int argc, char** argv) {
    scan::Limits limits;
    limits.tile = scan::ring::kTile;
    return scan::run_lesson(argc, argv, "ring_missing_expect_tx", scan_int, scan_float, limits);
}
