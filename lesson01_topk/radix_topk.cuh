// lesson01_topk/radix_topk.cuh — the lesson's best 1-D top-k for other programs:
//
//   topk::radix::radix_topk<T>(d_in, n, k, smallest, d_vals, d_idx);   // k best, best first
//   topk::radix::limits()                                              // its size limits
//
// (T: float, int32_t, uint32_t, __half, __nv_bfloat16; radix_topk<T, Find, Pol> swaps the bucket
// choice or the tie policy, as exercises/choose_bucket and wrong/drop_ties do.) The kernels and the
// launcher live in topk_06_sampled_one_launch.cu, where a student reads them; this header includes
// that file without its main (COURSE_NO_MAIN), and leaves COURSE_NO_MAIN as it found it.
#pragma once
#ifdef COURSE_NO_MAIN
#include "topk_06_sampled_one_launch.cu"
#else
#define COURSE_NO_MAIN
#include "topk_06_sampled_one_launch.cu"
#undef COURSE_NO_MAIN
#endif
