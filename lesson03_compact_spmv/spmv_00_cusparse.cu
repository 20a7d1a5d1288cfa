// spmv_00_cusparse — the library bar: cusparseSpMV (CSR, 32-bit indices, CUSPARSE_SPMV_ALG_DEFAULT).
//
// cuSPARSE picks its own CSR kernel from the matrix shape. Every other spmv_NN version is measured
// against it on the same matrices. The handle, the matrix/vector descriptors and the work buffer
// are created once per matrix (on the untimed first call) and cached, so the timed launcher does
// only cusparseSpMV: creating descriptors or a handle inside the timed region would measure
// host-side setup, not the kernel. Every cuSPARSE status is checked (one line, exit 3).
//
// Cost model: the problem's bytes (values, column indices, row offsets, x, y); how close cuSPARSE
// gets to them is what the table shows (measured: see README.md, Part 3).
//
// Build alone:  nvcc -O3 -arch=native -o spmv00 spmv_00_cusparse.cu -lcusparse
// Run:          ./spmv00 --gen random --n 2^22      ./spmv00 --matrix F.mtx      ./spmv00 --test
#include <cusparse.h>

#include "spmv.cuh"

#define CUSPARSE_CHECK(call)                                                                            \
    do {                                                                                                \
        cusparseStatus_t st_ = (call);                                                                  \
        if (st_ != CUSPARSE_STATUS_SUCCESS) {                                                           \
            std::fprintf(stderr, "%s:%d: cuSPARSE error in '%s': %s (%s)\n", __FILE__, __LINE__, #call, \
                         cusparseGetErrorName(st_), cusparseGetErrorString(st_));                       \
            std::exit(::course::kExitCudaError);                                                        \
        }                                                                                               \
    } while (0)

namespace {

// One cached plan: valid while the same device arrays and shape are passed in.
struct Plan {
    cusparseSpMatDescr_t mat = nullptr;
    cusparseDnVecDescr_t vx = nullptr, vy = nullptr;
    const void *row_ptr = nullptr, *col = nullptr, *val = nullptr, *x = nullptr;
    void* y = nullptr;
    int rows = -1, cols = -1, nnz = -1;
    cudaDataType type = CUDA_R_32F;
    void* buffer = nullptr;
    void release() {
        if (mat) CUSPARSE_CHECK(cusparseDestroySpMat(mat));
        if (vx) CUSPARSE_CHECK(cusparseDestroyDnVec(vx));
        if (vy) CUSPARSE_CHECK(cusparseDestroyDnVec(vy));
        mat = nullptr;
        vx = vy = nullptr;
    }
};

cusparseHandle_t handle() {
    static cusparseHandle_t h = [] {
        cusparseHandle_t t;
        CUSPARSE_CHECK(cusparseCreate(&t));
        return t;
    }();
    return h;
}

template <class T> void cusparse_spmv(const spmv::Csr<T>& A, const T* x, T* y) {
    if (A.rows == 0) return;
    if (A.nnz == 0) {   // nothing to multiply: y is all zeros (a memset, not an allocation)
        CUDA_CHECK(cudaMemsetAsync(y, 0, size_t(A.rows) * sizeof(T)));
        return;
    }
    static Plan plan;
    const cudaDataType type = std::is_same_v<T, float> ? CUDA_R_32F : CUDA_R_64F;
    // The device pointers identify the matrix: the trial keeps them fixed for all its runs.
    bool same = plan.mat && plan.row_ptr == A.row_ptr && plan.col == A.col && plan.val == A.val && plan.x == x &&
                plan.y == y && plan.rows == A.rows && plan.cols == A.cols && plan.nnz == A.nnz && plan.type == type;
    const T alpha = T(1), beta = T(0);
    if (!same) {
        plan.release();
        CUSPARSE_CHECK(cusparseCreateCsr(&plan.mat, A.rows, A.cols, A.nnz, const_cast<int*>(A.row_ptr),
                                         const_cast<int*>(A.col), const_cast<T*>(A.val), CUSPARSE_INDEX_32I,
                                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
        CUSPARSE_CHECK(cusparseCreateDnVec(&plan.vx, A.cols, const_cast<T*>(x), type));
        CUSPARSE_CHECK(cusparseCreateDnVec(&plan.vy, A.rows, y, type));
        size_t bytes = 0;
        CUSPARSE_CHECK(cusparseSpMV_bufferSize(handle(), CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, plan.mat, plan.vx,
                                               &beta, plan.vy, type, CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
        // float and double plans live side by side: each keeps its own scratch slot
        plan.buffer = course::scratch(std::is_same_v<T, float> ? 0 : 1, std::max<size_t>(bytes, 16));
        plan.row_ptr = A.row_ptr;
        plan.col = A.col;
        plan.val = A.val;
        plan.x = x;
        plan.y = y;
        plan.rows = A.rows;
        plan.cols = A.cols;
        plan.nnz = A.nnz;
        plan.type = type;
    }
    // beta = 0: cuSPARSE does not read y (the poisoned output cannot leak into the result).
    CUSPARSE_CHECK(cusparseSpMV(handle(), CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, plan.mat, plan.vx, &beta, plan.vy,
                                type, CUSPARSE_SPMV_ALG_DEFAULT, plan.buffer));
    CUDA_CHECK_LAST();
}

}   // namespace

int main(int argc, char** argv) {
    return spmv::run_lesson(argc, argv, "spmv_00_cusparse", cusparse_spmv<float>, cusparse_spmv<double>);
}
