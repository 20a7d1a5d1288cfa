// wrong/compact_stage_no_barrier — compact_03_lookback without the barrier between staging the
// kept elements in shared memory and copying the staged run out.
// CAUGHT-BY: racecheck --n 100000 --reps 1
//
// Every thread writes its kept elements to s_stage[...], then the block copies the staged run to
// global memory with thread t taking elements t, t + 128, ...: almost every element is read by a
// DIFFERENT warp than the one that wrote it. Without __syncthreads() in between, a fast warp copies
// slots that a slower warp has not written yet (read-after-write hazard). Whether the output comes
// out wrong depends on timing (often it does not: the warps are nearly in step), which is exactly
// why this kind of bug survives testing; compute-sanitizer's racecheck reports the hazard on every
// run, because it tracks who wrote each shared-memory word since the last barrier.
//
// Run:  compute-sanitizer --tool racecheck --error-exitcode 42 ./compact_stage_no_barrier --n 100000 --reps 1
#define COURSE_NO_MAIN
#include "../compact_03_lookback.cu"

int main(int argc, char** argv) {
    return compact::run_lesson(argc, argv, "compact_stage_no_barrier", compact_lookback<false>);   // BUG: no barrier
}
