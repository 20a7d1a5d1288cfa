// lesson02_scan/scan.cuh — the lesson's best scan for the programs of other lessons:
//
//   scan::device_scan(d_in, d_out, n, scan::Kind::exclusive);    // int32, uint32 or float
//
// The kernel and its launcher live in 06_decoupled_lookback.cu, where a student reads them; this
// header includes that file without its main (COURSE_NO_MAIN), and leaves COURSE_NO_MAIN as it
// found it, so a program that includes it keeps its own main.
#pragma once
#ifdef COURSE_NO_MAIN
#include "06_decoupled_lookback.cu"
#else
#define COURSE_NO_MAIN
#include "06_decoupled_lookback.cu"
#undef COURSE_NO_MAIN
#endif
