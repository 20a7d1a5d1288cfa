// wrong/hillis_steele_in_place — the source post's first version: Hillis-Steele scanned IN PLACE.
// CAUGHT-BY: racecheck --n 1024 --reps 1
//
// The bug: in step `offset`, thread i reads s[i - offset] while thread i - offset is writing its
// own new value into that same slot, in the same step. Whether i reads the old or the new value
// depends on which warp the scheduler runs first, so the result changes from run to run (the post
// saw "a non-reproducible bug above 512 elements"). A barrier between the read and the write
// would fix it, and so does 01_hillis_steele's double buffering. The checker may or may not see a
// wrong answer on a given run; compute-sanitizer's racecheck reports the shared-memory hazard
// (read-after-write / write-after-read between threads of different warps) every time:
//   compute-sanitizer --tool racecheck ./hs_in_place --n 1024 --reps 1
#include "../lesson.cuh"

constexpr int kBlock = 1024;

// The bug: 01's kernel with one shared buffer, so a step reads slots that the same step is overwriting.
__global__ void hillis_steele_in_place(const int32_t* in, int32_t* out, int n, bool exclusive) {
    __shared__ int32_t s[kBlock];
    int i = threadIdx.x;
    int32_t x = 0;
    if (exclusive) x = (i > 0 && i - 1 < n) ? in[i - 1] : 0;
    else x = i < n ? in[i] : 0;
    s[i] = x;
    __syncthreads();
    for (int offset = 1; offset < kBlock; offset *= 2) {
        if (i >= offset) s[i] = scan::wrap_add(s[i], s[i - offset]);   // RACE: s[i - offset] may already be updated
        __syncthreads();
    }
    if (i < n) out[i] = s[i];
}

void scan_in_place(const int32_t* d_in, int32_t* d_out, size_t n, scan::Kind kind) {
    if (n == 0) return;
    hillis_steele_in_place<<<1, kBlock>>>(d_in, d_out, int(n), kind == scan::Kind::exclusive);
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) {
    scan::Limits limits;
    limits.max_n = kBlock;
    limits.why = "one block, one element per thread";
    limits.tile = kBlock;
    return scan::run_lesson(argc, argv, "hillis_steele_in_place", scan_in_place, nullptr, limits);
}
