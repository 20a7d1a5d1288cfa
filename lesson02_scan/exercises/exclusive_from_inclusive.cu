// exercises/exclusive_from_inclusive — turn an inclusive scan into an exclusive one.
//
// The launcher below already computes the INCLUSIVE scan with the lesson's best kernel
// (scan::device_scan, scan.cuh: 06_decoupled_lookback's single pass). For --exclusive 1 it writes
// the inclusive scan into a scratch buffer and calls `exclusive_from_inclusive`, whose body is
// missing: until you write it, every exclusive case of the battery fails (the output stays poisoned).
// TODO: write the kernel body so that out[i] is the exclusive prefix:
//   out[0] = 0,  out[i] = inclusive[i - 1]  for 0 < i < n.
// Hints:
//  * One thread per element: the launch is course::blocks_for(n, 256) blocks of 256
//    (common/device.cuh); a grid-stride loop is safe too. i must be a size_t (n reaches 2^31).
//  * Why not out[i] = inclusive[i] - in[i]? For int32 it works (wrap-around subtraction undoes
//    wrap-around addition exactly), but for float32 it cancels catastrophically once the prefix is
//    large: try to explain why before you pick. This exercise passes `in` so you can experiment.
//  * Why a second buffer? Shifting in place would race: a thread could read inclusive[i - 1] after
//    another thread has already overwritten it.
// Check:  make grade EX=exclusive_from_inclusive   (exit 0 once done):
//         by hand: make build/lesson02_scan/exercises/exclusive_from_inclusive, then run it with --test --quick
// Solution: a few lines; compare with how tile::store in tile.cuh produces both kinds at once.
#include "../lesson.cuh"
#include "../scan.cuh"

// The exercise: out[i] = inclusive[i - 1] (0 at i = 0), run after the lesson's best inclusive scan.
template <class T> __global__ void exclusive_from_inclusive(const T* in, const T* inclusive, T* out, size_t n) {
    // TODO: out[i] = exclusive prefix of element i (see the header).
    (void)in;
    (void)inclusive;
    (void)out;
    (void)n;
}

template <class T> void scan_via_inclusive(const T* d_in, T* d_out, size_t n, scan::Kind kind) {
    if (n == 0) return;
    if (kind == scan::Kind::inclusive) {
        scan::device_scan(d_in, d_out, n, scan::Kind::inclusive, 1);
        return;
    }
    T* inclusive = course::scratch_as<T>(0, n);
    scan::device_scan(d_in, inclusive, n, scan::Kind::inclusive, 1);
    exclusive_from_inclusive<<<course::blocks_for(n, 256), 256>>>(d_in, inclusive, d_out, n);
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) {
    return scan::run_lesson(argc, argv, "exclusive_from_inclusive", scan_via_inclusive<int32_t>,
                            scan_via_inclusive<float>);
}
