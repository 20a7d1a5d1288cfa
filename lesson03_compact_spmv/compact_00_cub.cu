// compact_00_cub — the library bar: cub::DeviceSelect::If.
//
// CUB's select-if is a single-pass kernel: each block loads a tile, evaluates the predicate, scans
// the flags inside the block, learns how many elements earlier tiles kept by decoupled look-back,
// and writes its kept elements (staged through shared memory when that helps). It reads the input
// once and writes only what is kept: 4n + 4*kept bytes, the least the problem allows.
// Every other compaction version is measured against it.
//
// Build alone:  nvcc -O3 -arch=native -o compact00 compact_00_cub.cu
// Run:          ./compact00 --n 2^28 --pct 10        ./compact00 --test        ./compact00 --help
#include <cub/device/device_select.cuh>

#include "compact.cuh"

void compact_cub(const int32_t* d_in, int32_t* d_out, uint32_t* d_count, size_t n, uint32_t pct) {
    size_t temp_bytes = 0;
    compact::KeepPct op{pct};
    // First call: CUB only reports how much scratch it needs (scratch is cached across runs).
    CUDA_CHECK(cub::DeviceSelect::If(nullptr, temp_bytes, d_in, d_out, d_count, int64_t(n), op));
    void* temp = course::scratch(0, temp_bytes);
    CUDA_CHECK(cub::DeviceSelect::If(temp, temp_bytes, d_in, d_out, d_count, int64_t(n), op));
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) { return compact::run_lesson(argc, argv, "compact_00_cub", compact_cub); }
