#include "lesson.cuh"
#include "scan.cuh"
void s_int(const int32_t* a, int32_t* b, size_t n, scan::Kind k){ scan::device_scan(a,b,n,k,0); }
void s_f(const float* a, float* b, size_t n, scan::Kind k){ scan::device_scan(a,b,n,k,0); }
int main(int argc, char** argv){ return scan::run_lesson(argc, argv, "06_decoupled_lookback", s_int, s_f); }
