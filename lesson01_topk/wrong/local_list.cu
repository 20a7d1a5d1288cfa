// wrong/local_list — the seed's per-thread array indexed at run time: correct, but slow.
// CAUGHT-BY: none (performance pitfall; see README)
//
// The source post keeps each thread's top-k in `int top_array[topk]` and indexes it with a loop
// variable whose bound is only known at run time. Registers cannot be indexed at run time, so the
// compiler places the array in LOCAL memory: per-thread memory that lives in DRAM (cached in L1/L2).
// Every insertion then loads and stores up to k 8-byte words through the memory pipeline instead of
// moving registers or shared memory. The answer is right (this program passes --test); the cost shows
// in the build and in the profiler:
//   nvcc -O3 -arch=native -Xptxas -v wrong/local_list.cu      -> "N bytes stack frame" for the kernel
//   ncu --metrics l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum \
//       build/lesson01_topk/wrong/local_list --n 2^24 --k 64 --reps 1
// Compare with topk_01_seed_insertion (the lists in shared memory): zero local bytes.
#include "../insertion.cuh"

using namespace topk;

// The bug: 01's insertion pass with each thread's list in a run-time-indexed local array, not in shared memory.
template <class T>
__global__ void local_list_pass(const T* __restrict__ in, size_t n, int k, bool smallest, uint64_t* __restrict__ out) {
    extern __shared__ uint64_t lists[];
    uint64_t list[insertion::kMaxK];   // indexed by run-time j below: local memory
    for (int j = 0; j < k; ++j) list[j] = kEmpty;
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
        uint64_t x = pack(to_key(in[i], smallest), uint32_t(i));
        insertion::Insert::apply(list, 1, k, x);   // stride 1 in a per-thread array
    }
    for (int j = 0; j < k; ++j) lists[j * blockDim.x + threadIdx.x] = list[j];
    __syncthreads();
    insertion::merge_tree(lists, k);
    for (int j = threadIdx.x; j < k; j += blockDim.x) out[blockIdx.x * size_t(k) + j] = lists[j * blockDim.x];
}

template <class T> void local_topk(const T* d_in, size_t n, size_t k, bool smallest, T* d_vals, uint32_t* d_idx) {
    int block = insertion::block_for_k(k);
    unsigned grid = std::min<unsigned>(course::blocks_for(n, block), unsigned(4 * course::device().sm_count));
    uint64_t* cand = course::scratch_as<uint64_t>(0, size_t(grid) * k);
    uint64_t* best = course::scratch_as<uint64_t>(1, k);
    local_list_pass<<<grid, block, size_t(block) * k * sizeof(uint64_t)>>>(d_in, n, int(k), smallest, cand);
    CUDA_CHECK_LAST();
    insertion::run_pass<T, false>(d_in, cand, size_t(grid) * k, k, smallest, best, 1);
    write_packed<<<course::blocks_for(k, 256), 256>>>(d_in, n, best, k, d_vals, d_idx);
    CUDA_CHECK_LAST();
}

int main(int argc, char** argv) {
    return topk::run_lesson(argc, argv, "wrong_local_list", local_topk<float>, local_topk<int32_t>,
                            local_topk<uint32_t>, insertion::limits());
}
