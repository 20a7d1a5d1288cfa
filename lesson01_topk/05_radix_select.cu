// 05_radix_select — the best version: radix select from the most significant bits (AIR Top-K, SC'23).
//
// What changed: no per-element lists or sorting networks at all. The k-th largest key is found
// digit by digit from a histogram (11 + 11 + 10 bits): each pass counts the next digit of the keys
// that still match the k-th key's known top bits, the last block of the pass picks the bucket that
// holds the k-th key, and the next pass writes every element above that bucket straight to the
// output and keeps only the candidates. The whole pipeline is a fixed sequence of launches whose
// decisions live in device memory: no host round trip. The kernels are in radix_select.cuh.
//
// Cost model (n = 2^28 float32, k <= 2048, uniform): a 1/32 sample (0.03 reads of the input), one
// full read that histograms digit 0 and copies the elements of the top buckets to a candidate
// buffer (~130 K elements), then passes over that small buffer only: about 1.03 reads of the input
// + 7 launches. Without the sample's guess (or when it fails) a second full read: 2 reads. Inputs
// whose keys share their top bits (floats in [1, 2)) need a third. All-equal input stops after the
// first histogram (min == max) and takes the first k ties it meets.
// Works for every k from 1 to n; the results are ordered by one block (k <= 4096) or by CUB.
// Limits: n < 2^31.
//
// Build alone:  nvcc -O3 -arch=native -o topk05 05_radix_select.cu
// Run:          ./topk05 --n 2^28 --k 1024       ./topk05 --test       ./topk05 --sweep --csv r.csv
#include "radix_select.cuh"

int main(int argc, char** argv) {
    using namespace topk::radix;
    return topk::run_lesson(argc, argv, "05_radix_select", radix_topk<float>, radix_topk<int32_t>,
                            radix_topk<uint32_t>, limits());
}
